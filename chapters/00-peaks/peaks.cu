// Chapter 00: peaks. Before making anything faster we measure how fast this GPU can go at
// all: each later chapter reports its versions as a fraction of one of these ceilings.
//
//   memcpy   cudaMemcpy device to device: the memory ceiling (bytes read + bytes written)
//   copy     the vectorized copy kernel of common/copy.cuh: that ceiling, reached by a kernel
//   fma      FP32 fused multiply-adds from registers: the arithmetic ceiling (2 flops each)
//   addmin   an FP32 add then a min from registers: the inner loop of the min-plus product
//   smem     16-byte loads from shared memory: the shared-memory ceiling
//   dfma     FP64 fused multiply-adds from registers: the double-precision ceiling of the CUDA cores
//   dmma     FP64 matrix multiply-adds on the tensor cores, mma.sync m8n8k4 (compute capability 8.0)
//   dmma16   the same with Hopper's larger shape, m16n8k16 (compute capability 9.0)
//   sinf     the accurate sinf: range reduction and a polynomial on the FMA pipe (2 ulp)
//   __sinf   the hardware's approximate sine, MUFU.SIN on the special-function units
//   sinf-fm  sinf's own source built with --use_fast_math (fastmath.cu): it becomes __sinf
//   expf     the accurate expf: MUFU.EX2 with FMAs around it to keep 2 ulp
//   __expf   the approximate expf: a multiply and MUFU.EX2
//   expf-fm  expf's own source built with --use_fast_math
// The fma loop in smaller shapes, each taking away one kind of parallelism a CPU also has:
//   fma-w4       4 warps an SM, one for each scheduler: 8 chains keep each one issuing
//   fma-w4-sm1   the same on one SM: one core of many
//   fma-w4-lane1 one lane of each warp's 32 at work: the vector unit one lane wide
//   fma-w4-ilp1  one chain a thread: each FMA waits for the last (no instruction-level parallelism)
//   fma-ilp1     one chain a thread but every SM full of warps: other warps hide the wait
// The fma loop unrolled less and more than fma's 16 trips a pass (#pragma unroll N): what
// unrolling buys, and what it costs once the loop outgrows the instruction caches:
//   fma-unroll1     the loop rolled: a counter, a compare and a branch for every 8 FFMAs
//   fma-unroll128   1024 FFMAs a pass, about 17 KiB of machine code (16 bytes an instruction)
//   fma-unroll512   4096 FFMAs, about 65 KiB
//   fma-unroll2048  16384 FFMAs, about 257 KiB (TRY: ask for 4096; make sass CH=00-peaks shows
//                   what nvcc made of it)
// The smem loop with narrower loads, and the old 8-byte bank mode:
//   smem-lds32      4-byte loads: a warp reads 128 contiguous bytes, a quarter of LDS.128's
//   smem-lds64      8-byte loads
//   smem-lds64-8b   smem-lds64 after asking for 8-byte banks (cudaDeviceSetSharedMemConfig)
//
// Each is reported as a rate, per clock per SM, and against the datasheet where it has one.
//
// Build and run:   make build/peaks && build/peaks
//                  build/peaks -v fma,addmin --reps 50
//                  build/peaks -n 67108864 -v copy        (a 256 MiB copy)
//                  build/peaks -k 64 -v fma               (64 loop trips, for the sanitizers)
//                  build/peaks -v fma,dfma,dmma           (single against double precision)
//                  build/peaks -v sinf,__sinf,sinf-fm     (the special-function units)
//                  build/peaks -k 262144 -v fma-w4,fma-w4-sm1,fma-w4-lane1,fma-w4-ilp1,fma-ilp1
//                  build/peaks -v fma,fma-unroll1,fma-unroll2048    (unrolling, measured)
//                  build/peaks -v smem,smem-lds32,smem-lds64,smem-lds64-8b
#include <math.h>
#include <string.h>

#include "copy.cuh"
#include "gpu.h"
#include "rng.h"
#include "sfu.cuh"

// 2^28 floats: each copy buffer is 1 GiB, some 18 times the L2, so copies measure device
// memory. The arithmetic kernels do not read memory; they size their grid to the GPU.
#define DEFAULT_N (1u << 28)
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42

// The arithmetic kernels: 256 threads a block, and a grid of as many threads as the SMs can hold
// (8 blocks an SM on Hopper, 64 warps). A kernel whose registers let fewer blocks an SM run at
// once (the tensor-core ones) runs that grid in rounds. Many warps, each with several
// independent chains, keep every pipeline busy however long its latency.
#define PEAK_THREADS 256
// Independent chains per thread: the next instruction of a chain waits for the last one (about
// 4 cycles), so a thread gives the scheduler CHAINS instructions it can issue back to back. The
// fma-w4-ilp1 row runs one chain, and the FMA rate drops to what latency allows.
#define CHAINS 8
// The analogy rows' block: 4 warps, one for each of an SM's four schedulers, and one block an SM.
#define W4_THREADS 128
// Loop trips (-k): long enough (milliseconds a launch) that launch overhead does not count;
// the sanitizers use a few. The shared-memory kernel makes a quarter as many, each moving more.
#define DEFAULT_ITERS 16384
#define SMEM_TRIPS(iters) ((iters) / 4 > 0 ? (iters) / 4 : 1)
// Loads of W floats (4, 2 or 1: LDS.128, LDS.64, LDS.32) make 4 / W times the trips of the
// 16-byte loads, so that every smem row moves the same bytes.
static int smem_trips(int iters, int w) { return SMEM_TRIPS(iters) * (4 / w); }
// An m16n8k16 tensor-core instruction does 8 times the work of an m8n8k4 one; the dmma16
// kernel makes an eighth as many trips so that both take about as long.
#define DMMA16_TRIPS(iters) ((iters) / 8 > 0 ? (iters) / 8 : 1)
// The shared buffer: 1024 float4s, 16 KiB, a power of two so an index wraps with one AND.
#define SMEM_FLOAT4S 1024
// Threads whose result the CPU recomputes for the arithmetic kernels: every SM's first thread
// and a spread of others; more would only slow the check.
#define SAMPLE 257

typedef struct {
    size_t n;             // floats per copy buffer
    float *src, *dst;     // the copy buffers, device
    float *host_src, *host_dst;
    size_t threads;       // threads in an arithmetic grid (every SM full), one result each
    int iters;            // loop trips of the arithmetic kernels (-k)
    float *out, *host_out;         // one float a thread (FP32 kernels), SFU_CHAINS for the
                                   // special-function rows; device and host
    double *out64, *host_out64;    // one double a thread (FP64 kernels)
    int sms;
    int cc;               // compute capability, 90 for 9.0: the tensor-core rows need 80 or 90
} peaks_problem;

// ---- the CPU reference: what one thread of each arithmetic kernel computes ---------------------

// fma: each chain runs x = x * a + b, rounded once (fmaf rounds once, as the GPU's FFMA does).
// `chains` is CHAINS but for the rows with one; an idle lane (fma-w4-lane1) makes 0 trips.
#define FMA_A 0.99990f
#define FMA_B 0.00010f
static float fma_cpu(unsigned tid, int iters, int chains) {
    float x[CHAINS], s = 0.0f;
    for (int j = 0; j < chains; j++) x[j] = (float)(tid % 1024 + j);
    for (int i = 0; i < iters; i++)
        for (int j = 0; j < chains; j++) x[j] = fmaf(x[j], FMA_A, FMA_B);
    for (int j = 0; j < chains; j++) s += x[j];
    return s;
}

