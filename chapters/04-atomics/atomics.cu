// Chapter 04: atomics. Many threads updating one memory word: what goes wrong without atomics,
// what an atomic costs when threads fight over one address, and how a histogram stops fighting.
//
// Part 1, counters: n updates spread over m counters (update i goes to counter i % m).
//   c0 racy       a plain ++ on a block's shared copy of the counters: updates vanish (the lesson,
//                 not a result; its lost updates are reported, and racecheck flags it)
//   c1 atomic     atomicAdd: the hardware's read-modify-write, nothing lost
//   c2 casint     atomicAdd built from atomicCAS: read, compute, swap if unchanged, else retry
//   c3 casfloat   the same loop adding floats (their bits go through the integer CAS)
//   c4 casmax     a float maximum from the same loop; it stops as soon as it cannot win
//   c5 aggregated the lanes of a warp that hit one counter add their count with one atomic
// Part 2, a histogram of n bytes into 256 bins:
//   cub         (baseline) cub::DeviceHistogram::HistogramEven
//   v0 global     one global atomicAdd per byte
//   v1 privatized each block counts into its own shared-memory histogram, merged at the end
//   v2 warps      one sub-histogram per warp, and 16-byte loads of 16 bytes per thread
//   v3 banked     each lane owns one of the 32 banks: 32 copies of the bins, no bank conflicts
//   v4 unrolled   four 16-byte loads in flight per thread; kept because it does not help
//
// Build and run:   make build/atomics && build/atomics       (both parts, n = 2^30)
//                  build/atomics -v v0,v3 --input degenerate -n 100000007
//                  build/atomics -v c0,c1,c2 -m 1 -n 65536    (one hot counter)
//                  build/atomics --list | --help | --check-only | --save out/
#include <cub/device/device_histogram.cuh>
#include <string.h>

#include "gpu.h"
#include "npy.h"
#include "rng.h"

// 2^30 bytes: 1 GiB of input, far beyond the 60 MB L2, so the histogram reads device memory.
// The same n is the number of updates in the counters part.
#define DEFAULT_N (1u << 30)
// 2^20 counters (4 MiB): the GPU's 270,000 threads spread out and rarely meet, so the default
// run measures atomics without contention. -m 1 is one hot address; there the CAS versions
// crawl (every success makes all the others retry), so keep -n small (2^16).
#define DEFAULT_M (1u << 20)
// 20 timed launches give a stable median; 3 warm-up launches take module loading and
// first-touch effects out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42

#define BINS 256          // one bin per byte value
#define FULL_MASK 0xFFFFFFFFu
static const char *const inputs[] = {"uniform", "degenerate", "skewed", NULL};

// ================================================================================================
// Part 1: counters
// ================================================================================================

// What a counter version computes, and so which reference it is checked against.
enum { KIND_COUNT, KIND_SUM, KIND_MAX };

typedef struct {
    size_t n;         // updates
    unsigned m;       // counters, m <= 2^31 - 1
    unsigned *count;  // device: m words, counts (KIND_COUNT) or float bits (KIND_SUM, KIND_MAX)
    unsigned *host_out;
    uint32_t *want_count;  // how many updates each counter receives
    float *want_sum;       // the float sum of that many 1.0f
    float *want_max;       // the largest update_value(i) over the counter's updates, or -inf
    int kind;              // what the last launch computed (for the lost-update count)
    unsigned blocks;       // grid of the counter kernels
} counters_problem;

// The value update i brings to the float maximum: a scrambled i, a multiple of 1/64 in
// [-1024, 1024), so it is exact in a float and on both sides.
__host__ __device__ static inline float update_value(uint64_t i) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 29)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 32;
    return (float)((int)(z & 0x1FFFF) - 65536) / 64.0f;
}

// ---- the CPU reference ------------------------------------------------------------------------

// The plain loops: update i adds one to counter i % m, adds 1.0f to its float sum and offers
// update_value(i) to its maximum. Sums of equal terms come out the same in any order, so the
// float sum is exact: it counts up to 2^24 and stays there (2^24 + 1 rounds back to 2^24).
static void counters_cpu(size_t n, unsigned m, uint32_t *count, float *sum, float *max) {
    for (unsigned a = 0; a < m; a++) count[a] = 0, sum[a] = 0.0f, max[a] = -INFINITY;
    unsigned a = 0;  // i % m, stepped instead of divided
    for (size_t i = 0; i < n; i++) {
        count[a] += 1;
        sum[a] += 1.0f;
        float v = update_value(i);
        if (v > max[a]) max[a] = v;
        if (++a == m) a = 0;
    }
}

// ---- the grid ---------------------------------------------------------------------------------

