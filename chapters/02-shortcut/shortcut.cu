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
//   v0-transposed   an experiment, the CPU's first optimisation: v0 reading d[k][j] as t[j][k]
//                   from a transpose, along k; the warp still reads 16 rows of d, and now 2 of t
//   v1-transposed   the same change to v1: the warp reads 16 rows of t, 16 sectors, where v1
//                   read 64 contiguous bytes of d in 2
//   v2 regblock     8 x 8 results per thread from four 16-byte loads a step, on inputs padded
//                   with +inf to a multiple of 64 and transposed by a preprocessing kernel
//   v3 shared       each block stages 8 x 64 tiles of both inputs in shared memory, and loads
//                   the next tile into registers while it computes with the current one
//   v4 vectorized   16-byte loads: four LDS.128 a step instead of sixteen LDS.32
//   v5 pipelined    each step's shared loads are issued one step ahead, into spare registers
//   v6 async        cp.async copies the next tile into a second shared buffer: one barrier a tile
//   v7 deeper       16 steps a tile instead of 8: half the barriers and waits
//   v8 min3         two steps at a time: two FADDs and one three-way min (VIMNMX3, Hopper) of
//                   the sums' bit patterns do two pairs, 3 instructions instead of 4
//   v9 bounded      __launch_bounds__ lets the compiler compute the sums ahead of their mins
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

// The largest padding any version asks for (v2 on); the padded buffers are allocated for it.
#define PAD_MAX 64

// The problem every version sees. d and r are n x n, row-major, on the device; t is d
// transposed, n x n, made once before any version runs (the -transposed rows). dp and tp are
// d and its transpose padded with +inf to np x np, where each version chooses np (v2 on).
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

// ---- v0 naive ----------------------------------------------------------------------------------

// One thread per result, 16 x 16 threads a block, and i taken from threadIdx.x. A warp is 16
// consecutive i by 2 consecutive j, so each step it reads d[i][k] from 16 different rows, one
// 32-byte sector each for 4 useful bytes, and d[k][j] from two neighbouring floats.
// Grids are 2D: gridDim.y allows 65535 rows of blocks, far more than any n that fits in memory.
#define NAIVE 16  // 16 x 16 = 256 threads a block

__global__ void shortcut_v0_naive(const float *__restrict__ d, float *__restrict__ r, size_t n) {
    size_t i = (size_t)blockIdx.x * NAIVE + threadIdx.x;  // i in [0, n), fastest across the warp
    size_t j = (size_t)blockIdx.y * NAIVE + threadIdx.y;  // j in [0, n)
    if (i >= n || j >= n) return;
    float v = INFINITY;  // the identity of min
    for (size_t k = 0; k < n; k++) v = fminf(v, d[i * n + k] + d[k * n + j]);
    r[i * n + j] = v;
}

static void launch_v0(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    unsigned blocks = (unsigned)ceil_div(p->n, NAIVE);
    shortcut_v0_naive<<<dim3(blocks, blocks), dim3(NAIVE, NAIVE)>>>(p->d, p->r, p->n);
    CHECK_LAUNCH();
}

// ---- v1 coalesced ------------------------------------------------------------------------------

// The only change: j comes from threadIdx.x and i from threadIdx.y. A warp is now 16
// consecutive j by 2 consecutive i: it reads d[k][j] as 64 contiguous bytes and d[i][k] as two
// floats that every thread of a half-warp shares (a broadcast), and it writes 16 floats of a row.
__global__ void shortcut_v1_coalesced(const float *__restrict__ d, float *__restrict__ r,
                                      size_t n) {
    // EXERCISE: coalesced begin
    size_t j = (size_t)blockIdx.x * NAIVE + threadIdx.x;  // j in [0, n), fastest across the warp
    size_t i = (size_t)blockIdx.y * NAIVE + threadIdx.y;  // i in [0, n)
    if (i >= n || j >= n) return;
    float v = INFINITY;
    for (size_t k = 0; k < n; k++) v = fminf(v, d[i * n + k] + d[k * n + j]);
    r[i * n + j] = v;
    // EXERCISE: coalesced end
}

static void launch_v1(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    unsigned blocks = (unsigned)ceil_div(p->n, NAIVE);
    shortcut_v1_coalesced<<<dim3(blocks, blocks), dim3(NAIVE, NAIVE)>>>(p->d, p->r, p->n);
    CHECK_LAUNCH();
}

// ---- v0-transposed and v1-transposed: the CPU's transposition, an experiment --------------------

