// Chapter 02: shortcut, the min-plus product r[i][j] = min over k of d[i][k] + d[k][j]: the
// cheapest way from i to j with at most one stop. It has the shape of a matrix product with
// (+, min) in place of (*, +), so the lesson is how to feed the arithmetic units: coalescing,
// reuse in registers, staging in shared memory, and what is left of the instruction stream.
//
//   peak          (baseline) n^3 add+min pairs out of registers: FADD + FMNMX, the ceiling of
//                 v0-v7, the reference of every ratio
//   peak3         (baseline) the same pairs two at a time, FADD + FADD + VIMNMX3: v8's ceiling
//   v0 naive        one thread per result; a warp reads d[i][k] from 16 rows at once
//   v1 coalesced    swap the roles of i and j: a warp reads 16 consecutive floats of row k
//   v1a regblock    8 x 8 results per thread: 16 loads a step feed 64 pairs; rows and columns
//                   past n are taken as +inf, not read
//   v1b padded      the inputs padded with +inf to a multiple of 64 and transposed by a
//                   preprocessing kernel: no guards, and d[i][k] read along a row of the transpose
//   v1c wideload    each thread's 8 + 8 values as four float4s: 4 LDG.128 a step instead of 16
//   v1d unrolled    the k loop unrolled 4 times, so the next steps' loads can be issued early
//   v2 budget       __launch_bounds__ frees the registers that keep those loads in flight
//   v3 shared       each block stages 8 x 64 tiles of both inputs in shared memory, and loads
//                   the next tile into registers while it computes with the current one
//   v3a widecopy    the tiles copied 16 bytes at a time: LDG.128 and STS.128 instead of .32
//   v4 vectorized   16-byte loads: four LDS.128 a step instead of sixteen LDS.32
//   v5 pipelined    each step's shared loads are issued one step ahead, into spare registers
//   v6 async        cp.async copies the next tile into a second shared buffer: one barrier a tile
//   v7 deeper       16 steps a tile instead of 8: half the barriers and waits
//   v7a paired      the steps in twos: two steps' operands loaded, then their 128 pairs, in
//                   place of v5's loads one step ahead (what v8's three-way min needs)
//   v8 min3         two steps at a time: two FADDs and one three-way min (VIMNMX3, Hopper) of
//                   the sums' bit patterns do two pairs, 3 instructions instead of 4
//   v9 bounded      __launch_bounds__ lets the compiler compute the sums ahead of their mins
//   v0-transposed   an experiment, the CPU's first optimisation: v0 reading d[k][j] as t[j][k]
//                   from a transpose, along k; the warp still reads 16 rows of d, and now 2 of t
//   v1-transposed   the same change to v1: the warp reads 16 rows of t, 16 sectors, where v1
//                   read 64 contiguous bytes of d in 2
//   v9-loop         an experiment: v9's tile loop alone, over one tile, with no copies and no
//                   barriers (unchecked: it measures the loop, its results are not the product)
//   v9-4x8          an experiment: v9 with 4 x 8 results a thread, 16 warps an SM to v9's 12
//   v9-4x8-loop     an experiment: v9-4x8's loop alone, as v9-loop
//   vN-e2e          the same version timed end to end: copy d in, pad, compute, copy r out
//
// Build and run:   make build/shortcut && build/shortcut                 (n = 6300)
//                  build/shortcut -n 1001 -v v2,v7 --reps 50
//                  build/shortcut --list | --help | --check-only | --save out/
#include <math.h>
#include <omp.h>
#include <string.h>

#include "gpu.h"
#include "npy.h"
#include "progress.h"
#include "rng.h"

