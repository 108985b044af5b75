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
//   v5 wgmma       Hopper: TMA copies whole tiles (swizzled by the copy engine) and wgmma, a
//                  warpgroup-wide MMA, reads its operands straight from shared memory
//   v6 specialized one warpgroup only loads and two only multiply, handing stages over through
//                  mbarriers; setmaxnreg moves the registers to the warpgroups that multiply
//   v7 wide        128 x 256 tiles: each A tile serves twice the columns of B
//   v8 persistent  one block per SM walks the tiles: the next tile's loads run under this
//                  tile's stores
//   v9 grouped     the tiles are walked down bands of 16 tile rows instead of along rows of C:
//                  the blocks at work at one time share their tiles of A and B through L2
//
// Build and run:   make build/tensor-cores && build/tensor-cores            (8192 x 8192 x 8192)
//                  build/tensor-cores -m 4095 -n 4097 -k 4093 -v v4,v9 --input int
//                  build/tensor-cores --list | --help | --check-only | --self-test | --save out/
// v5-v9 and peak need Hopper (compute capability 9.0) and a build for sm_90a, which the Makefile
// makes when it builds for sm_90; v0-v4 need BF16 tensor cores (compute capability 8.0).
#include <cublas_v2.h>
#include <cuda.h>  // CUtensorMap; the driver's encoder is looked up at run time, not linked
#include <cuda_bf16.h>
#include <float.h>
#include <math.h>
#include <mma.h>
#include <string.h>

#include "gpu.h"
#include "npy.h"
#include "progress.h"
#include "rng.h"

typedef __nv_bfloat16 bf16;

// 8192^3: 1.1 TFLOP, about 1.4 ms for cuBLAS on an H200; A and B are 128 MiB each and C
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
    CUtensorMap map_a, map_b128, map_b256;
    float *peak_sink;            // where the peak kernel leaves a value, so it is not removed
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

// y = A (B^T x) and y_abs = |A| (|B|^T |x|) for a vector x of n entries: O(mk + nk) work, so it
// checks products far too large for the full reference (Freivalds' idea). pr (or NULL) hears
// of each row of B, then of A: n + m rows in all.
static void freivalds_cpu(const float *a, const float *b, const double *x, double *y,
                          double *y_abs, size_t m, size_t n, size_t k, progress *pr) {
    double *bx = (double *)host_alloc(size_mul(k, 2 * sizeof(double)), "B^T x");
    double *bx_abs = bx + k;
    for (size_t l = 0; l < k; l++) bx[l] = bx_abs[l] = 0.0;
    for (size_t j = 0; j < n; j++) {  // B^T x, a row of B at a time
        for (size_t l = 0; l < k; l++) {
            bx[l] += (double)b[j * k + l] * x[j];
            bx_abs[l] += fabs((double)b[j * k + l] * x[j]);
        }
        progress_update(pr, (double)j);
    }
    for (size_t i = 0; i < m; i++) {
        double s = 0.0, sa = 0.0;
        for (size_t l = 0; l < k; l++) {
            s += (double)a[i * k + l] * bx[l];
            sa += fabs((double)a[i * k + l]) * bx_abs[l];
        }
        y[i] = s, y_abs[i] = sa;
        progress_update(pr, (double)(n + i));
    }
    free(bx);
}

// ---- the grid -----------------------------------------------------------------------------------

// Every version hands out tiles of C, one per block, numbered row by row in blockIdx.x.
struct tile_origin {
    size_t r0, c0;  // the tile's first row and column in C
};

__device__ inline tile_origin tile_at(size_t tile, size_t n, int tile_rows, int tile_cols) {
    size_t tiles_per_row = (n + tile_cols - 1) / tile_cols;
    return {tile / tiles_per_row * tile_rows, tile % tiles_per_row * tile_cols};
}

static unsigned tiles(size_t m, size_t n, int tile_rows, int tile_cols) {
    return (unsigned)(ceil_div(m, tile_rows) * ceil_div(n, tile_cols));
}

// One result pair C[row][col], C[row][col + 1] from a fragment: one 8-byte store when both are
// inside C and aligned (n even), else each on its own, and nothing outside C.
__device__ inline void store_pair(float *c, size_t row, size_t col, size_t m, size_t n, float x,
                                  float y) {
    if (row >= m) return;
    float *p = c + row * n + col;
    if (n % 2 == 0 && col + 1 < n) {
        *reinterpret_cast<float2 *>(p) = make_float2(x, y);
    } else {
        if (col < n) p[0] = x;
        if (col + 1 < n) p[1] = y;
    }
}

// One 16-byte piece of a matrix (8 BF16: row `row`, columns col .. col + 7, col a multiple of 8)
// with `rows` rows and k columns, zeros past its edges. A piece that starts before k ends
// inside the row's ld, so the load itself is always in bounds; its columns past k are padding.
__device__ inline uint4 load_piece(const bf16 *x, size_t row, size_t col, size_t rows, size_t k,
                                   size_t ld) {
    uint4 v = make_uint4(0, 0, 0, 0);
    if (row < rows && col < k) {
        v = *reinterpret_cast<const uint4 *>(x + row * ld + col);
        if (col + 8 > k) {  // the last piece of the row: clear the padding
            unsigned short *e = reinterpret_cast<unsigned short *>(&v);
#pragma unroll
            for (int i = 0; i < 8; i++)
                if (col + i >= k) e[i] = 0;
        }
    }
    return v;
}

// The block tile of v1 on: 128 x 128 of C, and the 64 columns of k that one step multiplies
// (64 BF16 = 128 bytes: one shared row is exactly the span of the 128-byte swizzle of v3 and v5).
constexpr int BM = 128, BN = 128, BK = 64;
constexpr int PIECES = BK / 8;  // 16-byte pieces in a row of a tile
// 8 warps: a 2 x 4 grid of warps over the 128 x 128 tile, each warp a 64 x 32 piece of C.
constexpr int THREADS = 256;
enum { WARP_M = 64, WARP_N = 32 };