// On a CPU the first optimisation of this loop is to transpose d once, t[j][k] = d[k][j], so that
// one thread's loop over k reads both of its operands along a row, d[i][k] and t[j][k], and each
// cache line serves 16 steps. These rows make that change to v0 and v1 and nothing else: the
// same threads, the same sums, d[k][j] read as t[j][k]. On the GPU it does not pay, because a
// load is served for the 32 threads of a warp at once, and what it costs is the number of
// sectors their 32 addresses fall in at that instant, not what one thread reads over its loop.
// At one k the threads of a warp differ in i or in j, and both are now the row of the array
// they index, n floats apart. A warp is 16 values of the index from threadIdx.x by 2 of the
// other, so at one k (n a multiple of 8, so that every row starts on a 32-byte sector):
//   v0 (i across the warp):  d[i][k] 16 sectors, d[k][j] 2 neighbouring floats in 1     17
//   v0-transposed:           d[i][k] 16 sectors, t[j][k] 2 rows, 2 sectors              18
//   v1 (j across the warp):  d[i][k] 2 sectors,  d[k][j] 16 floats, 64 bytes in 2       4
//   v1-transposed:           d[i][k] 2 sectors,  t[j][k] 16 rows, 16 sectors            18
// With both operands read along k, neither arrangement of the threads coalesces. t is made on
// the host before any version runs and is not part of the timed launches (see main).
// WARP_ALONG_J: j runs across the warp (v1's threads), or i does (v0's).
template <bool WARP_ALONG_J>
__global__ void shortcut_transposed(const float *__restrict__ d, const float *__restrict__ t,
                                    float *__restrict__ r, size_t n) {
    size_t x = (size_t)blockIdx.x * NAIVE + threadIdx.x;  // x in [0, n), fastest across the warp
    size_t y = (size_t)blockIdx.y * NAIVE + threadIdx.y;  // y in [0, n)
    size_t i = WARP_ALONG_J ? y : x, j = WARP_ALONG_J ? x : y;
    if (i >= n || j >= n) return;
    const float *d_i = d + i * n, *t_j = t + j * n;  // row i of d, row j of t: both along k
    float v = INFINITY;
    for (size_t k = 0; k < n; k++) v = fminf(v, d_i[k] + t_j[k]);
    r[i * n + j] = v;
}

static void launch_v0_transposed(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    unsigned blocks = (unsigned)ceil_div(p->n, NAIVE);
    shortcut_transposed<false><<<dim3(blocks, blocks), dim3(NAIVE, NAIVE)>>>(p->d, p->t, p->r,
                                                                             p->n);
    CHECK_LAUNCH();
}

static void launch_v1_transposed(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    unsigned blocks = (unsigned)ceil_div(p->n, NAIVE);
    shortcut_transposed<true><<<dim3(blocks, blocks), dim3(NAIVE, NAIVE)>>>(p->d, p->t, p->r,
                                                                            p->n);
    CHECK_LAUNCH();
}

// ---- preprocessing: pad with +inf and transpose (v2 on) ----------------------------------------

// dp = d and tp = d transposed, both np x np with +inf outside the n x n corner. +inf is the
// identity of min and absorbs any addition (inf + x = inf for x >= 0), so a padded i, j or k
// never wins a min: the blocked kernels then need no guard in their inner loops. (0 would win
// every min.) The transpose goes through a padded shared tile, chapter 01's v2, so both the
// reads and the writes of a warp are 128 contiguous bytes.
#define PAD_TILE 32  // a warp across a tile row
#define PAD_ROWS 8   // 32 x 8 threads move the 32 x 32 tile, four elements each

__global__ void shortcut_pad(const float *__restrict__ d, float *__restrict__ dp,
                             float *__restrict__ tp, size_t n, size_t np) {
    __shared__ float tile[PAD_TILE][PAD_TILE + 1];  // tile: 32 x 33 floats, no bank conflicts
    size_t r0 = (size_t)blockIdx.y * PAD_TILE, c0 = (size_t)blockIdx.x * PAD_TILE;
    for (int y = threadIdx.y; y < PAD_TILE; y += PAD_ROWS) {
        size_t row = r0 + y, col = c0 + threadIdx.x;  // col fastest across the warp
        float v = (row < n && col < n) ? d[row * n + col] : INFINITY;
        dp[row * np + col] = v;
        tile[y][threadIdx.x] = v;
    }
    __syncthreads();  // the whole tile is in shared memory before anyone reads a column of it
    for (int y = threadIdx.y; y < PAD_TILE; y += PAD_ROWS)
        tp[(c0 + y) * np + r0 + threadIdx.x] = tile[threadIdx.x][y];
}

// Pads to a multiple of `multiple` and returns np.
static size_t pad_inputs(shortcut_problem *p, size_t multiple) {
    size_t np = round_up(p->n, multiple);
    unsigned tiles = (unsigned)(np / PAD_TILE);
    shortcut_pad<<<dim3(tiles, tiles), dim3(PAD_TILE, PAD_ROWS)>>>(p->d, p->dp, p->tp, p->n, np);
    CHECK_LAUNCH();
    return np;
}

// ---- v2 regblock -------------------------------------------------------------------------------