// n = 6300, the size the course timed: 160 MB a matrix, more than twice the 60 MB L2, and
// 2.5e11 add+min pairs, tens of milliseconds even at the arithmetic ceiling.
#define DEFAULT_N 6300
// 10 timed launches of a kernel that runs for milliseconds give a stable median; 2 warm-up
// launches take module loading and first-touch effects out of the numbers.
#define DEFAULT_REPS 10
#define DEFAULT_WARMUP 2
#define DEFAULT_SEED 42
// Up to this n the CPU computes the whole reference (n^3 = 1.1e9 pairs, a second or so);
// beyond it, SAMPLE_ROWS whole rows: the first, the last (in the last, partial tile) and
// random ones, checked bit for bit.
#define FULL_CHECK_MAX 1024
#define SAMPLE_ROWS 64

// The largest padding any version asks for (v1b on); the padded buffers are allocated for it.
#define PAD_MAX 64

// The problem every version sees. d and r are n x n, row-major, on the device; t is d
// transposed, n x n, made once before any version runs (the -transposed rows). dp and tp are
// d and its transpose padded with +inf to np x np, where each version chooses np (v1b on).
typedef struct {
    size_t n;
    const float *d;
    const float *t;          // t[j][k] = d[k][j]
    float *r;
    float *dp, *tp;          // padded copies, room for round_up(n, PAD_MAX)^2 floats each
    float *sink;             // where the peak kernel leaves its results
    size_t peak_threads;     // threads in the peak kernel's grid
    float *host_d, *host_r;  // the input, and the results copied back (n x n)
    float *want;             // the CPU reference for the checked rows, rows x n
    size_t *rows, nrows;     // the checked rows, ascending
    double clock_hz;         // the SM clock the per-clock figures use
} shortcut_problem;

// ---- the CPU reference -------------------------------------------------------------------------

// One row of r by the definition, with the loops in the order k, j so the inner loop walks a row
// of d. `s < m ? s : m` is an exact min (no NaNs here), and what the compiler can vectorize.
static void shortcut_cpu_row(const float *d, float *r_row, size_t n, size_t i) {
    for (size_t j = 0; j < n; j++) r_row[j] = INFINITY;
    for (size_t k = 0; k < n; k++) {
        float a = d[i * n + k];
        for (size_t j = 0; j < n; j++) {
            float s = a + d[k * n + j];
            r_row[j] = s < r_row[j] ? s : r_row[j];
        }
    }
}

// The rows rows[0..count) of r, one row per OpenMP thread at a time, into want (count x n).
// pr (or NULL) hears how many rows are done, from the first thread only.
static void shortcut_cpu(const float *d, float *want, size_t n, const size_t *rows, size_t count,
                         progress *pr) {
    size_t done = 0;
#pragma omp parallel for schedule(dynamic)
    for (long q = 0; q < (long)count; q++) {
        shortcut_cpu_row(d, want + (size_t)q * n, n, rows[q]);
#pragma omp atomic
        done++;
        if (omp_get_thread_num() == 0) progress_update(pr, (double)done);
    }
}

// The transpose the -transposed rows read, t[j][k] = d[k][j], one row of t per OpenMP thread at
// a time (each writes a row of t and reads a column of d).
static void transpose_cpu(const float *d, float *t, size_t n) {
#pragma omp parallel for schedule(static)
    for (long j = 0; j < (long)n; j++)
        for (size_t k = 0; k < n; k++) t[(size_t)j * n + k] = d[k * n + (size_t)j];
}

// ---- baseline: the add+min ceiling -------------------------------------------------------------

// The inner loop of every version without its loads: one FADD and one FMNMX per pair, out of
// registers, as in chapter 00's add+min microbenchmark. y steps down by 1/1024 (exact in binary)
// and v keeps the smallest y, so neither instruction can be hoisted or folded. The grid fills
// every SM with as many blocks as it holds, and the trips add up to n^3 pairs (rounded up to a
// multiple of CHAINS), so this row does the useful work of every version at the best rate.
#define PEAK_THREADS 256
// Independent chains per thread: each chain waits out the fixed latency of its last result, so
// CHAINS of them let the scheduler issue back to back.
#define CHAINS 8
#define PEAK_STEP (-1.0f / 1024.0f)