// ---- the tensor cores' instructions, one function each -----------------------------------------
// Every PTX instruction the chapter uses, wrapped in a small function that says what it does,
// so that each kernel reads as its idea. ldmatrix and mma.sync need compute capability 8.0
// for BF16; the rest are Hopper's and exist only in a build for sm_90a (the "a" is for
// features later GPUs do not keep): elsewhere the kernels that use them are empty, and their
// rows are skipped.

constexpr int WG = 128;  // threads in a warpgroup: 4 consecutive warps that issue one wgmma

// ldmatrix.x4: the warp loads four 8 x 8 matrices of 16-bit values from shared memory. Lanes
// 8i .. 8i+7 give the addresses of matrix i's 8 rows (16 bytes each); lane l receives, of each
// matrix, row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1, as one 32-bit register.
__device__ inline void ldmatrix_x4(uint32_t (&r)[4], const uint4 *row) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// d += a b for a 16 x 16 piece of A (four registers: rows 0-7 and 8-15 of k 0-7, then of k
// 8-15) and a 16 x 8 piece of B^T (two registers: k 0-7 and 8-15). Lane l holds d's rows l / 4
// and l / 4 + 8, columns 2 (l % 4) and 2 (l % 4) + 1: d[0], d[1] and d[2], d[3].
__device__ inline void mma_16x8x16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                   uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// cp.async (compute capability 8.0): copies 16 bytes from global to shared memory without
// passing through registers and without waiting for them; `bytes` of the 16 are read and the
// rest zero-filled. commit closes the copies issued so far into a group; wait<N> returns once
// at most N groups are still on the way.
__device__ inline void cp_async_16(void *dst, const void *src, unsigned bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src), "r"(bytes)
                 : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ inline void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define KL_SM90A 1
#endif
#ifdef KL_SM90A

__device__ inline unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// An mbarrier is a 64-bit counter in shared memory with a phase bit: a phase completes when
// `count` threads have arrived and every byte a copy announced has landed; the phase bit then
// flips, and whoever waits for that phase's parity goes on.
__device__ inline void mbar_init(uint64_t *bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem(bar)), "r"(count));
}

// Makes the initialised barriers visible to the copy engine (the "async proxy") and the cluster.
__device__ inline void mbar_fence_init() {
    asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;\n" ::
                     : "memory");
}

// One arrival that also announces `bytes` still to come from TMA copies in this phase.
__device__ inline void mbar_arrive_expect(uint64_t *bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem(bar)),
                 "r"(bytes)
                 : "memory");
}

__device__ inline void mbar_arrive(uint64_t *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem(bar)) : "memory");
}

// Waits until the phase of parity `parity` has completed (try_wait suspends the thread for a
// while in hardware before it says no, so the loop does not hammer shared memory).
__device__ inline void mbar_wait(uint64_t *bar, unsigned parity) {
    unsigned done = 0;
    while (!done)
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
            "selp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(smem(bar)), "r"(parity)
            : "memory");
}

// TMA: the copy engine moves a whole box of the matrix that `map` describes (64 columns of k
// from column x, `rows` rows from row y) into shared memory, swizzled, zeros where the box
// leaves the matrix, and counts its bytes on `bar`. One thread issues it; nobody waits.
__device__ inline void tma_load(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smem(dst)),
        "l"(map), "r"(x), "r"(y), "r"(smem(bar))
        : "memory");
}

// A shared-memory matrix descriptor for wgmma: a tile whose rows are 128 bytes (64 BF16 of k),
// stored with the 128-byte swizzle, in groups of 8 rows 1024 bytes apart. The tile must start on
// 1024 bytes; moving 16 columns of k along is adding 32 bytes to the start (2 in its units).
__device__ inline uint64_t smem_desc(const void *tile) {
    return (uint64_t)((smem(tile) & 0x3FFFF) >> 4)  // start address, 16-byte units
           | (uint64_t)1 << 16                      // leading-dimension offset: unused here
           | (uint64_t)(1024 >> 4) << 32            // stride: 8 rows of 128 bytes
           | (uint64_t)1 << 62;                     // the 128-byte swizzle
}

