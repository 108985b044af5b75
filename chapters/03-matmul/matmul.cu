// Chapter 03: matmul. C = A B for row-major A (m x k), B (k x n), C (m x n): every classic
// lesson of GPU performance in one problem, from reading memory well to keeping the FMA units fed.
//
//   cublas      (baseline) cuBLAS GEMM in strict FP32 (FP64 in the -f64 build): the target
//   cublas-tf32 (baseline) cuBLAS on the tensor cores with TF32 inputs: a different arithmetic,
//               shown for context only (not in the -f64 build)
//   v0 naive      one thread per result; a warp walks down 32 rows of A, 32 rows apart
//   v1 coalesced  a warp takes 32 neighbouring columns: B and C accesses become contiguous
//   v2 tiled      32 x 32 tiles of A and B staged in shared memory and reused 32 times
//   v3 prefetch   the next tile is loaded into registers while the current one is used
//   v4 unrolled   the inner loop over the tile unrolled: no counter, constant offsets, wide loads
//   v5 granular   each thread computes 8 results down a column: one B value serves 8 FMAs
//   v6 regblock   each thread computes an 8 x 8 block: 16 loads from shared memory feed 64 FMAs
//   v7 vectorized 16-byte read-only global loads, A stored transposed and padded, 16-byte shared loads
//   v7-ldg to v7-padded   v7's changes one at a time: v7-ldg, v7-wide, v7-transposed, v7-padded
//   v6-noprefetch an experiment: v6 without v3's prefetch, to measure its registers and its gain
//   v1-maxshared and v7-maxl1   an experiment: v1 and v7 asking for the other L1/shared split
//   v8 warptiled  a warp owns a 64 x 32 patch and each thread four 4 x 4 pieces: no bank conflicts
//   v9 async      cp.async copies tiles straight into a ring of shared buffers: one barrier a tile
//   v10 tuned     the same kernel with the tile shape chosen for this GPU
//   v11 serpentine the FMAs of a step in serpentine order: odd rows run right to left
//   v12 tallwarps warps of 128 x 32 instead of 64 x 64: each thread a 16 x 8 block
//   v13 streamk   the tiles of the last, partial wave cut along k and shared by all the SMs
//   v14 smalltile 64 x 128 tiles, three blocks an SM: more, smaller tiles for small matrices
//   v15 splitk    each tile's k steps cut into runs when there are too few tiles for the GPU
//   v16 dispatch  estimates v12-v15's time from the shape and runs the fastest, as libraries do
//   v17 padded    B copied into rows that start on 16 bytes when n is not a multiple of 4
//   v18 strip     the last few columns of C, which fill a column of tiles, done as a product apart
//   v19 unbounded v14's kernel built for one block an SM, where v16 picks v14 and one round holds all
// The -f64 build adds a second baseline and three versions on the FP64 tensor cores:
//   peak        (baseline) m n k FP64 FMAs out of registers: the CUDA cores' ceiling
//   v20 dmma      v9's ring of tiles, the multiply-adds done by mma.sync m8n8k4 (8.0 and later)
//   v21 dmma16    the same with Hopper's m16n8k16 instruction, eight times the work each (9.0)
//   v22 grouped   v21 with the tiles handed out in groups of rows, so blocks in flight share B
//
// Build and run:   make build/matmul && build/matmul                      (4096 x 4096 x 4096)
//                  build/matmul -m 1000 -n 999 -k 1001 -v v6,v9 --input int
//                  build/matmul --list | --help | --check-only | --self-test | --save out/
// Double precision: make build/matmul-f64 (the same source with -DMATMUL_FP64).
#include <cublas_v2.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "gpu.h"
#include "npy.h"
#include "progress.h"
#include "rng.h"

// One compile-time switch picks the element type. `vec` is the 16-byte vector of it: four
// floats or two doubles, what one LDG.128 / LDS.128 / STG.128 moves.
#ifdef MATMUL_FP64
typedef double real;
typedef double2 vec;
#define PROGRAM "matmul-f64"
#define NPY_REAL "<f8"
#define UNIT_ROUNDOFF (DBL_EPSILON / 2)
#else
typedef float real;
typedef float4 vec;
#define PROGRAM "matmul"
#define NPY_REAL "<f4"
#define UNIT_ROUNDOFF (FLT_EPSILON / 2)
#endif
#define VEC (int)(sizeof(vec) / sizeof(real))  // elements in 16 bytes

// 4096^3: 2 x 64 MiB of inputs, a 64 MiB output and 137 GFLOP, about 3 ms for cuBLAS on an
// H200: long enough to time well, with the matrices past the 50-60 MB L2 together.
#define DEFAULT_M 4096
#define DEFAULT_N 4096
#define DEFAULT_K 4096
// 20 timed launches give a stable median; 3 warm-up launches take module loading, cuBLAS's
// first-call set-up and first-touch effects out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42
// Up to 2^31 multiply-adds the CPU computes the whole reference (about a second); beyond that
// the result is checked against cuBLAS element by element and by a Freivalds product.
#define REF_MAX_MACS (1ull << 31)

static const char *const inputs[] = {"random", "int", NULL};

// How v13 and v15 hand out work, planned at their first launch: blocks 0 .. whole - 1 take
// whole tiles, the other `pieces` blocks each a piece of a tile (the list is on the device),
// with scratch space for partial sums (planes of C's rows from row0 on) and arrival counters.
typedef struct {
    bool made;
    unsigned whole, pieces;
    struct streamk_piece *piece;
    real *sums;
    size_t row0;
    unsigned *arrived;
} piece_plan;

// The problem every version sees: device matrices, host copies and what checking needs.
typedef struct matmul_problem {
    size_t m, n, k;
    const real *a, *b;          // A is m x k, B is k x n, row-major on the device
    size_t ldb;                 // elements from one row of B to the next: n (v17: maybe more)
    real *c;                    // C is m x n
    size_t ldc;                 // elements from one row of C to the next: n (v18: maybe more)
    real *host_a, *host_b, *host_c;
    bool exact;                 // integer inputs whose every partial sum is representable
    // Small problems: the whole reference, and per row the largest (|A| |B|)[i][j].
    double *want, *abs_row;
    // Large problems: cuBLAS's result, each row's bound sum_l |A[i][l]| * max |B|, and the
    // Freivalds vectors y = A (B x), y_abs = |A| (|B| |x|) for a random sign vector x.
    real *cublas_c;
    double *row_bound, *x, *y, *y_abs;
    cublasHandle_t handle;
    piece_plan streamk, splitk;  // v13's and v15's
    int dispatch;                // the version v16 chose (0: not yet)
    real *padded_b;              // v17's copy of B, rows of a multiple of VEC elements
    struct matmul_problem *v18_main;  // v18's first n - r columns, a problem of their own
    piece_plan strip;            // and the plan of its last r columns
    int picked;                  // the version v16 ran last (for the CSV's `picked` column)
    int cc;                      // the GPU's compute capability, 10 major + minor
    double *sink;                // where the peak kernel leaves its results (FP64 build)
    size_t peak_threads;         // threads in the peak kernel's grid
} matmul_problem;

// ---- the CPU reference ------------------------------------------------------------------------

// want = A B in double, and abs = |A| |B| (the scale that rounding errors are measured in).
// The i-l-j order walks B and want along rows, which the compiler vectorizes.
static void matmul_cpu(const real *a, const real *b, double *want, double *abs, size_t m,
                       size_t n, size_t k) {
    for (size_t i = 0; i < m; i++) {
        double *w = want + i * n, *s = abs + i * n;
        for (size_t j = 0; j < n; j++) w[j] = s[j] = 0.0;
        for (size_t l = 0; l < k; l++) {
            double x = a[i * k + l], ax = fabs(x);
            const real *brow = b + l * n;
            for (size_t j = 0; j < n; j++) {
                w[j] += x * (double)brow[j];
                s[j] += ax * fabs((double)brow[j]);
            }
        }
    }
}

// y = A (B x) and y_abs = |A| (|B| |x|) for a vector x of n entries: O(mk + kn) work, so it
// checks products far too large for the full reference (Freivalds' idea). pr (or NULL) hears
// of each row of B, then of A: k + m rows in all.
static void freivalds_cpu(const real *a, const real *b, const double *x, double *y,
                          double *y_abs, size_t m, size_t n, size_t k, progress *pr) {
    double *bx = (double *)host_alloc(size_mul(k, 2 * sizeof(double)), "B x");
    double *bx_abs = bx + k;
    for (size_t l = 0; l < k; l++) {
        double s = 0.0, sa = 0.0;
        for (size_t j = 0; j < n; j++) {
            s += (double)b[l * n + j] * x[j];
            sa += fabs((double)b[l * n + j] * x[j]);
        }
        bx[l] = s, bx_abs[l] = sa;
        progress_update(pr, (double)l);
    }
    for (size_t i = 0; i < m; i++) {
        double s = 0.0, sa = 0.0;
        for (size_t l = 0; l < k; l++) {
            s += (double)a[i * k + l] * bx[l];
            sa += fabs((double)a[i * k + l]) * bx_abs[l];
        }
        y[i] = s, y_abs[i] = sa;
        progress_update(pr, (double)(k + i));
    }
    free(bx);
}

// ---- the grid ---------------------------------------------------------------------------------

// Every version hands out tiles of C, one per block, numbered row by row in blockIdx.x (a 2D
// grid would cap the tiles down the rows at 65535).
struct tile_origin {
    size_t r0, c0;  // the tile's first row and column in C
};

__device__ tile_origin tile_at(size_t tile, size_t n, int tile_rows, int tile_cols) {
    size_t tiles_per_row = (n + tile_cols - 1) / tile_cols;
    tile_origin t;
    t.r0 = tile / tiles_per_row * tile_rows;
    t.c0 = tile % tiles_per_row * tile_cols;
    return t;
}

__device__ tile_origin block_tile(size_t n, int tile_rows, int tile_cols) {
    return tile_at(blockIdx.x, n, tile_rows, tile_cols);
}

static unsigned tiles(size_t m, size_t n, int tile_rows, int tile_cols) {
    return (unsigned)(ceil_div(m, tile_rows) * ceil_div(n, tile_cols));
}

// ---- baselines ----------------------------------------------------------------------------------

#define CHECK_CUBLAS(call) check_cublas((call), #call, __FILE__, __LINE__)

static void check_cublas(cublasStatus_t s, const char *call, const char *file, int line) {
    if (s == CUBLAS_STATUS_SUCCESS) return;
    fprintf(stderr, "cuBLAS error: %s at %s:%d: %s\n", call, file, line, cublasGetStatusString(s));
    exit(KL_EXIT_GPU);
}

// cuBLAS is column-major. A row-major m x n matrix is the same bytes as a column-major n x m
// one, its transpose, so we ask cuBLAS for C^T = B^T A^T: no copies, no transposes.
static void cublas_gemm(matmul_problem *p, cublasComputeType_t compute) {
    const real one = 1, zero = 0;
#ifdef MATMUL_FP64
    const cudaDataType_t t = CUDA_R_64F;
#else
    const cudaDataType_t t = CUDA_R_32F;
#endif
    CHECK_CUBLAS(cublasGemmEx(p->handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)p->n, (int)p->m,
                              (int)p->k, &one, p->b, t, (int)p->n, p->a, t, (int)p->k, &zero,
                              p->c, t, (int)p->n, compute, CUBLAS_GEMM_DEFAULT));
}

// cublas: every product and sum in the element type, no tensor cores. This is the target.
static void launch_cublas(void *problem) {
#ifdef MATMUL_FP64
    cublas_gemm((matmul_problem *)problem, CUBLAS_COMPUTE_64F);
#else
    cublas_gemm((matmul_problem *)problem, CUBLAS_COMPUTE_32F);
#endif
}

#ifndef MATMUL_FP64
// cublas-tf32: the tensor cores, with A and B rounded to 10 mantissa bits first. Much faster
// and much less precise: another arithmetic, so it is context and not a target.
static void launch_cublas_tf32(void *problem) {
    cublas_gemm((matmul_problem *)problem, CUBLAS_COMPUTE_32F_FAST_TF32);
}
#endif

#ifdef MATMUL_FP64
// peak: the FP64 ceiling of the CUDA cores, as chapter 02's peak row is for its own arithmetic.
// m n k FP64 FMAs out of registers, CHAINS independent ones a thread (one FMA waits on the last
// of its chain), on a grid that fills every SM: the time a perfect DGEMM on the CUDA cores would
// take, with no memory at all. Nothing is checked (KL_UNCHECKED): the sink only keeps the
// compiler from removing the work. Versions v0-v19 cannot beat it; v20 to v22 can, because
// they run on the tensor cores.
#define PEAK_THREADS 256
#define PEAK_CHAINS 8

__global__ void matmul_peak(double *__restrict__ sink, unsigned long long trips,
                            unsigned long long longer) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long my_trips = trips + (t < longer);  // the first `longer` threads do one more
    double x[PEAK_CHAINS];
#pragma unroll
    for (int c = 0; c < PEAK_CHAINS; c++) x[c] = (double)(t % 1024 + c);
#pragma unroll 16
    for (unsigned long long s = 0; s < my_trips; s++)
#pragma unroll
        for (int c = 0; c < PEAK_CHAINS; c++) x[c] = fma(x[c], 0.999999, 0.001);
    double sum = 0.0;
#pragma unroll
    for (int c = 0; c < PEAK_CHAINS; c++) sum += x[c];
    sink[t] = sum;
}

static void launch_peak(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    unsigned long long fmas = (unsigned long long)p->m * p->n * p->k;
    unsigned long long trips = ceil_div(fmas, PEAK_CHAINS);  // in all, CHAINS FMAs each
    matmul_peak<<<(unsigned)(p->peak_threads / PEAK_THREADS), PEAK_THREADS>>>(
        p->sink, trips / p->peak_threads, trips % p->peak_threads);
    CHECK_LAUNCH();
}
#endif

// ---- v0 naive -----------------------------------------------------------------------------------

// One thread per element of C, and threadIdx.x runs down the rows. At each step l the 32
// threads of a warp read A[r][l] for 32 rows, k floats apart: 32 sectors for 32 useful floats.
// They all read the same B[l][c] (one broadcast) and finally write C 32 rows apart.
#define NAIVE_X 32  // a warp
#define NAIVE_Y 8   // 256 threads a block

__global__ void matmul_v0_naive(const real *a, const real *b, real *c, size_t m, size_t n,
                                size_t k) {
    tile_origin t = block_tile(n, NAIVE_X, NAIVE_Y);  // NAIVE_X rows x NAIVE_Y columns of C
    size_t r = t.r0 + threadIdx.x;  // r in [0, m), fastest across the warp
    size_t col = t.c0 + threadIdx.y;
    if (r >= m || col >= n) return;
    real acc = 0;
    for (size_t l = 0; l < k; l++) acc += a[r * k + l] * b[l * n + col];
    c[r * n + col] = acc;
}

static void launch_v0(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    dim3 block(NAIVE_X, NAIVE_Y);
    matmul_v0_naive<<<tiles(p->m, p->n, NAIVE_X, NAIVE_Y), block>>>(p->a, p->b, p->c, p->m,
                                                                    p->n, p->k);
    CHECK_LAUNCH();
}

// ---- v1 coalesced -------------------------------------------------------------------------------

// The only change: threadIdx.x runs along the columns. A warp now shares its row r: A[r][l]
// is one broadcast, B[l][c .. c+31] is 128 contiguous bytes, and the write of C is too.
__global__ void matmul_v1_coalesced(const real *a, const real *b, real *c, size_t m, size_t n,
                                    size_t k) {
    tile_origin t = block_tile(n, NAIVE_Y, NAIVE_X);  // NAIVE_Y rows x NAIVE_X columns of C
    size_t r = t.r0 + threadIdx.y;
    size_t col = t.c0 + threadIdx.x;  // col in [0, n), fastest across the warp
    if (r >= m || col >= n) return;
    real acc = 0;
    for (size_t l = 0; l < k; l++) acc += a[r * k + l] * b[l * n + col];
    c[r * n + col] = acc;
}

static void launch_v1(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    dim3 block(NAIVE_X, NAIVE_Y);
    matmul_v1_coalesced<<<tiles(p->m, p->n, NAIVE_Y, NAIVE_X), block>>>(p->a, p->b, p->c, p->m,
                                                                       p->n, p->k);
    CHECK_LAUNCH();
}

// ---- v2 tiled -----------------------------------------------------------------------------------

// v1 loads every element of A n times and of B m times: most of those loads hit in L1, but
// each is a load instruction and a request to L1. Here a block of TILE x TILE threads first
// copies a TILE x TILE tile of A and one of B into shared memory, then each thread uses them
// TILE times: the global load requests the SMs send fall by a factor TILE. (DRAM traffic need
// not fall: it depends on what L2 keeps, and at 4096^3 v2 reads more from DRAM than v1; the
// README has the counts.) Tiles that overhang the matrix are padded with zeros, which add
// nothing to the sums (edges: padding).
#define TILE 32  // one warp across a tile row; 32 x 32 threads