// Every counter kernel but c0 walks the updates with a grid-stride loop: thread g does updates
// g, g + stride, g + 2 stride... Consecutive lanes take consecutive updates, so with m >= 32 a
// warp touches 32 neighbouring counters, and with m = 1 all 32 lanes hit the same word.
// a = i % m is stepped by stride % m rather than divided: a 64-bit division costs dozens of
// instructions, as many as the update itself.
#define COUNTER_THREADS 256

// ---- c0 racy ------------------------------------------------------------------------------------

// A block takes RACY_SPAN consecutive updates and counts them in shared memory with a plain ++:
// load the word, add one, store it. Two threads that load the same word before either stores
// both write old + 1, and one update is gone. The block then adds its tallies to the global
// counters with atomics, so every lost update was lost in the ++. We race in shared memory
// because that is where compute-sanitizer's racecheck can watch; the same ++ on a global word
// loses updates the same way (TRY: make tally a global array).
#define RACY_SPAN 2048  // updates per block: 256 threads x 8; also the shared tally's size

__global__ void counters_c0_racy(unsigned *count, size_t n, unsigned m) {
    __shared__ unsigned tally[RACY_SPAN];
    size_t first = (size_t)blockIdx.x * RACY_SPAN;  // this block: updates [first, first + span)
    unsigned span = (unsigned)min((size_t)RACY_SPAN, n - first);
    unsigned slots = min(span, m);  // update first + j goes to slot j % m: one slot per counter
    for (unsigned s = threadIdx.x; s < slots; s += blockDim.x) tally[s] = 0;
    __syncthreads();  // the tally is clear before anyone counts
    for (unsigned j = threadIdx.x; j < span; j += blockDim.x) tally[j % m]++;  // the race
    __syncthreads();  // every ++ is done before the tally is read
    for (unsigned s = threadIdx.x; s < slots; s += blockDim.x)
        if (tally[s]) atomicAdd(&count[(first + s) % m], tally[s]);
}

static void launch_c0(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c0_racy<<<(unsigned)ceil_div(p->n, RACY_SPAN), COUNTER_THREADS>>>(p->count, p->n, p->m);
    CHECK_LAUNCH();
}

// ---- c1 atomic ----------------------------------------------------------------------------------

// atomicAdd makes the load, the add and the store one indivisible operation, done where the
// word lives (the L2 cache for global memory): no other update can come in between, so none is
// lost. The order among threads is still anyone's: only the final sum is defined. Updates to
// one address are done one after another, which is what m = 1 measures.
__global__ void counters_c1_atomic(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomicAdd(&count[a], 1u);
        a += step;
        if (a >= m) a -= m;
    }
}

// The grid of every grid-stride counter kernel: enough blocks to fill the GPU, no more.
static unsigned counter_blocks(const counters_problem *p) {
    size_t want = ceil_div(p->n, COUNTER_THREADS);
    return (unsigned)(want < p->blocks ? want : p->blocks);
}

// stride % m for that grid: how far the counter index moves between a thread's updates.
static unsigned counter_step(const counters_problem *p) {
    return (unsigned)(((size_t)counter_blocks(p) * COUNTER_THREADS) % p->m);
}

static void launch_c1(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c1_atomic<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                counter_step(p));
    CHECK_LAUNCH();
}

// ---- c2 casint ----------------------------------------------------------------------------------

// atomicAdd built from the one primitive every GPU atomic can be made of: atomicCAS(addr,
// expected, desired) stores desired only if the word still holds expected, and returns what it
// held. We read, compute old + 1, and ask for the swap. If another thread changed the word in
// between, the swap fails, returns the newer value, and we retry from it. With many threads on
// one word nearly every attempt fails, so the work per update grows with the contention, and
// each attempt is a round trip to L2 that returns a value (atomicAdd need not return one).
__device__ unsigned atomic_add_cas(unsigned *address, unsigned value) {
    // EXERCISE: casint begin
    unsigned old = *address;  // a guess at the current value; the CAS tells us if it is stale
    unsigned seen;
    do {
        seen = old;
        old = atomicCAS(address, seen, seen + value);
    } while (old != seen);  // somebody else got in first: try again from what they left
    return old;
    // EXERCISE: casint end
}

__global__ void counters_c2_casint(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        atomic_add_cas(&count[a], 1u);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c2(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c2_casint<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                counter_step(p));
    CHECK_LAUNCH();
}

// ---- c3 casfloat --------------------------------------------------------------------------------

// The same loop for a float: CAS compares bits, so we carry the float's bits in an unsigned and
// do the addition as a float. Any operation can be made atomic this way (this is how a double
// atomicAdd was written before GPUs had one); the cost under contention is the same as c2's.
__device__ float atomic_add_float_cas(float *address, float value) {
    unsigned *bits = (unsigned *)address;
    unsigned old = *bits, seen;
    do {
        seen = old;
        old = atomicCAS(bits, seen, __float_as_uint(__uint_as_float(seen) + value));
    } while (old != seen);
    return __uint_as_float(old);
}