// wgmma runs asynchronously: fence before the first one that may touch registers written by
// ordinary instructions, commit the issued ones as a group, and wait until at most N groups
// are still running before reading (or releasing the shared memory of) the rest.
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ inline void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Tells the compiler that each accumulator may have changed here, so that no read of one is
// moved above a wgmma_wait (the registers are written by the tensor cores, not by code it sees).
template <int R>
__device__ inline void fence_registers(float (&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}

// setmaxnreg: this warpgroup gives up registers (dec) or takes freed ones (inc), so a kernel
// can hold more registers in the warps that multiply than an even split would give them.
template <int N>
__device__ inline void registers_down() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ inline void registers_up() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

// d += A B^T for a 64 x 128 block of C, A and B read from shared memory through descriptors.
__device__ inline void wgmma_64x128x16(float (&d)[64], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n.reg .pred add;\n"
        "setp.ne.b32 add, %66, 0;\n"  // add to d (the other choice, d = A B^T, we never use)
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18,"
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35,"
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52,"
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, add, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

// d += A B^T for a 64 x 256 block of C, A and B read from shared memory through descriptors.
__device__ inline void wgmma_64x256x16(float (&d)[128], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n.reg .pred add;\n"
        "setp.ne.b32 add, %130, 0;\n"  // add to d (the other choice, d = A B^T, we never use)
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18,"
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35,"
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52,"
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69,"
        "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86,"
        "%87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102,"
        "%103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116,"
        "%117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, add, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
#endif  // KL_SM90A

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

__global__ __launch_bounds__(2 * WG) void tc_peak(float *sink, unsigned long long batches) {
#ifdef KL_SM90A
    __shared__ alignas(1024) bf16 tile[(64 + 256) * BK];  // A's 64 rows, then B's 256: 40 KB
    for (int i = threadIdx.x; i < (64 + 256) * BK; i += blockDim.x)
        tile[i] = __float2bfloat16((float)(i % 7 - 3) * 0.125f);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // ordinary stores, read by wgmma
    __syncthreads();
    // the same count for both warpgroups of a block: a count that differed between the threads
    // of a block would make the compiler serialize the wgmma
    unsigned long long mine = batches / gridDim.x + (blockIdx.x < batches % gridDim.x);
    uint64_t da = smem_desc(tile), db = smem_desc(tile + 64 * BK);
    float acc[128] = {};
    fence_registers(acc);  // the zeros are in place before any wgmma
    wgmma_fence();
    // batches of 8 (two k steps of a 64-wide tile), at most two batches in the queue
    for (unsigned long long i = 0; i < mine; i++) {
#pragma unroll
        for (int j = 0; j < PEAK_BATCH; j++) wgmma_64x256x16(acc, da + 2 * (j % 4), db + 2 * (j % 4));
        wgmma_commit();
        wgmma_wait<1>();
    }
    wgmma_wait<0>();
    fence_registers(acc);
    if (threadIdx.x % WG == 0) sink[2 * blockIdx.x + threadIdx.x / WG] = acc[0];
#endif
}

static void launch_peak(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    double ops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    // a batch for each warpgroup: two for a block
    unsigned long long batches = (unsigned long long)ceil(ops / (2 * PEAK_OPS));
    tc_peak<<<PEAK_BLOCKS_PER_SM * p->sms, 2 * WG>>>(p->peak_sink, batches);
}

// ---- v0 wmma ------------------------------------------------------------------------------------
// The tensor cores through the WMMA API: a warp loads 16 x 16 fragments of A and B, and one
// mma_sync multiplies them (16 x 16 x 16: 4096 multiply-adds in one instruction of the warp).
// Each warp owns a 64 x 32 piece of C (4 x 2 fragments) and fetches its own operands, 16 columns
// of k at a time, into a scratch area of its own: load_matrix_sync reads whole 16 x 16 blocks,
// so the edges of the matrices need a zero-padded copy. No warp shares what it loaded.

using namespace nvcuda;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc_frag;

// A warp's 4 x 2 accumulator fragments, stored through `scratch` (256 floats of the warp's own)
// into C: store_matrix_sync writes whole 16 x 16 blocks, so C's edges go through shared memory.
__device__ void store_fragments(acc_frag (&acc)[4][2], float *scratch, float *c, size_t r0,
                                size_t c0, size_t m, size_t n) {
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            // lane: row lane / 2 of the fragment, columns 8 (lane % 2) .. + 7
            int r = lane / 2, q = lane % 2 * 8;
#pragma unroll
            for (int x = 0; x < 8; x += 2)
                store_pair(c, r0 + i * 16 + r, c0 + j * 16 + q + x, m, n, scratch[r * 16 + q + x],
                           scratch[r * 16 + q + x + 1]);
            __syncwarp();  // the scratch is free for the next fragment
        }
}

__global__ __launch_bounds__(THREADS) void tc_v0_wmma(const bf16 *a, const bf16 *b, float *c,
                                                        size_t m, size_t n, size_t k, size_t ld) {
#if __CUDA_ARCH__ >= 800
    // per warp: A's 64 x 16 and B's 32 x 16 slices (3 KB), reused as 256 floats for the stores
    __shared__ alignas(128) bf16 scratch[THREADS / 32][(WARP_M + WARP_N) * 16];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    size_t r0 = t.r0 + warp / 4 * WARP_M, c0 = t.c0 + warp % 4 * WARP_N;
    bf16 *sa = scratch[warp], *sb = sa + WARP_M * 16;
    acc_frag acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    for (size_t k0 = 0; k0 < k; k0 += 16) {
        // A: 64 rows x 2 pieces, 4 a lane; B: 32 rows x 2 pieces, 2 a lane
        for (int p = lane; p < WARP_M * 2; p += 32)
            *reinterpret_cast<uint4 *>(sa + p * 8) = load_piece(a, r0 + p / 2, k0 + p % 2 * 8, m, k, ld);
        for (int p = lane; p < WARP_N * 2; p += 32)
            *reinterpret_cast<uint4 *>(sb + p * 8) = load_piece(b, c0 + p / 2, k0 + p % 2 * 8, n, k, ld);
        __syncwarp();  // the slices are in the scratch
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa[4];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> fb[2];
        for (int i = 0; i < 4; i++) wmma::load_matrix_sync(fa[i], sa + i * 16 * 16, 16);
        // B's rows are C's columns: as the k x n operand, B is column-major
        for (int j = 0; j < 2; j++) wmma::load_matrix_sync(fb[j], sb + j * 16 * 16, 16);
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        __syncwarp();  // every lane has its fragments: the scratch may be overwritten
    }
    store_fragments(acc, reinterpret_cast<float *>(sa), c, r0, c0, m, n);
#endif
}

static void launch_v0(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    tc_v0_wmma<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k, p->ld);
}

// ---- v1 tiled -----------------------------------------------------------------------------------
// Chapter 03's lesson on tensor cores: the block loads a 128 x 64 tile of A and one of B into
// shared memory once, and all 8 warps take their fragments from there. A warp used to fetch
// 64 + 32 rows for its 64 x 32 results; now the block fetches 128 + 128 rows for 128 x 128.

// A block's tile of `rows` x BK into shared memory, row r's piece q at Place(r, q) (in 16-byte
// units): each thread moves 16-byte pieces; a warp covers 4 rows of 128 contiguous bytes.
__device__ inline int plain(int r, int q) { return r * PIECES + q; }

template <int (*Place)(int, int)>
__device__ void load_tile(uint4 *s, const bf16 *x, size_t row0, size_t k0, size_t rows,
                          size_t k, size_t ld) {
    for (int p = threadIdx.x; p < BM * PIECES; p += THREADS)
        s[Place(p / PIECES, p % PIECES)] =
            load_piece(x, row0 + p / PIECES, k0 + p % PIECES * 8, rows, k, ld);
}

__global__ __launch_bounds__(THREADS) void tc_v1_tiled(const bf16 *a, const bf16 *b, float *c,
                                                         size_t m, size_t n, size_t k, size_t ld) {
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(128) uint4 sa[BM * PIECES], sb[BN * PIECES];  // 16 KB each
    int warp = threadIdx.x / 32;
    int wm = warp / 4 * WARP_M, wn = warp % 4 * WARP_N;  // the warp's piece of the tile
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    acc_frag acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    const bf16 *ta = reinterpret_cast<const bf16 *>(sa), *tb = reinterpret_cast<const bf16 *>(sb);
    for (size_t k0 = 0; k0 < k; k0 += BK) {
        load_tile<plain>(sa, a, t.r0, k0, m, k, ld);
        load_tile<plain>(sb, b, t.c0, k0, n, k, ld);
        __syncthreads();  // both tiles are in shared memory
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> fb[2];
            for (int i = 0; i < 4; i++) wmma::load_matrix_sync(fa[i], ta + (wm + i * 16) * BK + kk, BK);
            for (int j = 0; j < 2; j++) wmma::load_matrix_sync(fb[j], tb + (wn + j * 16) * BK + kk, BK);
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // every warp has read the tiles: the next ones may overwrite them
    }
    // each warp's 256-float scratch for the stores, in the A tile the loop is done with
    store_fragments(acc, reinterpret_cast<float *>(sa) + warp * 256, c, t.r0 + wm, t.c0 + wn, m, n);
#endif
}

static void launch_v1(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    tc_v1_tiled<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k, p->ld);
}

