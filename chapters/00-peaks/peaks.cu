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
//
// Each is reported as a rate, per clock per SM, and against the datasheet where it has one.
//
// Build and run:   make build/peaks && build/peaks
//                  build/peaks -v fma,addmin --reps 50
//                  build/peaks -n 67108864 -v copy        (a 256 MiB copy)
//                  build/peaks -k 64 -v fma               (64 loop trips, for the sanitizers)
//                  build/peaks -v fma,dfma,dmma           (single against double precision)
#include <math.h>
#include <string.h>

#include "copy.cuh"
#include "gpu.h"
#include "rng.h"

// 2^28 floats: each copy buffer is 1 GiB, some 18 times the L2, so copies measure device
// memory. The arithmetic kernels do not read memory; they size their grid to the GPU.
#define DEFAULT_N (1u << 28)
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42

// The arithmetic kernels: 256 threads a block and as many blocks an SM as it holds (8 on Hopper,
// 64 warps). Many warps, each with several independent chains, keep every pipeline busy however
// long its latency.
#define PEAK_THREADS 256
// Independent chains per thread: the next instruction of a chain waits for the last one (about
// 4 cycles), so a thread gives the scheduler CHAINS instructions it can issue back to back.
// TRY: 1 or 2 chains, and see the FMA rate drop to what latency allows.
#define CHAINS 8
// Loop trips (-k): long enough (milliseconds a launch) that launch overhead does not count;
// the sanitizers use a few. The shared-memory kernel makes a quarter as many, each moving more.
#define DEFAULT_ITERS 16384
#define SMEM_TRIPS(iters) ((iters) / 4 > 0 ? (iters) / 4 : 1)
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
    size_t threads;       // threads in an arithmetic grid, one result each
    int iters;            // loop trips of the arithmetic kernels (-k)
    float *out, *host_out;         // one float a thread (FP32 kernels), device and host
    double *out64, *host_out64;    // one double a thread (FP64 kernels)
    int sms;
    int cc;               // compute capability, 90 for 9.0: the tensor-core rows need 80 or 90
} peaks_problem;

// ---- the CPU reference: what one thread of each arithmetic kernel computes ---------------------

