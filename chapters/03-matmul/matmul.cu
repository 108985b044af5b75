// Chapter 03: matmul. C = A B for row-major A (m x k), B (k x n), C (m x n): every classic
// lesson of GPU performance in one problem, from reading memory well to keeping the FMA units fed.
//
//   cublas      (baseline) cuBLAS GEMM in strict FP32 (FP64 in the -f64 build): the target
//   cublas-tf32 (baseline) cuBLAS on the tensor cores with TF32 inputs: a different arithmetic,
//               shown for context only (not in the -f64 build)
//   v0 naive      one thread per result; a warp walks down 32 different rows of A
//   v1 coalesced  a warp takes 32 neighbouring columns: B and C accesses become contiguous
//   v2 tiled      32 x 32 tiles of A and B staged in shared memory and reused 32 times
//   v3 prefetch   the next tile is loaded into registers while the current one is used
//   v4 unrolled   the inner loop over the tile unrolled: no counter, constant offsets, wide loads
//   v4a coarsened each thread computes 8 results down a column: one B value serves 8 FMAs
//   v4b shallow   v4a's tile 8 deep instead of 32: a quarter of the shared memory and copies
//   v4c bounded   v4b with __launch_bounds__(128, 1): more registers a thread, fewer blocks
//   v5 granular   a 64 x 64 tile for 512 threads: a copied value serves 64 FMAs, not 32
//   v6 regblock   each thread computes an 8 x 8 block: 16 loads from shared memory feed 64 FMAs
//   v6a readonly  global loads through the read-only path (const __restrict__, __ldg)
//   v6b wide      16-byte global loads and stores
//   v6c transposed A stored transposed in shared memory: a thread's A values in 16-byte loads
//   v6d padded    the transposed tile's rows padded: the transposing stores hit different banks
//   v6e twoblocks two blocks an SM, which the registers freed by v6a-v6d allow
//   v7 vectorized v6e's accesses written in vectors: the form v8 and the later versions build on
//   v8 warptiled  a warp owns a 64 x 32 patch and each thread four 4 x 4 pieces: no bank conflicts
//   v9 async      cp.async copies tiles straight into a ring of shared buffers: one barrier a tile
//   v9a bigtile   the same kernel on a 128 x 256 tile, 16 deep, chosen for this GPU (3 stages)
//   v10 tuned     a ring of 4 stages instead of 3
//   v11 serpentine the FMAs of a step in serpentine order: odd rows run right to left
//   v12 tallwarps warps of 128 x 32 instead of 64 x 64: each thread a 16 x 8 block
//   v13 streamk   the tiles of the last, partial wave cut along k and shared by all the SMs
//   v14 smalltile 64 x 128 tiles, three blocks an SM: more, smaller tiles for small matrices
//   v15 splitk    each tile's k steps cut into runs when there are too few tiles for the GPU
//   v1-maxshared and v7-maxl1   an experiment: v1 and v7 asking for the other L1/shared split
//   v6-noprefetch an experiment: v6 without v3's prefetch, to measure its registers and its gain
//   v6-tile64     an experiment: v6's kernel on v5's 64 x 64 tile, its register blocking alone
//   v16 dispatch  estimates v12-v15's time from the shape and runs the fastest, as libraries do
//   v17 padded    B copied into rows that start on 16 bytes when n is not a multiple of 4
//   v18 strip     the last few columns of C, which fill a column of tiles, done as a product apart
//   v19 unbounded v14's kernel built for one block an SM, where v16 picks v14 and one round holds all
// The -f64 build adds a second baseline and three versions on the FP64 tensor cores:
//   peak        (baseline) m n k FP64 FMAs out of registers: the CUDA cores' ceiling
//   v20 dmma      v9's ring of tiles, the multiply-adds done by mma.sync m8n8k4 (8.0 and later)
//   v21 dmma16    the same with Hopper's m16n8k16 instruction, eight times the work each (9.0)
//   v22 grouped   v21 with the tiles handed out in groups of rows, so blocks in flight share B
//   v20-copyfirst an experiment: v20 with the next tile's copies before the instructions, as v9
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

#include "grid.cuh"

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
constexpr int PEAK_THREADS = 256;  // a block
constexpr int PEAK_CHAINS = 8;     // independent chains of FMAs a thread

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