// Each thread keeps 8 x 8 results in registers: per step k it needs 8 values d[i][k] and 8
// values d[k][j] and does 64 add+min pairs with them, 4 pairs per value loaded instead of v1's
// 1/2. A block of 8 x 8 threads covers 64 x 64 results, on inputs padded to a multiple of 64 so
// no thread needs a guard; d[i][k] is read from the transpose tp, along a row. Thread (tx, ty)
// owns 4 consecutive rows twice, 32 apart (i0 + 4ty + {0..3} and i0 + 32 + 4ty + {0..3}), and
// the same for the columns with tx, so its 8 + 8 values are four aligned float4s: 4 LDG.128 a
// step instead of 16 LDG.32. For one load the warp's 32 threads (tx 0..7, ty 0..3) touch 8
// consecutive float4s of a row of dp (128 bytes, one line) or 4 float4s of a row of tp.
#define RB 8                        // results per thread along each dimension: 8 x 8
#define RB_THREADS 8                // threads per block along each dimension: 8 x 8
#define BLOCK64 (RB * RB_THREADS)  // 64 x 64 results a block
static_assert(PAD_MAX % BLOCK64 == 0, "the padded buffers hold a multiple of the block");
#define VEC 4                      // floats per 16-byte load
#define HALF (BLOCK64 / 2)         // the second group of 4 starts 32 rows or columns later
// Steps unrolled in v2's k loop: with 4 steps in view the compiler issues the next steps' loads
// before this step's arithmetic, so a load has some 400 instructions to arrive, not 130.
// (A constant, not a macro: #pragma unroll does not expand macros.)
constexpr int V2_UNROLL = 4;

// The 8 values of one row (of tp, dp or a tile) that a thread uses: at 4c and at 32 + 4c, as
// two float4s.
__device__ __forceinline__ void load8(const float *row, int c, float x[RB]) {
    float4 lo = *reinterpret_cast<const float4 *>(row + VEC * c);
    float4 hi = *reinterpret_cast<const float4 *>(row + HALF + VEC * c);
    x[0] = lo.x, x[1] = lo.y, x[2] = lo.z, x[3] = lo.w;
    x[4] = hi.x, x[5] = hi.y, x[6] = hi.z, x[7] = hi.w;
}

// Result (u, w) of thread (tx, ty) is r[i][j] with i = i0 + own(u, ty), j = j0 + own(w, tx).
__device__ __forceinline__ int own(int u, int c) { return (u / VEC) * HALF + VEC * c + u % VEC; }

// __launch_bounds__(64 threads, at least 1 block an SM) frees the compiler's register budget:
// without it the compiler holds the kernel to fewer registers, too few to keep the unrolled
// steps' loads in flight; with it, the kernel takes 152 and an SM still holds 6 blocks (each of
// the 4 schedulers has 16384 registers, and 3 warps of 32 x 152 = 4864 fit in them).
__global__ void __launch_bounds__(RB_THREADS *RB_THREADS, 1)
    shortcut_v2_regblock(const float *__restrict__ dp, const float *__restrict__ tp,
                         float *__restrict__ r, size_t n, size_t np) {
    // EXERCISE: regblock begin
    int tx = threadIdx.x, ty = threadIdx.y;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
#pragma unroll V2_UNROLL
    for (size_t k = 0; k < n; k++) {  // padded rows k >= n would only add +inf
        float a[RB], b[RB];
        load8(&tp[k * np + i0], ty, a);  // d[i][k]
        load8(&dp[k * np + j0], tx, b);  // d[k][j]
#pragma unroll
        for (int u = 0; u < RB; u++)
#pragma unroll
            for (int w = 0; w < RB; w++) v[u][w] = fminf(v[u][w], a[u] + b[w]);
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + own(u, ty), j = j0 + own(w, tx);
            if (i < n && j < n) r[i * n + j] = v[u][w];  // the padding is computed, not stored
        }
    // EXERCISE: regblock end
}

static void launch_v2(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v2_regblock<<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r,
                                                                                p->n, np);
    CHECK_LAUNCH();
}

// ---- v3 shared ---------------------------------------------------------------------------------

// The block's 64 threads share every value they load: in v2 each d[k][j] went through L1 to the
// 8 threads that use it, one load instruction each. Now the block copies KT rows of tp and dp
// (its 64 columns) into shared memory once, with each thread loading one column, and every
// thread reads its 8 + 8 operands from there: a shared load takes no trip through the L1 tags
// and has half the latency. While computing with one tile, each thread already has the loads of
// the next tile in flight into registers (pa, pb), so their latency hides behind 8 steps of
// arithmetic. The thread's results are the same 8 x 8 as in v2; reads of as[k][8u + ty] are a
// 4-way broadcast and reads of bs[k][8w + tx] 8 consecutive words: no bank conflicts.
#define KT 8  // k steps per tile: 8 x 64 floats of each input, 4 KiB a block
static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");