// addmin: y steps down by 1/1024 (exact in binary) and v keeps the smallest y seen, so both
// the add and the min depend on the previous trip and cannot be hoisted or folded.
#define ADDMIN_STEP (-1.0f / 1024.0f)
static float addmin_cpu(unsigned tid, int iters) {
    float y[CHAINS], v[CHAINS], s = 0.0f;
    for (int j = 0; j < CHAINS; j++) y[j] = v[j] = (float)(tid % 1024 + j);
    for (int i = 0; i < iters; i++)
        for (int j = 0; j < CHAINS; j++) {
            y[j] = y[j] + ADDMIN_STEP;
            v[j] = fminf(v[j], y[j]);
        }
    for (int j = 0; j < CHAINS; j++) s += v[j];
    return s;
}

// smem: the buffer holds small integers, so every sum below is exact in float.
static float smem_value(int i) { return (float)(i % 7); }
// A thread's sum over its loads of w floats each, in the kernel's order of additions.
static float smem_cpu(unsigned tid, int trips, int w) {
    float acc = 0.0f;
    unsigned t = tid % PEAK_THREADS, count = SMEM_FLOAT4S * 4 / w;  // loads of w floats
    for (int i = 0; i < trips; i++)
        for (int j = 0; j < CHAINS; j++) {
            int idx = (int)((t + (unsigned)(i * CHAINS + j) * 32u) & (count - 1));
            float v = smem_value(w * idx);
            for (int e = 1; e < w; e++) v += smem_value(w * idx + e);
            acc += v;
        }
    return acc;
}

// dfma: the FP32 chain in double precision; C's fma rounds once, as the GPU's DFMA does.
#define DFMA_A 0.99990
#define DFMA_B 0.00010
static double dfma_cpu(unsigned tid, int iters) {
    double x[CHAINS], s = 0.0;
    for (int j = 0; j < CHAINS; j++) x[j] = (double)(tid % 1024 + j);
    for (int i = 0; i < iters; i++)
        for (int j = 0; j < CHAINS; j++) x[j] = fma(x[j], DFMA_A, DFMA_B);
    for (int j = 0; j < CHAINS; j++) s += x[j];
    return s;
}

// dmma: a warp multiplies an 8 x 4 matrix A by a 4 x 8 matrix B and adds the product to its
// 8 x 8 accumulator D, once a trip for each of CHAINS accumulators. Every value is a small
// integer, so every sum is exact and the order the tensor core adds in cannot matter; after
// `iters` trips D = D0 + iters * (A B). The fragment layout of mma.m8n8k4.f64 (PTX ISA):
// lane l, with g = l / 4 and t = l % 4, holds A[g][t], B[t][g], and D[g][2t], D[g][2t + 1].
static double dmma_a(unsigned lane) { return (double)((int)(lane % 5) - 2); }  // A[g][t]
static double dmma_b(unsigned lane) { return (double)((int)(lane % 3) - 1); }  // B[t][g]
static double dmma_d0(unsigned tid, int j, int e) { return (double)((tid + 3 * j + e) % 16); }
static double dmma_cpu(unsigned tid, int iters) {
    unsigned g = (tid % 32) / 4, t = tid % 4;
    double s = 0.0;
    for (int j = 0; j < CHAINS; j++)
        for (int e = 0; e < 2; e++) {
            unsigned col = 2 * t + e;  // D[g][col] = sum over q of A[g][q] B[q][col]
            double ab = 0.0;
            for (unsigned q = 0; q < 4; q++) ab += dmma_a(4 * g + q) * dmma_b(4 * col + q);
            s += dmma_d0(tid, j, e) + (double)iters * ab;
        }
    return s;
}

// dmma16: m16n8k16, each lane holding 8 values of A, 4 of B and 4 of D. Here A and B are all
// ones and halves, so every element of A B is 16 * 0.5 = 8 whatever the layout: the check
// counts the instructions that ran, and the rate is what this row is for.
#define DMMA16_A 1.0
#define DMMA16_B 0.5
static double dmma16_cpu(unsigned tid, int trips) {
    double s = 0.0;
    for (int j = 0; j < CHAINS; j++)
        for (int e = 0; e < 4; e++) s += dmma_d0(tid, j, e) + (double)trips * 16 * DMMA16_A * DMMA16_B;
    return s;
}

// The special-function rows (sfu.cuh): chain j of thread tid calls f at iters arguments, the
// first at lo + idx * spacing and each next one a float addition of step further, as the GPU
// makes them, and keeps the largest result. f rises along the sweep, so the largest exact result
// is f at the last argument, which the CPU computes in double precision.
typedef struct {
    float lo, spacing, span;   // sfu.cuh's constants for the function
    double (*f)(double);       // the C library's double-precision function, the reference
} sweep;
static const sweep SIN_SWEEP = {SIN_LO, SIN_SPACING, SIN_SPAN, sin};
static const sweep EXP_SWEEP = {EXP_LO, EXP_SPACING, EXP_SPAN, exp};

static float sweep_step(const sweep *s, int iters) { return s->span / (float)iters; }
static float sweep_first(const sweep *s, unsigned tid, int j) {
    return s->lo + (float)((tid % 1024) * SFU_CHAINS + j) * s->spacing;
}
static float sweep_last(const sweep *s, unsigned tid, int j, int iters) {
    float x = sweep_first(s, tid, j), step = sweep_step(s, iters);
    for (int i = 1; i < iters; i++) x += step;
    return x;
}

// The gap between v and the next float away from zero, for a normal v: 2^-23 for v in [1, 2).
static double ulp_of(float v) {
    int e;
    frexpf(fabsf(v), &e);  // |v| = m 2^e with m in [0.5, 1)
    return ldexp(1.0, e - 24);
}

// The error bounds of the CUDA C++ Programming Guide ("Mathematical Functions" appendix, its
// single-precision and intrinsic-function tables). An ulp bound counts ulps of the correctly
// rounded result; --use_fast_math maps sinf to __sinf and expf to __expf, whose bounds then hold.
//   sinf, expf   2 ulp, over the full range
//   __sinf       2^-21.41 absolute for x in [-pi, pi] ("larger otherwise"; sfu.cuh stays inside)
//   __expf       2 + floor(|1.173 x|) ulp
typedef enum { ULP2, ABS_SIN, ULP_EXP } error_bound;
static const char *bound_text(error_bound b) {
    return b == ULP2 ? "2 ulp" : b == ABS_SIN ? "2^-21.41 absolute" : "2 + floor(|1.173 x|) ulp";
}
static double fast_expf_ulps(float x) { return 2.0 + floor(fabs(1.173 * (double)x)); }