// ---- the warp's tile with mma.sync (v2 on) -----------------------------------------------------

// A warp's 64 x 32 piece of C from the tiles in shared memory, 16 columns of k at a time: for
// each, 4 ldmatrix.x4 fetch four 16 x 16 pieces of A, 2 fetch four 8 x 16 pieces of B, and 16
// mma multiply them. acc[i][j]: rows wm + 16 i, columns wn + 8 j.
template <int (*Place)(int, int)>
__device__ void warp_tile_mma(const uint4 *sa, const uint4 *sb, int wm, int wn,
                              float (&acc)[4][4][4]) {
    // EXERCISE: mma begin
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) {
        uint32_t fa[4][4], fb[2][4];
        // A: lanes 0-15 point at rows 0-15 of k 0-7, lanes 16-31 at the same rows of k 8-15
#pragma unroll
        for (int i = 0; i < 4; i++)
            ldmatrix_x4(fa[i], sa + Place(wm + i * 16 + lane % 16, kk * 2 + lane / 16));
        // B: matrices (rows 0-7, k 0-7), (0-7, k 8-15), (8-15, k 0-7), (8-15, k 8-15)
#pragma unroll
        for (int j = 0; j < 2; j++)
            ldmatrix_x4(fb[j], sb + Place(wn + j * 16 + lane / 16 * 8 + lane % 8,
                                          kk * 2 + lane / 8 % 2));
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                mma_16x8x16(acc[i][j], fa[i], fb[j / 2][j % 2 * 2], fb[j / 2][j % 2 * 2 + 1]);
    }
    // EXERCISE: mma end
}

// The accumulators to C, straight from the registers: lane l holds rows l / 4 and l / 4 + 8 of
// each 16 x 8 piece, two neighbouring columns each.
__device__ void store_warp_tile(const float (&acc)[4][4][4], float *c, size_t r0, size_t c0,
                                size_t m, size_t n) {
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            size_t row = r0 + i * 16 + lane / 4, col = c0 + j * 8 + lane % 4 * 2;
            store_pair(c, row, col, m, n, acc[i][j][0], acc[i][j][1]);
            store_pair(c, row + 8, col, m, n, acc[i][j][2], acc[i][j][3]);
        }
}

// ---- v2 mma -------------------------------------------------------------------------------------
// The same tiles, multiplied with mma.sync (16 x 8 x 16) on fragments that ldmatrix loads: the
// layouts WMMA hid are now ours, and the results go to C from the registers, with no staging.

__global__ __launch_bounds__(THREADS) void tc_v2_mma(const bf16 *a, const bf16 *b, float *c,
                                                       size_t m, size_t n, size_t k, size_t ld) {
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(128) uint4 sa[BM * PIECES], sb[BN * PIECES];
    int warp = threadIdx.x / 32;
    int wm = warp / 4 * WARP_M, wn = warp % 4 * WARP_N;
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    float acc[4][4][4] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
        load_tile<plain>(sa, a, t.r0, k0, m, k, ld);
        load_tile<plain>(sb, b, t.c0, k0, n, k, ld);
        __syncthreads();  // both tiles are in shared memory
        warp_tile_mma<plain>(sa, sb, wm, wn, acc);
        __syncthreads();  // every warp has read the tiles
    }
    store_warp_tile(acc, c, t.r0 + wm, t.c0 + wn, m, n);
#endif
}

static void launch_v2(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    tc_v2_mma<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k, p->ld);
}

// ---- v3 swizzled --------------------------------------------------------------------------------
// A shared row is 128 bytes, the width of all 32 banks. ldmatrix reads the same piece q of 8
// consecutive rows, which plain() puts in the same 4 banks: an 8-way conflict on every load.
// swizzled() stores piece q of row r at position q XOR (r % 8): the 8 rows' pieces land in 8
// different groups of 4 banks. Stores and loads use the same function, so nothing else changes.
// (It is the pattern Hopper's copy engine calls the 128-byte swizzle, which v5 gets for free.)

__device__ inline int swizzled(int r, int q) {
    // EXERCISE: swizzled begin
    return r * PIECES + (q ^ (r % 8));
    // EXERCISE: swizzled end
}

