// Chapter 05: reduction. A sum reads every float once and does one add for it, so memory
// bandwidth is the only ceiling; the lesson is how the threads share out the adds.
//
//   cub          (baseline) CUB DeviceReduce::Sum: the library's tuned reduction
//   v0 divergent   a tree in shared memory, one element a thread; thread t works at step s
//                  when t % 2s == 0, so the working threads are scattered across every warp
//   v1 strided     thread t works on element 2st: the working threads are packed into whole
//                  warps, but their shared-memory addresses are 2s words apart (bank conflicts)
//   v2 sequential  the tree folds the upper half of the range onto the lower half: thread t
//                  adds element t + s, consecutive words, no conflicts
//   v3 firstadd    each thread adds two elements while it loads them: half the blocks, and no
//                  thread that only loads and then idles
//   v4 lastwarp    the last six steps run inside one warp: no block barriers, no idle checks
//   v5 unrolled    the block size is a compile-time constant, so the whole tree unrolls
//   v6 coarsened   a grid sized to fill the GPU once; each thread sums many elements in a
//                  register first, so each block runs the tree once, at the end
//   v6a vectorized 16-byte loads: a float4 a thread, a quarter of the load instructions
//   v7 shuffle     warp shuffles instead of shared memory for the tree
//   v8 atomic      one pass: each block adds its sum into the result with one atomicAdd
//   v9 inflight    four 16-byte loads in flight per thread before the first add
//   v10 lastblock  the last block to finish adds the block sums in a fixed order: one kernel,
//                  no memset, and the same bits every run
//
// Build and run:   make build/reduction && build/reduction             (n = 2^28)
//                  build/reduction -n 1000003 -v v7,v9 --reps 50
//                  build/reduction --input positive | --list | --help | --check-only | --save out/
#include <float.h>
#include <math.h>
#include <string.h>

#include <cub/device/device_reduce.cuh>

#include "gpu.h"
#include "npy.h"
#include "rng.h"

// 2^28 floats: 1 GiB read, eighteen times the 50-60 MB L2 of a Hopper GPU, so we measure
// device memory and not the cache. It is also the size CUB's reference figure is taken at.
#define DEFAULT_N 268435456
// 20 timed launches give a stable median; 3 warm-up launches take module loading and
// first-touch effects out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42
// Every version runs blocks of 256 threads: eight warps, and a power of two, as the trees need.
// The launchers and the pass helpers launch THREADS; main sizes the block sums and the grid
// for it, so a version with smaller blocks would need more room for its block sums.
constexpr int THREADS = 256;

// --input: what the floats are.
//   signed    uniform in [-1, 1): the usual case; the sum is small next to sum |x|
//   positive  uniform in [0, 1): the sum grows with n, where a plain float loop goes wrong
//   integers  whole numbers 1 to 4: every partial sum is a whole number, exact in a float
//             while it stays below 2^24, so up to n = 2^22 every version must be exact
static const char *const inputs[] = {"signed", "positive", "integers", NULL};

// The problem every version sees.
typedef struct {
    size_t n;
    const float *x;           // the input, n floats on the device
    float *out;               // the result: one float on the device
    float *partials;          // block sums between passes: partials_count floats
    float *partials2;         // and the sums of those, for a third pass: partials2_count
    size_t partials_count, partials2_count;
    void *cub_temp;           // CUB's scratch, allocated once, outside the timed launches
    size_t cub_temp_bytes;
    unsigned grid;            // blocks that fill the GPU once: SMs x the blocks an SM holds
    float *host_x;
    double want, abs_sum;     // the float64 reference sum and sum |x|
    double tol;               // how far a float32 sum may be from want
    float got;                // the last result copied back
} reduction_problem;

// ---- the CPU reference --------------------------------------------------------------------------

// The sum in float64, in order, and sum |x| for the tolerance. A double has 29 more mantissa
// bits than a float, so this is the truth to far better than any float32 sum can be.
static double reduction_cpu(const float *x, size_t n, double *abs_sum) {
    double s = 0.0, a = 0.0;
    for (size_t i = 0; i < n; i++) s += x[i], a += fabs((double)x[i]);
    *abs_sum = a;
    return s;
}

// The loop everyone writes first: a float accumulator, in order. Not a reference: its error
// grows with the running sum (see the self-test and the README). We print it for comparison.
static float naive_float_sum(const float *x, size_t n) {
    float s = 0.0f;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s;
}

// A tree of depth d adds every x[i] into at most d partial sums; each add rounds by at most
// half an ulp, u = 2^-24 of its result, so |got - want| <= d * u * sum |x| (to first order).
// We allow twice that plus one rounding: FLT_EPSILON = 2u times (ceil(log2 n) + 1). Whole
// numbers are exact while every partial sum stays below 2^24 (4n <= 2^24 for inputs 1 to 4).
static double reduction_tolerance(size_t n, double abs_sum, int integers) {
    if (integers && n <= ((size_t)1 << 22)) return 0.0;
    return FLT_EPSILON * (ceil(log2((double)n)) + 1.0) * abs_sum;
}

// ---- baseline ---------------------------------------------------------------------------------