__global__ void counters_c3_casfloat(float *sum, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        atomic_add_float_cas(&sum[a], 1.0f);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c3(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_SUM;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));  // all-zero bits are 0.0f
    counters_c3_casfloat<<<counter_blocks(p), COUNTER_THREADS>>>((float *)p->count, p->n, p->m,
                                                                  counter_step(p));
    CHECK_LAUNCH();
}

// ---- c4 casmax ----------------------------------------------------------------------------------

// A float maximum, which CUDA does not provide, from the same loop, with one difference that
// matters: a thread whose value is not larger than what the word holds has nothing to write and
// leaves. Once the maximum is large, most updates are one read and no CAS, so contention fades
// as the run goes on.
__device__ float atomic_max_float_cas(float *address, float value) {
    unsigned *bits = (unsigned *)address;
    unsigned old = *bits;
    while (value > __uint_as_float(old)) {  // only a larger value needs a swap
        unsigned seen = old;
        old = atomicCAS(bits, seen, __float_as_uint(value));
        if (old == seen) break;  // ours is in
    }
    return __uint_as_float(old);
}

__global__ void counters_c4_casmax(float *max, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        atomic_max_float_cas(&max[a], update_value(i));
        a += step;
        if (a >= m) a -= m;
    }
}

// The maximum starts at -inf, whose bits (0xFF800000) no byte-wise memset can write.
__global__ void fill_kernel(unsigned *x, size_t count, unsigned bits) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = bits;
}

static void launch_c4(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_MAX;
    unsigned fill_blocks = (unsigned)(ceil_div(p->m, COUNTER_THREADS) < p->blocks
                                          ? ceil_div(p->m, COUNTER_THREADS) : p->blocks);
    fill_kernel<<<fill_blocks, COUNTER_THREADS>>>(p->count, p->m, 0xFF800000u);  // -inf
    CHECK_LAUNCH();
    counters_c4_casmax<<<counter_blocks(p), COUNTER_THREADS>>>((float *)p->count, p->n, p->m,
                                                                counter_step(p));
    CHECK_LAUNCH();
}

// ---- c5 aggregated ------------------------------------------------------------------------------