__global__ void shortcut_peak(float *__restrict__ sink, unsigned long long trips,
                              unsigned long long longer) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long my_trips = trips + (t < longer);  // the first `longer` threads do one more
    float y[CHAINS], v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) y[c] = v[c] = (float)(t % 1024 + c);
#pragma unroll 16
    for (unsigned long long s = 0; s < my_trips; s++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++) {
            y[c] = y[c] + PEAK_STEP;
            v[c] = fminf(v[c], y[c]);
        }
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < CHAINS; c++) sum += v[c];
    sink[t] = sum;  // the result keeps the compiler from removing the work
}

static void launch_peak(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    unsigned long long n = p->n, pairs = n * n * n;
    unsigned long long trips = ceil_div(pairs, CHAINS);  // in all, CHAINS pairs each
    shortcut_peak<<<(unsigned)(p->peak_threads / PEAK_THREADS), PEAK_THREADS>>>(
        p->sink, trips / p->peak_threads, trips % p->peak_threads);
    CHECK_LAUNCH();
}

// The ceiling for v8: two pairs with two FADDs and one three-way min of their bit patterns
// (VIMNMX3, see v8), CHAINS such groups a trip. The values go negative on long runs, where the
// int order is no longer the float order; that does not matter here, since the sink is not a
// result, only what keeps the compiler from removing the work.
__global__ void shortcut_peak3(float *__restrict__ sink, unsigned long long trips,
                               unsigned long long longer) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long my_trips = trips + (t < longer);
    float y[CHAINS], z[CHAINS];
    int v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) {
        y[c] = (float)(t % 1024 + c);
        z[c] = y[c] + 0.5f;
        v[c] = __float_as_int(y[c]);
    }
#pragma unroll 16
    for (unsigned long long s = 0; s < my_trips; s++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++) {
            y[c] = y[c] + PEAK_STEP;
            z[c] = z[c] + PEAK_STEP;
            v[c] = __vimin3_s32(v[c], __float_as_int(y[c]), __float_as_int(z[c]));
        }
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < CHAINS; c++) sum += __int_as_float(v[c]);
    sink[t] = sum;
}

static void launch_peak3(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    unsigned long long n = p->n, pairs = n * n * n;
    unsigned long long trips = ceil_div(pairs, 2 * CHAINS);  // in all, 2 CHAINS pairs each
    shortcut_peak3<<<(unsigned)(p->peak_threads / PEAK_THREADS), PEAK_THREADS>>>(
        p->sink, trips / p->peak_threads, trips % p->peak_threads);
    CHECK_LAUNCH();
}

#include "v00-naive.cuh"
#include "v01-coalesced.cuh"
#include "v01a-regblock.cuh"
#include "pad.cuh"
#include "v01b-padded.cuh"
#include "block64.cuh"
#include "v01c-wideload.cuh"
#include "v01d-unrolled.cuh"
#include "v01x-transposed.cuh"
#include "v02-budget.cuh"
#include "v03-shared.cuh"
#include "tile-spot.cuh"
#include "v03a-widecopy.cuh"
#include "v04-vectorized.cuh"
#include "v05-pipelined.cuh"
#include "cp-async.cuh"
#include "v06-async.cuh"
#include "v07-deeper.cuh"
#include "v07a-paired.cuh"
#include "rows.cuh"
#include "v08-min3.cuh"
#include "v09-bounded.cuh"
#include "v09x-loop-4x8.cuh"

// ---- the version table -------------------------------------------------------------------------