// The tile element at (r, c) of a rows x cols matrix, or 0 outside it.
__device__ __forceinline__ real load_or_zero(const real *x, size_t r, size_t c, size_t rows,
                                             size_t cols) {
    return (r < rows && c < cols) ? x[r * cols + c] : (real)0;
}

__global__ void matmul_v2_tiled(const real *a, const real *b, real *c, size_t m, size_t n,
                                size_t k) {
    // EXERCISE: tiled begin
    __shared__ real as[TILE][TILE];  // as[row][kk]: TILE x TILE of A
    __shared__ real bs[TILE][TILE];  // bs[kk][col]: TILE x TILE of B
    tile_origin t = block_tile(n, TILE, TILE);
    int ty = threadIdx.y, tx = threadIdx.x;  // tx fastest across the warp
    size_t r = t.r0 + ty, col = t.c0 + tx;
    real acc = 0;
    for (size_t k0 = 0; k0 < k; k0 += TILE) {
        as[ty][tx] = load_or_zero(a, r, k0 + tx, m, k);   // a warp: 128 bytes of one row of A
        bs[ty][tx] = load_or_zero(b, k0 + ty, col, k, n); // a warp: 128 bytes of one row of B
        __syncthreads();  // both tiles are complete before anyone reads them
        // as[ty][kk] is one address for the warp (a broadcast); bs[kk][tx] is 32 banks.
#pragma unroll 1  // kept rolled on purpose: unrolling is v4's lesson
        for (int kk = 0; kk < TILE; kk++) acc += as[ty][kk] * bs[kk][tx];
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
    if (r < m && col < n) c[r * n + col] = acc;
    // EXERCISE: tiled end
}

static void launch_v2(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    dim3 block(TILE, TILE);
    matmul_v2_tiled<<<tiles(p->m, p->n, TILE, TILE), block>>>(p->a, p->b, p->c, p->m, p->n,
                                                              p->k);
    CHECK_LAUNCH();
}

// ---- v3 prefetch --------------------------------------------------------------------------------

// In v2 a warp waits for its global loads, then computes, then waits again: the memory and the
// FMA units take turns. Here the loads of the next tile are issued into registers before the
// current tile is used, so their latency hides behind 32 FMAs; after the barrier the registers
// go to shared memory.
__global__ void matmul_v3_prefetch(const real *a, const real *b, real *c, size_t m, size_t n,
                                   size_t k) {
    // EXERCISE: prefetch begin
    __shared__ real as[TILE][TILE];
    __shared__ real bs[TILE][TILE];
    tile_origin t = block_tile(n, TILE, TILE);
    int ty = threadIdx.y, tx = threadIdx.x;
    size_t r = t.r0 + ty, col = t.c0 + tx;
    real a_next = load_or_zero(a, r, tx, m, k), b_next = load_or_zero(b, ty, col, k, n);
    real acc = 0;
    for (size_t k0 = 0; k0 < k; k0 += TILE) {
        as[ty][tx] = a_next;
        bs[ty][tx] = b_next;
        __syncthreads();  // both tiles are complete before anyone reads them
        // The next tile's loads: in flight while we compute (zeros past the end of k).
        a_next = load_or_zero(a, r, k0 + TILE + tx, m, k);
        b_next = load_or_zero(b, k0 + TILE + ty, col, k, n);
#pragma unroll 1  // kept rolled on purpose: unrolling is v4's lesson
        for (int kk = 0; kk < TILE; kk++) acc += as[ty][kk] * bs[kk][tx];
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
    if (r < m && col < n) c[r * n + col] = acc;
    // EXERCISE: prefetch end
}

static void launch_v3(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    dim3 block(TILE, TILE);
    matmul_v3_prefetch<<<tiles(p->m, p->n, TILE, TILE), block>>>(p->a, p->b, p->c, p->m, p->n,
                                                                 p->k);
    CHECK_LAUNCH();
}

// ---- v4 unrolled --------------------------------------------------------------------------------

// The only change: the kk loop is unrolled. The rolled loop spends, per FMA, a loop counter,
// a compare, a branch and address arithmetic; unrolled, each shared load has a constant offset
// and four consecutive as[ty][kk] become one 16-byte load. The FMA share of the instructions
// rises (plots/evidence/sm_90/03-matmul-sass.csv counts the SASS of both kernels; the README
// quotes it).
__global__ void matmul_v4_unrolled(const real *a, const real *b, real *c, size_t m, size_t n,
                                   size_t k) {
    __shared__ real as[TILE][TILE];
    __shared__ real bs[TILE][TILE];
    tile_origin t = block_tile(n, TILE, TILE);
    int ty = threadIdx.y, tx = threadIdx.x;
    size_t r = t.r0 + ty, col = t.c0 + tx;
    real a_next = load_or_zero(a, r, tx, m, k), b_next = load_or_zero(b, ty, col, k, n);
    real acc = 0;
    for (size_t k0 = 0; k0 < k; k0 += TILE) {
        as[ty][tx] = a_next;
        bs[ty][tx] = b_next;
        __syncthreads();  // both tiles are complete before anyone reads them
        a_next = load_or_zero(a, r, k0 + TILE + tx, m, k);
        b_next = load_or_zero(b, k0 + TILE + ty, col, k, n);
#pragma unroll
        for (int kk = 0; kk < TILE; kk++) acc += as[ty][kk] * bs[kk][tx];
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
    if (r < m && col < n) c[r * n + col] = acc;
}

static void launch_v4(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    dim3 block(TILE, TILE);
    matmul_v4_unrolled<<<tiles(p->m, p->n, TILE, TILE), block>>>(p->a, p->b, p->c, p->m, p->n,
                                                                 p->k);
    CHECK_LAUNCH();
}

// ---- v5 granular --------------------------------------------------------------------------------

// Each thread now computes TM results down one column instead of one. Per kk it loads one B
// value and reuses it for TM FMAs, and the A values are broadcasts shared by the warp: as
// written, shared loads per FMA drop from 2 to 1 + 1/TM (the compiler merges A's loads into
// 16-byte ones, in v4 too: the SASS counts are in plots/evidence/sm_90/03-matmul-sass.csv).
// The tile changes with it, and that is a second change: 64 x 64 results, GRAN_BK deep, for
// 512 threads (v4: 32 x 32, 32 deep, 1024 threads), sized so that each thread still copies
// one element of A and one of B a tile. The larger tile halves the global loads per FMA. The
// cost: TM accumulators and a 64 x 64 tile take more registers and shared memory per block,
// so fewer blocks fit an SM.
#define GRAN_BM 64   // tile rows
#define GRAN_BN 64   // tile columns: two warps across
#define GRAN_BK 8    // tile depth: a 64 x 8 tile of A is one element per thread
#define TM 8         // results per thread, down a column
#define GRAN_THREADS (GRAN_BM * GRAN_BN / TM)  // 512
static_assert(GRAN_BM * GRAN_BK == GRAN_THREADS, "one element of the A tile per thread");
static_assert(GRAN_BK * GRAN_BN == GRAN_THREADS, "one element of the B tile per thread");

__global__ void __launch_bounds__(GRAN_THREADS, 1)
matmul_v5_granular(const real *a, const real *b, real *c, size_t m, size_t n, size_t k) {
    __shared__ real as[GRAN_BM][GRAN_BK];  // as[row][kk]
    __shared__ real bs[GRAN_BK][GRAN_BN];  // bs[kk][col]
    tile_origin t = block_tile(n, GRAN_BM, GRAN_BN);
    int tid = threadIdx.x;
    int col = tid % GRAN_BN, row0 = tid / GRAN_BN * TM;  // a warp: 32 columns, the same rows
    // Loading: a warp reads 4 rows x 32 bytes of A and 128 contiguous bytes of B.
    int a_r = tid / GRAN_BK, a_c = tid % GRAN_BK, b_r = tid / GRAN_BN, b_c = tid % GRAN_BN;
    real a_next = load_or_zero(a, t.r0 + a_r, a_c, m, k);
    real b_next = load_or_zero(b, b_r, t.c0 + b_c, k, n);
    real acc[TM] = {};
    for (size_t k0 = 0; k0 < k; k0 += GRAN_BK) {
        as[a_r][a_c] = a_next;
        bs[b_r][b_c] = b_next;
        __syncthreads();  // both tiles are complete before anyone reads them
        a_next = load_or_zero(a, t.r0 + a_r, k0 + GRAN_BK + a_c, m, k);
        b_next = load_or_zero(b, k0 + GRAN_BK + b_r, t.c0 + b_c, k, n);
#pragma unroll
        for (int kk = 0; kk < GRAN_BK; kk++) {
            real bv = bs[kk][col];  // one load, TM uses
#pragma unroll
            for (int i = 0; i < TM; i++) acc[i] += as[row0 + i][kk] * bv;
        }
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
    size_t cc = t.c0 + col;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        size_t r = t.r0 + row0 + i;
        if (r < m && cc < n) c[r * n + cc] = acc[i];
    }
}

static void launch_v5(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    matmul_v5_granular<<<tiles(p->m, p->n, GRAN_BM, GRAN_BN), GRAN_THREADS>>>(p->a, p->b, p->c,
                                                                             p->m, p->n, p->k);
    CHECK_LAUNCH();
}

// ---- v6 regblock --------------------------------------------------------------------------------

// Each thread computes a TM x TN block: per kk it loads TM values of A and TN of B into
// registers and does TM * TN FMAs with them, 64 FMAs for 16 loads. The 128 x 128 tile also
// halves the global traffic per FMA of v5's 64 x 64 one. The price is registers: 64
// accumulators plus the fragments and addresses, so few that an SM holds a single 256-thread
// block (make EXTRA_NVFLAGS="-Xptxas -v" prints the count).
#define BM 128  // tile rows
#define BN 128  // tile columns
#define BK 8    // tile depth
#ifdef MATMUL_FP64  // 8 x 8 doubles: 128 registers of results alone, half of the 255 a thread has
#define TN 4
#else
#define TN 8    // results per thread along a row (TM = 8 down a column, from v5)
#endif
#define RB_THREADS (BM / TM * BN / TN)  // 256
#define A_PER_THREAD (BM * BK / RB_THREADS)  // 4 elements of the A tile per thread
#define B_PER_THREAD (BK * BN / RB_THREADS)  // 4 elements of the B tile per thread
static_assert(BM * BK % RB_THREADS == 0 && BK * BN % RB_THREADS == 0, "tiles split evenly");
// kk steps unrolled. For doubles a full unroll lets the compiler hoist all 64 scalar A loads of
// the tile and run out of registers (spills); one step at a time fits.
#ifdef MATMUL_FP64
constexpr int rb_unroll = 1;
#else
constexpr int rb_unroll = BK;
#endif

__global__ void __launch_bounds__(RB_THREADS)
matmul_v6_regblock(const real *a, const real *b, real *c, size_t m, size_t n, size_t k) {
    // EXERCISE: regblock begin
    __shared__ real as[BM][BK];  // as[row][kk]
    __shared__ real bs[BK][BN];  // bs[kk][col]
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);  // the thread's block: rows ty*TM, cols tx*TN
    real a_next[A_PER_THREAD], b_next[B_PER_THREAD];
    // Element e = tid + i * RB_THREADS of each tile: a warp reads 4 rows x 32 bytes of A and
    // 128 contiguous bytes of one row of B.
#pragma unroll
    for (int i = 0; i < A_PER_THREAD; i++) {
        int e = tid + i * RB_THREADS;
        a_next[i] = load_or_zero(a, t.r0 + e / BK, e % BK, m, k);
    }
#pragma unroll
    for (int i = 0; i < B_PER_THREAD; i++) {
        int e = tid + i * RB_THREADS;
        b_next[i] = load_or_zero(b, e / BN, t.c0 + e % BN, k, n);
    }
    real acc[TM][TN] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int i = 0; i < A_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            as[e / BK][e % BK] = a_next[i];
        }
#pragma unroll
        for (int i = 0; i < B_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            bs[e / BN][e % BN] = b_next[i];
        }
        __syncthreads();  // both tiles are complete before anyone reads them
#pragma unroll
        for (int i = 0; i < A_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            a_next[i] = load_or_zero(a, t.r0 + e / BK, k0 + BK + e % BK, m, k);
        }
#pragma unroll
        for (int i = 0; i < B_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            b_next[i] = load_or_zero(b, k0 + BK + e / BN, t.c0 + e % BN, k, n);
        }
#pragma unroll rb_unroll
        for (int kk = 0; kk < BK; kk++) {
            real af[TM], bf[TN];  // the fragments: a column of A and a row of B, in registers
#pragma unroll
            for (int i = 0; i < TM; i++) af[i] = as[ty * TM + i][kk];
#pragma unroll
            for (int j = 0; j < TN; j++) bf[j] = bs[kk][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += af[i] * bf[j];
        }
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        size_t r = t.r0 + ty * TM + i;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            size_t cc = t.c0 + tx * TN + j;
            if (r < m && cc < n) c[r * n + cc] = acc[i][j];
        }
    }
    // EXERCISE: regblock end
}

static void launch_v6(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    matmul_v6_regblock<<<tiles(p->m, p->n, BM, BN), RB_THREADS>>>(p->a, p->b, p->c, p->m, p->n,
                                                                  p->k);
    CHECK_LAUNCH();
}

// ---- v6-noprefetch (what v6's prefetch costs and buys) ------------------------------------------

// v6 keeps v3's prefetch: the next tile's A_PER_THREAD + B_PER_THREAD values wait in registers
// (a_next, b_next) while the current tile is used. This row takes it out, so that its price in
// registers and its gain in time are measured apart: each tile is loaded straight into shared
// memory, and the threads wait for it before computing. Everything else is v6.
__global__ void __launch_bounds__(RB_THREADS)
matmul_v6_noprefetch(const real *a, const real *b, real *c, size_t m, size_t n, size_t k) {
    __shared__ real as[BM][BK];
    __shared__ real bs[BK][BN];
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);
    real acc[TM][TN] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int i = 0; i < A_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            as[e / BK][e % BK] = load_or_zero(a, t.r0 + e / BK, k0 + e % BK, m, k);
        }
#pragma unroll
        for (int i = 0; i < B_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            bs[e / BN][e % BN] = load_or_zero(b, k0 + e / BN, t.c0 + e % BN, k, n);
        }
        __syncthreads();  // the tile has arrived: every warp waited for its loads here
#pragma unroll rb_unroll
        for (int kk = 0; kk < BK; kk++) {
            real af[TM], bf[TN];
#pragma unroll
            for (int i = 0; i < TM; i++) af[i] = as[ty * TM + i][kk];
#pragma unroll
            for (int j = 0; j < TN; j++) bf[j] = bs[kk][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += af[i] * bf[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        size_t r = t.r0 + ty * TM + i;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            size_t cc = t.c0 + tx * TN + j;
            if (r < m && cc < n) c[r * n + cc] = acc[i][j];
        }
    }
}

static void launch_v6_noprefetch(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    matmul_v6_noprefetch<<<tiles(p->m, p->n, BM, BN), RB_THREADS>>>(p->a, p->b, p->c, p->m, p->n,
                                                                     p->k);
    CHECK_LAUNCH();
}

// ---- v7 vectorized ------------------------------------------------------------------------------

// Four changes to how data moves, none to the arithmetic:
//  - global loads of 16 bytes (LDG.128) through the read-only path (const __restrict__): a
//    quarter of the load instructions;
//  - A stored transposed, as[kk][row], so a thread's TM values of A for one k step are contiguous
//    and come in two 16-byte shared loads (LDS.128) like B's. (v6's compiler loads A 16 bytes at
//    a time too, but 4 k steps of one row at once, which keeps more values in registers);
//  - PAD columns of padding, so the transposed stores of a warp fall in 32 different banks;
//  - and we ask for two blocks per SM (__launch_bounds__), which the fewer registers allow.
// A 16-byte load needs rows that start on 16 bytes: k (for A) and n (for B and C) multiples of
// VEC. Other shapes take the template's element-by-element path, with the same tiles.
#ifdef MATMUL_FP64
#define RB_MIN_BLOCKS 1  // 512 threads of doubles: one block, up to 128 registers a thread
#else
#define RB_MIN_BLOCKS 2  // two blocks an SM: at most 128 registers a thread (v6 took 200)
#endif
#define PAD 4  // as rows BM + 4 long: row r of kk sits in bank (4 kk + r) % 32 (floats)
#define A_VECS (BM * BK / VEC / RB_THREADS)  // 16-byte vectors of the A tile per thread
#define B_VECS (BK * BN / VEC / RB_THREADS)  // and of the B tile
static_assert(BM * BK % (VEC * RB_THREADS) == 0 && BK * BN % (VEC * RB_THREADS) == 0,
              "tiles split evenly into vectors");
static_assert((BM + PAD) % VEC == 0, "padded rows keep 16-byte alignment for LDS.128");

// VEC elements of row r of a rows x cols matrix from column c (a multiple of VEC), zero where
// outside. ALIGNED: cols % VEC == 0, so the vector is wholly inside or wholly outside.
template <bool ALIGNED>
__device__ __forceinline__ vec load_vec(const real *__restrict__ x, size_t r, size_t c,
                                        size_t rows, size_t cols) {
    vec v;
    real *e = (real *)&v;
    if (ALIGNED) {
        if (r < rows && c < cols) return __ldg((const vec *)&x[r * cols + c]);
#pragma unroll
        for (int i = 0; i < VEC; i++) e[i] = 0;
    } else {
#pragma unroll
        for (int i = 0; i < VEC; i++)
            e[i] = (r < rows && c + i < cols) ? __ldg(&x[r * cols + c + i]) : (real)0;
    }
    return v;
}