// c1 again, but before the atomic each lane asks the warp which lanes hold the same counter
// (__match_any_sync returns that set as a bit mask). The lowest lane of each set adds the set's
// size; the others do nothing. With m = 1 a warp makes one atomic instead of 32; with m >= 32
// every set has one lane and the match is pure overhead. The warp loops as one (the loop test
// uses the warp's first update), so every lane is present at the match.
__global__ void counters_c5_aggregated(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned lane = threadIdx.x % 32;
    unsigned a = (unsigned)(i % m);
    for (; i - lane < n; i += stride) {  // i - lane: the warp's first update, the same in all lanes
        unsigned live = __ballot_sync(FULL_MASK, i < n);  // lanes with an update this round
        if (i < n) {
            unsigned peers = __match_any_sync(live, a);  // live lanes with our counter, us included
            if (lane == (unsigned)__ffs(peers) - 1) atomicAdd(&count[a], (unsigned)__popc(peers));
        }
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c5(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c5_aggregated<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                    counter_step(p));
    CHECK_LAUNCH();
}

// ---- the counters' version table ----------------------------------------------------------------

static const version counter_versions[] = {
    {"c0", "racy", launch_c0, KL_UNCHECKED},
    {"c1", "atomic", launch_c1, 0},
    {"c2", "casint", launch_c2, 0},
    {"c3", "casfloat", launch_c3, 0},
    {"c4", "casmax", launch_c4, 0},
    {"c5", "aggregated", launch_c5, 0},
};
#define COUNTER_COUNT (int)(sizeof counter_versions / sizeof counter_versions[0])
// What a counter version computes: c3 sums floats, c4 takes a float maximum, the others count.
// Told by the tag, not by the launch, so a check needs no launch (--verify).
static int counter_kind_of(const char *tag) {
    if (strcmp(tag, "c3") == 0) return KIND_SUM;
    if (strcmp(tag, "c4") == 0) return KIND_MAX;
    return KIND_COUNT;
}

// ---- checking and saving the counters -----------------------------------------------------------

// Counts are exact integers and the float results are exact too (see counters_cpu), so every
// comparison has tolerance 0.
static void counters_check(void *problem, const version *v, check_result *r) {
    counters_problem *p = (counters_problem *)problem;
    CHECK(cudaMemcpy(p->host_out, p->count, p->m * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int kind = counter_kind_of(v->tag);
    if (kind == KIND_COUNT) check_u32(r, p->host_out, p->want_count, 1, p->m, 0);
    if (kind == KIND_SUM) check_f32(r, (const float *)p->host_out, p->want_sum, 1, p->m, 0, 0, 0);
    if (kind == KIND_MAX) check_f32(r, (const float *)p->host_out, p->want_max, 1, p->m, 0, 0, 0);
}

// The extra column: updates lost by the last launch (n minus what the counters hold); always 0
// for a correct counting version, and not a count at all for the float versions.
static double counters_lost(void *problem, double ms_median) {
    (void)ms_median;
    counters_problem *p = (counters_problem *)problem;
    if (p->kind != KIND_COUNT) return NAN;
    CHECK(cudaMemcpy(p->host_out, p->count, p->m * sizeof(unsigned), cudaMemcpyDeviceToHost));
    uint64_t held = 0;
    for (unsigned a = 0; a < p->m; a++) held += p->host_out[a];
    return (double)p->n - (double)held;
}

static void counters_save(void *problem, const char *dir, const char *tag) {
    counters_problem *p = (counters_problem *)problem;
    size_t shape[1] = {p->m};
    const char *descr = counter_kind_of(tag) == KIND_COUNT ? "<u4" : "<f4";
    if (npy_save(dir, tag, descr, shape, 1, p->host_out) != 0) exit(KL_EXIT_USAGE);
}

// ================================================================================================
// Part 2: the histogram
// ================================================================================================

typedef struct {
    size_t n;             // bytes
    const uint8_t *data;  // device: n bytes
    unsigned *bins;       // device: BINS counts
    uint8_t *host_data;
    uint32_t want[BINS], got[BINS];
    void *cub_temp;  // CUB's scratch space, allocated once before anything is timed
    size_t cub_temp_bytes;
    int sms;
} histogram_problem;

// ---- the CPU reference ------------------------------------------------------------------------

static void histogram_cpu(const uint8_t *data, size_t n, uint32_t *bins) {
    for (int b = 0; b < BINS; b++) bins[b] = 0;
    for (size_t i = 0; i < n; i++) bins[data[i]]++;
}

// ---- the inputs ---------------------------------------------------------------------------------

// uniform: every byte independent and uniform, the least contention there is.
// degenerate: every byte the same, so every update goes to one bin: the most contention.
// skewed: like the pixels of a photograph: runs of 64 neighbours share a level drawn from a bell
// curve around 128 (the sum of two uniform draws), each pixel within 4 of it. A warp's 32 lanes
// see a handful of bins, and the middle bins get most of the counts.
static void make_input(const char *input, uint64_t seed, uint8_t *x, size_t n) {
    rng g;
    rng_init(&g, seed);
    if (strcmp(input, "degenerate") == 0) {
        memset(x, 42, n);
        return;
    }
    if (strcmp(input, "uniform") == 0) {
        for (size_t i = 0; i < n; i += 8) {  // eight random bytes per draw
            uint64_t r = rng_next(&g);
            for (size_t j = 0; j < 8 && i + j < n; j++) x[i + j] = (uint8_t)(r >> (8 * j));
        }
        return;
    }
    for (size_t i = 0; i < n; i += 64) {  // skewed
        int level = (int)rng_below(&g, 128) + (int)rng_below(&g, 129);  // 0 .. 256, peak at 128
        uint64_t r = rng_next(&g);  // 3 bits of noise per pixel, 21 pixels per draw
        for (size_t j = 0; j < 64 && i + j < n; j++) {
            if (j % 21 == 0 && j > 0) r = rng_next(&g);
            int v = level + (int)((r >> (3 * (j % 21))) & 7) - 4;
            x[i + j] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

// ---- the grid ---------------------------------------------------------------------------------

// Every histogram kernel is persistent: as many blocks as fit on the GPU at once, each walking
// the input with a grid-stride loop. A block's private histogram then serves a large share of
// the input, and its set-up and merge (256 global atomics) are paid once per block, not once
// per few bytes.
#define HIST_THREADS 256
#define HIST_WARPS (HIST_THREADS / 32)

// How many blocks of `kernel` fit on one SM at once, from the occupancy API. Asked at a kernel's
// first launch, which is the untimed one that is checked, and remembered, so a timed launch
// only looks it up.
static int resident_blocks(const void *kernel) {
    enum { MAX_KERNELS = 8 };
    static const void *known[MAX_KERNELS];
    static int blocks[MAX_KERNELS];
    int i = 0;
    for (; i < MAX_KERNELS && known[i]; i++)
        if (known[i] == kernel) return blocks[i];
    if (i == MAX_KERNELS) {
        fprintf(stderr, "atomics: more than %d histogram kernels\n", MAX_KERNELS);
        exit(KL_EXIT_GPU);
    }
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks[i], kernel, HIST_THREADS, 0));
    known[i] = kernel;
    return blocks[i];
}

// Blocks for `kernel` when its threads each take `per_thread` bytes per step of the loop: enough
// to cover n, at most what fits on the GPU at once, at least one.
static unsigned hist_blocks(const histogram_problem *p, const void *kernel, size_t per_thread) {
    size_t want = ceil_div(p->n, (size_t)HIST_THREADS * per_thread);
    size_t most = (size_t)p->sms * resident_blocks(kernel);
    return (unsigned)(want < 1 ? 1 : want < most ? want : most);
}

// ---- baseline: CUB ------------------------------------------------------------------------------

// CUB's device-wide histogram, 257 levels 0, 1, ..., 256 so that bin b holds the value b. It
// clears the bins itself. Its scratch space was sized and allocated before any timing.
static void launch_cub(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cub::DeviceHistogram::HistogramEven(p->cub_temp, p->cub_temp_bytes, p->data, p->bins,
                                              BINS + 1, 0, BINS, (int)p->n));
}

// ---- v0 global ----------------------------------------------------------------------------------

// One global atomicAdd per byte. A warp reads 32 neighbouring bytes (one 32-byte sector) and
// sends 32 atomics to L2, where all the updates of a bin are done one after another: 256
// addresses for the whole GPU. On the degenerate input all of them go to one.
__global__ void histogram_v0_global(const uint8_t *__restrict__ data, size_t n,
                                    unsigned *__restrict__ bins) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i]], 1u);
}

