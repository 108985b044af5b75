// Chapter 06: tensor-cores. C = A B^T with A (m x k) and B (n x k) in BF16 and C (m x n) in
// FP32, every sum accumulated in FP32: the product that almost every FLOP of a modern GPU goes
// to, taken from the tensor cores' plainest API to Hopper's asynchronous warpgroup MMA.
//
//   cublas      (baseline) cuBLAS GemmEx, BF16 in, FP32 accumulate and out: the target
//   peak        (baseline) back-to-back wgmma from shared memory, no loads: the tensor cores'
//               ceiling as this GPU sustains it (not a result; Hopper only)
//   v0 wmma        the WMMA API: a warp multiplies 16 x 16 fragments; each warp fetches its own
//                  operands from global memory, so no two warps share a load
//   v1 tiled       the block stages 128 x 64 tiles of A and B in shared memory for all its warps
//   v2 mma         mma.sync and ldmatrix through inline PTX instead of WMMA: the fragments are
//                  ours to lay out
//   v3 swizzled    the 16-byte pieces of each shared row are XOR-swizzled: ldmatrix without
//                  bank conflicts
//   v4 pipelined   cp.async copies tiles into a ring of three shared buffers: loads in flight
//                  while the tensor cores work
//   v4a tma        Hopper's copy engine (TMA) copies whole tiles, swizzled as v3 does, and
//                  counts their bytes on an mbarrier; ldmatrix and mma.sync as before
//   v4b deeper     four stages instead of three: three tiles on the way, one block an SM
//   v5 wgmma       wgmma, Hopper's warpgroup-wide MMA, reads its operands straight from the
//                  shared tiles that TMA wrote: no ldmatrix, no operand registers
//   v5a inflight   a warpgroup waits for the stage before's wgmma, not this one's: the multiply
//                  runs on through the block barrier, and the stage before is refilled
//   v5b producer   one warpgroup only loads and two only multiply, handing stages over through
//                  mbarriers: no block barrier in the loop
//   v6 specialized setmaxnreg moves the registers from the warpgroup that loads to the two that
//                  multiply
//   v7 wide        128 x 256 tiles: each A tile serves twice the columns of B
//   v8 persistent  one block per SM walks the tiles: the next tile's loads run under this
//                  tile's stores
//   v9 grouped     the tiles are walked down bands of 16 tile rows instead of along rows of C:
//                  the blocks at work at one time share their tiles of A and B through L2
//   v10 tmastore   the results go to C through shared memory and TMA stores: the copy engine
//                  writes C while the consumers go on to the next tile
//   v11 multicast  clusters of two blocks take tiles one above the other: each copies half of
//                  their tile of B, and TMA multicast writes it into both
//   v12 staggered  one consumer warpgroup runs two stages ahead of the other: each stores its
//                  results while the other multiplies
//   v13 streamk    the pairs of a last round that would leave clusters idle are cut along k
//                  into runs, one a cluster, their partial sums added through global memory
//   v14 lean       the k loop's bookkeeping in fewer instructions: the slot and the phase carried
//                  from step to step, the descriptors' low words moved by constants
//   v15 unrolled   the k loop unrolled by a turn of the ring: each step's stage a constant, so
//                  the barriers' addresses are fixed offsets and B's descriptors one uniform add
//   v16 uniform    the warpgroup read from lane 0 by a shuffle: the compiler can prove it is one
//                  value a warp and builds A's descriptors in uniform registers, as B's
//   v2-staged      an experiment: v2 with v1's stores through shared memory, to measure v2's
//                  two changes (mma.sync, stores from registers) apart
//   v12-lag1, v12-lag3  experiments: v12 with its warpgroups one and three stages apart
//   v12-halves     an experiment: v12 with its stores of C into shared memory reordered so that
//                  each half-warp writes 32 different banks (two passes a store, not four)
//   v12-hilbert    an experiment: v12 with its pairs in the order of a Hilbert curve
//   v13-always     an experiment: v13 splitting every partial last round, however little it saves
//   v13-quadstore  an experiment: v13 storing C from registers, 16 bytes a thread, no staging
//   v16-timeline   an experiment: v16 noting the clock at each unit's start, the end of its k
//                  loop, partial sums and stores; --save writes the notes (v16x-timeline.cuh)
//   v10-nostore, v10-halfstore, v10-stageonly, v10-resident, v10-loadsonly  knock-outs: v10
//                  with one part of its work taken out, timed unchecked (v10x-knockout.cuh)
//   v10-onebuffer, v10-3stages, v10-2stages  experiments: v10 with its shared memory shared out
//                  otherwise between the ring and C: 16 KB of C, or 3 stages and 80 KB, or 2
//                  stages and the whole tile's 128 KB (v10x-room.cuh)
//   v10-lean       an experiment: v10 with v14's lean k loop (v10x-lean.cuh)
//   v10-unrolled   an experiment: v10 with v16's k loop, lean, unrolled and uniform
//                  (v10x-unrolled.cuh)
//   v10-storewarp  an experiment: v10-unrolled with its TMA stores issued, and its buffers freed,
//                  by two idle warps of the producer warpgroup (v10x-storewarp.cuh)
//   v11-pingpong   an experiment: v11 with each consumer warpgroup on 64 x 256 tiles of its own,
//                  the two taking turns at the tensor cores (v11x-pingpong.cuh); v11-pingpong5
//                  with a fifth stage, v11-pingpong-noload with no loads (unchecked), and
//                  peak-1wg, the peak kernel with one warpgroup an SM (unchecked)
//
// Build and run:   make build/tensor-cores && build/tensor-cores            (8192 x 8192 x 8192)
//                  build/tensor-cores -m 4095 -n 4097 -k 4093 -v v4,v9 --input int
//                  build/tensor-cores --list | --help | --check-only | --self-test | --save out/
// v4a and the versions after it, and peak, need Hopper (compute capability 9.0) and a build for
// sm_90a, which the Makefile makes when it builds for sm_90; v0-v4 need BF16 tensor cores
// (compute capability 8.0).
#ifdef TC_FP8  // make build/tensor-cores-fp8: the FP8 program, in fp8-program.cuh
#include "fp8-program.cuh"
#else
#include <cublas_v2.h>
#include <cuda.h>  // CUtensorMap; the driver's encoder is looked up at run time, not linked
#include <cuda_bf16.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <mma.h>
#include <string.h>