// TM or TN contiguous elements of a shared-memory row into registers, 16 bytes at a time.
template <int COUNT>
__device__ __forceinline__ void load_frag(real *dst, const real *src) {
#pragma unroll
    for (int i = 0; i < COUNT / VEC; i++) *(vec *)&dst[i * VEC] = *(const vec *)&src[i * VEC];
}

// COUNT results from row r, column cc on: 16-byte stores where the rows allow it, guarded.
// C is m x n with its rows ld elements apart (ld = n, except where v18 writes part of C).
template <bool ALIGNED, int COUNT>
__device__ __forceinline__ void store_row(real *c, const real *val, size_t r, size_t cc,
                                          size_t m, size_t n, size_t ld) {
    if (r >= m) return;
#pragma unroll
    for (int j = 0; j < COUNT; j += VEC) {
        if (ALIGNED) {
            if (cc + j < n) *(vec *)&c[r * ld + cc + j] = *(const vec *)&val[j];
        } else {
#pragma unroll
            for (int e = 0; e < VEC; e++)
                if (cc + j + e < n) c[r * ld + cc + j + e] = val[j + e];
        }
    }
}

template <bool ALIGNED, int COUNT>
__device__ __forceinline__ void store_row(real *c, const real *val, size_t r, size_t cc,
                                          size_t m, size_t n) {
    store_row<ALIGNED, COUNT>(c, val, r, cc, m, n, n);
}

// COUNT values from row r, column cc on, the reverse of store_row: .cg loads (from L2, not
// from a line an earlier load left in L1), zeros outside the matrix. Used by v13.
template <bool ALIGNED, int COUNT>
__device__ __forceinline__ void load_row(real *val, const real *c, size_t r, size_t cc, size_t m,
                                         size_t n) {
#pragma unroll
    for (int j = 0; j < COUNT; j += VEC) {
        if (ALIGNED) {
            vec v = {};
            if (r < m && cc + j < n) v = __ldcg((const vec *)&c[r * n + cc + j]);
            *(vec *)&val[j] = v;
        } else {
#pragma unroll
            for (int e = 0; e < VEC; e++)
                val[j + e] = r < m && cc + j + e < n ? __ldcg(&c[r * n + cc + j + e]) : (real)0;
        }
    }
}

template <bool VA, bool VB>
__global__ void __launch_bounds__(RB_THREADS, RB_MIN_BLOCKS)
matmul_v7_vectorized(const real *__restrict__ a, const real *__restrict__ b,
                     real *__restrict__ c, size_t m, size_t n, size_t k) {
    __shared__ __align__(16) real as[BK][BM + PAD];  // as[kk][row]: A transposed, padded
    __shared__ __align__(16) real bs[BK][BN];        // bs[kk][col]
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);
    // Vector e = tid + i * RB_THREADS: A (row e / (BK/VEC), columns VEC * (e % (BK/VEC)) ..):
    // a warp reads 16 rows x 32 bytes; B: a warp reads 512 contiguous bytes of a row.
    vec a_next[A_VECS], b_next[B_VECS];
#pragma unroll
    for (int i = 0; i < A_VECS; i++) {
        int e = tid + i * RB_THREADS;
        a_next[i] = load_vec<VA>(a, t.r0 + e / (BK / VEC), e % (BK / VEC) * VEC, m, k);
    }
#pragma unroll
    for (int i = 0; i < B_VECS; i++) {
        int e = tid + i * RB_THREADS;
        b_next[i] = load_vec<VB>(b, e / (BN / VEC), t.c0 + e % (BN / VEC) * VEC, k, n);
    }
    real acc[TM][TN] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int i = 0; i < A_VECS; i++) {  // transpose on the way in: 4-byte stores
            int e = tid + i * RB_THREADS, row = e / (BK / VEC), kk = e % (BK / VEC) * VEC;
            const real *v = (const real *)&a_next[i];
#pragma unroll
            for (int j = 0; j < VEC; j++) as[kk + j][row] = v[j];
        }
#pragma unroll
        for (int i = 0; i < B_VECS; i++) {
            int e = tid + i * RB_THREADS;
            *(vec *)&bs[e / (BN / VEC)][e % (BN / VEC) * VEC] = b_next[i];
        }
        __syncthreads();  // both tiles are complete before anyone reads them
#pragma unroll
        for (int i = 0; i < A_VECS; i++) {
            int e = tid + i * RB_THREADS;
            a_next[i] = load_vec<VA>(a, t.r0 + e / (BK / VEC), k0 + BK + e % (BK / VEC) * VEC,
                                     m, k);
        }
#pragma unroll
        for (int i = 0; i < B_VECS; i++) {
            int e = tid + i * RB_THREADS;
            b_next[i] = load_vec<VB>(b, k0 + BK + e / (BN / VEC), t.c0 + e % (BN / VEC) * VEC,
                                     k, n);
        }
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            real af[TM], bf[TN];
            load_frag<TM>(af, &as[kk][ty * TM]);
            load_frag<TN>(bf, &bs[kk][tx * TN]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += af[i] * bf[j];
        }
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
        store_row<VB, TN>(c, acc[i], t.r0 + ty * TM + i, t.c0 + tx * TN, m, n);
}

// The rows of A are 16-byte aligned when k % VEC == 0, those of B and C when n % VEC == 0.
#define ALIGNED_LAUNCH(kernel, grid, block, smem, p)                                        \
    do {                                                                                  \
        bool va = (p)->k % VEC == 0, vb = (p)->n % VEC == 0;                              \
        if (va && vb) kernel<true, true><<<grid, block, smem>>>((p)->a, (p)->b, (p)->c,   \
                                                                (p)->m, (p)->n, (p)->k);  \
        else if (va) kernel<true, false><<<grid, block, smem>>>((p)->a, (p)->b, (p)->c,   \
                                                                (p)->m, (p)->n, (p)->k);  \
        else if (vb) kernel<false, true><<<grid, block, smem>>>((p)->a, (p)->b, (p)->c,   \
                                                                (p)->m, (p)->n, (p)->k);  \
        else kernel<false, false><<<grid, block, smem>>>((p)->a, (p)->b, (p)->c, (p)->m,  \
                                                         (p)->n, (p)->k);                 \
        CHECK_LAUNCH();                                                                   \
    } while (0)

static void launch_v7(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    ALIGNED_LAUNCH(matmul_v7_vectorized, tiles(p->m, p->n, BM, BN), RB_THREADS, 0, p);
}

// ---- v7-ldg to v7-padded: v7's changes one at a time --------------------------------------------

// v7 bundles four changes, and the step from v6 to v7 measures them together. These rows make
// them one at a time, each on top of the one before, so that the README's table shows what each
// is worth on its own:
//   v7-ldg         v6 with every global load through the read-only path (__ldg)
//   v7-wide        + 16-byte global loads and stores: LDG.128 and STG.128
//   v7-transposed  + A stored transposed, as[kk][row]: a thread's TM values of A come in
//                  16-byte shared loads, one k step at a time
//   v7-padded      + PAD columns of padding on the transposed tile
// and v7 is v7-padded with two blocks an SM (__launch_bounds__): the fifth change. The kernel is
// v6's, with STEP switching the changes on in that order.
template <int STEP>
struct v7_step {
    static constexpr bool wide = STEP >= 2, transposed = STEP >= 3, padded = STEP >= 4;
    static constexpr int a_rows = transposed ? BK : BM;  // as[kk][row], or v6's as[row][kk]
    static constexpr int a_cols = transposed ? BM + (padded ? PAD : 0) : BK;
    static constexpr int unroll = transposed ? BK : rb_unroll;  // kk steps unrolled, as v6 or v7
};

// v6's load_or_zero through the read-only path: LDG.E.CONSTANT instead of LDG.E.
__device__ __forceinline__ real ldg_or_zero(const real *__restrict__ x, size_t r, size_t c,
                                            size_t rows, size_t cols) {
    return (r < rows && c < cols) ? __ldg(&x[r * cols + c]) : (real)0;
}

// The A and B elements of the tile at k0 that this thread copies, into registers: v6's pattern
// one element at a time, or (wide) v7's in 16-byte vectors.
template <class S, bool VA, bool VB>
__device__ __forceinline__ void v7_step_load(real *a_next, real *b_next, const real *__restrict__ a,
                                             const real *__restrict__ b, tile_origin t, size_t k0,
                                             size_t m, size_t n, size_t k) {
    int tid = threadIdx.x;
    if constexpr (S::wide) {
#pragma unroll
        for (int i = 0; i < A_VECS; i++) {
            int e = tid + i * RB_THREADS;
            *(vec *)&a_next[i * VEC] =
                load_vec<VA>(a, t.r0 + e / (BK / VEC), k0 + e % (BK / VEC) * VEC, m, k);
        }
#pragma unroll
        for (int i = 0; i < B_VECS; i++) {
            int e = tid + i * RB_THREADS;
            *(vec *)&b_next[i * VEC] =
                load_vec<VB>(b, k0 + e / (BN / VEC), t.c0 + e % (BN / VEC) * VEC, k, n);
        }
    } else {
#pragma unroll
        for (int i = 0; i < A_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            a_next[i] = ldg_or_zero(a, t.r0 + e / BK, k0 + e % BK, m, k);
        }
#pragma unroll
        for (int i = 0; i < B_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            b_next[i] = ldg_or_zero(b, k0 + e / BN, t.c0 + e % BN, k, n);
        }
    }
}

template <int STEP, bool VA, bool VB>
__global__ void __launch_bounds__(RB_THREADS, 1)
matmul_v7_steps(const real *__restrict__ a, const real *__restrict__ b, real *__restrict__ c,
                size_t m, size_t n, size_t k) {
    typedef v7_step<STEP> S;
    __shared__ __align__(16) real as[S::a_rows][S::a_cols];
    __shared__ __align__(16) real bs[BK][BN];
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);
    // v6's element e = tid + i * RB_THREADS, or v7's vector e (four elements from element
    // VEC e): either way a_next holds A_PER_THREAD elements and b_next B_PER_THREAD.
    real a_next[A_PER_THREAD], b_next[B_PER_THREAD];
    v7_step_load<S, VA, VB>(a_next, b_next, a, b, t, 0, m, n, k);
    real acc[TM][TN] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int i = 0; i < A_PER_THREAD; i++) {
            int e = S::wide ? (tid + i / VEC * RB_THREADS) * VEC + i % VEC : tid + i * RB_THREADS;
            int row = e / BK, kk = e % BK;  // element i's place in the tile, v6's order or v7's
            if constexpr (S::transposed) as[kk][row] = a_next[i];  // 4-byte stores, transposing
            else if constexpr (S::wide) {
                if (i % VEC == 0) *(vec *)&as[row][kk] = *(const vec *)&a_next[i];
            } else as[row][kk] = a_next[i];
        }
#pragma unroll
        for (int i = 0; i < B_PER_THREAD; i++) {
            int e = S::wide ? (tid + i / VEC * RB_THREADS) * VEC + i % VEC : tid + i * RB_THREADS;
            if constexpr (S::wide) {
                if (i % VEC == 0) *(vec *)&bs[e / BN][e % BN] = *(const vec *)&b_next[i];
            } else bs[e / BN][e % BN] = b_next[i];
        }
        __syncthreads();  // both tiles are complete before anyone reads them
        v7_step_load<S, VA, VB>(a_next, b_next, a, b, t, k0 + BK, m, n, k);
#pragma unroll(S::unroll)
        for (int kk = 0; kk < BK; kk++) {
            real af[TM], bf[TN];
            if constexpr (S::transposed) {
                load_frag<TM>(af, &as[kk][ty * TM]);
            } else {
#pragma unroll
                for (int i = 0; i < TM; i++) af[i] = as[ty * TM + i][kk];
            }
#pragma unroll
            for (int j = 0; j < TN; j++) bf[j] = bs[kk][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += af[i] * bf[j];
        }
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        size_t r = t.r0 + ty * TM + i;
        if constexpr (S::wide) {
            store_row<VB, TN>(c, acc[i], r, t.c0 + tx * TN, m, n);
        } else {
#pragma unroll
            for (int j = 0; j < TN; j++) {
                size_t cc = t.c0 + tx * TN + j;
                if (r < m && cc < n) c[r * n + cc] = acc[i][j];
            }
        }
    }
}

template <int STEP>
static void launch_v7_step(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    auto go = [&](auto kernel) {
        kernel<<<tiles(p->m, p->n, BM, BN), RB_THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    };
    bool va = p->k % VEC == 0, vb = p->n % VEC == 0;  // as ALIGNED_LAUNCH decides for v7
    if (va && vb) go(matmul_v7_steps<STEP, true, true>);
    else if (va) go(matmul_v7_steps<STEP, true, false>);
    else if (vb) go(matmul_v7_steps<STEP, false, true>);
    else go(matmul_v7_steps<STEP, false, false>);
    CHECK_LAUNCH();
}
static void launch_v7_ldg(void *problem) { launch_v7_step<1>(problem); }
static void launch_v7_wide(void *problem) { launch_v7_step<2>(problem); }
static void launch_v7_transposed(void *problem) { launch_v7_step<3>(problem); }
static void launch_v7_padded(void *problem) { launch_v7_step<4>(problem); }

// ---- v1-maxshared and v7-maxl1: the carveout, an experiment -------------------------------------

// On Hopper an SM's L1 cache and its shared memory are one 256 KiB memory, split between the two
// when a kernel starts: the carveout. The driver picks the split from what the kernel needs (its
// shared memory a block, times the blocks that fit an SM), and a kernel may state a preference,
// as a percentage of the largest shared memory an SM offers (228 KiB on Hopper), with the
// function attribute cudaFuncAttributePreferredSharedMemoryCarveout. (cudaFuncSetCacheConfig's
// PreferL1 and PreferShared are the older form of the same hint. A launch attribute of the same
// name exists too; the H200's driver ignored it when we measured, and honoured this one.) Two
// rows ask for the extremes, and change nothing else:
//   v1-maxshared  v1, which has no shared memory and finds its reused rows of B in L1, asks for
//                 all the shared memory (100): L1 keeps what is left
//   v7-maxl1      v7, two blocks of 8 KiB an SM, asks for the largest L1 (0)
// Each sets the preference for its own launch and puts the default back after it, so v1 and v7
// themselves run as the driver chooses. Nsight Compute's launch__shared_mem_config_size shows
// the split the driver chose (ncu.args). In the FP32 build only.
#ifndef MATMUL_FP64
template <typename... Params, typename... Args>
static void launch_carveout(void (*kernel)(Params...), dim3 grid, dim3 block, int percent,
                            Args... args) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
    kernel<<<grid, block>>>(args...);
    CHECK_LAUNCH();
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutDefault));
}

static void launch_v1_maxshared(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    launch_carveout(matmul_v1_coalesced, tiles(p->m, p->n, NAIVE_Y, NAIVE_X),
                    dim3(NAIVE_X, NAIVE_Y), cudaSharedmemCarveoutMaxShared, p->a, p->b, p->c,
                    p->m, p->n, p->k);
}

static void launch_v7_maxl1(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    dim3 grid(tiles(p->m, p->n, BM, BN)), block(RB_THREADS);
    auto go = [&](auto kernel) {
        launch_carveout(kernel, grid, block, cudaSharedmemCarveoutMaxL1, p->a, p->b, p->c, p->m,
                        p->n, p->k);
    };
    bool va = p->k % VEC == 0, vb = p->n % VEC == 0;  // as ALIGNED_LAUNCH decides for v7
    if (va && vb) go(matmul_v7_vectorized<true, true>);
    else if (va) go(matmul_v7_vectorized<true, false>);
    else if (vb) go(matmul_v7_vectorized<false, true>);
    else go(matmul_v7_vectorized<false, false>);
}
#endif

// ---- v8 warptiled -------------------------------------------------------------------------------

// In v7 the 16 threads of a half-warp read B at tx * 8: 32 bytes apart, so two of them share
// each bank and every LDS.128 takes two passes. Here a warp owns a WM x WN patch of the tile,
// its lanes form an 8 x 4 grid, and each thread's 8 x 8 block is four 4 x 4 pieces, 32 rows
// and 16 columns apart. The 16-byte loads of a warp then touch 8 distinct pieces of A (128
// bytes) and 4 of B (64 bytes), one pass each. The warp's patch is also a compact block, so
// the rows and columns it reads are shared by more of its own lanes.
#define LANES_M 8   // lanes down the patch
#define LANES_N 4   // lanes across it
#define WM (LANES_M * TM)  // warp patch rows: 8 lanes x 8 rows, 64
#define WN (LANES_N * TN)  // warp patch columns: 4 lanes x 8 columns, 32 (16 for doubles)
#define PIECE 4     // a thread's piece is PIECE x PIECE results
static_assert(LANES_M * LANES_N == 32, "a warp");
static_assert((BM / WM) * (BN / WN) * 32 == RB_THREADS, "the warps cover the tile");
static_assert(WM == LANES_M * TM && WN == LANES_N * TN, "the lanes cover the patch");