__global__ void shortcut_v3_shared(const float *__restrict__ dp, const float *__restrict__ tp,
                                   float *__restrict__ r, size_t n, size_t np) {
    __shared__ float as[KT][BLOCK64];  // as[k][i - i0] = d[i][k0 + k]
    __shared__ float bs[KT][BLOCK64];  // bs[k][j - j0] = d[k0 + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RB_THREADS + tx;  // t in [0, 64): the tile column this thread loads
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    size_t kp = (n + KT - 1) / KT * KT;  // k runs over whole tiles; rows k >= n hold +inf
    float pa[KT], pb[KT];         // the next tile, one column of it, on its way to shared memory
#pragma unroll
    for (int q = 0; q < KT; q++) pa[q] = tp[q * np + i0 + t], pb[q] = dp[q * np + j0 + t];
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
    for (size_t k0 = 0; k0 < kp; k0 += KT) {
#pragma unroll
        for (int q = 0; q < KT; q++) as[q][t] = pa[q], bs[q][t] = pb[q];
        __syncthreads();  // the tile is in shared memory before anyone reads it
        if (k0 + KT < kp) {  // the next tile's loads, in flight during the steps below
#pragma unroll
            for (int q = 0; q < KT; q++) {
                pa[q] = tp[(k0 + KT + q) * np + i0 + t];
                pb[q] = dp[(k0 + KT + q) * np + j0 + t];
            }
        }
#pragma unroll
        for (int k = 0; k < KT; k++) {
            float a[RB], b[RB];
#pragma unroll
            for (int u = 0; u < RB; u++) a[u] = as[k][u * RB_THREADS + ty];
#pragma unroll
            for (int w = 0; w < RB; w++) b[w] = bs[k][w * RB_THREADS + tx];
#pragma unroll
            for (int u = 0; u < RB; u++)
#pragma unroll
                for (int w = 0; w < RB; w++) v[u][w] = fminf(v[u][w], a[u] + b[w]);
        }
        __syncthreads();  // everyone is done with the tile before the next one overwrites it
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + u * RB_THREADS + ty, j = j0 + w * RB_THREADS + tx;
            if (i < n && j < n) r[i * n + j] = v[u][w];
        }
}

static void launch_v3(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v3_shared<<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r,
                                                                              p->n, np);
    CHECK_LAUNCH();
}

// ---- v4 vectorized -----------------------------------------------------------------------------

// v3 issues 16 shared loads (LDS.32) for 128 arithmetic instructions a step, and an SM issues
// one instruction per scheduler per clock, so 1 slot in 9 goes to loads. Now each thread owns
// v2's 4 + 4 consecutive rows and columns again and reads each group of 4 with one 16-byte
// LDS.128: 4 loads a step. A warp's float4 reads of bs cover 8 consecutive float4s, 128 bytes,
// one pass through the 32 banks; those of as are 4 float4s shared by 8 threads each. The tiles
// are loaded as float4s too (np and the block origins are multiples of 64: every float4 is
// aligned).
#define TILE_F4 (KT * BLOCK64 / VEC)           // float4s in one tile of one input: 128
#define LOADS_F4 (TILE_F4 / (RB_THREADS * RB_THREADS))  // float4s each thread loads: 2
static_assert(TILE_F4 % (RB_THREADS * RB_THREADS) == 0, "the threads share a tile evenly");

// The float4 that thread t moves on its q-th load of a KT x 64 tile: float4 number t + 64 q, in
// row (t + 64 q) / 16 at column 4 ((t + 64 q) % 16). A warp moves 32 consecutive float4s: two
// whole tile rows, 2 x 256 contiguous bytes of global memory, 512 bytes of shared memory.
struct tile_spot {
    int row, col;
};
__device__ __forceinline__ tile_spot spot(int t, int q) {
    int e = t + q * RB_THREADS * RB_THREADS;
    return {e / (BLOCK64 / VEC), VEC * (e % (BLOCK64 / VEC))};
}

__global__ void shortcut_v4_vectorized(const float *__restrict__ dp, const float *__restrict__ tp,
                                       float *__restrict__ r, size_t n, size_t np) {
    __shared__ __align__(16) float as[KT][BLOCK64];  // as[k][i - i0] = d[i][k0 + k]
    __shared__ __align__(16) float bs[KT][BLOCK64];  // bs[k][j - j0] = d[k0 + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RB_THREADS + tx;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    size_t kp = (n + KT - 1) / KT * KT;
    float4 pa[LOADS_F4], pb[LOADS_F4];
#pragma unroll
    for (int q = 0; q < LOADS_F4; q++) {
        tile_spot at = spot(t, q);
        size_t at_k = at.row * np + at.col;  // row k = at.row of tp and dp
        pa[q] = *reinterpret_cast<const float4 *>(&tp[at_k + i0]);
        pb[q] = *reinterpret_cast<const float4 *>(&dp[at_k + j0]);
    }
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
    for (size_t k0 = 0; k0 < kp; k0 += KT) {
#pragma unroll
        for (int q = 0; q < LOADS_F4; q++) {
            tile_spot at = spot(t, q);
            *reinterpret_cast<float4 *>(&as[at.row][at.col]) = pa[q];
            *reinterpret_cast<float4 *>(&bs[at.row][at.col]) = pb[q];
        }
        __syncthreads();  // the tile is in shared memory before anyone reads it
        if (k0 + KT < kp) {
#pragma unroll
            for (int q = 0; q < LOADS_F4; q++) {
                tile_spot at = spot(t, q);
                size_t at_k = (k0 + KT + at.row) * np + at.col;  // in the next tile
                pa[q] = *reinterpret_cast<const float4 *>(&tp[at_k + i0]);
                pb[q] = *reinterpret_cast<const float4 *>(&dp[at_k + j0]);
            }
        }
#pragma unroll
        for (int k = 0; k < KT; k++) {
            float a[RB], b[RB];
            load8(as[k], ty, a);
            load8(bs[k], tx, b);
#pragma unroll
            for (int u = 0; u < RB; u++)
#pragma unroll
                for (int w = 0; w < RB; w++) v[u][w] = fminf(v[u][w], a[u] + b[w]);
        }
        __syncthreads();  // everyone is done with the tile before the next one overwrites it
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + own(u, ty), j = j0 + own(w, tx);
            if (i < n && j < n) r[i * n + j] = v[u][w];
        }
}