static void launch_v0(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));  // every launch counts afresh
    unsigned blocks = hist_blocks(p, (const void *)histogram_v0_global, 1);
    histogram_v0_global<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- v1 privatized ------------------------------------------------------------------------------

// Each block counts into its own 256 bins in shared memory, where an atomic is done in the SM
// a few cycles away instead of in L2, and only the block's 256 threads compete for a bin
// instead of the whole GPU. At the end the block adds its bins to the global ones: 256 global
// atomics per block in place of one per byte.

// Adds the block's shared bins to the global bins; zero bins are skipped.
__device__ void merge_bins(const unsigned *local, unsigned *bins) {
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

__global__ void histogram_v1_privatized(const uint8_t *__restrict__ data, size_t n,
                                        unsigned *__restrict__ bins) {
    // EXERCISE: privatized begin
    __shared__ unsigned local[BINS];  // the block's histogram: 1 KiB
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();  // clear before counting
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();  // every byte counted before the merge reads the bins
    merge_bins(local, bins);
    // EXERCISE: privatized end
}

static void launch_v1(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v1_privatized, 1);
    histogram_v1_privatized<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- v2 warps -----------------------------------------------------------------------------------

// Two changes that go together. Loads: each thread reads 16 bytes at once (a uint4), so a warp
// reads 512 contiguous bytes per instruction instead of 32, and the load units issue 1/16 as
// many requests. Bins: each warp has its own 256, so only the 32 lanes of one warp compete for
// a bin, never two warps. The last n % 16 bytes, which fill no uint4, are counted one per
// thread by block 0. The block's eight sub-histograms are summed at the merge.

// Counts the four bytes of w into the bins h (any byte order: all four are counted).
__device__ __forceinline__ void count_word(unsigned *h, unsigned w) {
    atomicAdd(&h[w & 0xFF], 1u);
    atomicAdd(&h[(w >> 8) & 0xFF], 1u);
    atomicAdd(&h[(w >> 16) & 0xFF], 1u);
    atomicAdd(&h[w >> 24], 1u);
}

__global__ void histogram_v2_warps(const uint8_t *__restrict__ data, size_t n,
                                   unsigned *__restrict__ bins) {
    __shared__ unsigned local[HIST_WARPS][BINS];  // one histogram per warp: 8 KiB
    for (int i = threadIdx.x; i < HIST_WARPS * BINS; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = local[threadIdx.x / 32];
    const uint4 *data16 = (const uint4 *)data;  // cudaMalloc aligns data to 256 bytes
    size_t n16 = n / 16;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = data16[i];  // 16 bytes; lanes read 32 neighbouring uint4s, 512 bytes
        count_word(mine, v.x), count_word(mine, v.y), count_word(mine, v.z), count_word(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16) atomicAdd(&mine[data[n16 * 16 + threadIdx.x]], 1u);
    __syncthreads();  // every byte counted before the merge
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (int w = 0; w < HIST_WARPS; w++) sum += local[w][b];
        if (sum) atomicAdd(&bins[b], sum);
    }
}

static void launch_v2(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v2_warps, 16);
    histogram_v2_warps<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- v3 banked ----------------------------------------------------------------------------------

// Shared memory serves a warp's 32 accesses in one pass only when they fall in 32 different
// banks (bank = word address % 32). In v2 bin b is word b, so 32 random bytes land in random
// banks and collide (about 3.5 on the busiest bank), and the degenerate input sends all 32
// lanes to one word. Here each lane gets its own copy of the bins, laid out so that lane l's
// counter of bin b is word b * 32 + l: always bank l. Every warp access is now conflict-free,
// whatever the data. Lane l of every warp in the block shares copy l, so we still need the
// atomics, but two warps meet on a word only by chance. 256 x 32 words: 32 KiB a block.
__device__ __forceinline__ void count_word_banked(unsigned *h, unsigned w) {
    atomicAdd(&h[(w & 0xFF) * 32], 1u);  // h points at lane l's column: h[b * 32] is bin b
    atomicAdd(&h[((w >> 8) & 0xFF) * 32], 1u);
    atomicAdd(&h[((w >> 16) & 0xFF) * 32], 1u);
    atomicAdd(&h[(w >> 24) * 32], 1u);
}

// Sums the 32 lane copies of each bin and adds them to the global bins. Thread t reads copy
// (t + l) % 32 at step l, so the 32 lanes of a warp read 32 different banks.
__device__ void merge_banked(const unsigned (*local)[32], unsigned *bins) {
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (int l = 0; l < 32; l++) sum += local[b][(l + b) % 32];
        if (sum) atomicAdd(&bins[b], sum);
    }
}