#include "gpu.h"
#include "npy.h"
#include "progress.h"
#include "rng.h"

typedef __nv_bfloat16 bf16;

// 8192^3: 1.1 TFLOP (2 m n k), which the README's tables time; A and B are 128 MiB each and C
// 256 MiB, all far past the 60 MiB L2.
#define DEFAULT_M 8192
#define DEFAULT_N 8192
#define DEFAULT_K 8192
// 20 timed launches give a stable median; 3 warm-up launches take module loading, cuBLAS's
// first-call set-up and our one-time tensor maps out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42
// Up to 2^31 multiply-adds the CPU computes the whole reference (a second or two); beyond that
// the result is checked by a Freivalds product and element by element against cuBLAS.
#define REF_MAX_MACS (1ull << 31)

// --input: random, uniform in [-1, 1) then rounded to BF16; or int, whole numbers in [-2, 2],
// exact in BF16, whose products and sums are exact in FP32 while 4k <= 2^24.
static const char *const inputs[] = {"random", "int", NULL};

// What a version needs beyond the harness, in the version table's flags.
enum {
    NEEDS_BF16_MMA = 1u << 8,  // BF16 tensor cores: compute capability 8.0 or later
    NEEDS_SM90A = 1u << 9,     // wgmma and TMA: Hopper, and a build for sm_90a
};

// The problem every version sees. A and B are stored with rows of ld = k rounded up to 8
// elements (16 bytes): the copy engine (TMA) and 16-byte loads need rows that start on 16
// bytes, as cuBLAS's fast kernels do. The ld - k columns past k hold NaN, so a version that
// reads past the edge of the matrix cannot pass.
typedef struct {
    size_t m, n, k, ld;
    const bf16 *a, *b;           // A: m rows of ld, B: n rows of ld, on the device
    float *c;                    // C: m x n
    bf16 *host_a, *host_b;
    float *host_c;
    float *fa, *fb;              // A (m x k) and B (n x k) as floats, without padding: the CPU's
    bool exact;                  // integer inputs whose every partial sum is exact
    // Small problems: the whole reference, and per row the largest (|A| |B|^T)[i][j].
    double *want, *abs_row;
    // Large problems: cuBLAS's result, each row's bound sum_l |A[i][l]| * max |B|, and the
    // Freivalds vectors y = A (B^T x), y_abs = |A| (|B|^T |x|) for a random sign vector x.
    float *cublas_c;
    bool have_cublas;
    double *row_bound, *x, *y, *y_abs;
    cublasHandle_t handle;
    int cc, sms;                 // compute capability as 90, and SMs
    bool sm90a;                  // this build has sm_90a code for this GPU
    bool maps_made;              // the tensor maps below, made at the first launch that needs them
    CUtensorMap map_a, map_a64, map_b128, map_b256;
    float *peak_sink;            // where the peak kernel leaves a value, so it is not removed
    float4 *partials;            // v13's partial sums of shared tiles, a slot a warpgroup an SM
    unsigned *counters;          // v13's counts of them, 0 between launches
    unsigned long long *notes;   // v16-timeline's notes (v16x-timeline.cuh), of note_words
    size_t note_words;
    int note_blocks, note_units; // of its last launch: its blocks, and records a warpgroup
    void (*save_notes)(const void *problem, const char *dir);  // --save's, set by its launcher
} tc_problem;

// ---- the CPU reference --------------------------------------------------------------------------

// want = A B^T in double, and abs = |A| |B|^T (the scale that rounding errors are measured in).
// Both A and B are read along their rows: C[i][j] is the dot product of row i of A and row j of B.
static void tc_cpu(const float *a, const float *b, double *want, double *abs, size_t m,
                   size_t n, size_t k) {
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0.0, sa = 0.0;
            for (size_t l = 0; l < k; l++) {
                double x = (double)a[i * k + l] * (double)b[j * k + l];
                s += x, sa += fabs(x);
            }
            want[i * n + j] = s, abs[i * n + j] = sa;
        }
}