template <bool VA, bool VB>
__global__ void __launch_bounds__(RB_THREADS, RB_MIN_BLOCKS)
matmul_v8_warptiled(const real *__restrict__ a, const real *__restrict__ b,
                    real *__restrict__ c, size_t m, size_t n, size_t k) {
    __shared__ __align__(16) real as[BK][BM + PAD];
    __shared__ __align__(16) real bs[BK][BN];
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    // The thread's first row and column in the tile; its pieces follow 32 rows and 16 columns on.
    int row0 = warp / (BN / WN) * WM + lane / LANES_N * PIECE;
    int col0 = warp % (BN / WN) * WN + lane % LANES_N * PIECE;
    vec a_next[A_VECS], b_next[B_VECS];
#pragma unroll
    for (int i = 0; i < A_VECS; i++) {
        int e = tid + i * RB_THREADS;
        a_next[i] = load_vec<VA>(a, t.r0 + e / (BK / VEC), e % (BK / VEC) * VEC, m, k);
    }
#pragma unroll
    for (int i = 0; i < B_VECS; i++) {
        int e = tid + i * RB_THREADS;
        b_next[i] = load_vec<VB>(b, e / (BN / VEC), t.c0 + e % (BN / VEC) * VEC, k, n);
    }
    real acc[TM][TN] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int i = 0; i < A_VECS; i++) {
            int e = tid + i * RB_THREADS, row = e / (BK / VEC), kk = e % (BK / VEC) * VEC;
            const real *v = (const real *)&a_next[i];
#pragma unroll
            for (int j = 0; j < VEC; j++) as[kk + j][row] = v[j];
        }
#pragma unroll
        for (int i = 0; i < B_VECS; i++) {
            int e = tid + i * RB_THREADS;
            *(vec *)&bs[e / (BN / VEC)][e % (BN / VEC) * VEC] = b_next[i];
        }
        __syncthreads();  // both tiles are complete before anyone reads them
#pragma unroll
        for (int i = 0; i < A_VECS; i++) {
            int e = tid + i * RB_THREADS;
            a_next[i] = load_vec<VA>(a, t.r0 + e / (BK / VEC), k0 + BK + e % (BK / VEC) * VEC,
                                     m, k);
        }
#pragma unroll
        for (int i = 0; i < B_VECS; i++) {
            int e = tid + i * RB_THREADS;
            b_next[i] = load_vec<VB>(b, k0 + BK + e / (BN / VEC), t.c0 + e % (BN / VEC) * VEC,
                                     k, n);
        }
#pragma unroll rb_unroll
        for (int kk = 0; kk < BK; kk++) {
            real af[TM], bf[TN];
#pragma unroll
            for (int p = 0; p < TM / PIECE; p++)
                load_frag<PIECE>(&af[p * PIECE], &as[kk][row0 + p * LANES_M * PIECE]);
#pragma unroll
            for (int p = 0; p < TN / PIECE; p++)
                load_frag<PIECE>(&bf[p * PIECE], &bs[kk][col0 + p * LANES_N * PIECE]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += af[i] * bf[j];
        }
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        size_t r = t.r0 + row0 + i / PIECE * (LANES_M * PIECE) + i % PIECE;
#pragma unroll
        for (int p = 0; p < TN / PIECE; p++)
            store_row<VB, PIECE>(c, &acc[i][p * PIECE], r, t.c0 + col0 + p * (LANES_N * PIECE), m, n);
    }
}

static void launch_v8(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    ALIGNED_LAUNCH(matmul_v8_warptiled, tiles(p->m, p->n, BM, BN), RB_THREADS, 0, p);
}

// ---- v9 async -----------------------------------------------------------------------------------

// v8 stages every tile through registers (load, wait, store to shared memory) and needs two
// barriers a tile. Here cp.async (sm_80 and later) copies global memory straight into shared
// memory without registers, into a ring of STAGES buffers: while we compute tile t, the copies
// of tiles t + 1 .. t + STAGES - 1 are in flight, and one barrier a tile is enough. A is
// copied 4 bytes at a time, so it can land transposed; B 16 bytes at a time where n allows.
// Out-of-range elements are zero-filled by the copy itself (edges: padding). The tile sizes
// are template parameters, so v10 can choose others.

// One asynchronous copy of BYTES (4, 8 or 16) into shared memory, or zeros when !inside.
template <int BYTES>
__device__ __forceinline__ void copy_async(void *smem, const void *gmem, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    // no cp.async before Ampere: an ordinary copy through registers does the same job
    if (BYTES == 16) *(vec *)smem = inside ? *(const vec *)gmem : vec{};
    else *(real *)smem = inside ? *(const real *)gmem : (real)0;
#else
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    int src_bytes = inside ? BYTES : 0;  // 0: read nothing, fill BYTES zeros
    if (BYTES == 16)  // .cg: straight to shared memory, not kept in L1
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem),
                     "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(gmem),
                     "n"(BYTES), "r"(src_bytes));
#endif
}

__device__ __forceinline__ void copy_commit() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void copy_wait() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}

// A tile shape: BM_ x BN_ results a block, BK_ deep, warps of WM_ x WN_, STAGES_ buffers,
// and MIN_BLOCKS_ blocks that must fit an SM at once (it caps the registers per thread).
// SERPENTINE_ is v11's order of the FMAs (false before v11).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MIN_BLOCKS_,
          bool SERPENTINE_ = false>
struct shape {
    static constexpr int bm = BM_, bn = BN_, bk = BK_, wm = WM_, wn = WN_, stages = STAGES_;
    static constexpr int min_blocks = MIN_BLOCKS_;
    static constexpr bool serpentine = SERPENTINE_;
    static constexpr int threads = (BM_ / WM_) * (BN_ / WN_) * 32;
    static constexpr int tm = WM_ / LANES_M, tn = WN_ / LANES_N;  // results per thread
    static constexpr int a_stride = BM_ + PAD;                      // as[kk][row], padded
    static constexpr int stage_elems = BK_ * a_stride + BK_ * BN_;  // one A and one B tile
    static constexpr size_t smem = (size_t)STAGES_ * stage_elems * sizeof(real);
    static_assert(BM_ % WM_ == 0 && BN_ % WN_ == 0, "warps tile the block");
    static_assert(tm % PIECE == 0 && tn % PIECE == 0, "whole 4 x 4 pieces per thread");
    static_assert(BM_ * BK_ % threads == 0, "A tile elements split evenly");
    static_assert(BK_ * BN_ % (VEC * threads) == 0, "B tile vectors split evenly");
    static_assert(STAGES_ >= 2, "a ring needs two buffers at least");
    static_assert(threads % BK_ == 0 && threads % (BN_ / VEC) == 0 && threads % BN_ == 0,
                  "a thread's copies are whole rows apart");
};

// Issues the copies of the tile starting at k0 into one stage of the ring. B's rows are ldb
// elements apart (n, except in v17); VB: they start on 16 bytes (ldb a multiple of VEC).
template <class S, bool VB>
__device__ __forceinline__ void copy_tile(real *stage, const real *__restrict__ a,
                                          const real *__restrict__ b, tile_origin t, size_t k0,
                                          size_t m, size_t n, size_t k, size_t ldb) {
    real *as = stage, *bs = stage + S::bk * S::a_stride;
    int tid = threadIdx.x;
    if (t.r0 + S::bm <= m && t.c0 + S::bn <= n && k0 + S::bk <= k) {
        // The whole tile lies inside A and B, as almost every tile does: no guards, and the
        // copies of a thread are a constant number of rows apart. Same elements as below.
        const real *pa = a + (t.r0 + tid / S::bk) * k + k0 + tid % S::bk;
        real *sa = &as[tid % S::bk * S::a_stride + tid / S::bk];
#pragma unroll
        for (int i = 0; i < S::bm * S::bk / S::threads; i++)
            copy_async<sizeof(real)>(sa + i * (S::threads / S::bk),
                                     pa + (size_t)i * (S::threads / S::bk) * k, true);
        if (VB) {
            const real *pb = b + (k0 + tid / (S::bn / VEC)) * ldb + t.c0 + tid % (S::bn / VEC) * VEC;
            real *sb = &bs[tid / (S::bn / VEC) * S::bn + tid % (S::bn / VEC) * VEC];
#pragma unroll
            for (int i = 0; i < S::bk * S::bn / VEC / S::threads; i++)
                copy_async<16>(sb + i * (S::threads / (S::bn / VEC)) * S::bn,
                               pb + (size_t)i * (S::threads / (S::bn / VEC)) * ldb, true);
        } else {
            // Rows of B that do not start on 16 bytes: one element a copy, and the 32 copies
            // of a warp side by side, so that they read 128 contiguous bytes and write 32
            // banks. (Four elements a thread, as in the 16-byte copies, would put a warp's
            // copies 4 elements apart: a quarter of each sector used, and 4-way conflicts.)
            const real *pb = b + (k0 + tid / S::bn) * ldb + t.c0 + tid % S::bn;
#pragma unroll 4  // wholly unrolled, v14's pieces kernel runs out of registers on sm_80
            for (int i = 0; i < S::bk * S::bn / S::threads; i++)
                copy_async<sizeof(real)>(&bs[tid + i * S::threads],
                                         pb + (size_t)i * (S::threads / S::bn) * ldb, true);
        }
        return;
    }
    // A: element e is row e / bk, column e % bk; a warp copies 32 / bk rows x bk floats and
    // stores them down the columns of as, in distinct banks thanks to PAD.
#pragma unroll
    for (int i = 0; i < S::bm * S::bk / S::threads; i++) {
        int e = tid + i * S::threads, row = e / S::bk, kk = e % S::bk;
        size_t r = t.r0 + row, col = k0 + kk;
        bool inside = r < m && col < k;
        copy_async<sizeof(real)>(&as[kk * S::a_stride + row], inside ? &a[r * k + col] : a,
                                 inside);
    }
    // B: vector e is row e / (bn / VEC), columns VEC * (e % (bn / VEC)) ..: contiguous rows.
#pragma unroll
    for (int i = 0; i < S::bk * S::bn / VEC / S::threads; i++) {
        int e = tid + i * S::threads, row = e / (S::bn / VEC), cv = e % (S::bn / VEC) * VEC;
        size_t r = k0 + row, col = t.c0 + cv;
        if (VB) {
            bool inside = r < k && col < n;
            copy_async<16>(&bs[row * S::bn + cv], inside ? &b[r * ldb + col] : b, inside);
        } else {
#pragma unroll
            for (int j = 0; j < VEC; j++) {
                bool inside = r < k && col + j < n;
                copy_async<sizeof(real)>(&bs[row * S::bn + cv + j],
                                         inside ? &b[r * ldb + col + j] : b, inside);
            }
        }
    }
}

template <class S, bool VB, bool VC>
__global__ void __launch_bounds__(S::threads, S::min_blocks)
matmul_v9_async(const real *__restrict__ a, const real *__restrict__ b, real *__restrict__ c,
                size_t m, size_t n, size_t k, size_t ldb, size_t ldc) {
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    real *ring = (real *)smem_bytes;  // STAGES x (A tile bk x (bm + PAD), B tile bk x bn)
    tile_origin t = block_tile(n, S::bm, S::bn);
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int row0 = warp / (S::bn / S::wn) * S::wm + lane / LANES_N * PIECE;
    int col0 = warp % (S::bn / S::wn) * S::wn + lane % LANES_N * PIECE;
    size_t k_tiles = (k + S::bk - 1) / S::bk;
    // Fill all stages but one; a group is committed even when empty, so counts stay uniform.
#pragma unroll
    for (int s = 0; s < S::stages - 1; s++) {
        if ((size_t)s < k_tiles)
            copy_tile<S, VB>(ring + s * S::stage_elems, a, b, t, (size_t)s * S::bk, m, n, k, ldb);
        copy_commit();
    }
    real acc[S::tm][S::tn] = {};
    for (size_t kt = 0; kt < k_tiles; kt++) {
        copy_wait<S::stages - 2>();  // this thread's copies of tile kt have landed
        __syncthreads();  // everyone's have, and everyone is done computing tile kt - 1
        size_t next = kt + S::stages - 1;  // refills the buffer that tile kt - 1 used
        if (next < k_tiles)
            copy_tile<S, VB>(ring + next % S::stages * S::stage_elems, a, b, t, next * S::bk,
                             m, n, k, ldb);
        copy_commit();
        const real *as = ring + kt % S::stages * S::stage_elems;
        const real *bs = as + S::bk * S::a_stride;
#pragma unroll
        for (int kk = 0; kk < S::bk; kk++) {
            real af[S::tm], bf[S::tn];
#pragma unroll
            for (int p = 0; p < S::tm / PIECE; p++)
                load_frag<PIECE>(&af[p * PIECE], &as[kk * S::a_stride + row0 + p * LANES_M * PIECE]);
#pragma unroll
            for (int p = 0; p < S::tn / PIECE; p++)
                load_frag<PIECE>(&bf[p * PIECE], &bs[kk * S::bn + col0 + p * LANES_N * PIECE]);
#pragma unroll
            for (int i = 0; i < S::tm; i++)
#pragma unroll
                for (int jj = 0; jj < S::tn; jj++) {
                    int j = S::serpentine && i % 2 ? S::tn - 1 - jj : jj;  // v11: odd rows backwards
                    acc[i][j] += af[i] * bf[j];
                }
        }
    }
#pragma unroll
    for (int i = 0; i < S::tm; i++) {
        size_t r = t.r0 + row0 + i / PIECE * (LANES_M * PIECE) + i % PIECE;
#pragma unroll
        for (int p = 0; p < S::tn / PIECE; p++)
            store_row<VC, PIECE>(c, &acc[i][p * PIECE], r, t.c0 + col0 + p * (LANES_N * PIECE),
                                 m, n, ldc);
    }
}

template <class S, bool VB, bool VC>
static void launch_async_kernel(const matmul_problem *p) {
    static bool ready = false;  // shared memory beyond 48 KiB must be asked for, once
    if (!ready) {
        CHECK(cudaFuncSetAttribute(matmul_v9_async<S, VB, VC>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::smem));
        ready = true;
    }
    matmul_v9_async<S, VB, VC><<<tiles(p->m, p->n, S::bm, S::bn), S::threads, S::smem>>>(
        p->a, p->b, p->c, p->m, p->n, p->k, p->ldb, p->ldc);
}

// Launches the async kernel for tile shape S, with the 16-byte paths where the rows of B (VB)
// and of C (VC) start on 16 bytes: both when n is a multiple of VEC, B's alone under v17.
template <class S>
static void launch_async(matmul_problem *p) {
    if (p->ldb % VEC == 0 && p->ldc % VEC == 0) launch_async_kernel<S, true, true>(p);
    else if (p->ldb % VEC == 0) launch_async_kernel<S, true, false>(p);
    else launch_async_kernel<S, false, false>(p);
    CHECK_LAUNCH();
}

// v8's tile (128 x 128 x 8, warps of 64 x 32, two blocks an SM), now in a ring of 3 stages.
#define STAGES 3  // two tiles in flight while one is used; 25 KiB of shared memory (floats)
#ifdef MATMUL_FP64  // 512 threads would cap a thread at 128 registers: half the tile instead
typedef shape<BM / 2, BN, BK, WM, WN, STAGES, 1> async_shape;
#else
typedef shape<BM, BN, BK, WM, WN, STAGES, RB_MIN_BLOCKS> async_shape;
#endif

static void launch_v9(void *problem) { launch_async<async_shape>((matmul_problem *)problem); }

// ---- v10 tuned ----------------------------------------------------------------------------------

// The same kernel, the tile chosen for this GPU by measurement: 128 x 256 results a block,
// 16 deep, a ring of 4 stages (97 KiB of shared memory), warps of 64 x 64 so that each
// thread computes 8 x 16 results. Per kk a thread now does 128 FMAs for 6 shared loads
// (v9: 64 for 4), and each copied element serves more FMAs. It needs about 250 registers,
// so one block of 8 warps runs per SM; the 4 stages keep enough copies in flight anyway.
// TUNED_* override the shape at build time (-DTUNED_BK=8 ...), for experiments.
#ifdef MATMUL_FP64  // doubles need twice the registers: 4 x 8 results a thread
#define TUNED_DEFAULTS 64, 64, 16, 32, 32, 3, 1
#endif
#ifndef TUNED_BM
#define TUNED_BM 128
#endif
#ifndef TUNED_BN
#define TUNED_BN 256
#endif
#ifndef TUNED_BK
#define TUNED_BK 16
#endif
#ifndef TUNED_WM
#define TUNED_WM 64
#endif
#ifndef TUNED_WN
#define TUNED_WN 64
#endif
#ifndef TUNED_STAGES
#define TUNED_STAGES 4
#endif
#ifndef TUNED_MIN_BLOCKS
#define TUNED_MIN_BLOCKS 1
#endif
#ifdef TUNED_DEFAULTS
typedef shape<TUNED_DEFAULTS> tuned_shape;
#else
typedef shape<TUNED_BM, TUNED_BN, TUNED_BK, TUNED_WM, TUNED_WN, TUNED_STAGES, TUNED_MIN_BLOCKS>
    tuned_shape;