__global__ void histogram_v3_banked(const uint8_t *__restrict__ data, size_t n,
                                    unsigned *__restrict__ bins) {
    __shared__ unsigned local[BINS][32];  // [bin][lane]: 32 KiB
    for (int i = threadIdx.x; i < BINS * 32; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = &local[0][threadIdx.x % 32];  // this lane's column
    const uint4 *data16 = (const uint4 *)data;
    size_t n16 = n / 16;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = data16[i];
        count_word_banked(mine, v.x), count_word_banked(mine, v.y);
        count_word_banked(mine, v.z), count_word_banked(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16)
        atomicAdd(&mine[data[n16 * 16 + threadIdx.x] * 32], 1u);
    __syncthreads();  // every byte counted before the merge
    merge_banked(local, bins);
}

static void launch_v3(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v3_banked, 16);
    histogram_v3_banked<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- v4 unrolled --------------------------------------------------------------------------------

// An experiment that did not pay: v3 waits for each 16-byte load before its atomics, so one
// load per thread is in flight. Device memory needs bandwidth x latency bytes in flight, and
// we guessed 24 KiB per SM was too few. Here each thread issues UNROLL loads, then counts them
// all. It measures no faster: v3 already reads at near the copy speed (see the README).
#define UNROLL 4  // 64 bytes per thread per step: 16 more registers, four times the loads in flight

__global__ void histogram_v4_unrolled(const uint8_t *__restrict__ data, size_t n,
                                      unsigned *__restrict__ bins) {
    __shared__ unsigned local[BINS][32];  // [bin][lane]: 32 KiB
    for (int i = threadIdx.x; i < BINS * 32; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = &local[0][threadIdx.x % 32];
    const uint4 *data16 = (const uint4 *)data;
    size_t n16 = n / 16;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {  // i .. i + 3 stride in range
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) v[u] = data16[i + u * stride];  // all loads first
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            count_word_banked(mine, v[u].x), count_word_banked(mine, v[u].y);
            count_word_banked(mine, v[u].z), count_word_banked(mine, v[u].w);
        }
    }
    for (; i < n16; i += stride) {  // what is left, one uint4 at a time
        uint4 v = data16[i];
        count_word_banked(mine, v.x), count_word_banked(mine, v.y);
        count_word_banked(mine, v.z), count_word_banked(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16)
        atomicAdd(&mine[data[n16 * 16 + threadIdx.x] * 32], 1u);
    __syncthreads();  // every byte counted before the merge
    merge_banked(local, bins);
}

static void launch_v4(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v4_unrolled, 16 * UNROLL);
    histogram_v4_unrolled<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- the histogram's version table --------------------------------------------------------------

static const version histogram_versions[] = {
    {"cub", "cub", launch_cub, KL_BASELINE},
    {"v0", "global", launch_v0, 0},
    {"v1", "privatized", launch_v1, 0},
    {"v2", "warps", launch_v2, 0},
    {"v3", "banked", launch_v3, 0},
    {"v4", "unrolled", launch_v4, 0},
};
#define HISTOGRAM_COUNT (int)(sizeof histogram_versions / sizeof histogram_versions[0])

// ---- checking and saving the histogram ----------------------------------------------------------

// Counts are integers: exact. Equal bins also means they sum to n, as the CPU's do.
static void histogram_check(void *problem, const version *v, check_result *r) {
    (void)v;
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemcpy(p->got, p->bins, sizeof p->got, cudaMemcpyDeviceToHost));
    check_u32(r, p->got, p->want, 1, BINS, 0);
}