// cub: the library's reduction, two kernels (block sums, then one block over them). Its
// scratch buffer was sized and allocated in main, so only the launches are timed.
static void launch_cub(void *problem) {
    reduction_problem *p = (reduction_problem *)problem;
    CHECK(cub::DeviceReduce::Sum(p->cub_temp, p->cub_temp_bytes, p->x, p->out, (int)p->n));
}

#include "passes.cuh"
#include "v00-divergent.cuh"
#include "v01-strided.cuh"
#include "v02-sequential.cuh"
#include "v03-firstadd.cuh"
#include "v04-lastwarp.cuh"
#include "v05-unrolled.cuh"
#include "grid-stride.cuh"
#include "v06-coarsened.cuh"
#include "v06a-vectorized.cuh"
#include "block-sum.cuh"
#include "v07-shuffle.cuh"
#include "v08-atomic.cuh"
#include "v09-inflight.cuh"
#include "v10-lastblock.cuh"

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"cub", "DeviceReduce", launch_cub, KL_BASELINE},
    {"v0", "divergent", launch_v0, 0},
    {"v1", "strided", launch_v1, 0},
    {"v2", "sequential", launch_v2, 0},
    {"v3", "firstadd", launch_v3, 0},
    {"v4", "lastwarp", launch_v4, 0},
    {"v5", "unrolled", launch_v5, 0},
    {"v6", "coarsened", launch_v6, 0},
    {"v6a", "vectorized", launch_v6a, 0},
    {"v7", "shuffle", launch_v7, 0},
    {"v8", "atomic", launch_v8, 0},
    {"v9", "inflight", launch_v9, 0},
    {"v10", "lastblock", launch_v10, 0},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// ---- checking and saving ------------------------------------------------------------------------

// One float against the float64 reference, within the tolerance of reduction_tolerance.
// Then the partial-sum buffers are poisoned: the harness poisons only out, and a later version
// that skipped a block must not find this version's sums waiting there.
static void reduction_check(void *problem, const version *v, check_result *r) {
    (void)v;
    reduction_problem *p = (reduction_problem *)problem;
    CHECK(cudaMemcpy(&p->got, p->out, sizeof(float), cudaMemcpyDeviceToHost));
    double got = p->got;
    check_f64(r, &got, &p->want, 1, 1, 0, p->tol, 0.0);
    gpu_poison(p->partials, p->partials_count * sizeof(float));
    gpu_poison(p->partials2, p->partials2_count * sizeof(float));
}

static void reduction_save(void *problem, const char *dir, const char *tag) {
    reduction_problem *p = (reduction_problem *)problem;
    size_t shape[1] = {1};
    if (npy_save(dir, tag, "<f4", shape, 1, &p->got) != 0) exit(KL_EXIT_USAGE);
}

// ---- the self-test of the CPU reference (no GPU) -----------------------------------------------