#endif

static void launch_v10(void *problem) { launch_async<tuned_shape>((matmul_problem *)problem); }

// ---- v11 serpentine -----------------------------------------------------------------------------

// v10 exactly, with one change in the order of the 128 FMAs of a step. v10 goes row by row,
// each row left to right: acc[i][0..15] += af[i] * bf[0..15]. An FMA reads three registers,
// and the register file has few read ports; an operand that the previous FMA read from the
// same slot can come from a small "reuse" cache instead (the compiler marks it .reuse in the
// SASS). Row by row, af[i] is reused 15 times out of 16, but at every new row all three
// operands are new. In serpentine order the odd rows run right to left, so a new row starts
// with the bf[j] the last FMA used. The compiler also allocates and schedules the registers
// differently for the new order; the measurement, not the count of reuses, is the lesson.
#ifdef MATMUL_FP64
typedef shape<TUNED_DEFAULTS, true> serpentine_shape;
#else
typedef shape<TUNED_BM, TUNED_BN, TUNED_BK, TUNED_WM, TUNED_WN, TUNED_STAGES, TUNED_MIN_BLOCKS,
              true>
    serpentine_shape;
#endif

static void launch_v11(void *problem) { launch_async<serpentine_shape>((matmul_problem *)problem); }

// ---- v12 tallwarps ------------------------------------------------------------------------------

// v11 with warps of 128 x 32 instead of 64 x 64: the same 128 x 256 block tile, the same
// 8 warps, but now they stand side by side, each over all 128 rows and 32 columns, and a
// thread computes a 16 x 8 block (four 4-row pieces by two 4-column pieces) instead of 8 x 16.
// Per step a thread still loads 24 values with 6 LDS.128 for 128 FMAs; what changes is which
// values: each row value af[i] now serves 8 FMAs in a row instead of 16, and the 16 rows of
// the serpentine turn 15 times instead of 7. Why this helps is again a question of the
// schedule the compiler finds (see the README); we chose it by measuring the warp shapes.
#ifdef MATMUL_FP64  // doubles: warps of 64 x 16 in v11's 64 x 64 tile, 8 x 4 a thread
typedef shape<64, 64, 16, 64, 16, 3, 1, true> tallwarp_shape;
#else
typedef shape<128, 256, 16, 128, 32, 4, 1, true> tallwarp_shape;
#endif

static void launch_v12(void *problem) { launch_async<tallwarp_shape>((matmul_problem *)problem); }

// ---- v13 streamk --------------------------------------------------------------------------------

// v12's tile and main loop; what changes is how the work is handed out. One v12 block fills an
// SM, so tiles run in waves of 132 (the SMs of an H200). At 4096^3 there are 512 tiles: three
// full waves and a last one of 116 tiles, during which 16 SMs have nothing to do. v13 gives the
// full waves whole tiles, as before, and shares the work of the last R tiles evenly among all
// the SMs ("Stream-K", Osama et al., 2023). Number those tiles' k steps 0 .. R K - 1, tile
// after tile (K steps a tile), and cut them into G equal runs, one for each SM. A run that
// crosses from one tile into the next is two pieces, and every piece is one block: the main
// loop is v12's, over fewer k steps. The pieces are launched after the whole tiles, longest
// first, so an SM that finishes a long piece early picks up one of the short ones.
// A tile cut into pieces is finished by the last of its blocks to arrive. Piece q of a tile
// writes its partial sums into plane q of a scratch buffer laid out like C, then counts itself
// in; the last one adds the planes in the order of k, so the sums do not depend on who came
// last, and writes C. Two choices here are about the compiler, not the idea. The main loop is
// a copy of v12's rather than a function both call: moved into one, v12's own registers came
// out differently. And the planes have C's row length, so that storing a piece's sums is the
// same code as storing a tile: with a layout of their own, the compiler scheduled the main
// loop differently and it ran slower (a scratch build, not in the committed results).
#define STREAMK_MAX_SHARE 4  // a tile's k steps are cut into at most this many runs
// Cutting has a cost of its own, paid in k steps' worth of time on each SM: pieces start and end
// twice, and partial sums go through memory. The last wave is cut only when the SMs it leaves
// idle would otherwise waste more: at least this many k steps on average over all the SMs, a
// margin chosen above that cost in scratch runs at 2048^3 (not in the committed results).
#define STREAMK_MIN_GAIN 16

struct streamk_piece {
    unsigned tile;         // the tile, numbered as in block_tile
    unsigned kt0, steps;   // k steps kt0 .. kt0 + steps - 1 of it
    unsigned part, parts;  // piece `part` (in the order of k) of the tile's `parts`
};

// Where the shared tiles meet: planes of partial sums, each holding C's rows from row0 on,
// one after the other, and for shared tile whole + i the count of its pieces done so far.
struct streamk_scratch {
    real *sums;
    size_t row0;
    unsigned *arrived;
};

template <class S, bool VB, bool VC>
__global__ void __launch_bounds__(S::threads, S::min_blocks)
matmul_v13_streamk(const real *__restrict__ a, const real *__restrict__ b, real *__restrict__ c,
                   size_t m, size_t n, size_t k, size_t ldb, size_t ldc, unsigned whole,
                   const streamk_piece *__restrict__ pieces, streamk_scratch scratch) {
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    real *ring = (real *)smem_bytes;  // STAGES x (A tile bk x (bm + PAD), B tile bk x bn)
    // Blocks 0 .. whole - 1 take whole tiles, as in v12; the others take pieces.
    size_t tile = blockIdx.x, kt0 = 0, k_tiles = (k + S::bk - 1) / S::bk;
    if (blockIdx.x >= whole) {
        streamk_piece piece = pieces[blockIdx.x - whole];
        tile = piece.tile, kt0 = piece.kt0, k_tiles = piece.steps;
    }
    tile_origin t = tile_at(tile, n, S::bm, S::bn);
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int row0 = warp / (S::bn / S::wn) * S::wm + lane / LANES_N * PIECE;
    int col0 = warp % (S::bn / S::wn) * S::wn + lane % LANES_N * PIECE;
    // From here to the end of the main loop: v12, with k steps kt0 .. kt0 + k_tiles - 1.
#pragma unroll
    for (int s = 0; s < S::stages - 1; s++) {
        if ((size_t)s < k_tiles)
            copy_tile<S, VB>(ring + s * S::stage_elems, a, b, t, (kt0 + s) * S::bk, m, n, k, ldb);
        copy_commit();
    }
    real acc[S::tm][S::tn] = {};
    for (size_t kt = 0; kt < k_tiles; kt++) {
        copy_wait<S::stages - 2>();
        __syncthreads();
        size_t next = kt + S::stages - 1;
        if (next < k_tiles)
            copy_tile<S, VB>(ring + next % S::stages * S::stage_elems, a, b, t,
                             (kt0 + next) * S::bk, m, n, k, ldb);
        copy_commit();
        const real *as = ring + kt % S::stages * S::stage_elems;
        const real *bs = as + S::bk * S::a_stride;
#pragma unroll
        for (int kk = 0; kk < S::bk; kk++) {
            real af[S::tm], bf[S::tn];
#pragma unroll
            for (int p = 0; p < S::tm / PIECE; p++)
                load_frag<PIECE>(&af[p * PIECE], &as[kk * S::a_stride + row0 + p * LANES_M * PIECE]);
#pragma unroll
            for (int p = 0; p < S::tn / PIECE; p++)
                load_frag<PIECE>(&bf[p * PIECE], &bs[kk * S::bn + col0 + p * LANES_N * PIECE]);
#pragma unroll
            for (int i = 0; i < S::tm; i++)
#pragma unroll
                for (int jj = 0; jj < S::tn; jj++) {
                    int j = S::serpentine && i % 2 ? S::tn - 1 - jj : jj;
                    acc[i][j] += af[i] * bf[j];
                }
        }
    }
    // A whole tile goes to C; a piece of a shared tile to its plane, at the same place.
    bool shared = blockIdx.x >= whole && pieces[blockIdx.x - whole].parts > 1;
    real *dst = c;
    size_t rows = m, ld = ldc;
    if (shared) {  // the planes' rows are n long
        rows = m - scratch.row0, ld = n;
        dst = scratch.sums + pieces[blockIdx.x - whole].part * (rows * n);
        t.r0 -= scratch.row0;
    }
#pragma unroll
    for (int i = 0; i < S::tm; i++) {
        size_t r = t.r0 + row0 + i / PIECE * (LANES_M * PIECE) + i % PIECE;
#pragma unroll
        for (int p = 0; p < S::tn / PIECE; p++)
            store_row<VC, PIECE>(dst, &acc[i][p * PIECE], r, t.c0 + col0 + p * (LANES_N * PIECE),
                                 rows, n, ld);
    }
    if (!shared) return;
    streamk_piece piece = pieces[blockIdx.x - whole];
    __threadfence();  // our sums are visible to the whole GPU...
    __syncthreads();  // ...all of them, before thread 0 counts the block in
    unsigned *count = &scratch.arrived[piece.tile - whole];
    if (!__syncthreads_or(tid == 0 && atomicAdd(count, 1u) == piece.parts - 1)) return;
    __threadfence();  // we are the last to arrive: the others' sums are visible to us too
    if (tid == 0) *count = 0;  // ready for the next launch
    // Add the planes in the order of k, ours included, so that the sums are the same whoever
    // is last, and write them to C: FIX_ROWS rows of our results at a time, the loads from a
    // plane all in flight together (half as many rows where the threads have no registers to
    // spare: blocks that share an SM, and rows of C that are not 16-byte aligned).
    constexpr int FIX_ROWS = S::min_blocks > 1 || !VC ? PIECE : 2 * PIECE;
#pragma unroll 1
    for (int i0 = 0; i0 < S::tm; i0 += FIX_ROWS) {
        real sum[FIX_ROWS][S::tn];
        for (unsigned q = 0; q < piece.parts; q++) {
            const real *plane = scratch.sums + q * (rows * n);
#pragma unroll
            for (int ii = 0; ii < FIX_ROWS; ii++) {
                int i = i0 + ii;
                size_t r = t.r0 + row0 + i / PIECE * (LANES_M * PIECE) + i % PIECE;
#pragma unroll
                for (int p = 0; p < S::tn / PIECE; p++) {
                    real v[PIECE];
                    load_row<VC, PIECE>(v, plane, r, t.c0 + col0 + p * (LANES_N * PIECE), rows, n);
#pragma unroll
                    for (int x = 0; x < PIECE; x++)
                        sum[ii][p * PIECE + x] = q == 0 ? v[x] : sum[ii][p * PIECE + x] + v[x];
                }
            }
        }
#pragma unroll
        for (int ii = 0; ii < FIX_ROWS; ii++) {
            int i = i0 + ii;
            size_t r = scratch.row0 + t.r0 + row0 + i / PIECE * (LANES_M * PIECE) + i % PIECE;
#pragma unroll
            for (int p = 0; p < S::tn / PIECE; p++)
                store_row<VC, PIECE>(c, &sum[ii][p * PIECE], r, t.c0 + col0 + p * (LANES_N * PIECE),
                                     m, n, ldc);
        }
    }
}

// Longest piece first; equal ones in the order of the tiles and of k.
static int longer_piece_first(const void *x, const void *y) {
    const streamk_piece *p = (const streamk_piece *)x, *q = (const streamk_piece *)y;
    if (p->steps != q->steps) return p->steps > q->steps ? -1 : 1;
    if (p->tile != q->tile) return p->tile < q->tile ? -1 : 1;
    return p->part < q->part ? -1 : p->part > q->part;
}

// Puts a plan's `count` pieces on the device, with `planes` planes of scratch for partial sums
// (C's rows from the first cut tile's on) and a counter for each of the `cut` tiles from
// plan->whole on.
template <class S>
static void plan_upload(piece_plan *plan, const matmul_problem *p, const streamk_piece *piece,
                        unsigned count, unsigned planes, unsigned cut) {
    plan->pieces = count;
    if (count == 0) return;
    plan->row0 = plan->whole / ceil_div(p->n, S::bn) * S::bm;
    size_t plane_bytes = size_mul(size_mul(p->m - plan->row0, p->n), sizeof(real));
    plan->piece = (streamk_piece *)gpu_alloc(count * sizeof *piece, "the plan's pieces");
    CHECK(cudaMemcpy(plan->piece, piece, count * sizeof *piece, cudaMemcpyHostToDevice));
    plan->sums = (real *)gpu_alloc(size_mul(planes, plane_bytes), "the plan's partial sums");
    plan->arrived = (unsigned *)gpu_alloc(cut * sizeof(unsigned), "the plan's counters");
    CHECK(cudaMemset(plan->arrived, 0, cut * sizeof(unsigned)));
}

// v13's plan, for `wave` blocks at once: the last tile_count % wave tiles are cut into pieces.
template <class S>
static void streamk_plan(piece_plan *plan, const matmul_problem *p, unsigned wave) {
    unsigned tile_count = tiles(p->m, p->n, S::bm, S::bn);
    size_t k_tiles = ceil_div(p->k, S::bk);
    size_t last = tile_count % wave;  // R
    if ((wave - last) * k_tiles / wave < STREAMK_MIN_GAIN) last = 0;  // not worth cutting
    plan->whole = tile_count - (unsigned)last;
    size_t steps = last * k_tiles;
    size_t runs = min(min((size_t)wave, last * STREAMK_MAX_SHARE), steps);  // G
    // Every run is one piece, or two where it crosses into the next tile: at most G + R.
    streamk_piece *piece = (streamk_piece *)host_alloc((runs + last + 1) * sizeof *piece,
                                                       "v13's plan");
    unsigned count = 0, planes = 1;
    for (size_t g = 0; g < runs; g++) {
        size_t begin = g * steps / runs, end = (g + 1) * steps / runs;
        for (size_t x = begin; x < end;) {
            size_t tile = x / k_tiles, stop = min(end, (tile + 1) * k_tiles);
            bool same_tile = count > 0 && piece[count - 1].tile == plan->whole + tile;
            streamk_piece q = {plan->whole + (unsigned)tile, (unsigned)(x - tile * k_tiles),
                               (unsigned)(stop - x), same_tile ? piece[count - 1].part + 1 : 0, 0};
            piece[count++] = q;
            x = stop;
        }
    }
    // The pieces of a tile are neighbours in this list: count them.
    for (unsigned i = 0, j; i < count; i = j) {
        for (j = i; j < count && piece[j].tile == piece[i].tile; j++) {}
        for (unsigned q = i; q < j; q++) piece[q].parts = j - i;
        planes = max(planes, j - i);
    }
    qsort(piece, count, sizeof *piece, longer_piece_first);
    plan_upload<S>(plan, p, piece, count, planes, (unsigned)last);
    free(piece);
}

template <class S, bool VB, bool VC>
static void launch_pieces_kernel(const matmul_problem *p, const piece_plan *plan) {
    static bool ready = false;  // shared memory beyond 48 KiB must be asked for, once
    if (!ready) {
        CHECK(cudaFuncSetAttribute(matmul_v13_streamk<S, VB, VC>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::smem));
        ready = true;
    }
    matmul_v13_streamk<S, VB, VC><<<plan->whole + plan->pieces, S::threads, S::smem>>>(
        p->a, p->b, p->c, p->m, p->n, p->k, p->ldb, p->ldc, plan->whole, plan->piece,
        streamk_scratch{plan->sums, plan->row0, plan->arrived});
}

// How many blocks of `kernel`, with shape S's threads and shared memory, the whole GPU runs at
// once: blocks an SM (from the registers the compiler took) times the SMs.
template <class S, class Kernel>
static unsigned blocks_at_once(Kernel kernel) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::smem));
    int per_sm = 0, device = 0, sms = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::threads, S::smem));
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return (unsigned)(per_sm * sms);
}

// The same for the pieces kernel, asked once.
template <class S>
static unsigned pieces_wave() {
    static unsigned wave = 0;
    if (wave == 0) wave = blocks_at_once<S>(matmul_v13_streamk<S, true, true>);
    return wave;
}

template <class S>
static void launch_pieces(const matmul_problem *p, const piece_plan *plan) {
    if (p->ldb % VEC == 0 && p->ldc % VEC == 0) launch_pieces_kernel<S, true, true>(p, plan);
    else if (p->ldb % VEC == 0) launch_pieces_kernel<S, true, false>(p, plan);
    else launch_pieces_kernel<S, false, false>(p, plan);
    CHECK_LAUNCH();
}

static void launch_v13(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    if (!p->streamk.made) {
        streamk_plan<tallwarp_shape>(&p->streamk, p, pieces_wave<tallwarp_shape>());
        p->streamk.made = true;
    }
    launch_pieces<tallwarp_shape>(p, &p->streamk);
}

// ---- v14 smalltile ------------------------------------------------------------------------------