static void histogram_save(void *problem, const char *dir, const char *tag) {
    histogram_problem *p = (histogram_problem *)problem;
    size_t shape[1] = {BINS};
    if (npy_save(dir, tag, "<u4", shape, 1, p->got) != 0) exit(KL_EXIT_USAGE);
}

// ================================================================================================
// The self-test of the CPU references (no GPU)
// ================================================================================================

static int report(int ok, const char *what) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    return !ok;
}

static int atomics_self_test(void) {
    int failed = 0;
    // histogram: worked by hand
    const uint8_t bytes[7] = {3, 0, 255, 3, 3, 0, 7};
    uint32_t bins[BINS];
    histogram_cpu(bytes, 7, bins);
    int ok = bins[0] == 2 && bins[3] == 3 && bins[7] == 1 && bins[255] == 1;
    uint64_t total = 0;
    for (int b = 0; b < BINS; b++) total += bins[b];
    failed += report(ok && total == 7, "histogram_cpu: 7 bytes by hand");
    // every input, at odd sizes: the bins sum to n, and degenerate fills one bin
    const size_t sizes[] = {1, 2, 3, 15, 17, 64, 65, 1001};
    for (int s = 0; inputs[s]; s++) {
        int all = 1;
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            uint8_t x[1001];
            make_input(inputs[s], 7, x, sizes[k]);
            histogram_cpu(x, sizes[k], bins);
            total = 0;
            for (int b = 0; b < BINS; b++) total += bins[b];
            all &= total == sizes[k];
            if (strcmp(inputs[s], "degenerate") == 0) all &= bins[42] == sizes[k];
        }
        char what[96];
        snprintf(what, sizeof what, "histogram_cpu: the bins of the %s input sum to n", inputs[s]);
        failed += report(all, what);
    }
    // counters: 10 updates over 3 counters by hand: 4, 3, 3
    uint32_t count[3];
    float sum[3], max[3];
    counters_cpu(10, 3, count, sum, max);
    ok = count[0] == 4 && count[1] == 3 && count[2] == 3 && sum[0] == 4.0f && sum[2] == 3.0f;
    ok &= max[0] == fmaxf(fmaxf(update_value(0), update_value(3)),
                          fmaxf(update_value(6), update_value(9)));
    failed += report(ok, "counters_cpu: 10 updates over 3 counters by hand");
    // more counters than updates: the idle ones hold 0 and -inf
    uint32_t c5[5];
    float s5[5], m5[5];
    counters_cpu(2, 5, c5, s5, m5);
    ok = c5[1] == 1 && c5[2] == 0 && s5[4] == 0.0f && m5[3] == -INFINITY && m5[1] == update_value(1);
    failed += report(ok, "counters_cpu: 2 updates over 5 counters");
    // a float sum of ones stops at 2^24
    uint32_t c1;
    float s1, m1;
    counters_cpu((1u << 24) + 5, 1, &c1, &s1, &m1);
    failed += report(c1 == (1u << 24) + 5 && s1 == 16777216.0f,
                     "counters_cpu: a float sum of ones stops at 2^24");
    // the update values are exact multiples of 1/64 in [-1024, 1024)
    ok = 1;
    for (uint64_t i = 0; i < 10000; i++) {
        float v = update_value(i);
        ok &= v >= -1024.0f && v < 1024.0f && v * 64.0f == (float)(int)(v * 64.0f);
    }
    failed += report(ok, "update_value: multiples of 1/64 in [-1024, 1024)");
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ================================================================================================
// main
// ================================================================================================

// The counters part: n updates over m counters.
static int run_counters(const options *o, const env_info *env, const bool *selected) {
    counters_problem p = {};
    p.n = o->n, p.m = (unsigned)o->m;
    size_t bytes = size_mul(p.m, sizeof(unsigned));
    gpu_require(bytes, "the counters");
    p.count = (unsigned *)gpu_alloc(bytes, "the counters");
    p.host_out = (unsigned *)host_alloc(bytes, "the counters");
    p.want_count = (uint32_t *)host_alloc(bytes, "the reference counts");
    p.want_sum = (float *)host_alloc(bytes, "the reference sums");
    p.want_max = (float *)host_alloc(bytes, "the reference maxima");
    // every SM as full as it gets (2048 threads on an H200): the most contention we can make
    p.blocks = (unsigned)(env->sms * (env->sm_threads / COUNTER_THREADS));
    counters_cpu(p.n, p.m, p.want_count, p.want_sum, p.want_max);

    bench b = {};
    b.problem = &p;
    b.out = p.count;
    b.out_bytes = bytes;
    b.flops = (double)p.n;  // the GFLOP/s column counts updates: G updates/s
    b.check = counters_check;
    b.save = counters_save;
    b.extra_name = "lost_updates";
    b.extra = counters_lost;
    options oc = *o;
    oc.input = NULL;  // the counters take no input data
    printf("counters: %zu updates over %u counters (GFLOP/s = G updates/s)\n", p.n, p.m);
    int rc = bench_run(&oc, env, &b, counter_versions, selected, COUNTER_COUNT);
    printf("\n");
    CHECK(cudaFree(p.count));
    free(p.host_out), free(p.want_count), free(p.want_sum), free(p.want_max);
    return rc;
}