#include "v00-naive.cuh"
#include "v01-coalesced.cuh"
#include "v01x-maxshared.cuh"
#include "tiles.cuh"
#include "v02-tiled.cuh"
#include "v03-prefetch.cuh"
#include "v04-unrolled.cuh"
#include "v04a-coarsened.cuh"
#include "v04b-shallow.cuh"
#include "v04c-bounded.cuh"
#include "v05-granular.cuh"
#include "v06-regblock.cuh"
#include "v06x-noprefetch.cuh"
#include "v06x-tile64.cuh"
#include "v06a-readonly.cuh"
#include "vectors.cuh"
#include "v06b-wide.cuh"
#include "v06c-transposed.cuh"
#include "v06d-padded.cuh"
#include "v06e-twoblocks.cuh"
#include "v07-vectorized.cuh"
#include "v07x-maxl1.cuh"
#include "v08-warptiled.cuh"
#include "async.cuh"
#include "v09-async.cuh"
#include "v09a-bigtile.cuh"
#include "v10-tuned.cuh"
#include "v11-serpentine.cuh"
#include "v12-tallwarps.cuh"
#include "pieces.cuh"
#include "v13-streamk.cuh"
#include "v14-smalltile.cuh"
#include "v15-splitk.cuh"
#include "v16-dispatch.cuh"
#include "v17-padded.cuh"
#include "v18-strip.cuh"
#include "v19-unbounded.cuh"
#include "dmma.cuh"
#include "v20-dmma.cuh"
#include "v20x-copyfirst.cuh"
#include "v21-dmma16.cuh"
#include "v22-grouped.cuh"

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"cublas", "cublas", launch_cublas, KL_BASELINE},
#ifdef MATMUL_FP64
    {"peak", "fp64-fma", launch_peak, KL_BASELINE | KL_UNCHECKED},
#else
    {"cublas-tf32", "tf32", launch_cublas_tf32, KL_BASELINE},
#endif
    // the ladder
    {"v0", "naive", launch_v0, 0},
    {"v1", "coalesced", launch_v1, 0},
    {"v2", "tiled", launch_v2, 0},
    {"v3", "prefetch", launch_v3, 0},
    {"v4", "unrolled", launch_v4, 0},
    {"v4a", "coarsened", launch_v4a, 0},
    {"v4b", "shallow", launch_v4b, 0},
    {"v4c", "bounded", launch_v4c, 0},
    {"v5", "granular", launch_v5, 0},
    {"v6", "regblock", launch_v6, 0},
    {"v6a", "readonly", launch_v6a, 0},
    {"v6b", "wide", launch_v6b, 0},
    {"v6c", "transposed", launch_v6c, 0},
    {"v6d", "padded", launch_v6d, 0},
    {"v6e", "twoblocks", launch_v6e, 0},
    {"v7", "vectorized", launch_v7, 0},
    {"v8", "warptiled", launch_v8, 0},
    {"v9", "async", launch_v9, 0},
    {"v9a", "bigtile", launch_v9a, 0},
    {"v10", "tuned", launch_v10, 0},
    {"v11", "serpentine", launch_v11, 0},
    {"v12", "tallwarps", launch_v12, 0},
    {"v13", "streamk", launch_v13, 0},
    {"v14", "smalltile", launch_v14, 0},
    {"v15", "splitk", launch_v15, 0},
#ifdef MATMUL_FP64
    // the ladder on the FP64 tensor cores (the -f64 build): v9's ring of tiles with mma.sync
    {"v20", "dmma", launch_v20, 0},
    {"v21", "dmma16", launch_v21, 0},
    {"v22", "grouped", launch_v22, 0},
#endif
    // experiments on v1: the carveout (FP32 build), all of shared memory asked for
#ifndef MATMUL_FP64
    {"v1-maxshared", "carveout-100", launch_v1_maxshared, 0},
#endif
    // experiments on v6: what its prefetch costs and buys, and what its larger tile adds
    {"v6-noprefetch", "no-prefetch", launch_v6_noprefetch, 0},
    {"v6-tile64", "tile-64", launch_v6_tile64, 0},
#ifndef MATMUL_FP64
    // experiments on v7: the carveout (FP32 build), all of L1 asked for
    {"v7-maxl1", "carveout-0", launch_v7_maxl1, 0},
#else
    // experiments on v20 (FP64 build): its next tile's copies issued before the instructions
    {"v20-copyfirst", "copy-first", launch_v20_copyfirst, 0},
#endif
    // dispatchers: each runs one of the kernels above, chosen from the shape
    {"v16", "dispatch", launch_v16, 0},
    {"v17", "padded", launch_v17, 0},
    {"v18", "strip", launch_v18, 0},
    {"v19", "unbounded", launch_v19, 0},
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

// The CSV's extra column: the version v16 ran, on the rows of v16 to v19 (empty on the others).
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
    int need = strncmp(v->tag, "v20", 3) == 0                              ? 80
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
    {  // the baseline's library, for the .env.csv
        int major = 0, minor = 0, patch = 0;
        CHECK_CUBLAS(cublasGetProperty(MAJOR_VERSION, &major));
        CHECK_CUBLAS(cublasGetProperty(MINOR_VERSION, &minor));
        CHECK_CUBLAS(cublasGetProperty(PATCH_LEVEL, &patch));
        snprintf(env.library, sizeof env.library, "cuBLAS %d.%d.%d", major, minor, patch);
    }
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
    if (p.n % VEC != 0)  // the rows of B do not start on 16 bytes (vectors.cuh, async.cuh)
        printf("note: n is not a multiple of %d, so v6b-v16 and v19 copy B one element at a "
               "time (v17 and v18 pad B first)\n", VEC);
    if (p.k % VEC != 0)  // nor those of A; from v9 on A is copied one element at a time anyway
        printf("note: k is not a multiple of %d, so v6b-v8 load A one element at a time\n", VEC);
    if (p.n % VEC != 0 || p.k % VEC != 0) printf("\n");
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