static void launch_v4(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v4_vectorized<<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(
        p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}

// ---- v5 pipelined -----------------------------------------------------------------------------

// In v4 each step's first addition waits for that step's shared loads, some 30 cycles, and
// with 2 warps a block and 6 blocks an SM, 3 warps a scheduler, there is not always another warp
// ready.
// Now each thread reads the operands of step k + 1 into a second set of registers before it
// computes step k, so the loads have a whole step (128 instructions) to arrive. The compiler
// reuses the sums' temporaries for them: the kernel needs only one register more than v4.
__global__ void shortcut_v5_pipelined(const float *__restrict__ dp, const float *__restrict__ tp,
                                      float *__restrict__ r, size_t n, size_t np) {
    __shared__ __align__(16) float as[KT][BLOCK64];  // as[k][i - i0] = d[i][k0 + k]
    __shared__ __align__(16) float bs[KT][BLOCK64];  // bs[k][j - j0] = d[k0 + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RB_THREADS + tx;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    size_t kp = (n + KT - 1) / KT * KT;
    float4 pa[LOADS_F4], pb[LOADS_F4];
#pragma unroll
    for (int q = 0; q < LOADS_F4; q++) {
        tile_spot at = spot(t, q);
        size_t at_k = at.row * np + at.col;  // row k = at.row of tp and dp
        pa[q] = *reinterpret_cast<const float4 *>(&tp[at_k + i0]);
        pb[q] = *reinterpret_cast<const float4 *>(&dp[at_k + j0]);
    }
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
    for (size_t k0 = 0; k0 < kp; k0 += KT) {
#pragma unroll
        for (int q = 0; q < LOADS_F4; q++) {
            tile_spot at = spot(t, q);
            *reinterpret_cast<float4 *>(&as[at.row][at.col]) = pa[q];
            *reinterpret_cast<float4 *>(&bs[at.row][at.col]) = pb[q];
        }
        __syncthreads();  // the tile is in shared memory before anyone reads it
        if (k0 + KT < kp) {
#pragma unroll
            for (int q = 0; q < LOADS_F4; q++) {
                tile_spot at = spot(t, q);
                size_t at_k = (k0 + KT + at.row) * np + at.col;  // in the next tile
                pa[q] = *reinterpret_cast<const float4 *>(&tp[at_k + i0]);
                pb[q] = *reinterpret_cast<const float4 *>(&dp[at_k + j0]);
            }
        }
        float a[2][RB], b[2][RB];  // step k's operands in [k % 2], step k + 1's in the other
        load8(as[0], ty, a[0]);
        load8(bs[0], tx, b[0]);
#pragma unroll
        for (int k = 0; k < KT; k++) {
            if (k + 1 < KT) {  // on their way while step k computes
                load8(as[k + 1], ty, a[(k + 1) % 2]);
                load8(bs[k + 1], tx, b[(k + 1) % 2]);
            }
#pragma unroll
            for (int u = 0; u < RB; u++)
#pragma unroll
                for (int w = 0; w < RB; w++)
                    v[u][w] = fminf(v[u][w], a[k % 2][u] + b[k % 2][w]);
        }
        __syncthreads();  // everyone is done with the tile before the next one overwrites it
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + own(u, ty), j = j0 + own(w, tx);
            if (i < n && j < n) r[i * n + j] = v[u][w];
        }
}

static void launch_v5(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v5_pipelined<<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(
        p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}

// ---- v6 async ----------------------------------------------------------------------------------

// v5 moves each tile through registers (LDG into pa/pb, then STS) and needs two barriers a tile:
// one before the tile is read, one before it is overwritten. Now cp.async (sm_80 and later)
// copies the next tile straight from global into a second shared buffer, with no registers and
// no STS, while the block computes with the first; the buffers swap every tile, so a single
// barrier a tile says both "the new tile has arrived" and "everyone is done with the old one".
// The kernel takes the tile depth as a parameter for v7; v6 keeps v5's KT = 8 steps.
// Before Ampere (sm_75) there is no cp.async: an ordinary copy through a register stands in, and
// the commit and the wait have nothing to do.
__device__ __forceinline__ void copy16_async(float *smem, const float *gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    *reinterpret_cast<float4 *>(smem) = *reinterpret_cast<const float4 *>(gmem);
#else
    unsigned to = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(gmem) : "memory");
#endif
}

// Closes the group of copies issued so far.
__device__ __forceinline__ void copy_commit() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until every copy this thread committed has landed.
__device__ __forceinline__ void copy_wait_all() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

// Thread t's float4s of a depth x 64 tile of tp and of dp (the rows k0.. of both), as in v4:
// float4 number t + 64 q sits in row (t + 64 q) / 16 at column 4 ((t + 64 q) % 16). A warp
// copies two whole tile rows, 2 x 256 contiguous bytes, per cp.async.
template <int DEPTH>
__device__ __forceinline__ void copy_tile_async(float (*as)[BLOCK64], float (*bs)[BLOCK64],
                                                const float *tp_k0, const float *dp_k0, size_t np,
                                                int t) {
#pragma unroll
    for (int q = 0; q < DEPTH * BLOCK64 / VEC / (RB_THREADS * RB_THREADS); q++) {
        tile_spot at = spot(t, q);
        copy16_async(&as[at.row][at.col], tp_k0 + at.row * np + at.col);
        copy16_async(&bs[at.row][at.col], dp_k0 + at.row * np + at.col);
    }
    copy_commit();
}

template <int DEPTH>
__global__ void shortcut_v6_async(const float *__restrict__ dp, const float *__restrict__ tp,
                                  float *__restrict__ r, size_t n, size_t np) {
    static_assert(DEPTH * BLOCK64 / VEC % (RB_THREADS * RB_THREADS) == 0, "an even share");
    __shared__ __align__(16) float as[2][DEPTH][BLOCK64];  // as[buf][k][i - i0] = d[i][k0 + k]
    __shared__ __align__(16) float bs[2][DEPTH][BLOCK64];  // bs[buf][k][j - j0] = d[k0 + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RB_THREADS + tx;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    size_t kp = (n + DEPTH - 1) / DEPTH * DEPTH;  // whole tiles; rows k >= n hold +inf
    copy_tile_async<DEPTH>(as[0], bs[0], tp + i0, dp + j0, np, t);
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
    int buf = 0;  // the buffer that holds tile k0
    for (size_t k0 = 0; k0 < kp; k0 += DEPTH, buf ^= 1) {
        copy_wait_all();  // this thread's copies landed
        __syncthreads();  // all copies of tile k0 landed; everyone is done with tile k0 - DEPTH
        if (k0 + DEPTH < kp)  // into the buffer that tile k0 - DEPTH used
            copy_tile_async<DEPTH>(as[buf ^ 1], bs[buf ^ 1], tp + (k0 + DEPTH) * np + i0,
                                   dp + (k0 + DEPTH) * np + j0, np, t);
        float a[2][RB], b[2][RB];  // v5's one-step-ahead shared loads
        load8(as[buf][0], ty, a[0]);
        load8(bs[buf][0], tx, b[0]);
#pragma unroll
        for (int k = 0; k < DEPTH; k++) {
            if (k + 1 < DEPTH) {
                load8(as[buf][k + 1], ty, a[(k + 1) % 2]);
                load8(bs[buf][k + 1], tx, b[(k + 1) % 2]);
            }
#pragma unroll
            for (int u = 0; u < RB; u++)
#pragma unroll
                for (int w = 0; w < RB; w++)
                    v[u][w] = fminf(v[u][w], a[k % 2][u] + b[k % 2][w]);
        }
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + own(u, ty), j = j0 + own(w, tx);
            if (i < n && j < n) r[i * n + j] = v[u][w];
        }
}

static void launch_v6(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v6_async<KT><<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp,
                                                                                p->r, p->n, np);
    CHECK_LAUNCH();
}