// End to end, as the course timed it: copy d from (pageable) host memory, run the version with
// its preprocessing, copy r back.
static void end_to_end(void *problem, void (*launch)(void *)) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t bytes = p->n * p->n * sizeof(float);
    CHECK(cudaMemcpy((void *)p->d, p->host_d, bytes, cudaMemcpyHostToDevice));
    launch(problem);
    CHECK(cudaMemcpy(p->host_r, p->r, bytes, cudaMemcpyDeviceToHost));
}
static void launch_v0_e2e(void *problem) { end_to_end(problem, launch_v0); }
static void launch_v1_e2e(void *problem) { end_to_end(problem, launch_v1); }
static void launch_v2_e2e(void *problem) { end_to_end(problem, launch_v2); }
static void launch_v3_e2e(void *problem) { end_to_end(problem, launch_v3); }
static void launch_v4_e2e(void *problem) { end_to_end(problem, launch_v4); }
static void launch_v5_e2e(void *problem) { end_to_end(problem, launch_v5); }
static void launch_v6_e2e(void *problem) { end_to_end(problem, launch_v6); }
static void launch_v7_e2e(void *problem) { end_to_end(problem, launch_v7); }
static void launch_v8_e2e(void *problem) { end_to_end(problem, launch_v8); }
static void launch_v9_e2e(void *problem) { end_to_end(problem, launch_v9); }

static const version versions[] = {
    {"peak", "add+min", launch_peak, KL_BASELINE | KL_UNCHECKED},
    {"peak3", "add+min3", launch_peak3, KL_BASELINE | KL_UNCHECKED},
    {"v0", "naive", launch_v0, 0},
    {"v1", "coalesced", launch_v1, 0},
    {"v1a", "regblock", launch_v1a, 0},
    {"v1b", "padded", launch_v1b, 0},
    {"v1c", "wideload", launch_v1c, 0},
    {"v1d", "unrolled", launch_v1d, 0},
    {"v2", "budget", launch_v2, 0},
    {"v3", "shared", launch_v3, 0},
    {"v3a", "widecopy", launch_v3a, 0},
    {"v4", "vectorized", launch_v4, 0},
    {"v5", "pipelined", launch_v5, 0},
    {"v6", "async", launch_v6, 0},
    {"v7", "deeper", launch_v7, 0},
    {"v7a", "paired", launch_v7a, 0},
    {"v8", "min3", launch_v8, 0},
    {"v9", "bounded", launch_v9, 0},
    // experiments on v0 and v1: d[k][j] read from d's transpose, along k
    {"v0-transposed", "naive-transposed", launch_v0_transposed, 0},
    {"v1-transposed", "coalesced-transposed", launch_v1_transposed, 0},
    // experiments on v9: its tile loop alone, and 4 x 8 results a thread
    {"v9-loop", "loop-alone", launch_v9_loop, KL_UNCHECKED},
    {"v9-4x8", "4x8-results", launch_v9_4x8, 0},
    {"v9-4x8-loop", "4x8-loop-alone", launch_v9_4x8_loop, KL_UNCHECKED},
    // every version timed end to end: copy d in, pad, compute, copy r out
    {"v0-e2e", "naive-e2e", launch_v0_e2e, 0},
    {"v1-e2e", "coalesced-e2e", launch_v1_e2e, 0},
    {"v2-e2e", "budget-e2e", launch_v2_e2e, 0},
    {"v3-e2e", "shared-e2e", launch_v3_e2e, 0},
    {"v4-e2e", "vectorized-e2e", launch_v4_e2e, 0},
    {"v5-e2e", "pipelined-e2e", launch_v5_e2e, 0},
    {"v6-e2e", "async-e2e", launch_v6_e2e, 0},
    {"v7-e2e", "deeper-e2e", launch_v7_e2e, 0},
    {"v8-e2e", "min3-e2e", launch_v8_e2e, 0},
    {"v9-e2e", "bounded-e2e", launch_v9_e2e, 0},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// ---- checking and saving -----------------------------------------------------------------------

// Every version must match the reference bit for bit (tolerance 0): each candidate d[i][k] +
// d[k][j] is one rounded addition, the same on both sides, and min picks one of them exactly,
// in whatever order. Only the checked rows come back.
static void shortcut_check(void *problem, const version *v, check_result *r) {
    shortcut_problem *p = (shortcut_problem *)problem;
    (void)v;
    for (size_t q = 0; q < p->nrows; q++) {
        size_t i = p->rows[q];
        float *got = p->host_r + i * p->n;
        CHECK(cudaMemcpy(got, p->r + i * p->n, p->n * sizeof(float), cudaMemcpyDeviceToHost));
        check_f32(r, got, p->want + q * p->n, 1, p->n, i, 0.0, 0.0);
    }
}

static void shortcut_save(void *problem, const char *dir, const char *tag) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t len = strlen(tag);
    if (strncmp(tag, "peak", 4) == 0) return;  // its output is not a result
    if (len >= 5 && strcmp(tag + len - 5, "-loop") == 0) return;  // nor is a loop's alone
    CHECK(cudaMemcpy(p->host_r, p->r, p->n * p->n * sizeof(float), cudaMemcpyDeviceToHost));
    size_t shape[2] = {p->n, p->n};
    if (npy_save(dir, tag, "<f4", shape, 2, p->host_r) != 0) exit(KL_EXIT_USAGE);
}