// The rows of the version table at the end, in its order.
enum {
    MEMCPY, COPY, FMA, ADDMIN, SMEM, DFMA, DMMA, DMMA16,
    SINF, FAST_SINF, SINF_FM, EXPF, FAST_EXPF, EXPF_FM,
    FMA_W4, FMA_W4_SM1, FMA_W4_LANE1, FMA_W4_ILP1, FMA_ILP1,
    FMA_UNROLL1, FMA_UNROLL128, FMA_UNROLL512, FMA_UNROLL2048,
    SMEM32, SMEM64, SMEM64_8B,
};
static bool is_f64(int i) { return i == DFMA || i == DMMA || i == DMMA16; }
static bool is_sfu(int i) { return i >= SINF && i <= EXPF_FM; }
static bool is_fma(int i) { return i == FMA || (i >= FMA_W4 && i <= FMA_UNROLL2048); }
static int smem_width(int i) { return i == SMEM32 ? 1 : i == SMEM ? 4 : 2; }  // floats a load

// ---- memory ceilings ----------------------------------------------------------------------------

static void launch_memcpy(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    CHECK(cudaMemcpyAsync(p->dst, p->src, p->n * sizeof(float), cudaMemcpyDeviceToDevice));
}

static void launch_copy(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    copy_floats(p->src, p->dst, p->n);
}

// ---- arithmetic ceilings ------------------------------------------------------------------------

// C independent FFMAs per trip (C = CHAINS), unrolled so the loop counter costs little next to
// them: 128 FFMAs a pass through the loop whatever C is. Only the first `lanes` lanes of each warp
// work (32: all of them); the others make no trips, and their warp issues each FFMA all the same.
// The fma-unroll rows set the trips a pass (UNROLL) themselves.
constexpr int FMA_UNROLLED = 16 * CHAINS;  // FFMAs a pass (a pragma cannot read a macro)
template <int C, int UNROLL = FMA_UNROLLED / C>
__global__ void peak_fma(float *out, int iters, unsigned lanes) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float x[C];
#pragma unroll
    for (int j = 0; j < C; j++) x[j] = (float)(tid % 1024 + j);  // exact: no rounding
    int trips = threadIdx.x % 32 < lanes ? iters : 0;
#pragma unroll(UNROLL)
    for (int i = 0; i < trips; i++)
#pragma unroll
        for (int j = 0; j < C; j++) x[j] = fmaf(x[j], FMA_A, FMA_B);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < C; j++) s += x[j];
    out[tid] = s;  // the result keeps the compiler from removing the work
}

// One FADD and one FMNMX per pair: the instructions of v = min(v, d[i][k] + d[k][j]).
__global__ void peak_addmin(float *out, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float y[CHAINS], v[CHAINS];
#pragma unroll
    for (int j = 0; j < CHAINS; j++) y[j] = v[j] = (float)(tid % 1024 + j);
#pragma unroll 16
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int j = 0; j < CHAINS; j++) {
            y[j] = y[j] + ADDMIN_STEP;
            v[j] = fminf(v[j], y[j]);
        }
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < CHAINS; j++) s += v[j];
    out[tid] = s;
}

// A warp's 32 float4 loads cover 512 contiguous bytes, four conflict-free passes through the
// 32 banks. The loop stays rolled (unroll 1): unrolled, several trips would read the same
// addresses, and the compiler would rightly load them once, so we would measure fewer loads
// than we count. The index moves every trip, so no load can be hoisted out of the loop.
// T = float2 or float: loads of 8 or 4 bytes from the same buffer, 256 or 128 bytes a warp.
__device__ __forceinline__ float sum_of(float v) { return v; }
__device__ __forceinline__ float sum_of(float2 v) { return v.x + v.y; }
__device__ __forceinline__ float sum_of(float4 v) { return v.x + v.y + v.z + v.w; }
template <typename T>
__global__ void peak_smem(float *out, int trips) {
    __shared__ float4 buf[SMEM_FLOAT4S];  // 16 KiB
    for (int i = threadIdx.x; i < SMEM_FLOAT4S; i += blockDim.x)
        buf[i] = make_float4((float)((4 * i) % 7), (float)((4 * i + 1) % 7),
                             (float)((4 * i + 2) % 7), (float)((4 * i + 3) % 7));
    __syncthreads();  // the buffer is full before anyone reads it
    const T *loads = (const T *)buf;
    constexpr unsigned count = sizeof buf / sizeof(T);
    float acc = 0.0f;
#pragma unroll 1
    for (int i = 0; i < trips; i++)
#pragma unroll
        for (int j = 0; j < CHAINS; j++)
            acc += sum_of(loads[(threadIdx.x + (unsigned)(i * CHAINS + j) * 32u) & (count - 1)]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// The FP32 FMA kernel in double precision: the CUDA cores' DFMA units.
__global__ void peak_dfma(double *out, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    double x[CHAINS];
#pragma unroll
    for (int j = 0; j < CHAINS; j++) x[j] = (double)(tid % 1024 + j);
#pragma unroll 16
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int j = 0; j < CHAINS; j++) x[j] = fma(x[j], DFMA_A, DFMA_B);
    double s = 0.0;
#pragma unroll
    for (int j = 0; j < CHAINS; j++) s += x[j];
    out[tid] = s;
}

// One warp-wide D = A B + D on the FP64 tensor cores: 8 x 8 x 4, 256 multiply-adds. Built only
// where the instruction exists (compute capability 8.0); the host skips the row elsewhere.
__device__ __forceinline__ void dmma_8x8x4(double &d0, double &d1, double a, double b) {
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
#else
    d0 = d1 = __longlong_as_double(0x7ff8000000000000ll);  // NaN: never runs, the host skips
#endif
}

// 16 x 8 x 16, 2048 multiply-adds: the FP64 shape Hopper added (compute capability 9.0).
__device__ __forceinline__ void dmma_16x8x16(double (&d)[4], double a, double b) {
#if __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
                 "{%0, %1, %2, %3}, {%4, %4, %4, %4, %4, %4, %4, %4}, {%5, %5, %5, %5}, "
                 "{%0, %1, %2, %3};"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a), "d"(b));
#else
    d[0] = d[1] = d[2] = d[3] = __longlong_as_double(0x7ff8000000000000ll);
#endif
}

// CHAINS independent accumulators a warp, as in peak_fma: the next multiply-add on one
// accumulator waits for the last, so the tensor core needs several in flight.
__global__ void peak_dmma(double *out, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    double a = (double)((int)(lane % 5) - 2), b = (double)((int)(lane % 3) - 1);  // dmma_a, dmma_b
    double d[CHAINS][2];
#pragma unroll
    for (int j = 0; j < CHAINS; j++)
#pragma unroll
        for (int e = 0; e < 2; e++) d[j][e] = (double)((tid + 3 * j + e) % 16);  // dmma_d0
#pragma unroll 4
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int j = 0; j < CHAINS; j++) dmma_8x8x4(d[j][0], d[j][1], a, b);
    double s = 0.0;
#pragma unroll
    for (int j = 0; j < CHAINS; j++) s += d[j][0] + d[j][1];
    out[tid] = s;
}

__global__ void peak_dmma16(double *out, int trips) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    double d[CHAINS][4];
#pragma unroll
    for (int j = 0; j < CHAINS; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) d[j][e] = (double)((tid + 3 * j + e) % 16);
#pragma unroll 2
    for (int i = 0; i < trips; i++)
#pragma unroll
        for (int j = 0; j < CHAINS; j++) dmma_16x8x16(d[j], DMMA16_A, DMMA16_B);
    double s = 0.0;