// The same kernel with a quarter of v12's tile: 64 x 128 results a block, 4 warps of 64 x 32
// (each thread an 8 x 8 block, v8's), and three blocks an SM. The GPU now holds 396 tiles at
// once on an H200 instead of 132, each a quarter of the work. Where the tiles are few (1024^3
// makes 32 of 128 x 256 for 132 SMs, and 128 of 64 x 128) that puts four times as many SMs to
// work, and where they are many, a round is smaller, so a last partial one wastes less; with
// three blocks an SM, one block's start and end overlap the others' work. The price is
// traffic and issue slots: a k step copies (64 + 128) x 16 values for 64 x 128 x 16 FMAs where
// v12 copies (128 + 256) x 16 for four times the FMAs (43 FMAs a value instead of 85), and a
// thread issues 4 shared loads (LDS.128) for 64 FMAs a step instead of 6 for 128. v12's warps,
// 128 rows tall, do not fit the 64-row tile: warps of 64 x 32, each thread 8 x 8 as in v8.
// v14 starts from v12's kernel, not v13's: more, smaller tiles are another answer to the idle
// SMs that Stream-K shares work among, and v16 chooses between the two.
#ifdef MATMUL_FP64  // half of the doubles' 64 x 64 tile: warps of 64 x 16, 8 x 4 a thread
typedef shape<64, 32, 16, 64, 16, 3, 2, true> smalltile_shape;
#else
typedef shape<64, 128, 16, 64, 32, 4, 3, true> smalltile_shape;
#endif

static void launch_v14(void *problem) { launch_async<smalltile_shape>((matmul_problem *)problem); }

// ---- v15 splitk ---------------------------------------------------------------------------------

// Even v14's tiles are too few when m and n are small: 512^3 makes 32 of them for the 396 block
// slots of an H200 (three an SM). But each result is a sum over k, and a sum can be cut: v15 splits
// every tile's k steps into s equal runs, one block each, so tiles x s blocks share the work
// ("split-K"). It is v13's kernel on v14's tile, with a plan in which (for s above 1) every tile is
// cut and none is whole: each run leaves its partial sums in a plane of scratch memory, and the
// last of a tile's blocks to arrive adds the planes in the order of k and writes C. We add them
// there, in the same launch, rather than in a second kernel (no second launch; the planes are still
// in L2), and not with atomicAdd into C: the order of the additions, and so the rounding, would
// change from run to run, and C would have to be zeroed first, one more pass over it.
// s is the largest that keeps all the blocks in one wave (tiles x s <= the blocks the GPU runs
// at once) with runs of at least SPLITK_MIN_STEPS k steps, so that what a cut costs (partial
// sums through memory, the last block's additions) stays small next to the run's work. When
// the tiles alone fill the GPU, s = 1 and v15 runs every tile whole, on v14's tile but in
// v13's kernel: not v14's compiled code, and not always at v14's speed (where n is not a
// multiple of 4 it is faster; the README's sweep).
#define SPLITK_MIN_STEPS 8

static size_t split_factor(unsigned tile_count, unsigned wave, size_t k_tiles,
                           unsigned min_steps) {
    size_t s = tile_count >= wave ? 1 : wave / tile_count;
    return min(s, max(k_tiles / min_steps, (size_t)1));
}

template <class S>
static void splitk_plan(piece_plan *plan, const matmul_problem *p, unsigned wave,
                        unsigned min_steps) {
    unsigned tile_count = tiles(p->m, p->n, S::bm, S::bn);
    size_t k_tiles = ceil_div(p->k, S::bk);
    size_t s = split_factor(tile_count, wave, k_tiles, min_steps);
    plan->whole = s == 1 ? tile_count : 0;
    if (s == 1) return;
    streamk_piece *piece = (streamk_piece *)host_alloc(tile_count * s * sizeof *piece,
                                                       "v15's plan");
    unsigned count = 0;
    for (unsigned t = 0; t < tile_count; t++)
        for (size_t q = 0; q < s; q++) {
            size_t begin = q * k_tiles / s, end = (q + 1) * k_tiles / s;
            piece[count++] = {t, (unsigned)begin, (unsigned)(end - begin), (unsigned)q, (unsigned)s};
        }
    plan_upload<S>(plan, p, piece, count, (unsigned)s, tile_count);
    free(piece);
}

static void launch_v15(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    if (!p->splitk.made) {
        splitk_plan<smalltile_shape>(&p->splitk, p, pieces_wave<smalltile_shape>(),
                                     SPLITK_MIN_STEPS);
        p->splitk.made = true;
    }
    launch_pieces<smalltile_shape>(p, &p->splitk);
}

// ---- v16 dispatch -------------------------------------------------------------------------------

// No one version wins at every shape (the README's sweep shows where each does), so a library
// keeps several kernels and picks one by shape, and v16 does the same with v12 to v15. It
// estimates each one's time from the shape and the GPU alone, in units of one k step of a
// v14 block that shares its SM with two others:
//  - blocks run in rounds, as many at once as fit the SMs (v12's tile 1 an SM, v14's 3);
//  - a block's k step costs 1 when its SM is full, and less when fewer share it, in proportion
//    (a v14 block alone: 1/3), but never less than DISPATCH_ALONE hundredths (a floor that
//    the FP32 build never reaches; it binds for the FP64 build's small tile, four an SM); a k
//    step of v12's tile, four times the work with the whole SM, costs DISPATCH_BIG hundredths;
//  - a round costs DISPATCH_ROUND steps more (starting the pipeline, storing the tile), spread
//    over the blocks sharing an SM, which hide each other's;
//  - a cut tile costs what adding its planes takes: DISPATCH_CUT hundredths of a step for
//    each 8192 partial sums (v14's tile) of each plane.
// The four numbers were fitted to the H200's sweep (see the README). v16 prints the estimates
// once and runs the version with the smallest.
#define DISPATCH_BIG 120
#define DISPATCH_ALONE 30
#define DISPATCH_ROUND 2
#define DISPATCH_CUT 50

typedef struct {
    double steps[4];  // v12, v13, v14, v15
    size_t split;     // v15's s
    int pick;         // 12 .. 15
} dispatch_choice;

// `blocks` blocks of `steps` k steps each at `step` apiece, at most per_sm an SM at once.
static double rounds_time(double blocks, double per_sm, double steps, double step, double sms) {
    double t = 0.0;
    while (blocks > 0) {
        double now = fmin(blocks, per_sm * sms), sharing = fmin(per_sm, ceil(now / sms));
        t += steps * step * fmax(DISPATCH_ALONE / 100.0, sharing / per_sm) + DISPATCH_ROUND / sharing;
        blocks -= now;
    }
    return t;
}

static dispatch_choice dispatch_estimate(const matmul_problem *p) {
    typedef tallwarp_shape big_t;
    typedef smalltile_shape small_t;
    int device = 0, sm_count = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    double sms = sm_count, big_cost = DISPATCH_BIG / 100.0, cut = DISPATCH_CUT / 100.0 / 8192;
    unsigned big = tiles(p->m, p->n, big_t::bm, big_t::bn);
    unsigned small = tiles(p->m, p->n, small_t::bm, small_t::bn);
    unsigned big_wave = pieces_wave<big_t>(), small_wave = pieces_wave<small_t>();
    double big_per_sm = big_wave / sms, small_per_sm = small_wave / sms;
    size_t k_tiles = ceil_div(p->k, big_t::bk);
    double k_steps = (double)k_tiles;
    dispatch_choice d;
    // v12: whole tiles in rounds.
    d.steps[0] = rounds_time(big, big_per_sm, k_steps, big_cost, sms);
    // v13: the full rounds as v12, then the last tiles' steps cut into runs shared by all the
    // blocks of a round, if v13's own rule cuts them.
    size_t last = big % big_wave;
    d.steps[1] = d.steps[0];
    if ((big_wave - last) * k_tiles / big_wave >= STREAMK_MIN_GAIN) {
        double runs = (double)min((size_t)big_wave, last * STREAMK_MAX_SHARE);
        double planes = ceil(runs / (double)last);
        d.steps[1] = rounds_time(big - last, big_per_sm, k_steps, big_cost, sms) +
                     ceil((double)last * k_steps / runs) * big_cost + DISPATCH_ROUND +
                     planes * big_t::bm * big_t::bn * cut;
    }
    // v14: whole small tiles in rounds; v15: s runs of each.
    d.steps[2] = rounds_time(small, small_per_sm, k_steps, 1.0, sms);
    d.split = split_factor(small, small_wave, k_tiles, SPLITK_MIN_STEPS);
    d.steps[3] = d.steps[2];
    if (d.split > 1)
        d.steps[3] = rounds_time((double)small * d.split, small_per_sm,
                                 ceil(k_steps / (double)d.split), 1.0, sms) +
                     (double)d.split * small_t::bm * small_t::bn * cut;
    int best = 0;
    for (int i = 1; i < 4; i++)
        if (d.steps[i] < d.steps[best]) best = i;
    d.pick = 12 + best;
    return d;
}

// v16's choice for problem p, estimated and printed once.
static int dispatch_pick(matmul_problem *p) {
    if (p->dispatch == 0) {
        dispatch_choice d = dispatch_estimate(p);
        printf("    v16: estimated time in k steps: v12 %.1f, v13 %.1f, v14 %.1f, v15 %.1f "
               "(s = %zu): runs v%d\n", d.steps[0], d.steps[1], d.steps[2], d.steps[3], d.split,
               d.pick);
        p->dispatch = d.pick;
    }
    return p->dispatch;
}

static void launch_v16(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    switch (dispatch_pick(p)) {
    case 12: launch_v12(p); break;
    case 13: launch_v13(p); break;
    case 14: launch_v14(p); break;
    default: launch_v15(p); break;
    }
    p->picked = p->dispatch;
}

// ---- v17 padded ---------------------------------------------------------------------------------

// When n is not a multiple of 4, not every row of B starts on 16 bytes (for odd n, one row in
// four does), and as a kernel's copies are built for all rows alike, every version copies B 4
// bytes at a time: four times the copy instructions in the main loop. v17 copies B first into
// rows of ldb = n rounded up to a multiple of 4 (the extra columns stay zero), which takes a
// pass over B, about as long as reading and writing it once, and then runs v16's choice on that
// copy with 16-byte copies of B. C keeps its n columns, so not all its rows start on 16 bytes,
// and they are stored an element at a time, as before; that happens once a tile, not once a k
// step. Where n is a multiple of 4, v17 is v16.
// Copies B into p->padded_b, rows of ldb = n rounded up to a multiple of VEC, and returns ldb.
static size_t pad_b(matmul_problem *p) {
    size_t ldb = ceil_div(p->n, VEC) * VEC;
    if (!p->padded_b) {  // once: the copy, zero where it has no column of B
        size_t bytes = size_mul(size_mul(p->k, ldb), sizeof(real));
        p->padded_b = (real *)gpu_alloc(bytes, "v17's copy of B");
        CHECK(cudaMemset(p->padded_b, 0, bytes));
    }
    CHECK(cudaMemcpy2DAsync(p->padded_b, ldb * sizeof(real), p->b, p->n * sizeof(real),
                            p->n * sizeof(real), p->k, cudaMemcpyDeviceToDevice));
    return ldb;
}

static void launch_v17(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    if (p->n % VEC == 0) {
        launch_v16(p);
        return;
    }
    size_t ldb = pad_b(p);
    const real *b = p->b;
    p->b = p->padded_b, p->ldb = ldb;
    launch_v16(p);
    p->b = b, p->ldb = p->n;
}

// ---- v18 strip ----------------------------------------------------------------------------------

// At 4095 x 4097 x 4093, v16 picks v13, whose tiles are 256 wide: 17 columns of tiles for 16
// tiles' worth of C. The last column of tiles holds one column of C and costs as much as any
// other, about 6% of the product spent on zeros. v18 cuts C in two along n. Where v16 picks v12
// or v13 (for the whole shape, as in v17) and r = n mod 256 is at most STRIP_COLS, the first
// n - r columns are a product of their own, m x (n - r) x k, which that version runs with tiles
// that now end exactly at the cut. The last r columns are a narrow product, m x r x k, done by
// v15's split-K kernel on tiles of 32 rows x STRIP_COLS columns, one warp a block: about m / 32
// tiles, each cut along k so that together they fill the GPU. The strip reads all of A once
// more (every column of C needs every row of A), a few hundredths of a millisecond at these
// sizes, where the wasted column of tiles costs a tenth or more. Not under v14 and v15: their
// tiles are 128 wide, so the waste is half as large, and with three blocks an SM the work saved
// seldom saves a round (3001 x 4099 x 1531: 1551 tiles or 1504, four rounds of 396 either way);
// measured there, the strip cost more than it saved. For all this the kernels take C's row
// length (ldc) apart from n: the first product's C has n - r columns in rows n long, the
// strip's r. Elsewhere v18 is v17.
#ifdef MATMUL_FP64  // doubles: v12's tiles are 64 wide, and strips up to 16 columns
typedef shape<32, 16, 16, 32, 16, 4, 8> strip_shape;
#else
typedef shape<32, 32, 16, 32, 32, 4, 8> strip_shape;
#endif
#define STRIP_COLS strip_shape::bn

static void launch_v18(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    int pick = dispatch_pick(p);
    size_t w = tallwarp_shape::bn, r = p->n % w;
    if (pick > 13 || r == 0 || r > (size_t)STRIP_COLS || p->n < w) {
        launch_v17(p);
        return;
    }
    matmul_problem *main_part = p->v18_main;
    if (!main_part) {  // once: the first n - r columns as a problem of their own
        main_part = (matmul_problem *)host_alloc(sizeof *main_part, "v18's first part");
        *main_part = *p;
        main_part->n = p->n - r, main_part->ldc = p->n;
        main_part->streamk = main_part->splitk = piece_plan{};
        main_part->padded_b = NULL, main_part->v18_main = NULL;
        p->v18_main = main_part;
        printf("    v18: columns 0-%zu by v%d, %zu-%zu by v15's kernel on tiles of 32 x %d\n",
               main_part->n - 1, pick, main_part->n, p->n - 1, STRIP_COLS);
    }
    main_part->b = p->b, main_part->ldb = p->n;
    if (p->n % VEC != 0) main_part->ldb = pad_b(p), main_part->b = p->padded_b;
    launch_v16(main_part);
    p->picked = main_part->picked;
    matmul_problem strip = *main_part;  // the last r columns of B and of C
    strip.b += main_part->n, strip.c += main_part->n, strip.n = r;
    if (!p->strip.made) {
        splitk_plan<strip_shape>(&p->strip, &strip, pieces_wave<strip_shape>(), SPLITK_MIN_STEPS);
        p->strip.made = true;
    }
    launch_pieces<strip_shape>(&strip, &p->strip);
}

// ---- v19 unbounded ------------------------------------------------------------------------------

// v14 asks for three blocks an SM (__launch_bounds__(128, 3)), so the compiler keeps a thread at
// 168 registers or fewer (65,536 / (3 x 128) = 170, rounded down to a multiple of 8). That bound
// pays where the tiles are many, but at 1024^3 v16 picks v14 for 128 tiles on 132 SMs: one block an
// SM, and two thirds of the registers it was held away from lie unused. v19 is v18 with one more
// kernel: v14's, built with the bound at one block an SM (the same shape, min_blocks 1), which the
// compiler spends on a longer schedule of the same loop. v19 runs it where v16 picks v14 and the
// tiles all fit in one round of the unbounded build (its own occupancy, from the registers the
// compiler took); there it can only gain. Everywhere else v19 is v18.
#ifdef MATMUL_FP64
typedef shape<64, 32, 16, 64, 16, 3, 1, true> unbounded_shape;
#else
typedef shape<64, 128, 16, 64, 32, 4, 1, true> unbounded_shape;
#endif

// How many blocks of the async kernel for shape S the whole GPU runs at once, asked once.
template <class S>
static unsigned async_wave() {
    static unsigned wave = 0;
    if (wave == 0) wave = blocks_at_once<S>(matmul_v9_async<S, true, true>);
    return wave;
}

static void launch_v19(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    unsigned count = tiles(p->m, p->n, unbounded_shape::bm, unbounded_shape::bn);
    if (dispatch_pick(p) != 14 || count > async_wave<unbounded_shape>()) {
        launch_v18(p);
        return;
    }
    static bool told = false;  // say so once
    if (!told) {
        printf("    v19: v16 picks v14, and its %u tiles fit in one round of the unbounded "
               "build (%u blocks): runs that\n", count, async_wave<unbounded_shape>());
        told = true;
    }
    const real *b = p->b;
    if (p->n % VEC != 0) p->ldb = pad_b(p), p->b = p->padded_b;  // as v17 does
    launch_async<unbounded_shape>(p);
    p->b = b, p->ldb = p->n;
    p->picked = 19;
}

// ---- v20 dmma -----------------------------------------------------------------------------------
#ifdef MATMUL_FP64  // v20 to v22 are in the FP64 build only

