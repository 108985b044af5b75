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