__global__ __launch_bounds__(THREADS) void tc_v3_swizzled(const bf16 *a, const bf16 *b, float *c,
                                                            size_t m, size_t n, size_t k,
                                                            size_t ld) {
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(128) uint4 sa[BM * PIECES], sb[BN * PIECES];
    int warp = threadIdx.x / 32;
    int wm = warp / 4 * WARP_M, wn = warp % 4 * WARP_N;
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    float acc[4][4][4] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
        load_tile<swizzled>(sa, a, t.r0, k0, m, k, ld);
        load_tile<swizzled>(sb, b, t.c0, k0, n, k, ld);
        __syncthreads();  // both tiles are in shared memory
        warp_tile_mma<swizzled>(sa, sb, wm, wn, acc);
        __syncthreads();  // every warp has read the tiles
    }
    store_warp_tile(acc, c, t.r0 + wm, t.c0 + wn, m, n);
#endif
}

static void launch_v3(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    tc_v3_swizzled<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k,
                                                            p->ld);
}

// ---- v4 pipelined -------------------------------------------------------------------------------
// Until now a block loads a tile, waits for it, multiplies, and only then asks for the next:
// the tensor cores idle through every load. cp.async copies global memory to shared memory
// without passing through registers and without waiting, so the block keeps the next STAGES - 1
// tiles in flight in a ring of shared buffers while it multiplies the current one.

// Three stages of 32 KB: two blocks fit on an SM (228 KB of shared memory; the launch bounds
// hold a thread to 128 registers so that their registers fit too), and two tiles are always on
// the way.
constexpr int V4_STAGES = 3;
constexpr size_t V4_SMEM = (size_t)V4_STAGES * (BM + BN) * BK * sizeof(bf16);

// One 16-byte piece, as load_piece, copied asynchronously: only the bytes before k are read,
// so the padding and everything past the edges arrive as zeros.
__device__ inline void copy_piece_async(uint4 *dst, const bf16 *x, size_t row, size_t col,
                                        size_t rows, size_t k, size_t ld) {
    bool in = row < rows && col < k;
    const bf16 *src = in ? x + row * ld + col : x;  // an address even when nothing is copied
    cp_async_16(dst, src, in ? (unsigned)(min((size_t)8, k - col) * sizeof(bf16)) : 0);
}

__device__ void load_tile_async(uint4 *s, const bf16 *x, size_t row0, size_t k0, size_t rows,
                                size_t k, size_t ld) {
    for (int p = threadIdx.x; p < BM * PIECES; p += THREADS)
        copy_piece_async(s + swizzled(p / PIECES, p % PIECES), x, row0 + p / PIECES,
                         k0 + p % PIECES * 8, rows, k, ld);
}

__global__ __launch_bounds__(THREADS, 2) void tc_v4_pipelined(const bf16 *a, const bf16 *b, float *c,
                                                             size_t m, size_t n, size_t k,
                                                             size_t ld) {
#if __CUDA_ARCH__ >= 800
    extern __shared__ uint4 ring[];  // stage s: A's tile at s * 2 tiles, B's right after it
    auto tile_a = [&](int s) { return ring + s * (BM + BN) * PIECES; };
    auto tile_b = [&](int s) { return ring + s * (BM + BN) * PIECES + BM * PIECES; };
    int warp = threadIdx.x / 32;
    int wm = warp / 4 * WARP_M, wn = warp % 4 * WARP_N;
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    int steps = (int)((k + BK - 1) / BK);
    // the first STAGES - 1 tiles on their way, one commit group each (empty ones past the end,
    // so that "wait until at most STAGES - 2 groups are pending" always means "this tile is in")
    for (int s = 0; s < V4_STAGES - 1; s++) {
        if (s < steps) {
            load_tile_async(tile_a(s), a, t.r0, (size_t)s * BK, m, k, ld);
            load_tile_async(tile_b(s), b, t.c0, (size_t)s * BK, n, k, ld);
        }
        cp_async_commit();
    }
    float acc[4][4][4] = {};
    for (int step = 0; step < steps; step++) {
        cp_async_wait<V4_STAGES - 2>();
        __syncthreads();  // tile `step` is in for every thread, and every warp is done with
                          // the buffer of step - 1, which the next copy reuses
        int next = step + V4_STAGES - 1;
        if (next < steps) {
            load_tile_async(tile_a(next % V4_STAGES), a, t.r0, (size_t)next * BK, m, k, ld);
            load_tile_async(tile_b(next % V4_STAGES), b, t.c0, (size_t)next * BK, n, k, ld);
        }
        cp_async_commit();
        warp_tile_mma<swizzled>(tile_a(step % V4_STAGES), tile_b(step % V4_STAGES), wm, wn, acc);
    }
    cp_async_wait<0>();  // no copy outlives the block
    store_warp_tile(acc, c, t.r0 + wm, t.c0 + wn, m, n);
#endif
}

static void launch_v4(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    static bool ready = false;
    if (!ready) {
        CHECK(cudaFuncSetAttribute(tc_v4_pipelined, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)V4_SMEM));
        ready = true;
    }
    tc_v4_pipelined<<<tiles(p->m, p->n, BM, BN), THREADS, V4_SMEM>>>(p->a, p->b, p->c, p->m,
                                                                      p->n, p->k, p->ld);
}

// ---- Hopper's tiles in shared memory (v5 on) ----------------------------------------------------

// A ring of STAGES stages, each a 128 x 64 tile of A and a TILE_N x 64 tile of B as the copy
// engine lays them out (rows of 128 bytes, 128-byte swizzle), and per stage an mbarrier that
// says "full" (the copies have landed) and one that says "empty" (the multiplies are done).
template <int TILE_N, int STAGES>
struct stage_ring {
    bf16 a[STAGES][BM * BK];      // 16 KB a stage: a multiple of the swizzle's 1024-byte atom
    bf16 b[STAGES][TILE_N * BK];  // 16 or 32 KB
    uint64_t full[STAGES], empty[STAGES];
};

// Dynamic shared memory starts on 16 bytes; the swizzled tiles need 1024. We ask for 1 KB more
// than the ring and start it at the first multiple of 1024.
template <class Ring>
constexpr size_t ring_bytes() {
    return sizeof(Ring) + 1024;
}