// fma: each chain runs x = x * a + b, rounded once (fmaf rounds once, as the GPU's FFMA does).
#define FMA_A 0.99990f
#define FMA_B 0.00010f
static float fma_cpu(unsigned tid, int iters) {
    float x[CHAINS], s = 0.0f;
    for (int j = 0; j < CHAINS; j++) x[j] = (float)(tid % 1024 + j);
    for (int i = 0; i < iters; i++)
        for (int j = 0; j < CHAINS; j++) x[j] = fmaf(x[j], FMA_A, FMA_B);
    for (int j = 0; j < CHAINS; j++) s += x[j];
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
static float smem_cpu(unsigned tid, int trips) {
    float acc = 0.0f;
    unsigned t = tid % PEAK_THREADS;
    for (int i = 0; i < trips; i++)
        for (int j = 0; j < CHAINS; j++) {
            int idx = (int)((t + (unsigned)(i * CHAINS + j) * 32u) & (SMEM_FLOAT4S - 1));
            acc += smem_value(4 * idx) + smem_value(4 * idx + 1) + smem_value(4 * idx + 2) +
                   smem_value(4 * idx + 3);
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

// CHAINS independent FFMAs per trip, unrolled so the loop counter costs little next to them.
__global__ void peak_fma(float *out, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float x[CHAINS];
#pragma unroll
    for (int j = 0; j < CHAINS; j++) x[j] = (float)(tid % 1024 + j);  // exact: no rounding
#pragma unroll 16
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int j = 0; j < CHAINS; j++) x[j] = fmaf(x[j], FMA_A, FMA_B);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < CHAINS; j++) s += x[j];
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
__global__ void peak_smem(float *out, int trips) {
    __shared__ float4 buf[SMEM_FLOAT4S];  // 16 KiB
    for (int i = threadIdx.x; i < SMEM_FLOAT4S; i += blockDim.x)
        buf[i] = make_float4((float)((4 * i) % 7), (float)((4 * i + 1) % 7),
                             (float)((4 * i + 2) % 7), (float)((4 * i + 3) % 7));
    __syncthreads();  // the buffer is full before anyone reads it
    float acc = 0.0f;
#pragma unroll 1
    for (int i = 0; i < trips; i++)
#pragma unroll
        for (int j = 0; j < CHAINS; j++) {
            float4 v = buf[(threadIdx.x + (unsigned)(i * CHAINS + j) * 32u) & (SMEM_FLOAT4S - 1)];
            acc += v.x + v.y + v.z + v.w;
        }
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

static unsigned arith_blocks(const peaks_problem *p) {
    return (unsigned)(p->threads / PEAK_THREADS);
}

static void launch_fma(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_fma<<<arith_blocks(p), PEAK_THREADS>>>(p->out, p->iters);
    CHECK_LAUNCH();
}

static void launch_addmin(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_addmin<<<arith_blocks(p), PEAK_THREADS>>>(p->out, p->iters);
    CHECK_LAUNCH();
}

static void launch_smem(void *problem) {
    peaks_problem *p = (peaks_problem *)problem;
    peak_smem<<<arith_blocks(p), PEAK_THREADS>>>(p->out, SMEM_TRIPS(p->iters));
    CHECK_LAUNCH();
}

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
};
enum { MEMCPY, COPY, FMA, ADDMIN, SMEM, DFMA, DMMA, DMMA16 };  // rows of the table
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// What each ceiling counts, in the same order as the table. Datasheet figures per clock per SM
// for compute capability 9.0: 128 FP32 FMA, 64 min/max (so 64 add+min pairs, since an SM issues
// 4 instructions a clock), 32 banks x 4 bytes of shared memory, 64 FP64 FMA on the CUDA cores
// and 128 on the tensor cores (the H100/H200 SXM's 34 and 67 TFLOP/s: 132 SMs at 1980 MHz);
// device memory is 4.8 TB/s on the H200 SXM datasheet, shown against the SM clock to compare
// like with like.
typedef enum { BYTES, OPS } count_kind;
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
};

// Per launch: bytes moved (read + written) or operations (an FMA is 2 flops; an add+min pair is
// 2 operations, counted as the min-plus chapter counts them). A warp's m8n8k4 is 256 FMAs, 8 a
// thread; an m16n8k16 is 2048, 64 a thread.
static double work(const peaks_problem *p, int i) {
    double per_thread = (double)p->iters * CHAINS;
    switch (i) {
    case MEMCPY: case COPY: return 2.0 * (double)p->n * sizeof(float);
    case FMA: case ADDMIN: case DFMA: return 2.0 * per_thread * (double)p->threads;
    case DMMA: return 2.0 * 8.0 * per_thread * (double)p->threads;
    case DMMA16: return 2.0 * 64.0 * DMMA16_TRIPS(p->iters) * CHAINS * (double)p->threads;
    default: return (double)SMEM_TRIPS(p->iters) * CHAINS * 16.0 * (double)p->threads;
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

static void peaks_check(const peaks_problem *p, int i, check_result *r) {
    if (i >= DFMA) {
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
    CHECK(cudaMemcpy(p->host_out, p->out, p->threads * sizeof(float), cudaMemcpyDeviceToHost));
    // Recompute a sample of threads on the CPU, spread across the grid; each must match exactly.
    for (int s = 0; s < SAMPLE; s++) {
        unsigned tid = (unsigned)((size_t)s * (p->threads - 1) / (SAMPLE - 1));
        float want = i == FMA      ? fma_cpu(tid, p->iters)
                     : i == ADDMIN ? addmin_cpu(tid, p->iters)
                              : smem_cpu(tid, SMEM_TRIPS(p->iters));
        check_f32(r, &p->host_out[tid], &want, 1, 1, tid, 0.0, 0.0);
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
    float f = fma_cpu(5, DEFAULT_ITERS);
    double want_f = 0.0;
    for (int j = 0; j < CHAINS; j++)
        want_f += 1.0 + (5.0 + j - 1.0) * pow((double)FMA_A, DEFAULT_ITERS);
    ok = fabs(f - want_f) < 1e-3 * want_f;
    printf("%s fma_cpu: %g matches the closed form %g\n", ok ? "PASS" : "FAIL", f, want_f);
    failed += !ok;
    // addmin: y falls by exactly ITERS / 1024, and v follows it
    float a = addmin_cpu(3, DEFAULT_ITERS), want = 0.0f;
    for (int j = 0; j < CHAINS; j++) want += (float)(3 + j) - DEFAULT_ITERS / 1024.0f;
    ok = a == want;
    printf("%s addmin_cpu: every chain ends at its start - %d/1024\n", ok ? "PASS" : "FAIL",
           DEFAULT_ITERS);
    failed += !ok;
    // smem: thread t reads float4 t + 32 q (mod 1024) for q = 8 i + j, so every 4 trips visit
    // the 32 float4s t % 32 + 32 r once each: trips * CHAINS / 32 times each in all
    for (unsigned t = 0; t < PEAK_THREADS; t += 37) {
        double want_s = 0.0;
        for (int r = 0; r < 32; r++) {
            int idx = (int)(t % 32) + 32 * r;
            for (int e = 0; e < 4; e++) want_s += smem_value(4 * idx + e);
        }
        want_s *= SMEM_TRIPS(DEFAULT_ITERS) * CHAINS / 32;
        ok = smem_cpu(t, SMEM_TRIPS(DEFAULT_ITERS)) == (float)want_s;
        printf("%s smem_cpu: thread %u matches the closed form %g\n", ok ? "PASS" : "FAIL", t,
               want_s);
        failed += !ok;
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
    p.out = (float *)gpu_alloc(p.threads * sizeof(float), "the per-thread results");
    p.out64 = (double *)gpu_alloc(p.threads * sizeof(double), "the per-thread FP64 results");
    p.host_src = (float *)host_alloc(bytes, "the copy source");
    p.host_dst = (float *)host_alloc(bytes, "the copied data");
    p.host_out = (float *)host_alloc(p.threads * sizeof(float), "the per-thread results");
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
        else if (i >= DFMA) gpu_poison(p.out64, p.threads * sizeof(double));
        else gpu_poison(p.out, p.threads * sizeof(float));
        v->launch(&p);
        CHECK(cudaDeviceSynchronize());
        check_result r;
        check_init(&r);
        peaks_check(&p, i, &r);
        timing t = {NAN, NAN, NAN};
        if (check_ok(&r) && !o.check_only) {
            t = time_launches(v, &p, o.warmup, o.reps, o.flush_l2);
            check_result again;  // the last timed launch's output
            check_init(&again);
            peaks_check(&p, i, &again);
            if (!check_ok(&again)) r = again;
        }
        int ok = check_ok(&r);
        double rate = work(&p, i) / (t.median * 1e-3);  // per second
        double per_clock = rate / 2.0 * (ceilings[i].kind == OPS) +
                           rate * (ceilings[i].kind == BYTES);  // ops counted in pairs/FMAs
        per_clock /= (double)env.sms * clock_hz;
        result_row row = {};
        row.chapter = o.chapter, row.version = v->tag, row.idea = v->idea, row.input = NULL;
        row.m = 1, row.n = (i <= COPY) ? p.n : p.threads, row.k = (i <= COPY) ? 1 : (size_t)p.iters;
        row.reps = o.check_only ? 0 : o.reps;
        row.ms_median = ok ? t.median : NAN, row.ms_min = ok ? t.min : NAN;
        row.ms_max = ok ? t.max : NAN;
        row.gbps = ceilings[i].kind == BYTES && ok ? rate / 1e9 : NAN;
        row.gflops = ceilings[i].kind == OPS && ok ? rate / 1e9 : NAN;
        row.pct_of_baseline = ceilings[i].datasheet > 0 && ok
                                  ? 100.0 * per_clock / ceilings[i].datasheet : NAN;
        row.max_rel_err = r.max_rel;
        row.ok = ok ? "yes" : "no";
        row.extra_name = ceilings[i].per_clock;
        row.extra_value = ok ? per_clock : NAN;
        report_table_row(stdout, &row);
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