// Useful operations per clock of the whole GPU: 2 n^3 (each add and each min), as the course
// counts them, at the maximum SM clock.
static double shortcut_ops_per_clock(void *problem, double ms_median) {
    shortcut_problem *p = (shortcut_problem *)problem;
    double n = (double)p->n;
    return 2.0 * n * n * n / (ms_median * 1e-3) / p->clock_hz;
}

// ---- the self-test of the CPU reference (no GPU) -----------------------------------------------

// The textbook definition, loops i, j, k, with fminf: what shortcut_cpu must agree with.
static void brute_force(const float *d, float *r, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            float v = INFINITY;
            for (size_t k = 0; k < n; k++) v = fminf(v, d[i * n + k] + d[k * n + j]);
            r[i * n + j] = v;
        }
}

// The loops of the -transposed rows: both operands along k, from d and its transpose t.
static void brute_force_transposed(const float *d, const float *t, float *r, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            float v = INFINITY;
            for (size_t k = 0; k < n; k++) v = fminf(v, d[i * n + k] + t[j * n + k]);
            r[i * n + j] = v;
        }
}

static void all_rows(float *want, const float *d, size_t n) {
    size_t *rows = (size_t *)host_alloc(n * sizeof(size_t), "self-test");
    for (size_t i = 0; i < n; i++) rows[i] = i;
    shortcut_cpu(d, want, n, rows, n, NULL);
    free(rows);
}