// Every version so far runs its multiply-adds on the CUDA cores: at most 64 FP64 FMAs a clock
// per SM on an H100 or H200 (the `peak` row), and cuBLAS DGEMM runs at twice that because it
// uses the FP64 tensor cores. mma.sync (compute capability 8.0 and later) is how a kernel
// reaches them: the 32 lanes of a warp together hold three small matrices in registers, and one
// instruction computes D = A B + D. For doubles the oldest shape is m8n8k4, an 8 x 4 times a
// 4 x 8 matrix (256 FMAs). Lane l, in group g = l / 4 and at t = l % 4 in its group, holds
// A[g][t], B[t][g] and D[g][2t], D[g][2t + 1] (the PTX ISA's fragment layout; chapter 00's
// dmma row checks it).
//
// Around the instruction stays v9's machinery: a ring of cp.async copies, one barrier a tile.
// A block of 8 warps computes 128 x 64 results, 32 deep a tile; each warp owns 32 x 32 of them,
// 4 x 4 pieces of 8 x 8, and for every 4 of k loads 4 values of A and 4 of B (a lane's share)
// for 16 mma instructions. The results take 64 registers a thread, and at 128 registers two
// blocks share an SM, each with a ring of 2 stages (2 x 53 KiB of shared memory): while one
// block waits at its barrier, the other keeps the tensor cores busy. (Where k or n is odd, the
// 8-byte copies need more registers: those kernels run one block an SM.) A lane reads its
// fragments down a column of A and of B across the 8 groups, so both tiles sit in shared memory
// as in global memory, row by row (A is not transposed: the instruction wants rows of A), copied
// 16 bytes at a time, in rows of 32 + 4 and 64 + 4 doubles: the 4 doubles of padding shift each
// row by 4 bank pairs, so the 16 lanes that load together (8-byte loads go out half a warp at a
// time) hit 16 different ones. The copies of the next tile are issued halfway through a tile's
// instructions, while those run on the tensor cores, instead of before them. The shape was
// chosen by measurement on the H200 among 128 x 128 and 128 x 64 tiles, warps of 64 x 32 and
// 32 x 32, 16 and 32 deep, 2 to 5 stages.
// DMMA_* override the shape at build time (-DDMMA_BK=16 ...), for experiments.
#ifndef DMMA_BM
#define DMMA_BM 128
#endif
#ifndef DMMA_BN
#define DMMA_BN 64
#endif
#ifndef DMMA_BK
#define DMMA_BK 32
#endif
#ifndef DMMA_WM
#define DMMA_WM 32
#endif
#ifndef DMMA_WN
#define DMMA_WN 32
#endif
#ifndef DMMA_STAGES
#define DMMA_STAGES 2
#endif
#ifndef DMMA_MIN_BLOCKS
#define DMMA_MIN_BLOCKS 2
#endif
#define DMMA_THREADS ((DMMA_BM / DMMA_WM) * (DMMA_BN / DMMA_WN) * 32)
#define DMMA_LDA (DMMA_BK + 4)  // doubles from one row of the A tile to the next
#define DMMA_LDB (DMMA_BN + 4)  // and of the B tile
#define DMMA_STAGE (DMMA_BM * DMMA_LDA + DMMA_BK * DMMA_LDB)  // doubles in one stage
#define DMMA_SMEM ((size_t)DMMA_STAGES * DMMA_STAGE * sizeof(double))
static_assert(DMMA_BK % 16 == 0, "whole m16n8k16 steps a tile");
static_assert(DMMA_BM * DMMA_BK % (2 * DMMA_THREADS) == 0 &&
                  DMMA_BK * DMMA_BN % (2 * DMMA_THREADS) == 0,
              "16-byte copies of both tiles split evenly");

// The instruction shapes: D (M x 8) += A (M x K) B (K x 8), a warp.
struct dmma_m8n8k4 {
    static constexpr int m = 8, k = 4;
};
struct dmma_m16n8k16 {
    static constexpr int m = 16, k = 16;
};

__device__ __forceinline__ void mma_8x8x4(double (&d)[2], double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
#else
    __trap();  // never launched there: matmul_skip turns the version away first
#endif
}

// m16n8k16 (compute capability 9.0): lane (g, t) holds A[g + 8 (i % 2)][t + 4 (i / 2)] in a[i],
// B[t + 4 i][g] in b[i], and D[g][2t], D[g][2t + 1], D[g + 8][2t], D[g + 8][2t + 1].
__device__ __forceinline__ void mma_16x8x16(double (&top)[2], double (&bottom)[2],
                                            const double (&a)[8], const double (&b)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"
                 : "+d"(top[0]), "+d"(top[1]), "+d"(bottom[0]), "+d"(bottom[1])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                   "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
    __trap();
#endif
}

// One warp's share of steps KK0 .. KK1 - 1 of a tile: acc[i][j] are the two results of piece
// (i, j), rows 8 i + g and columns 8 j + 2 t, 8 j + 2 t + 1 of the warp's DMMA_WM x DMMA_WN
// results (32 x 32). as and bs
// point at the warp's first row of A and first column of B in the stage.
template <class MMA, int KK0, int KK1>
__device__ __forceinline__ void dmma_steps(double (&acc)[DMMA_WM / 8][DMMA_WN / 8][2],
                                           const double *as, const double *bs, int g, int t) {
    if constexpr (MMA::k == 4) {
#pragma unroll
        for (int kk = KK0; kk < KK1; kk += 4) {
            double af[DMMA_WM / 8], bf[DMMA_WN / 8];
#pragma unroll
            for (int i = 0; i < DMMA_WM / 8; i++) af[i] = as[(8 * i + g) * DMMA_LDA + kk + t];
#pragma unroll
            for (int j = 0; j < DMMA_WN / 8; j++) bf[j] = bs[(kk + t) * DMMA_LDB + 8 * j + g];
#pragma unroll
            for (int i = 0; i < DMMA_WM / 8; i++)
#pragma unroll
                for (int j = 0; j < DMMA_WN / 8; j++) mma_8x8x4(acc[i][j], af[i], bf[j]);
        }
    } else {
#pragma unroll
        for (int kk = KK0; kk < KK1; kk += 16) {
            double bf[DMMA_WN / 8][4];  // the warp's 4 columns of B, kept while A's blocks go by
#pragma unroll
            for (int j = 0; j < DMMA_WN / 8; j++)
#pragma unroll
                for (int i = 0; i < 4; i++) bf[j][i] = bs[(kk + t + 4 * i) * DMMA_LDB + 8 * j + g];
#pragma unroll
            for (int i = 0; i < DMMA_WM / 16; i++) {
                double af[8];
#pragma unroll
                for (int e = 0; e < 8; e++)
                    af[e] = as[(16 * i + g + 8 * (e % 2)) * DMMA_LDA + kk + t + 4 * (e / 2)];
#pragma unroll
                for (int j = 0; j < DMMA_WN / 8; j++)
                    mma_16x8x16(acc[2 * i][j], acc[2 * i + 1][j], af, bf[j]);
            }
        }
    }
}

// Copies the tile from k0 on into a stage, 16 bytes at a time where a row starts on 16 bytes
// (VA: k even, VB: n even), else 8; zeros outside the matrices. A thread copies the same
// columns of rows a constant number apart, so a tile wholly inside both matrices (almost every
// tile) needs no guards, only its first addresses.
template <bool VA, bool VB>
__device__ __forceinline__ void dmma_copy_tile(double *stage, const double *__restrict__ a,
                                               const double *__restrict__ b, tile_origin t,
                                               size_t k0, size_t m, size_t n, size_t k) {
    constexpr int A_ROWS = DMMA_THREADS / (DMMA_BK / 2);  // rows of A a pass copies
    constexpr int B_ROWS = DMMA_THREADS / (DMMA_BN / 2);
    int tid = threadIdx.x;
    int a_row = tid / (DMMA_BK / 2), a_col = tid % (DMMA_BK / 2) * 2;
    int b_row = tid / (DMMA_BN / 2), b_col = tid % (DMMA_BN / 2) * 2;
    double *as = stage + a_row * DMMA_LDA + a_col;
    double *bs = stage + DMMA_BM * DMMA_LDA + b_row * DMMA_LDB + b_col;
    if (t.r0 + DMMA_BM <= m && t.c0 + DMMA_BN <= n && k0 + DMMA_BK <= k) {
        const double *pa = a + (t.r0 + a_row) * k + k0 + a_col;
        const double *pb = b + (k0 + b_row) * n + t.c0 + b_col;
#pragma unroll
        for (int i = 0; i < DMMA_BM / A_ROWS; i++) {
            double *dst = as + i * A_ROWS * DMMA_LDA;
            const double *src = pa + (size_t)i * A_ROWS * k;
            if (VA) copy_async<16>(dst, src, true);
            else copy_async<8>(dst, src, true), copy_async<8>(dst + 1, src + 1, true);
        }
#pragma unroll
        for (int i = 0; i < DMMA_BK / B_ROWS; i++) {
            double *dst = bs + i * B_ROWS * DMMA_LDB;
            const double *src = pb + (size_t)i * B_ROWS * n;
            if (VB) copy_async<16>(dst, src, true);
            else copy_async<8>(dst, src, true), copy_async<8>(dst + 1, src + 1, true);
        }
        return;
    }
    // A tile on an edge: each copy guarded (not unrolled: the addresses of all of them at
    // once would take registers the results need).
#pragma unroll 1
    for (int i = 0; i < DMMA_BM / A_ROWS; i++) {
        size_t r = t.r0 + a_row + i * A_ROWS, col = k0 + a_col;
        double *dst = as + i * A_ROWS * DMMA_LDA;
        if (VA) {
            bool inside = r < m && col < k;
            copy_async<16>(dst, inside ? &a[r * k + col] : a, inside);
        } else {
            for (int h = 0; h < 2; h++) {
                bool inside = r < m && col + h < k;
                copy_async<8>(dst + h, inside ? &a[r * k + col + h] : a, inside);
            }
        }
    }
#pragma unroll 1
    for (int i = 0; i < DMMA_BK / B_ROWS; i++) {
        size_t r = k0 + b_row + i * B_ROWS, col = t.c0 + b_col;
        double *dst = bs + i * B_ROWS * DMMA_LDB;
        if (VB) {
            bool inside = r < k && col < n;
            copy_async<16>(dst, inside ? &b[r * n + col] : b, inside);
        } else {
            for (int h = 0; h < 2; h++) {
                bool inside = r < k && col + h < n;
                copy_async<8>(dst + h, inside ? &b[r * n + col + h] : b, inside);
            }
        }
    }
}

// v22's order: tile i of the grid in groups of GROUP_ROWS rows of tiles, down each column of
// a group before the next column (the last group may have fewer rows).
#define GROUP_ROWS 16
__device__ tile_origin grouped_tile(size_t tile, size_t m, size_t n, int tile_rows, int tile_cols) {
    size_t rows = (m + tile_rows - 1) / tile_rows, cols = (n + tile_cols - 1) / tile_cols;
    size_t group = tile / (GROUP_ROWS * cols), first = group * GROUP_ROWS;
    size_t height = rows - first < GROUP_ROWS ? rows - first : GROUP_ROWS;
    size_t within = tile - first * cols;
    tile_origin t;
    t.r0 = (first + within % height) * tile_rows;
    t.c0 = within / height * tile_cols;
    return t;
}

template <class MMA, bool VA, bool VB, bool GROUPED>
__global__ void __launch_bounds__(DMMA_THREADS, VA && VB ? DMMA_MIN_BLOCKS : 1)
matmul_v20_dmma(const double *__restrict__ a, const double *__restrict__ b,
                double *__restrict__ c, size_t m, size_t n, size_t k) {
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    double *ring = (double *)smem_bytes;
    tile_origin t = GROUPED ? grouped_tile(blockIdx.x, m, n, DMMA_BM, DMMA_BN)
                            : block_tile(n, DMMA_BM, DMMA_BN);
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, tg = lane % 4;
    int row0 = warp / (DMMA_BN / DMMA_WN) * DMMA_WM, col0 = warp % (DMMA_BN / DMMA_WN) * DMMA_WN;
    size_t k_tiles = (k + DMMA_BK - 1) / DMMA_BK;
#pragma unroll
    for (int s = 0; s < DMMA_STAGES - 1; s++) {
        if ((size_t)s < k_tiles)
            dmma_copy_tile<VA, VB>(ring + s * DMMA_STAGE, a, b, t, (size_t)s * DMMA_BK, m, n, k);
        copy_commit();
    }
    double acc[DMMA_WM / 8][DMMA_WN / 8][2] = {};
    for (size_t kt = 0; kt < k_tiles; kt++) {
        copy_wait<DMMA_STAGES - 2>();  // this thread's copies of tile kt have landed
        __syncthreads();  // everyone's have, and everyone is done with tile kt - 1
        const double *as = ring + kt % DMMA_STAGES * DMMA_STAGE + row0 * DMMA_LDA;
        const double *bs = ring + kt % DMMA_STAGES * DMMA_STAGE + DMMA_BM * DMMA_LDA + col0;
        constexpr int HALF = DMMA_BK / 2 / MMA::k * MMA::k;  // whole instructions
        dmma_steps<MMA, 0, HALF>(acc, as, bs, g, tg);
        size_t next = kt + DMMA_STAGES - 1;  // into the buffer tile kt - 1 used
        if (next < k_tiles)
            dmma_copy_tile<VA, VB>(ring + next % DMMA_STAGES * DMMA_STAGE, a, b, t,
                                        next * DMMA_BK, m, n, k);
        copy_commit();
        dmma_steps<MMA, HALF, DMMA_BK>(acc, as, bs, g, tg);
    }
    // Lane (g, t) holds two neighbouring results of each piece: one 16-byte store where n is even.
#pragma unroll
    for (int i = 0; i < DMMA_WM / 8; i++)
#pragma unroll
        for (int j = 0; j < DMMA_WN / 8; j++)
            store_row<VB, 2>(c, acc[i][j], t.r0 + row0 + 8 * i + g, t.c0 + col0 + 8 * j + 2 * tg,
                             m, n);
}

template <class MMA, bool VA, bool VB, bool GROUPED>
static void launch_dmma_kernel(const matmul_problem *p) {
    static bool ready = false;  // shared memory beyond 48 KiB must be asked for, once
    if (!ready) {
        CHECK(cudaFuncSetAttribute(matmul_v20_dmma<MMA, VA, VB, GROUPED>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)DMMA_SMEM));
        ready = true;
    }
    matmul_v20_dmma<MMA, VA, VB, GROUPED><<<tiles(p->m, p->n, DMMA_BM, DMMA_BN), DMMA_THREADS,
                                            DMMA_SMEM>>>(p->a, p->b, p->c, p->m, p->n, p->k);
}

template <class MMA, bool GROUPED = false>
static void launch_dmma(matmul_problem *p) {
    bool va = p->k % 2 == 0, vb = p->n % 2 == 0;
    if (va && vb) launch_dmma_kernel<MMA, true, true, GROUPED>(p);
    else if (va) launch_dmma_kernel<MMA, true, false, GROUPED>(p);
    else if (vb) launch_dmma_kernel<MMA, false, true, GROUPED>(p);
    else launch_dmma_kernel<MMA, false, false, GROUPED>(p);
    CHECK_LAUNCH();
}

static void launch_v20(void *problem) { launch_dmma<dmma_m8n8k4>((matmul_problem *)problem); }
#endif

// ---- v21 dmma16 ---------------------------------------------------------------------------------
#ifdef MATMUL_FP64
// Chapter 00 measures what v20 runs into: on Hopper, m8n8k4 runs the FP64 tensor cores at half
// their rate (the dmma row against dmma16). The shape Hopper added, m16n8k16, does 2048 FMAs an
// instruction, eight times m8n8k4's, at the full rate. Same kernel, same tiles: a warp now
// issues 16 instructions for 32 of k instead of 128, a lane holding 8 values of A (rows g and
// g + 8, columns t, t + 4, t + 8, t + 12), 4 of B and 4 of D. Compute capability 9.0 only.
static void launch_v21(void *problem) { launch_dmma<dmma_m16n8k16>((matmul_problem *)problem); }
#endif

// ---- v22 grouped --------------------------------------------------------------------------------
#ifdef MATMUL_FP64
// Every version so far numbers its tiles row by row, so the blocks in flight at once (two an SM,
// 264 on an H200) cover two rows of tiles across all of C's columns: together they read all of
// B for each k step, and at 8192^3 that is a 2 MiB slice of B per k step against 64 KiB of A.
// v22 hands the tiles out in groups of GROUP_ROWS rows, column by column inside a group: the
// blocks in flight then cover 16 rows x 16 or 17 columns of tiles, and read about 0.5 MiB of A
// and 0.3 MiB of B per k step, 0.8 MiB where v21's read 2.1 MiB: fewer distinct bytes for L2 to
// hold and for DRAM to deliver while they are in use. Same kernel as v21, another tile order.
static void launch_v22(void *problem) {
    launch_dmma<dmma_m16n8k16, true>((matmul_problem *)problem);
}
#endif

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"cublas", "cublas", launch_cublas, KL_BASELINE},
#ifdef MATMUL_FP64
    {"peak", "fp64-fma", launch_peak, KL_BASELINE | KL_UNCHECKED},
#else
    {"cublas-tf32", "tf32", launch_cublas_tf32, KL_BASELINE},