#ifdef KL_SM90A
template <class Ring>
__device__ inline Ring &ring_at(unsigned char *raw) {
    return *reinterpret_cast<Ring *>(raw + ((1024 - smem(raw) % 1024) % 1024));
}

// One thread fills stage `slot` with k step `step` of the tile at (r0, c0): it announces the
// bytes on the stage's full barrier and starts the two copies, which complete on it.
template <int TILE_N, int STAGES>
__device__ inline void load_stage(stage_ring<TILE_N, STAGES> &s, int slot, const CUtensorMap *map_a,
                                  const CUtensorMap *map_b, int step, size_t r0, size_t c0) {
    mbar_arrive_expect(&s.full[slot], (BM + TILE_N) * BK * sizeof(bf16));
    tma_load(s.a[slot], map_a, step * BK, (int)r0, &s.full[slot]);
    tma_load(s.b[slot], map_b, step * BK, (int)c0, &s.full[slot]);
}

// A warpgroup's 64 rows of A times the stage's TILE_N rows of B, 64 columns of k: 4 wgmma of
// k = 16 each, the descriptors moved 32 bytes along k each time.
template <int R>
__device__ inline void wgmma_stage(float (&acc)[R], const bf16 *a, const bf16 *b) {
    uint64_t da = smem_desc(a), db = smem_desc(b);
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) {
        if constexpr (R == 64) wgmma_64x128x16(acc, da + 2 * kk, db + 2 * kk);
        else wgmma_64x256x16(acc, da + 2 * kk, db + 2 * kk);
    }
}

// A warpgroup's 64 x (R / 2) results to C. Thread t of the warpgroup holds, for each 8 columns
// j, rows 16 (t / 32) + (t % 32) / 4 and 8 below it, columns 8 j + 2 (t % 4) and the next.
template <int R>
__device__ void store_warpgroup(const float (&acc)[R], float *c, size_t r0, size_t c0, size_t m,
                                size_t n) {
    int t = threadIdx.x % WG, lane = t % 32;
    size_t row = r0 + t / 32 * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < R / 4; j++) {
        size_t col = c0 + j * 8 + lane % 4 * 2;
        store_pair(c, row, col, m, n, acc[4 * j], acc[4 * j + 1]);
        store_pair(c, row + 8, col, m, n, acc[4 * j + 2], acc[4 * j + 3]);
    }
}

// A consumer warp says it is done with a stage: one arrival per warp, once all its lanes are.
__device__ inline void release_stage(uint64_t *empty) {
    __syncwarp();
    if (threadIdx.x % 32 == 0) mbar_arrive(empty);
}
#endif  // KL_SM90A

// The tensor maps of A and B: what TMA needs to know of a matrix (its address, k columns and
// `rows` rows, rows ld elements apart) and of the box it copies (64 columns, box_rows rows,
// 128-byte swizzle, zeros outside the matrix). Made on the host, passed by value to the kernel.
typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                    const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                    const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static void make_map(CUtensorMap *map, const bf16 *x, size_t rows, size_t k, size_t ld,
                     unsigned box_rows) {
    static encode_tiled_fn encode = NULL;  // the driver's function, found once
    if (!encode) {
        cudaDriverEntryPointQueryResult found;
        CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                               cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess) {
            fprintf(stderr, "the driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12)\n");
            exit(KL_EXIT_GPU);
        }
    }
    cuuint64_t dims[2] = {k, rows}, stride[1] = {ld * sizeof(bf16)};
    cuuint32_t box[2] = {BK, box_rows}, step[2] = {1, 1};
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)x, dims, stride, box,
                        step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed (error %d) for %zu x %zu\n", (int)r, rows, k);
        exit(KL_EXIT_GPU);
    }
}

static void make_maps(tc_problem *p) {
    if (p->maps_made) return;
    make_map(&p->map_a, p->a, p->m, p->k, p->ld, BM);
    make_map(&p->map_b128, p->b, p->n, p->k, p->ld, 128);
    make_map(&p->map_b256, p->b, p->n, p->k, p->ld, 256);
    p->maps_made = true;
}

// Raises a kernel's dynamic shared memory limit past the default 48 KB (once is enough).
template <class Kernel>
static void allow_smem(Kernel kernel, size_t bytes) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}

// ---- v5 wgmma -----------------------------------------------------------------------------------
// Hopper's way in: one thread asks the copy engine (TMA) for a whole 128 x 64 tile with one
// instruction, and it arrives swizzled, on an mbarrier that counts its bytes; wgmma then has a
// warpgroup (128 threads) multiply 64 x 128 x 16 at once, reading A and B from shared memory
// itself: no ldmatrix, no fragments in registers but the accumulators. The block, two
// warpgroups, keeps four stages of tiles on the way, and refills a stage when both are done.

constexpr int V5_STAGES = 4;
typedef stage_ring<BN, V5_STAGES> v5_ring;

__global__ __launch_bounds__(2 * WG) void tc_v5_wgmma(const __grid_constant__ CUtensorMap map_a,
                                                        const __grid_constant__ CUtensorMap map_b,
                                                        float *c, size_t m, size_t n, size_t k) {
#ifdef KL_SM90A
    extern __shared__ unsigned char raw[];
    v5_ring &s = ring_at<v5_ring>(raw);
    int wg = threadIdx.x / WG;  // rows 64 wg .. + 63 of the tile
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    int steps = (int)((k + BK - 1) / BK);
    if (threadIdx.x == 0) {
        for (int i = 0; i < V5_STAGES; i++) mbar_init(&s.full[i], 1);
        mbar_fence_init();
    }
    __syncthreads();  // the barriers exist before anyone uses them
    if (threadIdx.x == 0)
        for (int i = 0; i < V5_STAGES && i < steps; i++) load_stage(s, i, &map_a, &map_b, i, t.r0, t.c0);
    float acc[BN / 2] = {};
    fence_registers(acc);  // the zeros are in place before any wgmma
    for (int step = 0; step < steps; step++) {
        int slot = step % V5_STAGES;
        mbar_wait(&s.full[slot], step / V5_STAGES % 2);  // this stage's copies have landed
        wgmma_fence();
        wgmma_stage(acc, s.a[slot] + wg * 64 * BK, s.b[slot]);
        wgmma_commit();
        wgmma_wait<0>();
        __syncthreads();  // both warpgroups are done with the stage: it may be refilled
        if (threadIdx.x == 0 && step + V5_STAGES < steps)
            load_stage(s, slot, &map_a, &map_b, step + V5_STAGES, t.r0, t.c0);
    }
    fence_registers(acc);
    store_warpgroup(acc, c, t.r0 + wg * 64, t.c0, m, n);
#endif
}