#pragma unroll
    for (int j = 0; j < CHAINS; j++) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    out[tid] = s;
}

// The special-function rows: the sweep of sfu.cuh with four functions. sinf is a routine of some
// twenty instructions on the FMA pipe: it reduces x to [-pi/4, pi/4] with three FMAs against the
// parts of pi/2, evaluates a polynomial, and keeps a slow path (local memory) for |x| above
// 105615 (CUDART_TRIG_PLOSS_F in the toolkit's math_constants.h) that our arguments never take. __sinf is one multiply by 1/(2 pi) and one MUFU.SIN, on the
// special-function units: 16 results a clock an SM on compute capability 9.0 (Programming Guide,
// "Arithmetic Instructions"), against 128 FMAs.
__global__ void peak_sinf(float *out, int iters, float step) {
    sfu_sweep(out, iters, SIN_LO, SIN_SPACING, step, call_sinf());
}

__global__ void peak_fast_sinf(float *out, int iters, float step) {
    sfu_sweep(out, iters, SIN_LO, SIN_SPACING, step, call_fast_sinf());
}

// expf needs MUFU.EX2 too, but first splits x log2(e) into an integer and a fraction with FMAs
// exact enough to keep 2 ulp; __expf rounds x log2(e) to a float and hands it to MUFU.EX2, which
// is why its error grows with |x|.
__global__ void peak_expf(float *out, int iters, float step) {
    sfu_sweep(out, iters, EXP_LO, EXP_SPACING, step, call_expf());
}

__global__ void peak_fast_expf(float *out, int iters, float step) {
    sfu_sweep(out, iters, EXP_LO, EXP_SPACING, step, call_fast_expf());
}

static unsigned arith_blocks(const peaks_problem *p) {
    return (unsigned)(p->threads / PEAK_THREADS);
}

// The shape of each fma row: how many blocks of how many threads, how many lanes of each warp
// work, and how many chains each working thread runs. The grids of 4-warp blocks have one block
// for each SM, and the block scheduler gives each SM one.
typedef struct {
    unsigned blocks, block, lanes;
    int chains, unroll;  // unroll: the loop's trips a pass
} fma_shape;
static fma_shape shape_of(const peaks_problem *p, int i) {
    unsigned full = arith_blocks(p), sms = (unsigned)p->sms;  // full: every SM full of warps
    switch (i) {
    case FMA_W4: return {sms, W4_THREADS, 32, CHAINS, FMA_UNROLLED / CHAINS};
    case FMA_W4_SM1: return {1, W4_THREADS, 32, CHAINS, FMA_UNROLLED / CHAINS};
    case FMA_W4_LANE1: return {sms, W4_THREADS, 1, CHAINS, FMA_UNROLLED / CHAINS};
    case FMA_W4_ILP1: return {sms, W4_THREADS, 32, 1, FMA_UNROLLED};
    case FMA_ILP1: return {full, PEAK_THREADS, 32, 1, FMA_UNROLLED};
    case FMA_UNROLL1: return {full, PEAK_THREADS, 32, CHAINS, 1};
    case FMA_UNROLL128: return {full, PEAK_THREADS, 32, CHAINS, 128};
    case FMA_UNROLL512: return {full, PEAK_THREADS, 32, CHAINS, 512};
    case FMA_UNROLL2048: return {full, PEAK_THREADS, 32, CHAINS, 2048};
    default: return {full, PEAK_THREADS, 32, CHAINS, FMA_UNROLLED / CHAINS};  // fma
    }
}

static void launch_fma_shaped(const peaks_problem *p, int i) {
    fma_shape s = shape_of(p, i);
    auto go = [&](auto kernel) { kernel<<<s.blocks, s.block>>>(p->out, p->iters, s.lanes); };
    if (s.chains == 1) go(peak_fma<1>);
    else if (s.unroll == 1) go(peak_fma<CHAINS, 1>);
    else if (s.unroll == 128) go(peak_fma<CHAINS, 128>);
    else if (s.unroll == 512) go(peak_fma<CHAINS, 512>);
    else if (s.unroll == 2048) go(peak_fma<CHAINS, 2048>);
    else go(peak_fma<CHAINS>);
    CHECK_LAUNCH();
}

static void launch_fma(void *problem) { launch_fma_shaped((peaks_problem *)problem, FMA); }
static void launch_fma_w4(void *problem) { launch_fma_shaped((peaks_problem *)problem, FMA_W4); }
static void launch_fma_w4_sm1(void *problem) {
    launch_fma_shaped((peaks_problem *)problem, FMA_W4_SM1);
}
static void launch_fma_w4_lane1(void *problem) {
    launch_fma_shaped((peaks_problem *)problem, FMA_W4_LANE1);
}
static void launch_fma_w4_ilp1(void *problem) {
    launch_fma_shaped((peaks_problem *)problem, FMA_W4_ILP1);
}
static void launch_fma_ilp1(void *problem) { launch_fma_shaped((peaks_problem *)problem, FMA_ILP1); }
static void launch_fma_unroll1(void *problem) {
    launch_fma_shaped((peaks_problem *)problem, FMA_UNROLL1);
}
static void launch_fma_unroll128(void *problem) {
    launch_fma_shaped((peaks_problem *)problem, FMA_UNROLL128);
}
static void launch_fma_unroll512(void *problem) {
    launch_fma_shaped((peaks_problem *)problem, FMA_UNROLL512);
}
static void launch_fma_unroll2048(void *problem) {
    launch_fma_shaped((peaks_problem *)problem, FMA_UNROLL2048);
}

static void launch_addmin(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_addmin<<<arith_blocks(p), PEAK_THREADS>>>(p->out, p->iters);
    CHECK_LAUNCH();
}

static void launch_smem(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_smem<float4><<<arith_blocks(p), PEAK_THREADS>>>(p->out, smem_trips(p->iters, 4));
    CHECK_LAUNCH();
}

static void launch_smem32(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_smem<float><<<arith_blocks(p), PEAK_THREADS>>>(p->out, smem_trips(p->iters, 1));
    CHECK_LAUNCH();
}

static void launch_smem64(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_smem<float2><<<arith_blocks(p), PEAK_THREADS>>>(p->out, smem_trips(p->iters, 2));
    CHECK_LAUNCH();
}

// Kepler (compute capability 3.x) could make its banks 8 bytes wide, so that a warp's 8-byte
// loads went through in one pass instead of two; cudaDeviceSetSharedMemConfig chose the width.
// Later GPUs have 4-byte banks and no such setting: the call is accepted and changes nothing
// (the runtime marks it deprecated). This row asks for 8-byte banks around smem-lds64's launch,
// and puts the old setting back after it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static cudaSharedMemConfig bank_config(void) {
    cudaSharedMemConfig config;
    CHECK(cudaDeviceGetSharedMemConfig(&config));
    return config;
}