// ---- v7 deeper ---------------------------------------------------------------------------------

// The same kernel with 16 steps a tile: a barrier, a wait and a round of copies every 16 steps
// instead of every 8, and the copies of one tile have twice as long to arrive. The two buffers
// take 16 KiB a block, and 6 blocks an SM (the registers' limit: 132 registers, allocated as
// 136, leave room for 3 warps a scheduler) need 96 KiB, well within the SM's shared memory.
#define KT_DEEP 16
static_assert(BLOCK64 % KT_DEEP == 0, "n rounded up to KT_DEEP stays inside the padded buffers");

static void launch_v7(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v6_async<KT_DEEP><<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(
        p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}

// ---- v8 min3 ------------------------------------------------------------------------------------

// v7 does one FADD and one FMNMX a pair. An SM's FP32 units do 128 additions a clock but its
// min/max unit only 64, so FMNMX sets the pace: 64 pairs a clock at best (the `peak` row).
// Hopper added three-way integer min and max (VIMNMX3, CUDA's __vimin3_s32, one of the "DPX"
// instructions for dynamic programming). Our costs are never negative, and for non-negative
// floats (+inf included) the order of the bit patterns read as ints is the order of the values,
// so one VIMNMX3 is an exact min of three floats. Now each thread takes the steps two at a time:
// two FADDs and one VIMNMX3 do two pairs, 3 instructions instead of 4, and the min unit is no
// longer the limit (the `peak3` row measures the new ceiling). The results are the same bits.
// (Before Hopper, __vimin3_s32 is emulated with two-way integer mins: correct, not faster.)
__device__ __forceinline__ int bits(float x) { return __float_as_int(x); }

// The experiments after v9 run this kernel with 4 rows of results a thread instead of 8 (ROWS),
// and with its loop alone (LOOP); v8 and v9 use the defaults, 8 and false.
//
// Thread ty's ROWS values of a tile row: 8 as load8 reads them, or 4 consecutive ones (4ty ..
// 4ty + 3), one float4; own_row says which rows of the block they are.
template <int ROWS>
__device__ __forceinline__ void load_rows(const float *row, int c, float x[ROWS]) {
    if constexpr (ROWS == RB) {
        load8(row, c, x);
    } else {
        float4 q = *reinterpret_cast<const float4 *>(row + VEC * c);
        x[0] = q.x, x[1] = q.y, x[2] = q.z, x[3] = q.w;
    }
}
template <int ROWS>
__device__ __forceinline__ int own_row(int u, int c) {
    return ROWS == RB ? own(u, c) : VEC * c + u;
}

// A block of 64 threads copies a tile as v6 does; one of 128 copies it as two blocks of 64
// would, each half of the threads taking half the rows.
template <int DEPTH, int THREADS>
__device__ __forceinline__ void copy_tile_min3(float (*as)[BLOCK64], float (*bs)[BLOCK64],
                                               const float *tp_k0, const float *dp_k0, size_t np,
                                               int t) {
    constexpr int GROUP = RB_THREADS * RB_THREADS;
    if constexpr (THREADS == GROUP) {
        copy_tile_async<DEPTH>(as, bs, tp_k0, dp_k0, np, t);
    } else {
        constexpr int PART = DEPTH * GROUP / THREADS;  // the rows each group of 64 copies
        int g = t / GROUP;
        copy_tile_async<PART>(as + g * PART, bs + g * PART, tp_k0 + g * PART * np,
                              dp_k0 + g * PART * np, np, t % GROUP);
    }
}

// v7's kernel with the steps in twos; v8 and v9 differ only in the __launch_bounds__ around it.
// Thread (tx, ty) of a block of 8 x (64 / ROWS) threads owns ROWS x 8 results.
template <int DEPTH, int ROWS = RB, bool LOOP = false>
__device__ __forceinline__ void min3_kernel(const float *__restrict__ dp,
                                            const float *__restrict__ tp, float *__restrict__ r,
                                            size_t n, size_t np) {
    constexpr int THREADS = RB_THREADS * (BLOCK64 / ROWS);
    static_assert(DEPTH * BLOCK64 / VEC % THREADS == 0, "an even share");
    static_assert(DEPTH % 2 == 0, "the steps go in twos");
    __shared__ __align__(16) float as[2][DEPTH][BLOCK64];  // as[buf][k][i - i0] = d[i][k0 + k]
    __shared__ __align__(16) float bs[2][DEPTH][BLOCK64];  // bs[buf][k][j - j0] = d[k0 + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RB_THREADS + tx;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    size_t kp = (n + DEPTH - 1) / DEPTH * DEPTH;  // whole tiles; rows k >= n hold +inf
    copy_tile_min3<DEPTH, THREADS>(as[0], bs[0], tp + i0, dp + j0, np, t);
    int v[ROWS][RB];  // the bits of the results: ints, so VIMNMX3 can take them
#pragma unroll
    for (int u = 0; u < ROWS; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = bits(INFINITY);
    // LOOP: the first tile is copied once and the loop runs over it again and again, with no
    // copies and no barriers. The buffer still flips by n >> 40, which is 0 for any n that fits
    // in memory, but the compiler cannot know that, so it cannot hoist the shared loads out of
    // the loop. The results are not the product's.
    int flip = LOOP ? (int)(n >> 40) & 1 : 1;
    if (LOOP) {
        copy_wait_all();
        __syncthreads();
    }
    int buf = 0;  // the buffer that holds tile k0
    for (size_t k0 = 0; k0 < kp; k0 += DEPTH, buf ^= flip) {
        if (!LOOP) {
            copy_wait_all();  // this thread's copies landed
            __syncthreads();  // all copies of tile k0 landed; everyone is done with tile k0 - DEPTH
            if (k0 + DEPTH < kp)  // into the buffer that tile k0 - DEPTH used
                copy_tile_min3<DEPTH, THREADS>(as[buf ^ 1], bs[buf ^ 1],
                                               tp + (k0 + DEPTH) * np + i0,
                                               dp + (k0 + DEPTH) * np + j0, np, t);
        }
        float a[2][ROWS], b[2][RB];  // the operands of steps k and k + 1
#pragma unroll
        for (int k = 0; k < DEPTH; k += 2) {
            load_rows<ROWS>(as[buf][k], ty, a[0]);
            load8(bs[buf][k], tx, b[0]);
            load_rows<ROWS>(as[buf][k + 1], ty, a[1]);
            load8(bs[buf][k + 1], tx, b[1]);
#pragma unroll
            for (int u = 0; u < ROWS; u++)
#pragma unroll
                for (int w = 0; w < RB; w++)
                    v[u][w] = __vimin3_s32(v[u][w], bits(a[0][u] + b[0][w]),
                                           bits(a[1][u] + b[1][w]));
        }
    }
#pragma unroll
    for (int u = 0; u < ROWS; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + own_row<ROWS>(u, ty), j = j0 + own(w, tx);
            if (i < n && j < n) r[i * n + j] = __int_as_float(v[u][w]);
        }
}

template <int DEPTH>
__global__ void shortcut_v8_min3(const float *__restrict__ dp, const float *__restrict__ tp,
                                 float *__restrict__ r, size_t n, size_t np) {
    min3_kernel<DEPTH>(dp, tp, r, n, np);
}

static void launch_v8(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v8_min3<KT_DEEP><<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(
        p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}

// ---- v9 bounded --------------------------------------------------------------------------------

// v8 leaves about a quarter of the issue slots empty (74% busy at n = 6300), and Nsight Compute
// says why: the most common stall is `wait`, a warp waiting out the fixed latency of an
// instruction it depends on. Without a launch bound the compiler's own heuristics settle on 133
// registers for v8 (it may take up to 255), and it computes each pair of sums just before the
// VIMNMX3 that takes them, so every VIMNMX3 waits out its FADDs' latency, and 6 blocks of 2 warps
// an SM are too few to fill those cycles.
// __launch_bounds__(64 threads, at least 5 blocks an SM), v2's tool again, lets the compiler
// schedule for this block: it takes 162 registers, computes the sums well ahead of their mins,
// and an SM still holds 6 blocks.
#define V9_MIN_BLOCKS 5
template <int DEPTH>
__global__ void __launch_bounds__(RB_THREADS *RB_THREADS, V9_MIN_BLOCKS)
    shortcut_v9_bounded(const float *__restrict__ dp, const float *__restrict__ tp,
                        float *__restrict__ r, size_t n, size_t np) {
    min3_kernel<DEPTH>(dp, tp, r, n, np);
}

static void launch_v9(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v9_bounded<KT_DEEP><<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(
        p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}

// ---- v9-loop and v9-4x8 (with its loop alone): experiments on v9 --------------------------------

// v9 stops at about 76% of peak3. These rows ask where the rest goes (README, "Where the rest
// goes"). v9-loop is v9's kernel with LOOP: the same instructions of the tile loop, the same
// number of times, with no copies from global memory and no barriers; whatever v9 loses to them,
// v9-loop does not. It is a measurement, not a result: unchecked.
template <int DEPTH>
__global__ void __launch_bounds__(RB_THREADS *RB_THREADS, V9_MIN_BLOCKS)
    shortcut_v9_loop(const float *__restrict__ dp, const float *__restrict__ tp,
                     float *__restrict__ r, size_t n, size_t np) {
    min3_kernel<DEPTH, RB, true>(dp, tp, r, n, np);
}

// v9-4x8: more warps for the schedulers to choose from. 4 x 8 results a thread in blocks of
// 128 threads (8 x 16) need fewer registers, so an SM holds 16 warps to v9's 12, at the price of
// one more shared load for every 32 pairs instead of every 64. __launch_bounds__(128, 4) gives
// the compiler about 128 registers; it takes 107, 4 blocks (16 warps) an SM. v9-4x8-loop is its
// loop alone, as v9-loop is v9's.
#define ROWS_4X8 4
#define THREADS_4X8 (RB_THREADS * BLOCK64 / ROWS_4X8)
#define V9_4X8_MIN_BLOCKS 4
template <int DEPTH, bool LOOP>
__global__ void __launch_bounds__(THREADS_4X8, V9_4X8_MIN_BLOCKS)
    shortcut_v9_4x8(const float *__restrict__ dp, const float *__restrict__ tp,
                    float *__restrict__ r, size_t n, size_t np) {
    min3_kernel<DEPTH, ROWS_4X8, LOOP>(dp, tp, r, n, np);
}

static void launch_v9_loop(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v9_loop<KT_DEEP><<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(
        p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}

template <bool LOOP>
static void launch_4x8(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    size_t np = pad_inputs(p, BLOCK64);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v9_4x8<KT_DEEP, LOOP><<<dim3(blocks, blocks), dim3(RB_THREADS, BLOCK64 / ROWS_4X8)>>>(
        p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
static void launch_v9_4x8(void *problem) { launch_4x8<false>(problem); }
static void launch_v9_4x8_loop(void *problem) { launch_4x8<true>(problem); }

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
    {"v0-transposed", "naive-transposed", launch_v0_transposed, 0},
    {"v1-transposed", "coalesced-transposed", launch_v1_transposed, 0},
    {"v2", "regblock", launch_v2, 0},
    {"v3", "shared", launch_v3, 0},
    {"v4", "vectorized", launch_v4, 0},
    {"v5", "pipelined", launch_v5, 0},
    {"v6", "async", launch_v6, 0},
    {"v7", "deeper", launch_v7, 0},
    {"v8", "min3", launch_v8, 0},
    {"v9", "bounded", launch_v9, 0},
    {"v9-loop", "loop-alone", launch_v9_loop, KL_UNCHECKED},
    {"v9-4x8", "4x8-results", launch_v9_4x8, 0},
    {"v9-4x8-loop", "4x8-loop-alone", launch_v9_4x8_loop, KL_UNCHECKED},
    {"v0-e2e", "naive-e2e", launch_v0_e2e, 0},
    {"v1-e2e", "coalesced-e2e", launch_v1_e2e, 0},
    {"v2-e2e", "regblock-e2e", launch_v2_e2e, 0},
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
        // padding with +inf changes nothing in the n x n corner: what v2 on rely on
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