static int reduction_self_test(void) {
    int failed = 0, ok;
    // four numbers worked by hand
    const float hand[4] = {1.0f, 2.0f, 3.5f, -4.0f};
    double abs_sum = 0.0;
    ok = reduction_cpu(hand, 4, &abs_sum) == 2.5 && abs_sum == 10.5;
    printf("%s reduction_cpu: 1 + 2 + 3.5 - 4 = 2.5, sum |x| = 10.5\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    // whole numbers 1 to 4, against an integer count, at the sizes the GPU sweep uses
    const size_t sizes[] = {1, 2, 3, 31, 32, 33, 255, 256, 257, 1023, 1025, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        float *x = (float *)host_alloc(n * sizeof(float), "self-test");
        rng g;
        rng_init(&g, 11 + s);
        long long count = 0;
        for (size_t i = 0; i < n; i++) {
            x[i] = (float)(1 + rng_below(&g, 4));
            count += (long long)x[i];
        }
        ok = reduction_cpu(x, n, &abs_sum) == (double)count && abs_sum == (double)count;
        printf("%s reduction_cpu: whole numbers 1 to 4, n = %zu, sum = %lld exactly\n",
               ok ? "PASS" : "FAIL", n, count);
        failed += !ok;
        free(x);
    }
    // Why the reference is float64: 2^25 ones. A float loop stops at 2^24 = 16777216, where the
    // gap between floats is 2 and 16777216 + 1 rounds back down; the double sum is exact.
    size_t n = (size_t)1 << 25;
    float *ones = (float *)host_alloc(n * sizeof(float), "self-test");
    for (size_t i = 0; i < n; i++) ones[i] = 1.0f;
    ok = reduction_cpu(ones, n, &abs_sum) == 33554432.0;
    printf("%s reduction_cpu: 2^25 ones sum to 33554432\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    ok = naive_float_sum(ones, n) == 16777216.0f;
    printf("%s naive_float_sum: 2^25 ones stop at 16777216 (why the reference is float64)\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    free(ones);
    // the tolerance: exact for small whole-number sums, eps (log2 n + 1) sum |x| otherwise
    ok = reduction_tolerance(1000, 2500.0, 1) == 0.0 &&
         reduction_tolerance((size_t)1 << 23, 1.0, 1) == FLT_EPSILON * 24.0 &&
         reduction_tolerance(1024, 1.0, 0) == FLT_EPSILON * 11.0 &&
         reduction_tolerance(1, 1.0, 0) == FLT_EPSILON;
    printf("%s reduction_tolerance: exact, or FLT_EPSILON * (ceil(log2 n) + 1) * sum |x|\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ---- main ---------------------------------------------------------------------------------------

int main(int argc, char **argv) {
    options o = {};
    o.program = "reduction";
    o.chapter = "05-reduction";
    o.sizes = "n";
    o.n_means = "floats to sum";
    o.inputs = inputs;
    o.input = inputs[0];
    o.m = 1, o.n = DEFAULT_N, o.k = 1;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return reduction_self_test();

    env_info env;
    gpu_open(&env);
    // the baseline's library, for the .env.csv: CUB_VERSION is 100000 major + 100 minor + patch
    snprintf(env.library, sizeof env.library, "CUB %d.%d.%d", CUB_VERSION / 100000,
             CUB_VERSION / 100 % 1000, CUB_VERSION % 100);
    bench_header(&o, &env);

    reduction_problem p = {};
    p.n = o.n;
    p.grid = (unsigned)(env.sms * (env.sm_threads / THREADS));
    // Pass 1 of v0-v2 leaves ceil(n / THREADS) sums, the most any version leaves; the
    // grid-stride versions leave at most `grid`. Pass 2 leaves at most ceil(that / THREADS).
    p.partials_count = ceil_div(p.n, THREADS);
    if (p.partials_count < p.grid) p.partials_count = p.grid;
    p.partials2_count = ceil_div(p.partials_count, THREADS);
    CHECK(cub::DeviceReduce::Sum(NULL, p.cub_temp_bytes, (const float *)NULL, (float *)NULL,
                                 (int)p.n));
    size_t bytes = size_mul(p.n, sizeof(float));
    size_t scratch = (p.partials_count + p.partials2_count + 1) * sizeof(float);
    gpu_require(bytes + scratch + p.cub_temp_bytes, "the input, partial sums and CUB's scratch");
    p.x = (const float *)gpu_alloc(bytes, "the input");
    p.out = (float *)gpu_alloc(sizeof(float), "the result");
    p.partials = (float *)gpu_alloc(p.partials_count * sizeof(float), "the block sums");
    p.partials2 = (float *)gpu_alloc(p.partials2_count * sizeof(float), "the block sums");
    p.cub_temp = gpu_alloc(p.cub_temp_bytes > 0 ? p.cub_temp_bytes : 1, "CUB's scratch");
    gpu_poison(p.partials, p.partials_count * sizeof(float));
    gpu_poison(p.partials2, p.partials2_count * sizeof(float));
    p.host_x = (float *)host_alloc(bytes, "the input");

    rng g;
    rng_init(&g, o.seed);
    int integers = strcmp(o.input, "integers") == 0;
    if (integers)
        for (size_t i = 0; i < p.n; i++) p.host_x[i] = (float)(1 + rng_below(&g, 4));
    else if (strcmp(o.input, "positive") == 0)
        rng_fill_f32(&g, p.host_x, p.n, 0.0f, 1.0f);
    else
        rng_fill_f32(&g, p.host_x, p.n, -1.0f, 1.0f);
    CHECK(cudaMemcpy((void *)p.x, p.host_x, bytes, cudaMemcpyHostToDevice));
    p.want = reduction_cpu(p.host_x, p.n, &p.abs_sum);
    p.tol = reduction_tolerance(p.n, p.abs_sum, integers);
    printf("reference (float64) %.9g, sum |x| %.9g, tolerance %.3g; a float loop gives %.9g\n\n",
           p.want, p.abs_sum, p.tol, (double)naive_float_sum(p.host_x, p.n));
    if (o.save) {
        size_t shape[1] = {p.n};
        if (npy_save(o.save, "x", "<f4", shape, 1, p.host_x) != 0) return KL_EXIT_USAGE;
    }

    bench b = {};
    b.problem = &p;
    b.out = p.out;
    b.out_bytes = sizeof(float);
    // --check-each: no version may write x, and every launch writes the block sums before it
    // reads them, so they are poisoned before each timed launch
    b.inputs[0] = p.x, b.input_bytes[0] = bytes;
    b.scratch[0] = p.partials, b.scratch_bytes[0] = p.partials_count * sizeof(float);
    b.scratch[1] = p.partials2, b.scratch_bytes[1] = p.partials2_count * sizeof(float);
    b.bytes = (double)bytes;  // every float read once; one float written, not counted
    b.flops = (double)(p.n - 1);  // n - 1 adds, whatever the order
    b.check = reduction_check;
    b.save = reduction_save;
    int rc = bench_run(&o, &env, &b, versions, selected, VERSION_COUNT);

    CHECK(cudaFree((void *)p.x));
    CHECK(cudaFree(p.out));
    CHECK(cudaFree(p.partials));
    CHECK(cudaFree(p.partials2));
    CHECK(cudaFree(p.cub_temp));
    free(p.host_x);
    return rc;
}