#include "freivalds.cuh"
#include "grid.cuh"
#include "ptx.cuh"

// ---- baselines ----------------------------------------------------------------------------------

#define CHECK_CUBLAS(call) check_cublas((call), #call, __FILE__, __LINE__)

static void check_cublas(cublasStatus_t s, const char *call, const char *file, int line) {
    if (s == CUBLAS_STATUS_SUCCESS) return;
    fprintf(stderr, "cuBLAS error: %s at %s:%d: %s\n", call, file, line, cublasGetStatusString(s));
    exit(KL_EXIT_GPU);
}

// cuBLAS is column-major: our row-major C (m x n) is its n x m matrix C^T = B A^T, where B's
// bytes are, to cuBLAS, the k x n matrix B^T (so it is transposed back: OP_T) and A's bytes the
// k x m matrix A^T (OP_N). The same memory, no copies: the "TN" GEMM.
static void launch_cublas(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    const float one = 1.0f, zero = 0.0f;
    CHECK_CUBLAS(cublasGemmEx(p->handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)p->n, (int)p->m,
                              (int)p->k, &one, p->b, CUDA_R_16BF, (int)p->ld, p->a, CUDA_R_16BF,
                              (int)p->ld, &zero, p->c, CUDA_R_32F, (int)p->n, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

// ---- peak: the tensor cores' ceiling -----------------------------------------------------------
// Blocks of two warpgroups issue 64 x 256 x 16 wgmma back to back on one pair of tiles in shared
// memory: no loads, no stores, nothing but the multiplies. They do as many as the product needs
// (2 m n k operations, rounded up to whole batches of 8 wgmma), so the row's TFLOP/s is the rate
// this GPU sustains on the tensor cores. The grid has PEAK_BLOCKS_PER_SM blocks for each SM, but
// only one is resident on an SM at a time: at the 154 registers a thread the compiler gives this
// kernel, a warp needs 4,928 and a scheduler's quarter of the register file (16,384) holds 3
// warps, 12 an SM, fewer than two blocks' 16. So the blocks run as two waves, two warpgroups an
// SM. The tiles hold small non-zero values: a product of zeros runs faster than real data.

constexpr int PEAK_BLOCKS_PER_SM = 2;
constexpr int PEAK_BATCH = 8;                                  // wgmma a commit group
constexpr double PEAK_OPS = 2.0 * 64 * 256 * 16 * PEAK_BATCH;  // operations in one batch

#ifdef KL_SM90A
// A warpgroup's part of the peak: `mine` batches of PEAK_BATCH wgmma of 64 x 256 x 16 from the
// 40 KB `tile` (A's 64 rows of 64 k, then B's 256), batches of 8 (two k steps of the tile), at
// most two batches in the queue. It returns one result, for the kernel to keep.
__device__ inline float peak_loop(const bf16 *tile, unsigned long long mine) {
    uint64_t da = smem_desc(tile), db = smem_desc(tile + 64 * 64);
    float acc[128] = {};
    fence_registers(acc);  // the zeros are in place before any wgmma
    wgmma_fence();
    for (unsigned long long i = 0; i < mine; i++) {
#pragma unroll
        for (int j = 0; j < PEAK_BATCH; j++) wgmma_64x256x16(acc, da + 2 * (j % 4), db + 2 * (j % 4));
        wgmma_commit();
        wgmma_wait<1>();
    }
    wgmma_wait<0>();
    fence_registers(acc);
    return acc[0];
}
#endif

__global__ __launch_bounds__(2 * WG) void tc_peak(float *sink, unsigned long long batches) {
#ifdef KL_SM90A
    constexpr int BK = 64;  // columns of k in a tile: one 128-byte row, the swizzle's span
    __shared__ alignas(1024) bf16 tile[(64 + 256) * BK];  // A's 64 rows, then B's 256: 40 KB
    for (int i = threadIdx.x; i < (64 + 256) * BK; i += blockDim.x)
        tile[i] = __float2bfloat16((float)(i % 7 - 3) * 0.125f);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // ordinary stores, read by wgmma
    __syncthreads();
    // the same count for both warpgroups of a block: a count that differed between the threads
    // of a block would make the compiler serialize the wgmma
    unsigned long long mine = batches / gridDim.x + (blockIdx.x < batches % gridDim.x);
    float got = peak_loop(tile, mine);
    if (threadIdx.x % WG == 0) sink[2 * blockIdx.x + threadIdx.x / WG] = got;
#endif
}

static void launch_peak(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    double ops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    // a batch for each warpgroup: two for a block
    unsigned long long batches = (unsigned long long)ceil(ops / (2 * PEAK_OPS));
    tc_peak<<<PEAK_BLOCKS_PER_SM * p->sms, 2 * WG>>>(p->peak_sink, batches);
}

#include "wmma.cuh"
#include "v00-wmma.cuh"
#include "smem-tile.cuh"
#include "v01-tiled.cuh"
#include "warp-tile.cuh"
#include "v02-mma.cuh"
#include "v02x-staged.cuh"
#include "v03-swizzled.cuh"
#include "v04-pipelined.cuh"
#include "hopper-ring.cuh"
#include "hopper-tiles.cuh"
#include "v04a-tma.cuh"
#include "v04b-deeper.cuh"
#include "v05-wgmma.cuh"
#include "v05a-inflight.cuh"
#include "v05b-producer.cuh"
#include "v06-specialized.cuh"
#include "v07-wide.cuh"
#include "v08-persistent.cuh"
#include "v09-grouped.cuh"
#include "tma-store.cuh"
#include "v10-tmastore.cuh"
#include "v10x-knockout.cuh"
#include "v10x-room.cuh"
#include "cluster-pairs.cuh"
#include "v11-multicast.cuh"
#include "v12-staggered.cuh"
#include "v12x-lag.cuh"
#include "v12x-halves.cuh"
#include "v12x-hilbert.cuh"
#include "streamk.cuh"
#include "v13-streamk.cuh"
#include "v13x-always.cuh"
#include "quad-store.cuh"
#include "v13x-quadstore.cuh"
#include "v14-lean.cuh"
#include "v15-unrolled.cuh"
#include "v16-uniform.cuh"
#include "v16x-timeline.cuh"
#include "v10x-lean.cuh"
#include "v10x-unrolled.cuh"
#include "v10x-storewarp.cuh"
#include "v11x-pingpong.cuh"

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"cublas", "cublas", launch_cublas, KL_BASELINE | NEEDS_BF16_MMA},
    {"peak", "wgmma-peak", launch_peak, KL_BASELINE | KL_UNCHECKED | NEEDS_SM90A},
    // the ladder
    {"v0", "wmma", launch_v0, NEEDS_BF16_MMA},
    {"v1", "tiled", launch_v1, NEEDS_BF16_MMA},
    {"v2", "mma", launch_v2, NEEDS_BF16_MMA},
    {"v3", "swizzled", launch_v3, NEEDS_BF16_MMA},
    {"v4", "pipelined", launch_v4, NEEDS_BF16_MMA},
    {"v4a", "tma", launch_v4a, NEEDS_SM90A},
    {"v4b", "deeper", launch_v4b, NEEDS_SM90A},
    {"v5", "wgmma", launch_v5, NEEDS_SM90A},
    {"v5a", "inflight", launch_v5a, NEEDS_SM90A},
    {"v5b", "producer", launch_v5b, NEEDS_SM90A},
    {"v6", "specialized", launch_v6, NEEDS_SM90A},
    {"v7", "wide", launch_v7, NEEDS_SM90A},
    {"v8", "persistent", launch_v8, NEEDS_SM90A},
    {"v9", "grouped", launch_v9, NEEDS_SM90A},
    {"v10", "tmastore", launch_v10, NEEDS_SM90A},
    {"v11", "multicast", launch_v11, NEEDS_SM90A},
    {"v12", "staggered", launch_v12, NEEDS_SM90A},
    {"v13", "streamk", launch_v13, NEEDS_SM90A},
    {"v14", "lean", launch_v14, NEEDS_SM90A},
    {"v15", "unrolled", launch_v15, NEEDS_SM90A},
    {"v16", "uniform", launch_v16, NEEDS_SM90A},
    // experiments on v2: its stores from registers undone (v1's way to C, through shared memory)
    {"v2-staged", "staged", launch_v2_staged, NEEDS_BF16_MMA},
    // experiments on v10: parts of its work knocked out, to see what each costs (unchecked)
    {"v10-nostore", "nostore", launch_v10_nostore, KL_UNCHECKED | NEEDS_SM90A},
    {"v10-halfstore", "halfstore", launch_v10_halfstore, KL_UNCHECKED | NEEDS_SM90A},
    {"v10-stageonly", "stageonly", launch_v10_stageonly, KL_UNCHECKED | NEEDS_SM90A},
    {"v10-resident", "resident", launch_v10_resident, KL_UNCHECKED | NEEDS_SM90A},
    {"v10-loadsonly", "loadsonly", launch_v10_loadsonly, KL_UNCHECKED | NEEDS_SM90A},
    // experiments on v10: its shared memory shared out otherwise between the ring and C
    {"v10-onebuffer", "onebuffer", launch_v10_onebuffer, NEEDS_SM90A},
    {"v10-3stages", "3stages", launch_v10_3stages, NEEDS_SM90A},
    {"v10-2stages", "2stages", launch_v10_2stages, NEEDS_SM90A},
    // experiments on v10: v14's lean k loop, and v16's, without v11-v13's changes
    {"v10-lean", "leanloop", launch_v10_lean, NEEDS_SM90A},
    {"v10-unrolled", "unrolledloop", launch_v10_unrolled, NEEDS_SM90A},
    // an experiment on v10-unrolled: the stores of C issued by the producer warpgroup's idle warps
    {"v10-storewarp", "storewarp", launch_v10_storewarp, NEEDS_SM90A},
    // experiments on v12: how many stages apart its consumer warpgroups run (v12 has 2)
    {"v12-lag1", "lag1", launch_v12_lag1, NEEDS_SM90A},
    {"v12-lag3", "lag3", launch_v12_lag3, NEEDS_SM90A},
    // an experiment on v12: its stores of C into shared memory without bank conflicts
    {"v12-halves", "halves", launch_v12_halves, NEEDS_SM90A},
    // an experiment on v12: its pairs of tiles along a Hilbert curve
    {"v12-hilbert", "hilbert", launch_v12_hilbert, NEEDS_SM90A},
    // an experiment on v13: every partial last round split, however little it saves
    {"v13-always", "always", launch_v13_always, NEEDS_SM90A},
    // an experiment on v13: C stored from registers, 16 bytes a thread, no staging
    {"v13-quadstore", "quadstore", launch_v13_quadstore, NEEDS_SM90A},
    // an experiment on v16: the clock noted at each unit's steps (--save writes the notes)
    {"v16-timeline", "timeline", launch_v16_timeline, NEEDS_SM90A},
    // experiments on v11: each consumer warpgroup on tiles of its own, the two taking turns
    {"v11-pingpong", "pingpong", launch_v11_pingpong, NEEDS_SM90A},
    {"v11-pingpong5", "pingpong5", launch_v11_pingpong5, NEEDS_SM90A},
    {"v11-pingpong-noload", "noload", launch_v11_pingpong_noload, KL_UNCHECKED | NEEDS_SM90A},
    {"peak-1wg", "onewg", launch_peak_1wg, KL_UNCHECKED | NEEDS_SM90A},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

#include "sm90a-probe.cuh"

// A version that needs what this GPU or this build lacks is skipped with one line saying what.
static const char *tc_skip(void *problem, const version *v) {
    const tc_problem *p = (const tc_problem *)problem;
    static char why[160];
    if ((v->flags & NEEDS_BF16_MMA) && p->cc < 80) {
        snprintf(why, sizeof why, "needs BF16 tensor cores (compute capability 8.0); this GPU is %d.%d",
                 p->cc / 10, p->cc % 10);
        return why;
    }
    if ((v->flags & NEEDS_SM90A) && p->cc != 90) {
        snprintf(why, sizeof why, "needs wgmma and TMA (Hopper, compute capability 9.0); this GPU "
                 "is %d.%d", p->cc / 10, p->cc % 10);
        return why;
    }
    if ((v->flags & NEEDS_SM90A) && !p->sm90a)
        return "needs a build for sm_90a (wgmma, TMA): make ARCH=sm_90 builds this chapter for it";
    return NULL;
}

// ---- checking and saving ------------------------------------------------------------------------

// The rounding error of a sum of k exact products (a product of two BF16 is exact in FP32), in
// units of |A| |B|^T: each of the k additions is off by at most one unit in the last place of
// the running sum, 2u with u = 2^-24 (a tensor core may truncate instead of rounding, which
// doubles round-to-nearest's u), and the conversion and the double reference add a little:
// 2 (k + 2) 2u covers it. Integer inputs are exact: no tolerance at all.
static double tolerance(const tc_problem *p) {
    return p->exact ? 0.0 : 4.0 * ((double)p->k + 2.0) * ldexp(1.0, -24);
}

static void tc_check(void *problem, const version *v, check_result *r) {
    tc_problem *p = (tc_problem *)problem;
    size_t m = p->m, n = p->n;
    CHECK(cudaMemcpy(p->host_c, p->c, size_mul(size_mul(m, n), sizeof(float)),
                     cudaMemcpyDeviceToHost));
    double tol = tolerance(p);
    if (p->want) {  // small: every element against the reference, scaled by its row of |A| |B|^T
        double *got = p->want + m * n;  // a spare row of doubles, after the reference
        for (size_t i = 0; i < m; i++) {
            for (size_t j = 0; j < n; j++) got[j] = p->host_c[i * n + j];
            check_f64(r, got, p->want + i * n, 1, n, i, tol * p->abs_row[i], 0.0);
        }
        return;
    }
    // Large: Freivalds. C x must match A (B^T x) within the same bound, carried through |x| = 1,
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
        memcpy(p->cublas_c, p->host_c, size_mul(size_mul(m, n), sizeof(float)));
        p->have_cublas = true;
        return;
    }
    if (p->have_cublas)  // both results are off by up to their bound
        for (size_t i = 0; i < m; i++)
            check_f32(r, p->host_c + i * n, p->cublas_c + i * n, 1, n, i, 2 * tol * p->row_bound[i],
                      0.0);
}

