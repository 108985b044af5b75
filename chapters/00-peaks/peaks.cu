// Chapter 00: peaks. Before making anything faster we measure how fast this GPU can go at
// all: each later chapter reports its versions as a fraction of one of these ceilings.
//
//   memcpy   cudaMemcpy device to device: the memory ceiling (bytes read + bytes written)
//   copy     the vectorized copy kernel of common/copy.cuh: that ceiling, reached by a kernel
//   fma      FP32 fused multiply-adds from registers: the arithmetic ceiling (2 flops each)
//   addmin   an FP32 add then a min from registers: the inner loop of the min-plus product
//   smem     16-byte loads from shared memory: the shared-memory ceiling
//
// Each is reported as a rate, per clock per SM, and against the datasheet where it has one.
//
// Build and run:   make build/peaks && build/peaks
//                  build/peaks -v fma,addmin --reps 50
//                  build/peaks -n 67108864 -v copy        (a 256 MiB copy)
//                  build/peaks -k 64 -v fma               (64 loop trips, for the sanitizers)
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
    float *out, *host_out;
    int sms;
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

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"memcpy", "cudaMemcpy", launch_memcpy, 0},
    {"copy", "copy-kernel", launch_copy, 0},
    {"fma", "ffma", launch_fma, 0},
    {"addmin", "fadd+fmnmx", launch_addmin, 0},
    {"smem", "lds128", launch_smem, 0},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// What each ceiling counts, in the same order as the table. Datasheet figures per clock per SM
// for compute capability 9.0: 128 FP32 FMA, 64 min/max (so 64 add+min pairs, since an SM issues
// 4 instructions a clock), 32 banks x 4 bytes of shared memory; device memory is 4.8 TB/s on
// the H200 SXM datasheet, shown against the SM clock to compare like with like.
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
};

// Per launch: bytes moved (read + written) or operations (an FMA is 2 flops; an add+min pair is
// 2 operations, counted as the min-plus chapter counts them).
static double work(const peaks_problem *p, int i) {
    double per_thread = (double)p->iters * CHAINS;
    switch (i) {
    case 0: case 1: return 2.0 * (double)p->n * sizeof(float);
    case 2: case 3: return 2.0 * per_thread * (double)p->threads;
    default: return (double)SMEM_TRIPS(p->iters) * CHAINS * 16.0 * (double)p->threads;
    }
}

// ---- checking -----------------------------------------------------------------------------------

static void peaks_check(const peaks_problem *p, int i, check_result *r) {
    if (i <= 1) {
        CHECK(cudaMemcpy(p->host_dst, p->dst, p->n * sizeof(float), cudaMemcpyDeviceToHost));
        check_f32(r, p->host_dst, p->host_src, 1, p->n, 0, 0.0, 0.0);
        return;
    }
    CHECK(cudaMemcpy(p->host_out, p->out, p->threads * sizeof(float), cudaMemcpyDeviceToHost));
    // Recompute a sample of threads on the CPU, spread across the grid; each must match exactly.
    for (int s = 0; s < SAMPLE; s++) {
        unsigned tid = (unsigned)((size_t)s * (p->threads - 1) / (SAMPLE - 1));
        float want = i == 2   ? fma_cpu(tid, p->iters)
                     : i == 3 ? addmin_cpu(tid, p->iters)
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
    p.threads = (size_t)env.sms * env.sm_threads;  // every SM full
    size_t bytes = size_mul(p.n, sizeof(float));
    gpu_require(size_mul(bytes, 2), "the two copy buffers");
    p.src = (float *)gpu_alloc(bytes, "the copy source");
    p.dst = (float *)gpu_alloc(bytes, "the copy destination");
    p.out = (float *)gpu_alloc(p.threads * sizeof(float), "the per-thread results");
    p.host_src = (float *)host_alloc(bytes, "the copy source");
    p.host_dst = (float *)host_alloc(bytes, "the copied data");
    p.host_out = (float *)host_alloc(p.threads * sizeof(float), "the per-thread results");
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
        float *out = i <= 1 ? p.dst : p.out;
        gpu_poison(out, i <= 1 ? bytes : p.threads * sizeof(float));
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
        row.m = 1, row.n = (i <= 1) ? p.n : p.threads, row.k = (i <= 1) ? 1 : (size_t)p.iters;
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
    free(p.host_src), free(p.host_dst), free(p.host_out);
    return wrong ? KL_EXIT_WRONG : KL_EXIT_OK;
}