static int shortcut_self_test(void) {
    int failed = 0;
    // a 3 x 3 example by hand: the way 0 -> 2 costs 8 direct, 1 + 2 through 1
    const float d[9] = {0, 1, 8, 9, 0, 2, 4, 7, 0};
    const float want[9] = {0, 1, 3, 6, 0, 2, 4, 5, 0};
    float r[9];
    all_rows(r, d, 3);
    int ok = memcmp(r, want, sizeof want) == 0;
    printf("%s shortcut_cpu: 3 x 3 by hand\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    // v8's premise: for floats >= +0 (+inf included) the bits read as ints order like the
    // values, so an int min picks the same float. Edge values and random pairs of all exponents.
    const float edges[] = {0.0f, 1e-45f, 1.1754942e-38f, 1.17549435e-38f, 0.5f, 1.0f,
                           1.0000001f, 3.4028235e38f, INFINITY};
    const int count = (int)(sizeof edges / sizeof edges[0]);
    rng ge;
    rng_init(&ge, 7);
    ok = 1;
    for (int q = 0; q < count * count + 100000; q++) {
        float x, y;
        if (q < count * count) {
            x = edges[q / count], y = edges[q % count];
        } else {  // random bit patterns with the sign bit clear, NaNs skipped
            uint32_t bx = rng_next(&ge) & 0x7fffffffu, by = rng_next(&ge) & 0x7fffffffu;
            memcpy(&x, &bx, 4), memcpy(&y, &by, 4);
            if (isnan(x) || isnan(y)) continue;
        }
        int32_t ix, iy;
        memcpy(&ix, &x, 4), memcpy(&iy, &y, 4);
        ok &= (x < y) == (ix < iy) && (x == y) == (ix == iy);
    }
    printf("%s bits of non-negative floats, read as ints, order like the floats (v8)\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    const size_t sizes[] = {1, 2, 3, 17, 64, 65};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s], np = round_up(n, PAD_MAX);
        float *a = (float *)host_alloc(np * np * sizeof(float), "self-test");
        float *b = (float *)host_alloc(np * np * sizeof(float), "self-test");
        float *c = (float *)host_alloc(np * np * sizeof(float), "self-test");
        rng g;
        rng_init(&g, 11 + s);
        rng_fill_f32(&g, a, n * n, 0.0f, 1.0f);
        // against the textbook loops, bit for bit
        all_rows(b, a, n);
        brute_force(a, c, n);
        ok = memcmp(b, c, n * n * sizeof(float)) == 0;
        printf("%s shortcut_cpu: matches the i, j, k loops at n = %zu\n", ok ? "PASS" : "FAIL", n);
        failed += !ok;
        // what the -transposed rows compute, from transpose_cpu's t: the same bits
        float *t = (float *)host_alloc(n * n * sizeof(float), "self-test");
        transpose_cpu(a, t, n);
        ok = 1;
        for (size_t k = 0; k < n; k++)
            for (size_t j = 0; j < n; j++) ok &= t[j * n + k] == a[k * n + j];
        brute_force_transposed(a, t, c, n);
        ok &= memcmp(b, c, n * n * sizeof(float)) == 0;
        printf("%s transpose_cpu: t[j][k] = d[k][j], and the loops on d and t match at n = %zu\n",
               ok ? "PASS" : "FAIL", n);
        failed += !ok;
        free(t);
        // padding with +inf changes nothing in the n x n corner: what v1b on rely on
        for (size_t i = np; i-- > 0;)
            for (size_t j = np; j-- > 0;)
                a[i * np + j] = (i < n && j < n) ? a[i * n + j] : INFINITY;
        all_rows(c, a, np);
        ok = 1;
        for (size_t i = 0; i < n; i++) ok &= memcmp(&c[i * np], &b[i * n], n * sizeof(float)) == 0;
        printf("%s shortcut_cpu: +inf padding to %zu keeps the result at n = %zu\n",
               ok ? "PASS" : "FAIL", np, n);
        failed += !ok;
        free(a), free(b), free(c);
    }
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ---- main --------------------------------------------------------------------------------------

// The rows the CPU checks: all of them up to FULL_CHECK_MAX, otherwise the first, the last and
// SAMPLE_ROWS - 2 distinct random ones, ascending.
static size_t choose_rows(size_t *rows, size_t n, rng *g) {
    if (n <= FULL_CHECK_MAX) {
        for (size_t i = 0; i < n; i++) rows[i] = i;
        return n;
    }
    bool *taken = (bool *)host_alloc(n * sizeof(bool), "the row sample");
    memset(taken, 0, n * sizeof(bool));
    taken[0] = taken[n - 1] = true;
    for (size_t picked = 2; picked < SAMPLE_ROWS;) {
        size_t i = rng_below(g, (uint32_t)n);
        if (!taken[i]) taken[i] = true, picked++;
    }
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (taken[i]) rows[count++] = i;
    free(taken);
    return count;
}

int main(int argc, char **argv) {
    options o = {};
    o.program = "shortcut";
    o.chapter = "02-shortcut";
    o.sizes = "n";
    o.n_means = "the matrices are n x n";
    o.m = 1, o.n = DEFAULT_N, o.k = 1;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return shortcut_self_test();

    env_info env;
    gpu_open(&env);
    bench_header(&o, &env);

    shortcut_problem p = {};
    p.n = o.n;
    p.clock_hz = env.sm_clock_mhz * 1e6;
    p.peak_threads = (size_t)env.sms * env.sm_threads;  // every SM full
    size_t np = round_up(p.n, PAD_MAX);
    size_t bytes = size_mul(size_mul(p.n, p.n), sizeof(float));
    size_t padded = size_mul(size_mul(np, np), sizeof(float));
    gpu_require(size_mul(bytes, 3) + size_mul(padded, 2),
                "d, its transpose, r and the padded d and transpose");
    p.d = (const float *)gpu_alloc(bytes, "the input d");
    p.t = (const float *)gpu_alloc(bytes, "the transpose of d");
    p.r = (float *)gpu_alloc(bytes, "the result r");
    p.dp = (float *)gpu_alloc(padded, "the padded d");
    p.tp = (float *)gpu_alloc(padded, "the padded transpose");
    p.sink = (float *)gpu_alloc(p.peak_threads * sizeof(float), "the peak kernel's results");
    p.host_d = (float *)host_alloc(bytes, "the input");
    p.host_r = (float *)host_alloc(bytes, "the results");
    p.rows = (size_t *)host_alloc(size_mul(p.n, sizeof(size_t)), "the checked rows");

    // Non-negative costs, uniform in [0, 1): 24 random bits each, so ties are rare and a wrong
    // k range or a missed tile shows up as a different minimum.
    rng g;
    rng_init(&g, o.seed);
    rng_fill_f32(&g, p.host_d, p.n * p.n, 0.0f, 1.0f);
    CHECK(cudaMemcpy((void *)p.d, p.host_d, bytes, cudaMemcpyHostToDevice));
    // The -transposed rows' t, made here once and never timed: those rows ask what the layout
    // of the operand does to the kernel, and the transpose is n^2 moves against n^3 pairs.
    float *host_t = (float *)host_alloc(bytes, "the transpose");
    transpose_cpu(p.host_d, host_t, p.n);
    CHECK(cudaMemcpy((void *)p.t, host_t, bytes, cudaMemcpyHostToDevice));
    free(host_t);
    p.nrows = choose_rows(p.rows, p.n, &g);
    p.want = (float *)host_alloc(size_mul(p.nrows, p.n * sizeof(float)), "the reference");
    progress pr;
    progress_begin(&pr, "the CPU reference", (double)p.nrows);
    shortcut_cpu(p.host_d, p.want, p.n, p.rows, p.nrows, &pr);
    progress_end(&pr);
    if (p.nrows < p.n)
        printf("note: n > %d, so the CPU checks %zu whole rows (the first, the last and %zu "
               "random ones), not all %zu\n\n", FULL_CHECK_MAX, p.nrows, p.nrows - 2, p.n);
    if (o.save) {
        size_t shape[2] = {p.n, p.n};
        if (npy_save(o.save, "d", "<f4", shape, 2, p.host_d) != 0) return KL_EXIT_USAGE;
    }

    bench b = {};
    b.problem = &p;
    b.out = p.r;
    b.out_bytes = bytes;
    b.inputs[0] = p.d, b.input_bytes[0] = bytes;  // no version may write them (--check-each)
    b.inputs[1] = p.t, b.input_bytes[1] = bytes;
    b.flops = 2.0 * (double)p.n * (double)p.n * (double)p.n;  // n^3 adds and n^3 mins
    b.check = shortcut_check;
    b.save = shortcut_save;
    b.extra_name = "ops_per_clock";
    b.extra = shortcut_ops_per_clock;
    int rc = bench_run(&o, &env, &b, versions, selected, VERSION_COUNT);
    printf("\nops_per_clock: useful operations (add and min counted separately, 2 n^3) per cycle "
           "of the whole GPU at the %d MHz maximum SM clock.\n", env.sm_clock_mhz);

    CHECK(cudaFree((void *)p.d));
    CHECK(cudaFree((void *)p.t));
    CHECK(cudaFree(p.r));
    CHECK(cudaFree(p.dp));
    CHECK(cudaFree(p.tp));
    CHECK(cudaFree(p.sink));
    free(p.host_d), free(p.host_r), free(p.rows), free(p.want);
    return rc;
}