static void tc_save(void *problem, const char *dir, const char *tag) {
    tc_problem *p = (tc_problem *)problem;
    size_t shape[2] = {p->m, p->n};
    if (npy_save(dir, tag, "<f4", shape, 2, p->host_c) != 0) exit(KL_EXIT_USAGE);
    if (strcmp(tag, "v16-timeline") == 0 && p->save_notes) p->save_notes(p, dir);
}

// ---- inputs -------------------------------------------------------------------------------------

// "random": uniform in [-1, 1), then rounded to the nearest BF16 (8 bits of mantissa). "int":
// whole numbers in [-2, 2]. The floats the CPU uses are the BF16 values exactly.
typedef struct {
    float *x;
    bool ints;
} fill_target;

static void put_input(void *ctx, size_t i, uint64_t bits) {
    fill_target *t = (fill_target *)ctx;
    float v = t->ints ? (float)((int)rng_bits_below(bits, 5) - 2)
                      : rng_bits_float(bits, -1.0f, 1.0f);
    t->x[i] = __bfloat162float(__float2bfloat16_rn(v));
}

// rows x k floats into x (dense) and into xb as BF16 with rows of ld, NaN in the padding.
static void fill(rng *g, float *x, bf16 *xb, size_t rows, size_t k, size_t ld, bool ints) {
    fill_target t = {x, ints};
    rng_fill(g, rows * k, put_input, &t);
    __nv_bfloat16_raw nan_bits;
    nan_bits.x = 0xFFFF;  // a BF16 NaN
    const bf16 nan = nan_bits;
    for (size_t i = 0; i < rows; i++) {
        for (size_t l = 0; l < k; l++) xb[i * ld + l] = __float2bfloat16_rn(x[i * k + l]);
        for (size_t l = k; l < ld; l++) xb[i * ld + l] = nan;
    }
}