// The histogram part: n bytes of the chosen input into 256 bins.
static int run_histogram(const options *o, const env_info *env, const bool *selected) {
    histogram_problem p = {};
    p.n = o->n;
    p.sms = env->sms;
    CHECK(cub::DeviceHistogram::HistogramEven(NULL, p.cub_temp_bytes, (const uint8_t *)NULL,
                                              (unsigned *)NULL, BINS + 1, 0, BINS, (int)p.n));
    gpu_require(p.n + BINS * sizeof(unsigned) + p.cub_temp_bytes, "the input, bins and CUB");
    p.data = (const uint8_t *)gpu_alloc(p.n, "the input bytes");
    p.bins = (unsigned *)gpu_alloc(BINS * sizeof(unsigned), "the bins");
    p.cub_temp = gpu_alloc(p.cub_temp_bytes > 0 ? p.cub_temp_bytes : 1, "CUB's scratch space");
    p.host_data = (uint8_t *)host_alloc(p.n, "the input bytes");

    make_input(o->input, o->seed, p.host_data, p.n);
    CHECK(cudaMemcpy((void *)p.data, p.host_data, p.n, cudaMemcpyHostToDevice));
    histogram_cpu(p.host_data, p.n, p.want);
    if (o->save) {
        size_t shape[1] = {p.n};
        if (npy_save(o->save, "data", "<u1", shape, 1, p.host_data) != 0) return KL_EXIT_USAGE;
    }

    bench b = {};
    b.problem = &p;
    b.out = p.bins;
    b.out_bytes = BINS * sizeof(unsigned);
    b.bytes = (double)p.n;  // every byte read once; the 1 KiB of bins is nothing beside it
    b.check = histogram_check;
    b.save = histogram_save;
    options oh = *o;
    oh.m = 1;  // m is the counters' size; unused here
    printf("histogram: %zu bytes, input %s, 256 bins\n", p.n, o->input);
    int rc = bench_run(&oh, env, &b, histogram_versions, selected, HISTOGRAM_COUNT);
    CHECK(cudaFree((void *)p.data));
    CHECK(cudaFree(p.bins));
    CHECK(cudaFree(p.cub_temp));
    free(p.host_data);
    return rc;
}

int main(int argc, char **argv) {
    // One table for the command line (--list, -v), counters first; each part runs its own rows.
    version all[COUNTER_COUNT + HISTOGRAM_COUNT];
    memcpy(all, counter_versions, sizeof counter_versions);
    memcpy(all + COUNTER_COUNT, histogram_versions, sizeof histogram_versions);
    options o = {};
    o.program = "atomics";
    o.chapter = "04-atomics";
    o.sizes = "mn";
    o.m_means = "counters (the counters part)";
    o.n_means = "updates (counters), bytes (histogram)";
    o.inputs = inputs;
    o.input = "uniform";
    o.m = DEFAULT_M, o.n = DEFAULT_N, o.k = 1;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[COUNTER_COUNT + HISTOGRAM_COUNT];
    options_begin(&o, argc, argv, all, COUNTER_COUNT + HISTOGRAM_COUNT, selected);
    if (o.self_test) return atomics_self_test();

    // A part runs when one of its own rows is selected; the CUB baseline runs with its part.
    bool *counters_sel = selected, *histogram_sel = selected + COUNTER_COUNT;
    bool run_c = false, run_h = false;
    for (int i = 0; i < COUNTER_COUNT; i++) run_c |= counters_sel[i];
    for (int i = 0; i < HISTOGRAM_COUNT; i++)
        run_h |= histogram_sel[i] && !(histogram_versions[i].flags & KL_BASELINE);

    env_info env;
    gpu_open(&env);
    bench_header(&o, &env);
    int rc = KL_EXIT_OK;
    if (run_c) rc |= run_counters(&o, &env, counters_sel);
    if (run_h) rc |= run_histogram(&o, &env, histogram_sel);
    return rc ? KL_EXIT_WRONG : KL_EXIT_OK;
}