static void launch_smem64_8b(void *problem) {
    cudaSharedMemConfig before = bank_config();
    CHECK(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
    launch_smem64(problem);
    CHECK(cudaDeviceSetSharedMemConfig(before));
}

// What the device reports once asked for 8-byte banks: printed below the row.
static int bank_bytes_when_asked_for_8(void) {
    cudaSharedMemConfig before = bank_config();
    CHECK(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
    cudaSharedMemConfig now = bank_config();
    CHECK(cudaDeviceSetSharedMemConfig(before));
    return now == cudaSharedMemBankSizeEightByte ? 8 : 4;
}
#pragma GCC diagnostic pop

static void launch_dfma(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_dfma<<<arith_blocks(p), PEAK_THREADS>>>(p->out64, p->iters);
    CHECK_LAUNCH();
}

static void launch_dmma(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_dmma<<<arith_blocks(p), PEAK_THREADS>>>(p->out64, p->iters);
    CHECK_LAUNCH();
}

static void launch_dmma16(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_dmma16<<<arith_blocks(p), PEAK_THREADS>>>(p->out64, DMMA16_TRIPS(p->iters));
    CHECK_LAUNCH();
}

static void launch_sinf(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_sinf<<<arith_blocks(p), PEAK_THREADS>>>(p->out, p->iters, sweep_step(&SIN_SWEEP, p->iters));
    CHECK_LAUNCH();
}

static void launch_fast_sinf(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_fast_sinf<<<arith_blocks(p), PEAK_THREADS>>>(p->out, p->iters,
                                                      sweep_step(&SIN_SWEEP, p->iters));
    CHECK_LAUNCH();
}

// fastmath.cu's kernel: peak_sinf's source, compiled with --use_fast_math.
static void launch_sinf_fm(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    launch_sinf_fastmath(p->out, arith_blocks(p), PEAK_THREADS, p->iters,
                         sweep_step(&SIN_SWEEP, p->iters));
}

static void launch_expf(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_expf<<<arith_blocks(p), PEAK_THREADS>>>(p->out, p->iters, sweep_step(&EXP_SWEEP, p->iters));
    CHECK_LAUNCH();
}

static void launch_fast_expf(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_fast_expf<<<arith_blocks(p), PEAK_THREADS>>>(p->out, p->iters,
                                                      sweep_step(&EXP_SWEEP, p->iters));
    CHECK_LAUNCH();
}

static void launch_expf_fm(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    launch_expf_fastmath(p->out, arith_blocks(p), PEAK_THREADS, p->iters,
                         sweep_step(&EXP_SWEEP, p->iters));
}

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"memcpy", "cudaMemcpy", launch_memcpy, 0},
    {"copy", "copy-kernel", launch_copy, 0},
    {"fma", "ffma", launch_fma, 0},
    {"addmin", "fadd+fmnmx", launch_addmin, 0},
    {"smem", "lds128", launch_smem, 0},
    {"dfma", "dfma", launch_dfma, 0},
    {"dmma", "dmma-m8n8k4", launch_dmma, 0},
    {"dmma16", "dmma-m16n8k16", launch_dmma16, 0},
    {"sinf", "ffma-poly", launch_sinf, 0},
    {"__sinf", "mufu-sin", launch_fast_sinf, 0},
    {"sinf-fm", "fast-math", launch_sinf_fm, 0},
    {"expf", "ex2+ffma", launch_expf, 0},
    {"__expf", "mufu-ex2", launch_fast_expf, 0},
    {"expf-fm", "fast-math", launch_expf_fm, 0},
    {"fma-w4", "4-warps", launch_fma_w4, 0},
    {"fma-w4-sm1", "1-sm", launch_fma_w4_sm1, 0},
    {"fma-w4-lane1", "1-lane", launch_fma_w4_lane1, 0},
    {"fma-w4-ilp1", "1-chain", launch_fma_w4_ilp1, 0},
    {"fma-ilp1", "full-1chain", launch_fma_ilp1, 0},
    {"fma-unroll1", "rolled", launch_fma_unroll1, 0},
    {"fma-unroll128", "17-KiB-loop", launch_fma_unroll128, 0},
    {"fma-unroll512", "66-KiB-loop", launch_fma_unroll512, 0},
    {"fma-unroll2048", "260-KiB-loop", launch_fma_unroll2048, 0},
    {"smem-lds32", "lds32", launch_smem32, 0},
    {"smem-lds64", "lds64", launch_smem64, 0},
    {"smem-lds64-8b", "lds64-8byte-banks", launch_smem64_8b, 0},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// What each ceiling counts, in the same order as the table. Datasheet figures per clock per SM
// for compute capability 9.0: 128 FP32 FMA, 64 min/max (so 64 add+min pairs, since an SM issues
// 4 instructions a clock), 32 banks x 4 bytes of shared memory, 64 FP64 FMA on the CUDA cores
// and 128 on the tensor cores (the H100/H200 SXM's 34 and 67 TFLOP/s: 132 SMs at 1980 MHz);
// 16 sines or base-2 exponentials (MUFU.SIN, MUFU.EX2: the CUDA C++ Programming Guide's table
// "Throughput of Native Arithmetic Instructions"); sinf and expf, routines of several
// instructions, have no figure of their own. Device memory is 4.8 TB/s on the H200 SXM
// datasheet, shown against the SM clock to compare like with like.
typedef enum { BYTES, OPS, CALLS } count_kind;  // CALLS: one result a call, one operation
typedef struct {
    count_kind kind;
    const char *per_clock;   // the unit of the per-clock-per-SM figure
    double datasheet;        // per clock per SM; 0 when the datasheet gives none
} ceiling;

static const ceiling ceilings[] = {
    {BYTES, "B_per_clk_per_sm", 0},
    {BYTES, "B_per_clk_per_sm", 0},
    {OPS, "ffma_per_clk_per_sm", 128},
    {OPS, "pairs_per_clk_per_sm", 64},
    {BYTES, "B_per_clk_per_sm", 128},
    {OPS, "fp64fma_per_clk_per_sm", 64},
    {OPS, "fp64fma_per_clk_per_sm", 128},
    {OPS, "fp64fma_per_clk_per_sm", 128},
    {CALLS, "results_per_clk_per_sm", 0},
    {CALLS, "results_per_clk_per_sm", 16},
    {CALLS, "results_per_clk_per_sm", 16},
    {CALLS, "results_per_clk_per_sm", 0},
    {CALLS, "results_per_clk_per_sm", 16},
    {CALLS, "results_per_clk_per_sm", 16},
    {OPS, "ffma_per_clk_per_sm", 128},
    {OPS, "ffma_per_clk_per_sm", 128},
    {OPS, "ffma_per_clk_per_sm", 128},
    {OPS, "ffma_per_clk_per_sm", 128},
    {OPS, "ffma_per_clk_per_sm", 128},
    {OPS, "ffma_per_clk_per_sm", 128},
    {OPS, "ffma_per_clk_per_sm", 128},
    {OPS, "ffma_per_clk_per_sm", 128},
    {OPS, "ffma_per_clk_per_sm", 128},
    {BYTES, "B_per_clk_per_sm", 128},
    {BYTES, "B_per_clk_per_sm", 128},
    {BYTES, "B_per_clk_per_sm", 128},
};
static_assert(sizeof ceilings / sizeof ceilings[0] == SMEM64_8B + 1, "a ceiling for every row");

// Threads the row's grid runs: every SM full, but for the fma rows of other shapes.
static size_t row_threads(const peaks_problem *p, int i) {
    if (!is_fma(i)) return p->threads;
    fma_shape s = shape_of(p, i);
    return (size_t)s.blocks * s.block;
}

// Per launch: bytes moved (read + written) or operations (an FMA is 2 flops; an add+min pair is
// 2 operations, counted as the min-plus chapter counts them; a sinf or an expf is 1). A warp's
// m8n8k4 is 256 FMAs, 8 a thread; an m16n8k16 is 2048, 64 a thread. The fma rows count the FMAs
// of the lanes at work only.
static double work(const peaks_problem *p, int i) {
    double per_thread = (double)p->iters * CHAINS;
    if (is_fma(i)) {
        fma_shape s = shape_of(p, i);
        return 2.0 * p->iters * s.chains * (double)row_threads(p, i) * s.lanes / 32.0;
    }
    if (is_sfu(i)) return (double)p->iters * SFU_CHAINS * (double)p->threads;
    switch (i) {
    case MEMCPY: case COPY: return 2.0 * (double)p->n * sizeof(float);
    case ADDMIN: case DFMA: return 2.0 * per_thread * (double)p->threads;
    case DMMA: return 2.0 * 8.0 * per_thread * (double)p->threads;
    case DMMA16: return 2.0 * 64.0 * DMMA16_TRIPS(p->iters) * CHAINS * (double)p->threads;
    default:  // the smem rows
        return (double)smem_trips(p->iters, smem_width(i)) * CHAINS * 4.0 * smem_width(i) *
               (double)p->threads;
    }
}

// Why row i cannot run on this GPU, or NULL: the tensor-core rows need their instruction.
static const char *peaks_skip(const peaks_problem *p, int i) {
    static char why[120];
    int need = i == DMMA ? 80 : i == DMMA16 ? 90 : 0;
    if (p->cc >= need) return NULL;
    snprintf(why, sizeof why, "needs FP64 mma.sync %s (compute capability %d.0); this GPU is %d.%d",
             i == DMMA ? "m8n8k4" : "m16n8k16", need / 10, p->cc / 10, p->cc % 10);
    return why;
}

// ---- checking -----------------------------------------------------------------------------------

// The special-function rows' check: every chain of a sample of threads, against f at its last
// argument. The largest of a sweep's results is within the bound of f at the last argument
// whatever -k is: the last call's result is at least f(last) - bound, and an earlier call's at
// most f(that argument) + its bound, both no more than f(last) + bound, since f and the bound
// (in ulps of a smaller result, or absolute) rise along the sweep.
typedef struct {
    double ulp, abs;  // largest error seen: in ulps of the correctly rounded result, and absolute
    size_t count;     // results compared
} sfu_error;

static error_bound bound_of(int i) {
    return i == SINF || i == EXPF ? ULP2 : i <= SINF_FM ? ABS_SIN : ULP_EXP;
}

static void sfu_check(const peaks_problem *p, int i, check_result *r, sfu_error *err) {
    const sweep *sw = i <= SINF_FM ? &SIN_SWEEP : &EXP_SWEEP;
    error_bound b = bound_of(i);
    CHECK(cudaMemcpy(p->host_out, p->out, p->threads * SFU_CHAINS * sizeof(float),
                     cudaMemcpyDeviceToHost));
    err->ulp = err->abs = 0.0, err->count = 0;
    for (int s = 0; s < SAMPLE; s++) {
        unsigned tid = (unsigned)((size_t)s * (p->threads - 1) / (SAMPLE - 1));
        for (int j = 0; j < SFU_CHAINS; j++) {
            float last = sweep_last(sw, tid, j, p->iters);
            double want = sw->f((double)last);
            float rounded = (float)want;  // the correctly rounded result (double is far closer)
            double got = p->host_out[(size_t)j * p->threads + tid];
            // the bound, from the exact value: b's ulps of the rounded result, plus the distance
            // (at most half an ulp) from that to the exact value
            double x_max = fmax(fabs(sweep_first(sw, tid, j)), fabs(last));
            double ulps = b == ULP2 ? 2.0 : fast_expf_ulps((float)x_max);
            double tol = b == ABS_SIN ? exp2(-21.41)
                                      : ulps * ulp_of(rounded) + fabs((double)rounded - want);
            check_f64(r, &got, &want, 1, 1, tid, tol, 0.0);
            err->ulp = fmax(err->ulp, fabs(got - rounded) / ulp_of(rounded));
            err->abs = fmax(err->abs, fabs(got - want));
            err->count++;
        }
    }
}

// The fma rows' CPU model for one thread: its lane at work or idle (0 trips).
static float fma_row_cpu(const peaks_problem *p, int i, unsigned tid) {
    fma_shape s = shape_of(p, i);
    return fma_cpu(tid, tid % 32 < s.lanes ? p->iters : 0, s.chains);
}

static void peaks_check(const peaks_problem *p, int i, check_result *r, sfu_error *err) {
    if (is_sfu(i)) {
        sfu_check(p, i, r, err);
        return;
    }
    if (is_f64(i)) {
        CHECK(cudaMemcpy(p->host_out64, p->out64, p->threads * sizeof(double),
                         cudaMemcpyDeviceToHost));
        for (int s = 0; s < SAMPLE; s++) {
            unsigned tid = (unsigned)((size_t)s * (p->threads - 1) / (SAMPLE - 1));
            double want = i == DFMA   ? dfma_cpu(tid, p->iters)
                          : i == DMMA ? dmma_cpu(tid, p->iters)
                                      : dmma16_cpu(tid, DMMA16_TRIPS(p->iters));
            check_f64(r, &p->host_out64[tid], &want, 1, 1, tid, 0.0, 0.0);
        }
        return;
    }
    if (i <= COPY) {
        CHECK(cudaMemcpy(p->host_dst, p->dst, p->n * sizeof(float), cudaMemcpyDeviceToHost));
        check_f32(r, p->host_dst, p->host_src, 1, p->n, 0, 0.0, 0.0);
        return;
    }
    size_t threads = row_threads(p, i);
    CHECK(cudaMemcpy(p->host_out, p->out, threads * sizeof(float), cudaMemcpyDeviceToHost));
    // Recompute a sample of threads on the CPU, spread across the grid; each must match exactly.
    // The fma rows also check lane 0 of each sampled thread's warp, which works in every shape.
    for (int s = 0; s < SAMPLE; s++) {
        unsigned tid = (unsigned)((size_t)s * (threads - 1) / (SAMPLE - 1));
        float want = is_fma(i)     ? fma_row_cpu(p, i, tid)
                     : i == ADDMIN ? addmin_cpu(tid, p->iters)
                                   : smem_cpu(tid, smem_trips(p->iters, smem_width(i)), smem_width(i));
        check_f32(r, &p->host_out[tid], &want, 1, 1, tid, 0.0, 0.0);
        if (is_fma(i)) {
            unsigned lane0 = tid & ~31u;
            want = fma_row_cpu(p, i, lane0);
            check_f32(r, &p->host_out[lane0], &want, 1, 1, lane0, 0.0, 0.0);
        }
    }
}

static int peaks_self_test(void) {
    int failed = 0, ok;
    // one FMA step by hand, with values exact in binary: 1.5 * 2 + 0.25
    float x = fmaf(1.5f, 2.0f, 0.25f);
    ok = x == 3.25f;
    printf("%s fmaf: 1.5 * 2 + 0.25 == 3.25\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    // each chain x -> a x + b approaches b / (1 - a) = 1; after k steps it is
    // 1 + (x0 - 1) a^k, which double arithmetic gives to far better than float's rounding
    float f = fma_cpu(5, DEFAULT_ITERS, CHAINS);
    double want_f = 0.0;
    for (int j = 0; j < CHAINS; j++)
        want_f += 1.0 + (5.0 + j - 1.0) * pow((double)FMA_A, DEFAULT_ITERS);
    ok = fabs(f - want_f) < 1e-3 * want_f;
    printf("%s fma_cpu: %g matches the closed form %g\n", ok ? "PASS" : "FAIL", f, want_f);
    failed += !ok;
    // one chain, and an idle lane: 0 trips leave the starting value
    f = fma_cpu(5, DEFAULT_ITERS, 1);
    ok = fabs(f - (1.0 + 4.0 * pow((double)FMA_A, DEFAULT_ITERS))) < 1e-3 && fma_cpu(5, 0, 1) == 5.0f &&
         fma_cpu(5, 0, CHAINS) == (float)(CHAINS * 5 + CHAINS * (CHAINS - 1) / 2);
    printf("%s fma_cpu: one chain follows the closed form; an idle lane keeps its start\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    // addmin: y falls by exactly ITERS / 1024, and v follows it
    float a = addmin_cpu(3, DEFAULT_ITERS), want = 0.0f;
    for (int j = 0; j < CHAINS; j++) want += (float)(3 + j) - DEFAULT_ITERS / 1024.0f;
    ok = a == want;
    printf("%s addmin_cpu: every chain ends at its start - %d/1024\n", ok ? "PASS" : "FAIL",
           DEFAULT_ITERS);
    failed += !ok;
    // smem: thread t reads load t + 32 q (mod count, the loads of w floats in the buffer) for
    // q = 8 i + j, so it visits the count / 32 loads t % 32 + 32 r in turn, each
    // trips * CHAINS / (count / 32) times in all (float4: 32 loads, every 4 trips)
    for (int w = 1; w <= 4; w *= 2) {
        int count = SMEM_FLOAT4S * 4 / w, trips = smem_trips(DEFAULT_ITERS, w);
        for (unsigned t = 0; t < PEAK_THREADS; t += 37) {
            double want_s = 0.0;
            for (int r = 0; r < count / 32; r++) {
                int idx = (int)(t % 32) + 32 * r;
                for (int e = 0; e < w; e++) want_s += smem_value(w * idx + e);
            }
            want_s *= (double)trips * CHAINS / (count / 32);
            ok = smem_cpu(t, trips, w) == (float)want_s;
            printf("%s smem_cpu: %d-byte loads, thread %u matches the closed form %g\n",
                   ok ? "PASS" : "FAIL", 4 * w, t, want_s);
            failed += !ok;
        }
    }
    // dfma: the same closed form, to double precision's rounding
    double d = dfma_cpu(5, DEFAULT_ITERS), want_d = 0.0;
    for (int j = 0; j < CHAINS; j++)
        want_d += 1.0 + (5.0 + j - 1.0) * pow(DFMA_A, DEFAULT_ITERS);
    ok = fabs(d - want_d) < 1e-9 * want_d;
    printf("%s dfma_cpu: %.12g matches the closed form %.12g\n", ok ? "PASS" : "FAIL", d, want_d);
    failed += !ok;
    // dmma: lane 0 (g = 0, t = 0) holds D[0][0] and D[0][1]. A's row 0 comes from lanes 0-3
    // (-2, -1, 0, 1) and B's columns 0 and 1 from lanes 0-3 (-1, 0, 1, -1) and 4-7 (0, 1, -1, 0),
    // so (A B)[0][0] = 2 + 0 + 0 - 1 = 1 and (A B)[0][1] = 0 - 1 + 0 + 0 = -1: each trip adds
    // nothing to lane 0's sum, and it stays the sum of its starting values
    double d0 = 0.0;
    for (int j = 0; j < CHAINS; j++) d0 += dmma_d0(0, j, 0) + dmma_d0(0, j, 1);
    ok = dmma_cpu(0, DEFAULT_ITERS) == d0 && dmma_cpu(0, 1) == d0;
    printf("%s dmma_cpu: lane 0's two products cancel (A B)[0][0] = 1, (A B)[0][1] = -1\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    // lane 5 (g = 1, t = 1) holds D[1][2] and D[1][3]: A's row 1 is lanes 4-7 (2, -2, -1, 0),
    // B's column 2 lanes 8-11 (1, -1, 0, 1), column 3 lanes 12-15 (-1, 0, 1, -1): 4 and -3
    double d5 = 0.0;
    for (int j = 0; j < CHAINS; j++) d5 += dmma_d0(5, j, 0) + dmma_d0(5, j, 1) + 10.0 * (4 - 3);
    ok = dmma_cpu(5, 10) == d5;
    printf("%s dmma_cpu: lane 5 gains (4 - 3) a trip for each accumulator\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    // ulps: 1 is 2^-23 from the next float up, 0.75 is 2^-24, 403 (e^6) is 2^-15
    ok = ulp_of(1.0f) == 0x1p-23 && ulp_of(0.75f) == 0x1p-24 && ulp_of(403.0f) == 0x1p-15 &&
         ulp_of(-3.0f) == 0x1p-22;
    printf("%s ulp_of: 1, 0.75, 403 and -3 lie 2^-23, 2^-24, 2^-15 and 2^-22 from their next float\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    ok = fast_expf_ulps(6.0f) == 9.0 && fast_expf_ulps(-2.0f) == 4.0 && fast_expf_ulps(0.5f) == 2.0;
    printf("%s fast_expf_ulps: __expf's bound is 9 ulp at 6, 4 at -2, 2 at 0.5\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    // the sweeps: with 2^14 calls every addition is exact, so the last argument is the first plus
    // (2^14 - 1) steps; the last thread's last chain ends below 1.5 (sin) and 6 (exp)
    const sweep *sweeps[2] = {&SIN_SWEEP, &EXP_SWEEP};
    for (int w = 0; w < 2; w++) {
        const sweep *sw = sweeps[w];
        unsigned tid = 1023;
        int j = SFU_CHAINS - 1;
        float last = sweep_last(sw, tid, j, DEFAULT_ITERS);
        double closed = (double)sweep_first(sw, tid, j) +
                        (double)(DEFAULT_ITERS - 1) * sw->span / DEFAULT_ITERS;
        ok = (double)last == closed && last < sw->lo + 8192 * sw->spacing + sw->span;
        printf("%s sweep_last (%s): the last argument %.9g is the first plus %d steps\n",
               ok ? "PASS" : "FAIL", w == 0 ? "sin" : "exp", last, DEFAULT_ITERS - 1);
        failed += !ok;
    }
    ok = SIN_LO + 8192 * SIN_SPACING + SIN_SPAN < M_PI / 2 && SIN_LO > 0;
    printf("%s sweeps: sin's arguments stay in (0, pi/2), where it rises, inside __sinf's [-pi, pi]\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    // the largest result of a sweep is f at its last argument: by brute force over every call,
    // for a few chains and trip counts (7 and 1000: additions that round)
    int iters_tried[3] = {1, 7, 1000};
    for (int w = 0; w < 2; w++)
        for (int t = 0; t < 3; t++) {
            const sweep *sw = sweeps[w];
            int iters = iters_tried[t];
            ok = 1;
            for (unsigned tid = 0; tid < 1024; tid += 341)
                for (int j = 0; j < SFU_CHAINS; j += 3) {
                    float x = sweep_first(sw, tid, j), step = sweep_step(sw, iters);
                    double best = -INFINITY;
                    for (int i = 0; i < iters; i++, x += step) best = fmax(best, sw->f(x));
                    ok &= best == sw->f(sweep_last(sw, tid, j, iters));
                }
            printf("%s sfu reference (%s, -k %d): the largest result is f at the last argument\n",
                   ok ? "PASS" : "FAIL", w == 0 ? "sin" : "exp", iters);
            failed += !ok;
        }
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ---- main ---------------------------------------------------------------------------------------

int main(int argc, char **argv) {
    options o = {};
    o.program = "peaks";
    o.chapter = "00-peaks";
    o.sizes = "nk";
    o.n_means = "floats the copies move";
    o.k_means = "loop trips of the arithmetic kernels";
    o.m = 1, o.n = DEFAULT_N, o.k = DEFAULT_ITERS;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return peaks_self_test();
    // This program's own loop below times each launch between its own events; the shared
    // harness's other ways of running (bench_run's) are not in it, so it refuses them.
    const char *other = o.batch        ? "--batch"
                        : o.check_each ? "--check-each"
                        : o.dump       ? "--dump"
                        : o.verify     ? "--verify"
                        : o.save       ? "--save"
                        : o.interleave ? "--interleave"
                        : o.rest_ms    ? "--rest"
                                       : NULL;
    if (other) {
        fprintf(stderr, "peaks: %s: this program times each launch on its own and takes none of "
                "--batch, --check-each, --dump, --verify, --save, --interleave and --rest\n",
                other);
        return KL_EXIT_USAGE;
    }

    env_info env;
    gpu_open(&env);
    bench_header(&o, &env);

    peaks_problem p = {};
    p.n = o.n;
    p.iters = (int)o.k;
    p.sms = env.sms;
    p.cc = env.cc_major * 10 + env.cc_minor;
    p.threads = (size_t)env.sms * env.sm_threads;  // every SM full
    size_t bytes = size_mul(p.n, sizeof(float));
    gpu_require(size_mul(bytes, 2), "the two copy buffers");
    p.src = (float *)gpu_alloc(bytes, "the copy source");
    p.dst = (float *)gpu_alloc(bytes, "the copy destination");
    size_t out_bytes = p.threads * SFU_CHAINS * sizeof(float);  // the special functions' rows
    p.out = (float *)gpu_alloc(out_bytes, "the per-thread results");
    p.out64 = (double *)gpu_alloc(p.threads * sizeof(double), "the per-thread FP64 results");
    p.host_src = (float *)host_alloc(bytes, "the copy source");
    p.host_dst = (float *)host_alloc(bytes, "the copied data");
    p.host_out = (float *)host_alloc(out_bytes, "the per-thread results");
    p.host_out64 = (double *)host_alloc(p.threads * sizeof(double), "the per-thread FP64 results");
    rng g;
    rng_init(&g, o.seed);
    rng_fill_f32(&g, p.host_src, p.n, -1.0f, 1.0f);
    CHECK(cudaMemcpy(p.src, p.host_src, bytes, cudaMemcpyHostToDevice));

    double clock_hz = env.sm_clock_mhz * 1e6;
    report_table_header(stdout, "datasheet");
    int wrong = 0;
    for (int i = 0; i < VERSION_COUNT; i++) {
        if (!selected[i]) continue;
        const version *v = &versions[i];
        const char *why = peaks_skip(&p, i);
        if (why) {
            printf("    %s: skipped: %s\n", v->tag, why);
            continue;
        }
        if (i <= COPY) gpu_poison(p.dst, bytes);
        else if (is_f64(i)) gpu_poison(p.out64, p.threads * sizeof(double));
        else gpu_poison(p.out, out_bytes);
        v->launch(&p);
        CHECK(cudaDeviceSynchronize());
        check_result r;
        check_init(&r);
        sfu_error err = {};
        peaks_check(&p, i, &r, &err);
        timing t = {NAN, NAN, NAN};
        if (check_ok(&r) && !o.check_only) {
            t = time_launches(v, &p, o.warmup, o.reps, o.flush_l2);
            check_result again;  // the last timed launch's output
            check_init(&again);
            peaks_check(&p, i, &again, &err);
            if (!check_ok(&again)) r = again;
        }
        int ok = check_ok(&r);
        double rate = work(&p, i) / (t.median * 1e-3);  // per second
        // per clock per SM: FMAs and add+min pairs (2 operations each), results, or bytes
        double per_clock = ceilings[i].kind == OPS ? rate / 2.0 : rate;
        per_clock /= (double)env.sms * clock_hz;
        result_row row = {};
        row.chapter = o.chapter, row.version = v->tag, row.idea = v->idea, row.input = NULL;
        row.m = 1, row.n = (i <= COPY) ? p.n : row_threads(&p, i);
        row.k = (i <= COPY) ? 1 : (size_t)p.iters;
        row.reps = o.check_only ? 0 : o.reps;
        row.ms_median = ok ? t.median : NAN, row.ms_min = ok ? t.min : NAN;
        row.ms_max = ok ? t.max : NAN;
        row.gbps = ceilings[i].kind == BYTES && ok ? rate / 1e9 : NAN;
        row.gflops = ceilings[i].kind != BYTES && ok ? rate / 1e9 : NAN;
        row.pct_of_baseline = ceilings[i].datasheet > 0 && ok
                                  ? 100.0 * per_clock / ceilings[i].datasheet : NAN;
        row.max_rel_err = r.max_rel;
        row.ok = ok ? "yes" : "no";
        row.extra_name = ceilings[i].per_clock;
        row.extra_value = ok ? per_clock : NAN;
        report_table_row(stdout, &row);
        if (is_sfu(i))
            printf("    %s: largest error %.2f ulp, %.2g absolute, over %zu results (bound: %s)\n",
                   v->tag, err.ulp, err.abs, err.count, bound_text(bound_of(i)));
        if (i == SMEM64_8B)
            printf("    %s: asked for 8-byte banks, the device reports %d-byte banks\n", v->tag,
                   bank_bytes_when_asked_for_8());
        if (o.csv && csv_append(o.csv, &row) != 0) return KL_EXIT_USAGE;
        wrong |= !ok;
    }
    if (o.csv) env_write(o.csv, &env);
    printf("\nPer clock figures use the %d MHz maximum SM clock; the datasheet's device memory, "
           "4.8 TB/s on an H200 SXM, is %.1f B/clk/SM at that clock.\n",
           env.sm_clock_mhz, 4.8e12 / ((double)env.sms * clock_hz));

    CHECK(cudaFree(p.src));
    CHECK(cudaFree(p.dst));
    CHECK(cudaFree(p.out));
    CHECK(cudaFree(p.out64));
    free(p.host_src), free(p.host_dst), free(p.host_out), free(p.host_out64);
    return wrong ? KL_EXIT_WRONG : KL_EXIT_OK;
}