static bool exact_ints(size_t k) {
    return 4.0 * (double)k <= 16777216.0;  // |a sum of k products in [-4, 4]| <= 2^24
}

// ---- the self-test of the CPU reference (no GPU) -----------------------------------------------

static int report(const char *name, bool ok) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", name);
    return ok ? 0 : 1;
}

static int tc_self_test(void) {
    int failed = 0;
    // a 2 x 3 times (2 x 3)^T example worked by hand
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 9, 11, 8, 10, 12};
    const double want[4] = {58, 64, 139, 154};
    double got[4], abs[4];
    tc_cpu(a, b, got, abs, 2, 2, 3);
    failed += report("tc_cpu: 2 x 3 times (2 x 3)^T by hand", memcmp(got, want, sizeof want) == 0);
    const float neg[6] = {-1, 2, -3, 4, -5, 6};
    tc_cpu(neg, b, got, abs, 2, 2, 3);
    failed += report("tc_cpu: |A| |B|^T with signs", memcmp(abs, want, sizeof abs) == 0);
    // BF16 rounding: 8 bits of mantissa, to nearest, ties to even
    float r1 = __bfloat162float(__float2bfloat16_rn(1.0f + 1.0f / 512));      // a tie: to 1
    float r2 = __bfloat162float(__float2bfloat16_rn(1.0f + 3.0f / 512));      // a tie: to 1 + 2/256
    float r3 = __bfloat162float(__float2bfloat16_rn(1.0f + 1.0f / 256 + 1e-4f));  // above: up
    failed += report("bf16: round to nearest, ties to even",
                     r1 == 1.0f && r2 == 1.0f + 2.0f / 256 && r3 == 1.0f + 1.0f / 128);
    // against a plain loop over B's columns, and against Freivalds, at odd shapes
    const size_t shapes[][3] = {{1, 1, 1}, {7, 3, 5}, {3, 7, 1}, {33, 65, 17}, {2, 1, 40}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2], ld = round_up(k, 8);
        float *x = (float *)host_alloc((m * k + n * k) * sizeof(float), "self-test");
        bf16 *xb = (bf16 *)host_alloc((m + n) * ld * sizeof(bf16), "self-test");
        double *w = (double *)host_alloc((2 * m * n + n + 2 * m) * sizeof(double), "self-test");
        double *ab = w + m * n, *v = ab + m * n, *y = v + n, *y_abs = y + m;
        rng g;
        rng_init(&g, 7 + s);
        fill(&g, x, xb, m + n, k, ld, s % 2 == 1);
        const float *ma = x, *mb = x + m * k;
        tc_cpu(ma, mb, w, ab, m, n, k);
        bool same = true, padded = true;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                double d = 0.0;
                for (size_t l = 0; l < k; l++) d += (double)ma[i * k + l] * mb[j * k + l];
                if (fabs(d - w[i * n + j]) > 1e-12 * ab[i * n + j]) same = false;
            }
        for (size_t i = 0; i < m + n; i++)
            for (size_t l = 0; l < ld; l++)
                padded &= l < k ? __bfloat162float(xb[i * ld + l]) == x[i * k + l]
                                : isnan(__bfloat162float(xb[i * ld + l]));
        char name[96];
        snprintf(name, sizeof name, "tc_cpu: dot products at %zu x %zu x %zu", m, n, k);
        failed += report(name, same);
        snprintf(name, sizeof name, "fill: BF16 rows of %zu, NaN past k = %zu", ld, k);
        failed += report(name, padded);
        for (size_t j = 0; j < n; j++) v[j] = (j % 3 == 0) ? -1.0 : 1.0;
        freivalds_cpu(ma, mb, v, y, y_abs, m, n, k, NULL);
        bool agree = true;
        for (size_t i = 0; i < m; i++) {
            double s2 = 0.0;
            for (size_t j = 0; j < n; j++) s2 += w[i * n + j] * v[j];
            if (fabs(s2 - y[i]) > 1e-12 * y_abs[i] + 1e-300) agree = false;
        }
        snprintf(name, sizeof name, "freivalds_cpu: C x = A (B^T x) at %zu x %zu x %zu", m, n, k);
        failed += report(name, agree);
        free(x), free(xb), free(w);
    }
    failed += report("exact_ints: exact up to 4 k = 2^24, not beyond",
                     exact_ints(1000) && exact_ints(1 << 22) && !exact_ints((1 << 22) + 1));
    // v13's plan: every k step of every pair in exactly one unit; the whole pairs first; a shared
    // stretch only as the first unit of a run (one slot a cluster); each pair's sharers counted as
    // its adder counts them; for grids of 66 and 57 clusters (132 and 114 SMs) and small ones
    bool planned = true;
    const size_t plan_pairs[] = {1, 2, 8, 16, 56, 57, 58, 64, 66, 67, 120, 256, 272, 576, 1024};
    const int plan_steps[] = {1, 2, 3, 16, 17, 21, 32, 64, 79, 96, 128};
    for (size_t clusters : {(size_t)66, (size_t)57, (size_t)7, (size_t)1})
        for (size_t pairs : plan_pairs)
            for (int steps : plan_steps)
                for (int min_idle : {0, 16}) {
                    // the launcher's grid, as launch_clusters caps it
                    size_t grid =
                        streamk_grid((unsigned)pairs, (unsigned)clusters, steps, min_idle);
                    if (grid > clusters) grid = clusters;
                    int *seen = (int *)calloc(pairs * steps, sizeof(int));
                    int *shares = (int *)calloc(pairs, sizeof(int));   // stretches shared
                    int *counted = (int *)calloc(pairs, sizeof(int));  // sharers the adder awaits
                    for (size_t q = 0; q < grid; q++) {
                        streamk_work w(pairs, steps, q, grid, min_idle);
                        bool in_run = false;
                        int units_in_run = 0;
                        for (work_unit u; w.next_unit(u);) {
                            planned &= u.pair < pairs && u.k0 < u.k1 && u.k1 <= steps;
                            if (u.pair >= pairs) break;
                            planned &= !in_run || u.pair >= w.whole;  // whole pairs first
                            in_run = u.pair >= w.whole;
                            for (int k = u.k0; k < u.k1; k++) seen[u.pair * steps + k]++;
                            if (u.k0 > 0) planned &= units_in_run == 0, shares[u.pair]++;
                            else if (u.k1 < steps)
                                counted[u.pair] += (int)(w.sharers_end(u.pair, q) - q - 1);
                            units_in_run += in_run;
                        }
                    }
                    for (size_t i = 0; i < pairs * (size_t)steps; i++) planned &= seen[i] == 1;
                    for (size_t j = 0; j < pairs; j++) planned &= shares[j] == counted[j];
                    free(seen), free(shares), free(counted);
                }
    failed += report("streamk_work: v13's units cover every k step of every pair once", planned);
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ---- main ---------------------------------------------------------------------------------------