static void launch_v5(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    static bool ready = false;
    if (!ready) allow_smem(tc_v5_wgmma, ring_bytes<v5_ring>()), ready = true;
    make_maps(p);
    tc_v5_wgmma<<<tiles(p->m, p->n, BM, BN), 2 * WG, ring_bytes<v5_ring>()>>>(
        p->map_a, p->map_b128, p->c, p->m, p->n, p->k);
}

// ---- v6 specialized -----------------------------------------------------------------------------
// In v5 every warp waits at a block barrier after each stage, and the tensor cores idle while
// the last warp catches up and the loads are issued. Now the warps specialize: a producer
// warpgroup (one thread of it) only issues copies, waiting on each stage's "empty" barrier;
// two consumer warpgroups only multiply, waiting on "full" and arriving on "empty". A consumer
// keeps one stage's wgmma running while it issues the next (wgmma_wait<1>). The producer needs
// few registers: setmaxnreg hands 232 a thread to the consumers and keeps 40.

constexpr int V6_STAGES = 4;
enum { PRODUCER_REGS = 40, CONSUMER_REGS = 232 };  // 128 x 40 + 256 x 232 <= 65536

template <int TILE_N, int STAGES>
__global__ __launch_bounds__(3 * WG, 1) void tc_v6_specialized(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k) {
#ifdef KL_SM90A
    typedef stage_ring<TILE_N, STAGES> ring;
    extern __shared__ unsigned char raw[];
    ring &s = ring_at<ring>(raw);
    int wg = threadIdx.x / WG;  // 0: the producer; 1 and 2: rows 64 (wg - 1) .. + 63
    tile_origin t = tile_at(blockIdx.x, n, BM, TILE_N);
    int steps = (int)((k + BK - 1) / BK);
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) {
            mbar_init(&s.full[i], 1);             // the producer's one arrival, plus the bytes
            mbar_init(&s.empty[i], 2 * WG / 32);  // one arrival per consumer warp
        }
        mbar_fence_init();
    }
    __syncthreads();  // the barriers exist before anyone uses them
    if (wg == 0) {
        registers_down<PRODUCER_REGS>();
        if (threadIdx.x == 0)
            for (int step = 0; step < steps; step++) {
                int slot = step % STAGES;
                if (step >= STAGES) mbar_wait(&s.empty[slot], (step / STAGES - 1) % 2);
                load_stage(s, slot, &map_a, &map_b, step, t.r0, t.c0);
            }
    } else {
        registers_up<CONSUMER_REGS>();
        float acc[TILE_N / 2];
#pragma unroll
        for (int i = 0; i < TILE_N / 2; i++) acc[i] = 0.0f;
        fence_registers(acc);  // the zeros are in place before any wgmma
        for (int step = 0; step < steps; step++) {
            int slot = step % STAGES;
            mbar_wait(&s.full[slot], step / STAGES % 2);
            wgmma_fence();
            wgmma_stage(acc, s.a[slot] + (wg - 1) * 64 * BK, s.b[slot]);
            wgmma_commit();
            wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
            if (step > 0) release_stage(&s.empty[(step - 1) % STAGES]);
        }
        wgmma_wait<0>();
        fence_registers(acc);
        store_warpgroup(acc, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
    }
#endif
}

template <int TILE_N, int STAGES>
static void launch_specialized(tc_problem *p, const CUtensorMap &map_b) {
    typedef stage_ring<TILE_N, STAGES> ring;
    static bool ready = false;
    if (!ready) allow_smem(tc_v6_specialized<TILE_N, STAGES>, ring_bytes<ring>()), ready = true;
    tc_v6_specialized<TILE_N, STAGES><<<tiles(p->m, p->n, BM, TILE_N), 3 * WG, ring_bytes<ring>()>>>(
        p->map_a, map_b, p->c, p->m, p->n, p->k);
}

static void launch_v6(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    make_maps(p);
    launch_specialized<BN, V6_STAGES>(p, p->map_b128);
}

// ---- v7 wide ------------------------------------------------------------------------------------
// The registers setmaxnreg freed pay for a wider tile: 128 x 256, each consumer a 64 x 256
// wgmma with 128 accumulators a thread. A stage of B now covers 256 columns of C, and a stage of
// A serves twice as many columns as before: 48 KB a stage instead of 32 feed twice the
// multiplies, a third more for each byte loaded (still four stages: 192 KB, one block an SM).

constexpr int WIDE_N = 256;

static void launch_v7(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    make_maps(p);
    launch_specialized<WIDE_N, V6_STAGES>(p, p->map_b256);
}

// ---- v8 persistent ------------------------------------------------------------------------------
// A block of v7 loads nothing while its consumers store their results, and a new block starts
// cold. Now the grid is one block per SM, and each block walks the tiles (blockIdx.x, then
// every gridDim.x-th): the producer runs on into the next tile as soon as stages are free, so
// the loads of tile i + 1 are in flight while the consumers write tile i to C. The stage count
// and the barriers' phases carry on from tile to tile.

// The order in which a block of v8 walks the tiles: row by row, as every version before it.
struct rows_order {
    __device__ static tile_origin at(size_t tile, size_t, size_t n, int tile_n) {
        return tile_at(tile, n, BM, tile_n);
    }
};

