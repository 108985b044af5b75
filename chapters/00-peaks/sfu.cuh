// sfu.cuh: the loop of chapter 00's special-function rows. Two translation units compile it:
// peaks.cu as written, and fastmath.cu with --use_fast_math, so that the sinf-fm and expf-fm
// rows run the very source of the sinf and expf rows, only built the other way.
#ifndef PEAKS_SFU_CUH
#define PEAKS_SFU_CUH

#include <math.h>

// Independent sweeps a thread, as the FMA rows' chains: while one call waits for the result of
// its last instruction, the scheduler issues the other sweeps' instructions.
#define SFU_CHAINS 8

// Where the sweeps run. Chain j of thread t starts at lo + ((t % 1024) * SFU_CHAINS + j) * spacing
// (8192 starts, each exact in float) and moves on by step = span / iters after each call, so the
// arguments stay below lo + 8192 spacing + span however many trips -k asks for.
// sin: starts in [0.25, 0.5), arguments below 1.5: inside (0, pi/2), where sin rises, and inside
// [-pi, pi], the range where the Programming Guide bounds __sinf's error.
#define SIN_LO 0.25f
#define SIN_SPACING 0x1p-15f
#define SIN_SPAN 1.0f
// exp: starts in [-2, 2), arguments below 6: results from 0.135 to 403, all normal floats, so
// flushing denormals to zero (which --use_fast_math also does) changes none of them.
#define EXP_LO (-2.0f)
#define EXP_SPACING 0x1p-11f
#define EXP_SPAN 4.0f

// What each row calls. Built with --use_fast_math, the compiler turns sinf into __sinf and expf
// into __expf by itself (CUDA C++ Programming Guide, "Intrinsic Functions").
struct call_sinf {
    __device__ float operator()(float x) const { return sinf(x); }
};
struct call_expf {
    __device__ float operator()(float x) const { return expf(x); }
};
struct call_fast_sinf {
    __device__ float operator()(float x) const { return __sinf(x); }
};
struct call_fast_expf {
    __device__ float operator()(float x) const { return __expf(x); }
};

// Each trip calls f once for each chain and keeps the largest result. fmaxf is exact, so nothing
// rounds between a call and the output, and f rises along every sweep, so the largest result is
// the last call's (the CPU checks it against f at the last argument). No call can be left out:
// the compiler cannot know which one will be the largest. Adding step is exact or rounds the
// same way on the CPU, which repeats the additions to know every argument.
template <typename F>
__device__ __forceinline__ void sfu_sweep(float *out, int iters, float lo, float spacing,
                                          float step, F f) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    float x[SFU_CHAINS], y[SFU_CHAINS];
#pragma unroll
    for (int j = 0; j < SFU_CHAINS; j++) {
        x[j] = lo + (float)((tid % 1024) * SFU_CHAINS + j) * spacing;  // exact: no rounding
        y[j] = -INFINITY;
    }
#pragma unroll 2
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int j = 0; j < SFU_CHAINS; j++) {
            y[j] = fmaxf(y[j], f(x[j]));
            x[j] += step;
        }
    // chain j's results lie side by side: out[j * threads + t], t in [0, threads)
#pragma unroll
    for (int j = 0; j < SFU_CHAINS; j++) out[j * threads + tid] = y[j];
}

// The launchers fastmath.cu defines: the sinf and expf sweeps, compiled with --use_fast_math.
void launch_sinf_fastmath(float *out, unsigned blocks, unsigned threads, int iters, float step);
void launch_expf_fastmath(float *out, unsigned blocks, unsigned threads, int iters, float step);

#endif