#endif
    {"v0", "naive", launch_v0, 0},
    {"v1", "coalesced", launch_v1, 0},
    {"v2", "tiled", launch_v2, 0},
    {"v3", "prefetch", launch_v3, 0},
    {"v4", "unrolled", launch_v4, 0},
    {"v5", "granular", launch_v5, 0},
    {"v6", "regblock", launch_v6, 0},
    {"v6-noprefetch", "no-prefetch", launch_v6_noprefetch, 0},
    {"v7-ldg", "read-only", launch_v7_ldg, 0},
    {"v7-wide", "16-byte", launch_v7_wide, 0},
    {"v7-transposed", "a-transposed", launch_v7_transposed, 0},
    {"v7-padded", "a-padded", launch_v7_padded, 0},
    {"v7", "vectorized", launch_v7, 0},
#ifndef MATMUL_FP64
    {"v1-maxshared", "carveout-100", launch_v1_maxshared, 0},
    {"v7-maxl1", "carveout-0", launch_v7_maxl1, 0},
#endif
    {"v8", "warptiled", launch_v8, 0},
    {"v9", "async", launch_v9, 0},
    {"v10", "tuned", launch_v10, 0},
    {"v11", "serpentine", launch_v11, 0},
    {"v12", "tallwarps", launch_v12, 0},
    {"v13", "streamk", launch_v13, 0},
    {"v14", "smalltile", launch_v14, 0},
    {"v15", "splitk", launch_v15, 0},
    {"v16", "dispatch", launch_v16, 0},
    {"v17", "padded", launch_v17, 0},
    {"v18", "strip", launch_v18, 0},
    {"v19", "unbounded", launch_v19, 0},
#ifdef MATMUL_FP64
    {"v20", "dmma", launch_v20, 0},
    {"v21", "dmma16", launch_v21, 0},
    {"v22", "grouped", launch_v22, 0},
#endif
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// ---- checking and saving ------------------------------------------------------------------------

// The rounding error of a sum of k products, in units of |A| |B|: each of the k additions
// (or FMAs) and the final rounding add at most one unit roundoff u, and the double-precision
// reference adds its own; 2 (k + 2) u covers both. TF32 rounds each input to 10 mantissa bits
// first, up to 2^-11 each, so a product can be off by 2 * 2^-11 more.
static double tolerance(const matmul_problem *p, bool tf32) {
    if (p->exact) return 0.0;
    double t = 2.0 * ((double)p->k + 2.0) * UNIT_ROUNDOFF;
    return tf32 ? t + 2.0 * ldexp(1.0, -11) : t;
}

static void matmul_check(void *problem, const version *v, check_result *r) {
    matmul_problem *p = (matmul_problem *)problem;
    size_t m = p->m, n = p->n;
    CHECK(cudaMemcpy(p->host_c, p->c, size_mul(size_mul(m, n), sizeof(real)),
                     cudaMemcpyDeviceToHost));
    bool tf32 = strcmp(v->tag, "cublas-tf32") == 0;
    double tol = tolerance(p, tf32);
    if (p->want) {  // small: every element against the reference, scaled by its row of |A| |B|
        for (size_t i = 0; i < m; i++) {
#ifdef MATMUL_FP64
            check_f64(r, p->host_c + i * n, p->want + i * n, 1, n, i, tol * p->abs_row[i], 0.0);
#else
            double *got = p->want + m * n;  // a spare row of doubles, after the reference
            for (size_t j = 0; j < n; j++) got[j] = p->host_c[i * n + j];
            check_f64(r, got, p->want + i * n, 1, n, i, tol * p->abs_row[i], 0.0);
#endif
        }
        return;
    }
    // Large: Freivalds. C x must match A (B x) within the same bound, carried through |x| = 1,
    // plus the double rounding of the two products.
    double slack = ((double)p->k + (double)n + 4.0) * (DBL_EPSILON / 2);
    for (size_t i = 0; i < m; i++) {
        double s = 0.0;
        for (size_t j = 0; j < n; j++) s += (double)p->host_c[i * n + j] * p->x[j];
        double atol = p->exact ? 0.0 : (tol + slack) * p->y_abs[i];
        check_f64(r, &s, &p->y[i], 1, 1, i, atol, 0.0);
    }
    // And element by element against cuBLAS, whose result the first (cublas) row leaves here.
    if (strcmp(v->tag, "cublas") == 0) {
        memcpy(p->cublas_c, p->host_c, size_mul(size_mul(m, n), sizeof(real)));
        return;
    }
    double both = tol + tolerance(p, false);  // both results are off by up to their bound
    for (size_t i = 0; i < m; i++)
#ifdef MATMUL_FP64
        check_f64(r, p->host_c + i * n, p->cublas_c + i * n, 1, n, i, both * p->row_bound[i], 0.0);
#else
        check_f32(r, p->host_c + i * n, p->cublas_c + i * n, 1, n, i, both * p->row_bound[i], 0.0);
#endif
}

// The CSV's extra column: the version v16 ran, on v16's and v17's rows (empty on the others).
static double picked(void *problem, double ms_median) {
    (void)ms_median;
    matmul_problem *p = (matmul_problem *)problem;
    double v = p->picked ? (double)p->picked : NAN;
    p->picked = 0;
    return v;
}

static void matmul_save(void *problem, const char *dir, const char *tag) {
    matmul_problem *p = (matmul_problem *)problem;
    if (strcmp(tag, "peak") == 0) return;  // its output is not a result
    size_t shape[2] = {p->m, p->n};
    if (npy_save(dir, tag, NPY_REAL, shape, 2, p->host_c) != 0) exit(KL_EXIT_USAGE);
}

// Why version v cannot run on this GPU, or NULL: the tensor-core versions need their mma.sync.
static const char *matmul_skip(void *problem, const version *v) {
    const matmul_problem *p = (const matmul_problem *)problem;
    static char why[120];
    int need = strcmp(v->tag, "v20") == 0                                  ? 80
               : strcmp(v->tag, "v21") == 0 || strcmp(v->tag, "v22") == 0 ? 90
                                                                            : 0;
    if (p->cc >= need) return NULL;
    snprintf(why, sizeof why, "needs FP64 mma.sync %s (compute capability %d.0); this GPU is %d.%d",
             need == 80 ? "m8n8k4" : "m16n8k16", need / 10, p->cc / 10, p->cc % 10);
    return why;
}

// ---- inputs -------------------------------------------------------------------------------------

// "random": uniform in [-1, 1). "int": integers in [-2, 2], whose products and sums are exact
// as long as 4 k stays within the 2^24 (2^53) integers a float (double) holds.
// (rng_fill makes the values on several threads; each is what rng_below or rng_float would draw.)
typedef struct {
    real *x;
    bool ints;
} fill_target;

static void put_input(void *ctx, size_t i, uint64_t bits) {
    fill_target *t = (fill_target *)ctx;
    t->x[i] = t->ints ? (real)((int)rng_bits_below(bits, 5) - 2)
                      : (real)rng_bits_float(bits, -1.0f, 1.0f);
}

static void fill(rng *g, real *x, size_t count, bool ints) {
    fill_target t = {x, ints};
    rng_fill(g, count, put_input, &t);
}

static bool exact_ints(size_t k) {
    double max_sum = 4.0 * (double)k;  // |sum of k products of values in [-2, 2]|
    return max_sum <= 1.0 / UNIT_ROUNDOFF;  // 2^24 for float, 2^53 for double
}

// ---- the self-test of the CPU reference (no GPU) -----------------------------------------------

static int report(const char *name, bool ok) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", name);
    return ok ? 0 : 1;
}

static int matmul_self_test(void) {
    int failed = 0;
    // a 2 x 3 times 3 x 2 example worked by hand
    const real a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
    const double want[4] = {58, 64, 139, 154};
    double got[4], abs[4];
    matmul_cpu(a, b, got, abs, 2, 2, 3);
    failed += report("matmul_cpu: 2 x 3 x 2 by hand", memcmp(got, want, sizeof want) == 0);
    const real neg[6] = {-1, 2, -3, 4, -5, 6};
    matmul_cpu(neg, b, got, abs, 2, 2, 3);
    const double want_abs[4] = {58, 64, 139, 154};  // |A| |B| is the product of the positives
    failed += report("matmul_cpu: |A| |B| with signs", memcmp(abs, want_abs, sizeof abs) == 0);
    // against a plain dot-product loop, and against Freivalds, at odd shapes
    const size_t shapes[][3] = {{1, 1, 1}, {7, 3, 5}, {3, 7, 1}, {33, 65, 17}, {2, 1, 40}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        real *x = (real *)host_alloc((m * k + k * n) * sizeof(real), "self-test");
        double *w = (double *)host_alloc((2 * m * n + n + 2 * m) * sizeof(double), "self-test");
        double *ab = w + m * n, *v = ab + m * n, *y = v + n, *y_abs = y + m;
        rng g;
        rng_init(&g, 7 + s);
        fill(&g, x, m * k + k * n, s % 2 == 1);
        const real *ma = x, *mb = x + m * k;
        matmul_cpu(ma, mb, w, ab, m, n, k);
        bool same = true;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                double d = 0.0;
                for (size_t l = 0; l < k; l++) d += (double)ma[i * k + l] * mb[l * n + j];
                if (fabs(d - w[i * n + j]) > 1e-12 * ab[i * n + j]) same = false;
            }
        char name[96];
        snprintf(name, sizeof name, "matmul_cpu: dot products at %zu x %zu x %zu", m, n, k);
        failed += report(name, same);
        for (size_t j = 0; j < n; j++) v[j] = (j % 3 == 0) ? -1.0 : 1.0;
        freivalds_cpu(ma, mb, v, y, y_abs, m, n, k, NULL);
        bool agree = true;
        for (size_t i = 0; i < m; i++) {
            double s2 = 0.0;
            for (size_t j = 0; j < n; j++) s2 += w[i * n + j] * v[j];
            if (fabs(s2 - y[i]) > 1e-12 * y_abs[i] + 1e-300) agree = false;
        }
        snprintf(name, sizeof name, "freivalds_cpu: C x = A (B x) at %zu x %zu x %zu", m, n, k);
        failed += report(name, agree);
        free(x), free(w);
    }
    size_t k_max = (size_t)(0.25 / UNIT_ROUNDOFF);  // 4 k_max = 2^24 (2^53): the last exact k
    failed += report("exact_ints: exact up to 4 k = 1 / u, not beyond",
                     exact_ints(1000) && exact_ints(k_max) && !exact_ints(k_max + 1));
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ---- main ---------------------------------------------------------------------------------------

int main(int argc, char **argv) {
    options o = {};
    o.program = PROGRAM;
    o.chapter = "03-matmul";
    o.sizes = "mnk";
    o.m_means = "rows of A and C";
    o.n_means = "columns of B and C";
    o.k_means = "columns of A, rows of B";
    o.inputs = inputs;
    o.input = "random";
    o.m = DEFAULT_M, o.n = DEFAULT_N, o.k = DEFAULT_K;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return matmul_self_test();

    env_info env;
    gpu_open(&env);
    bench_header(&o, &env);

    matmul_problem p = {};
    p.m = o.m, p.n = o.n, p.k = o.k, p.ldb = o.n, p.ldc = o.n;
    p.cc = 10 * env.cc_major + env.cc_minor;
    size_t a_bytes = size_mul(size_mul(p.m, p.k), sizeof(real));
    size_t b_bytes = size_mul(size_mul(p.k, p.n), sizeof(real));
    size_t c_bytes = size_mul(size_mul(p.m, p.n), sizeof(real));
    size_t all_bytes = a_bytes + b_bytes;
    all_bytes = (all_bytes < a_bytes || all_bytes + c_bytes < all_bytes) ? SIZE_MAX
                                                                         : all_bytes + c_bytes;
    gpu_require(all_bytes, "A, B and C");
    p.a = (const real *)gpu_alloc(a_bytes, "A");
    p.b = (const real *)gpu_alloc(b_bytes, "B");
    p.c = (real *)gpu_alloc(c_bytes, "C");
    p.host_a = (real *)host_alloc(a_bytes, "A");
    p.host_b = (real *)host_alloc(b_bytes, "B");
    p.host_c = (real *)host_alloc(c_bytes, "the results");
#ifdef MATMUL_FP64
    p.peak_threads = (size_t)env.sms * env.sm_threads;  // every SM full
    p.sink = (double *)gpu_alloc(p.peak_threads * sizeof(double), "the peak kernel's results");
#endif

    bool ints = strcmp(o.input, "int") == 0;
    rng g;
    rng_init(&g, o.seed);
    fill(&g, p.host_a, p.m * p.k, ints);
    fill(&g, p.host_b, p.k * p.n, ints);
    p.exact = ints && exact_ints(p.k);
    CHECK(cudaMemcpy((void *)p.a, p.host_a, a_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy((void *)p.b, p.host_b, b_bytes, cudaMemcpyHostToDevice));

    double macs = (double)p.m * (double)p.n * (double)p.k;
    if (macs <= (double)REF_MAX_MACS) {
        // the reference, a spare row for widening results, and each row's largest |A| |B|
        size_t mn = p.m * p.n;
        p.want = (double *)host_alloc(size_mul(2 * mn + p.n, sizeof(double)), "the reference");
        double *abs = p.want + mn + p.n;
        matmul_cpu(p.host_a, p.host_b, p.want, abs, p.m, p.n, p.k);
        p.abs_row = (double *)host_alloc(size_mul(p.m, sizeof(double)), "the bounds");
        for (size_t i = 0; i < p.m; i++) {
            double mx = 0.0;
            for (size_t j = 0; j < p.n; j++) mx = fmax(mx, abs[i * p.n + j]);
            p.abs_row[i] = mx;
        }
    } else {
        printf("check: too large for the CPU reference: Freivalds (A (B x), x = random signs) "
               "and element by element against cublas\n\n");
        p.cublas_c = (real *)host_alloc(c_bytes, "cuBLAS's result");
        p.x = (double *)host_alloc(size_mul(p.n, sizeof(double)), "x");
        p.y = (double *)host_alloc(size_mul(2 * p.m, sizeof(double)), "y");
        p.y_abs = p.y + p.m;
        p.row_bound = (double *)host_alloc(size_mul(p.m, sizeof(double)), "the bounds");
        for (size_t j = 0; j < p.n; j++) p.x[j] = (rng_next(&g) & 1) ? 1.0 : -1.0;
        progress pr;
        progress_begin(&pr, "the CPU check (Freivalds)", (double)(p.k + p.m));
        freivalds_cpu(p.host_a, p.host_b, p.x, p.y, p.y_abs, p.m, p.n, p.k, &pr);
        progress_end(&pr);
        double b_max = 0.0;
        for (size_t i = 0; i < p.k * p.n; i++) b_max = fmax(b_max, fabs((double)p.host_b[i]));
        for (size_t i = 0; i < p.m; i++) {
            double s = 0.0;
            for (size_t l = 0; l < p.k; l++) s += fabs((double)p.host_a[i * p.k + l]);
            p.row_bound[i] = s * b_max;
        }
    }
    if (o.save) {
        size_t sa[2] = {p.m, p.k}, sb[2] = {p.k, p.n};
        if (npy_save(o.save, "a", NPY_REAL, sa, 2, p.host_a) != 0) return KL_EXIT_USAGE;
        if (npy_save(o.save, "b", NPY_REAL, sb, 2, p.host_b) != 0) return KL_EXIT_USAGE;
    }
    if (p.k % VEC != 0 || p.n % VEC != 0)
        printf("note: k or n is not a multiple of %d, so v7-v10 load A or B element by "
               "element\n\n", VEC);
    CHECK_CUBLAS(cublasCreate(&p.handle));

    bench b = {};
    b.problem = &p;
    b.out = p.c;
    b.out_bytes = c_bytes;
    b.inputs[0] = p.a, b.input_bytes[0] = a_bytes;  // no version may write them (--check-each)
    b.inputs[1] = p.b, b.input_bytes[1] = b_bytes;
    b.bytes = (double)a_bytes + (double)b_bytes + (double)c_bytes;  // each matrix once
    b.flops = 2.0 * macs;                                             // a multiply and an add
    b.check = matmul_check;
    b.save = matmul_save;
    b.extra_name = "picked";
    b.extra = picked;
    b.skip = matmul_skip;
    int rc = bench_run(&o, &env, &b, versions, selected, VERSION_COUNT);

    CHECK_CUBLAS(cublasDestroy(p.handle));
    CHECK(cudaFree((void *)p.a));
    CHECK(cudaFree((void *)p.b));
    CHECK(cudaFree(p.c));
    CHECK(cudaFree(p.padded_b));
    CHECK(cudaFree(p.sink));
    matmul_problem none = {}, *v18 = p.v18_main ? p.v18_main : &none;
    piece_plan *plans[] = {&p.streamk, &p.splitk, &p.strip, &v18->streamk, &v18->splitk};
    for (int i = 0; i < 5; i++) {
        CHECK(cudaFree(plans[i]->piece));
        CHECK(cudaFree(plans[i]->sums));
        CHECK(cudaFree(plans[i]->arrived));
    }
    free(p.v18_main);
    free(p.host_a), free(p.host_b), free(p.host_c), free(p.want), free(p.abs_row);
    free(p.cublas_c), free(p.x), free(p.y), free(p.row_bound);
    return rc;
}