template <int TILE_N, int STAGES, class Order = rows_order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v8_persistent(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k) {
#ifdef KL_SM90A
    typedef stage_ring<TILE_N, STAGES> ring;
    extern __shared__ unsigned char raw[];
    ring &s = ring_at<ring>(raw);
    int wg = threadIdx.x / WG;
    size_t tile_count = (m + BM - 1) / BM * ((n + TILE_N - 1) / TILE_N);
    int steps = (int)((k + BK - 1) / BK);
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) {
            mbar_init(&s.full[i], 1);
            mbar_init(&s.empty[i], 2 * WG / 32);
        }
        mbar_fence_init();
    }
    __syncthreads();  // the barriers exist before anyone uses them
    int used = 0;     // stages used so far, over all of this block's tiles
    if (wg == 0) {
        registers_down<PRODUCER_REGS>();
        if (threadIdx.x == 0)
            for (size_t tile = blockIdx.x; tile < tile_count; tile += gridDim.x) {
                tile_origin t = Order::at(tile, m, n, TILE_N);
                for (int step = 0; step < steps; step++, used++) {
                    int slot = used % STAGES;
                    if (used >= STAGES) mbar_wait(&s.empty[slot], (used / STAGES - 1) % 2);
                    load_stage(s, slot, &map_a, &map_b, step, t.r0, t.c0);
                }
            }
    } else {
        registers_up<CONSUMER_REGS>();
        for (size_t tile = blockIdx.x; tile < tile_count; tile += gridDim.x) {
            tile_origin t = Order::at(tile, m, n, TILE_N);
            float acc[TILE_N / 2];
#pragma unroll
            for (int i = 0; i < TILE_N / 2; i++) acc[i] = 0.0f;
            fence_registers(acc);  // the zeros are in place before any wgmma
            for (int step = 0; step < steps; step++, used++) {
                int slot = used % STAGES;
                mbar_wait(&s.full[slot], used / STAGES % 2);
                wgmma_fence();
                wgmma_stage(acc, s.a[slot] + (wg - 1) * 64 * BK, s.b[slot]);
                wgmma_commit();
                wgmma_wait<1>();
                if (step > 0) release_stage(&s.empty[(used - 1) % STAGES]);
            }
            wgmma_wait<0>();
            release_stage(&s.empty[(used - 1) % STAGES]);  // the tile's last stage, too
            fence_registers(acc);
            store_warpgroup(acc, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
        }
    }
#endif
}

template <class Order>
static void launch_persistent(tc_problem *p) {
    typedef stage_ring<WIDE_N, V6_STAGES> ring;
    auto kernel = tc_v8_persistent<WIDE_N, V6_STAGES, Order>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps(p);
    unsigned grid = min(tiles(p->m, p->n, BM, WIDE_N), (unsigned)p->sms);
    kernel<<<grid, 3 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b256, p->c, p->m, p->n, p->k);
}

static void launch_v8(void *problem) {
    launch_persistent<rows_order>((tc_problem *)problem);
}

// ---- v9 grouped ---------------------------------------------------------------------------------
// The 132 blocks of v8 work on 132 neighbouring tiles of one order. Row by row, at 8192 x 8192
// (32 tiles of 256 columns a row) that is 4 rows of tiles: 4 bands of A (2 MB each at k = 8192)
// but all 32 bands of B (4 MB each): 136 MB, which the 60 MiB L2 cannot keep, so each wave of
// tiles reads all of B from DRAM again. Now the tiles go down bands of 16 rows of tiles, column
// after column: the tiles at work span 16 bands of A and about 8 of B (32 + 33 MB), and each
// band serves 8 to 16 blocks while it is in L2. Nothing else changes.

constexpr int GROUP = 16;  // rows of tiles in a band

struct grouped_order {
    __device__ static tile_origin at(size_t tile, size_t m, size_t n, int tile_n) {
        size_t rows = (m + BM - 1) / BM, cols = (n + tile_n - 1) / tile_n;
        size_t band = tile / (GROUP * cols), first = band * GROUP;    // the band's first row
        size_t high = rows - first < GROUP ? rows - first : GROUP;     // the last may be lower
        size_t q = tile - band * GROUP * cols;                          // the place in the band
        return {(first + q % high) * BM, q / high * tile_n};
    }
};

static void launch_v9(void *problem) {
    launch_persistent<grouped_order>((tc_problem *)problem);
}

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"cublas", "cublas", launch_cublas, KL_BASELINE | NEEDS_BF16_MMA},
    {"peak", "wgmma-peak", launch_peak, KL_BASELINE | KL_UNCHECKED | NEEDS_SM90A},
    {"v0", "wmma", launch_v0, NEEDS_BF16_MMA},
    {"v1", "tiled", launch_v1, NEEDS_BF16_MMA},
    {"v2", "mma", launch_v2, NEEDS_BF16_MMA},
    {"v3", "swizzled", launch_v3, NEEDS_BF16_MMA},
    {"v4", "pipelined", launch_v4, NEEDS_BF16_MMA},
    {"v5", "wgmma", launch_v5, NEEDS_SM90A},
    {"v6", "specialized", launch_v6, NEEDS_SM90A},
    {"v7", "wide", launch_v7, NEEDS_SM90A},
    {"v8", "persistent", launch_v8, NEEDS_SM90A},
    {"v9", "grouped", launch_v9, NEEDS_SM90A},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// Whether this build holds sm_90a code for the GPU: a kernel compiled for sm_90a says so.
__global__ void tc_probe_sm90a(int *yes) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    *yes = 1;
#else
    *yes = 0;
#endif
}

static bool probe_sm90a(void) {
    int *d = (int *)gpu_alloc(sizeof(int), "the probe");
    int yes = 0;
    tc_probe_sm90a<<<1, 1>>>(d);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&yes, d, sizeof yes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    return yes == 1;
}

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
    free(p.host_a), free(p.host_b), free(p.host_c), free(p.fa), free(p.fb), free(p.want);
    free(p.abs_row), free(p.cublas_c), free(p.x), free(p.y), free(p.row_bound);
    return rc;
}