int main(int argc, char **argv) {
    options o = {};
    o.program = "tensor-cores";
    o.chapter = "06-tensor-cores";
    o.sizes = "mnk";
    o.m_means = "rows of A and C";
    o.n_means = "rows of B, columns of C";
    o.k_means = "columns of A and B";
    o.inputs = inputs;
    o.input = "random";
    o.m = DEFAULT_M, o.n = DEFAULT_N, o.k = DEFAULT_K;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return tc_self_test();

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

    tc_problem p = {};
    p.m = o.m, p.n = o.n, p.k = o.k;
    p.ld = round_up(p.k, 8);
    p.cc = env.cc_major * 10 + env.cc_minor;
    p.sms = env.sms;
    size_t a_bytes = size_mul(size_mul(p.m, p.ld), sizeof(bf16));
    size_t b_bytes = size_mul(size_mul(p.n, p.ld), sizeof(bf16));
    size_t c_bytes = size_mul(size_mul(p.m, p.n), sizeof(float));
    size_t all_bytes = a_bytes + b_bytes;
    all_bytes = (all_bytes < a_bytes || all_bytes + c_bytes < all_bytes) ? SIZE_MAX
                                                                         : all_bytes + c_bytes;
    gpu_require(all_bytes, "A, B and C");
    if (p.m > INT32_MAX || p.n > INT32_MAX || p.ld > INT32_MAX) {  // cuBLAS and TMA take ints
        fprintf(stderr, "problem too big for this GPU: a side of 2^31 or more\n");
        return KL_EXIT_GPU;
    }
    p.a = (const bf16 *)gpu_alloc(a_bytes, "A");
    p.b = (const bf16 *)gpu_alloc(b_bytes, "B");
    p.c = (float *)gpu_alloc(c_bytes, "C");
    p.peak_sink = (float *)gpu_alloc(2 * PEAK_BLOCKS_PER_SM * (size_t)p.sms * sizeof(float), "peak");
    p.partials = (float4 *)gpu_alloc(streamk_partial_bytes(p.sms), "v13's partial sums");
    p.counters = (unsigned *)gpu_alloc(streamk_counter_bytes(p.sms), "v13's counters");
    CHECK(cudaMemset(p.counters, 0, streamk_counter_bytes(p.sms)));
    p.host_a = (bf16 *)host_alloc(a_bytes, "A");
    p.host_b = (bf16 *)host_alloc(b_bytes, "B");
    p.host_c = (float *)host_alloc(c_bytes, "the results");
    p.fa = (float *)host_alloc(size_mul(size_mul(p.m, p.k), sizeof(float)), "A as floats");
    p.fb = (float *)host_alloc(size_mul(size_mul(p.n, p.k), sizeof(float)), "B as floats");

    bool ints = strcmp(o.input, "int") == 0;
    rng g;
    rng_init(&g, o.seed);
    fill(&g, p.fa, p.host_a, p.m, p.k, p.ld, ints);
    fill(&g, p.fb, p.host_b, p.n, p.k, p.ld, ints);
    p.exact = ints && exact_ints(p.k);
    CHECK(cudaMemcpy((void *)p.a, p.host_a, a_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy((void *)p.b, p.host_b, b_bytes, cudaMemcpyHostToDevice));
    p.sm90a = p.cc == 90 && probe_sm90a();

    double macs = (double)p.m * (double)p.n * (double)p.k;
    if (macs <= (double)REF_MAX_MACS) {
        // the reference, a spare row for widening results, and each row's largest |A| |B|^T
        size_t mn = p.m * p.n;
        p.want = (double *)host_alloc(size_mul(2 * mn + p.n, sizeof(double)), "the reference");
        double *abs = p.want + mn + p.n;
        tc_cpu(p.fa, p.fb, p.want, abs, p.m, p.n, p.k);
        p.abs_row = (double *)host_alloc(size_mul(p.m, sizeof(double)), "the bounds");
        for (size_t i = 0; i < p.m; i++) {
            double mx = 0.0;
            for (size_t j = 0; j < p.n; j++) mx = fmax(mx, abs[i * p.n + j]);
            p.abs_row[i] = mx;
        }
    } else {
        printf("check: too large for the CPU reference: Freivalds (A (B^T x), x = random signs) "
               "and element by element against cublas\n\n");
        p.cublas_c = (float *)host_alloc(c_bytes, "cuBLAS's result");
        p.x = (double *)host_alloc(size_mul(p.n, sizeof(double)), "x");
        p.y = (double *)host_alloc(size_mul(2 * p.m, sizeof(double)), "y");
        p.y_abs = p.y + p.m;
        p.row_bound = (double *)host_alloc(size_mul(p.m, sizeof(double)), "the bounds");
        for (size_t j = 0; j < p.n; j++) p.x[j] = (rng_next(&g) & 1) ? 1.0 : -1.0;
        progress pr;
        progress_begin(&pr, "the CPU check (Freivalds)", (double)(p.n + p.m));
        freivalds_cpu(p.fa, p.fb, p.x, p.y, p.y_abs, p.m, p.n, p.k, &pr);
        progress_end(&pr);
        double b_max = 0.0;
        for (size_t i = 0; i < p.n * p.k; i++) b_max = fmax(b_max, fabs((double)p.fb[i]));
        for (size_t i = 0; i < p.m; i++) {
            double s = 0.0;
            for (size_t l = 0; l < p.k; l++) s += fabs((double)p.fa[i * p.k + l]);
            p.row_bound[i] = s * b_max;
        }
    }
    if (o.save) {
        size_t sa[2] = {p.m, p.k}, sb[2] = {p.n, p.k};
        if (npy_save(o.save, "a", "<f4", sa, 2, p.fa) != 0) return KL_EXIT_USAGE;
        if (npy_save(o.save, "b", "<f4", sb, 2, p.fb) != 0) return KL_EXIT_USAGE;
    }
    CHECK_CUBLAS(cublasCreate(&p.handle));

    bench b = {};
    b.problem = &p;
    b.out = p.c;
    b.out_bytes = c_bytes;
    b.inputs[0] = p.a, b.input_bytes[0] = a_bytes;  // no version may write them (--check-each)
    b.inputs[1] = p.b, b.input_bytes[1] = b_bytes;
    // each matrix once: A and B in BF16 (k columns, not the padding), C in FP32
    b.bytes = 2.0 * ((double)p.m + (double)p.n) * (double)p.k + 4.0 * (double)p.m * (double)p.n;
    b.flops = 2.0 * macs;  // a multiply and an add
    b.check = tc_check;
    b.save = tc_save;
    b.skip = tc_skip;
    int rc = bench_run(&o, &env, &b, versions, selected, VERSION_COUNT);

    CHECK_CUBLAS(cublasDestroy(p.handle));
    CHECK(cudaFree((void *)p.a));
    CHECK(cudaFree((void *)p.b));
    CHECK(cudaFree(p.c));
    CHECK(cudaFree(p.peak_sink));
    CHECK(cudaFree(p.partials));
    CHECK(cudaFree(p.notes));
    CHECK(cudaFree(p.counters));
    free(p.host_a), free(p.host_b), free(p.host_c), free(p.fa), free(p.fb), free(p.want);
    free(p.abs_row), free(p.cublas_c), free(p.x), free(p.y), free(p.row_bound);
    return rc;
}
#endif  // TC_FP8
