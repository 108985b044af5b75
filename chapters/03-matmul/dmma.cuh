// ---- mma.sync on FP64 in a ring of tiles, and the kernel that runs it (v20 on) ------------------
// The kernel of v20 to v22 (the FP64 build only): v9's ring of cp.async copies around the FP64
// tensor cores' mma.sync, with the instruction shape (MMA) and the order of the tiles
// (GROUPED, v22) as template parameters.
//
// Lane l, in group g = l / 4 and at t = l % 4 in its group, holds A[g][t], B[t][g] and D[g][2t],
// D[g][2t + 1] (the PTX ISA's fragment layout; chapter 00's dmma row checks it). A warp owns
// 32 x 32 results, 4 x 4 pieces of 8 x 8, and for every 4 of k loads 4 values of A and 4 of B (a
// lane's share) for 16 mma instructions. A lane reads its fragments down a column of A and of B
// across the 8 groups, so both tiles sit in shared memory row by row, as in global memory (the
// instruction wants rows of A: no transposing), copied 16 bytes at a time, in rows of BK + 4 and
// BN + 4 doubles: the padding shifts each row by 4 bank pairs, so the 16 lanes that load together
// (8-byte loads go out half a warp at a time) hit 16 different ones. The next tile's copies are
// issued halfway through a tile's instructions, while those run on the tensor cores.
#ifdef MATMUL_FP64

// v20's tile (v21 and v22 keep it): BM x BN results a block, BK deep, warps of WM x WN, a ring
// of STAGES, and MIN_BLOCKS blocks an SM: while one waits at its barrier, the other keeps the
// tensor cores busy (where k or n is odd, the 8-byte copies need more registers, and those
// kernels run one block an SM). Chosen by measurement on the H200 among 128 x 128 and 128 x 64
// tiles, warps of 64 x 32 and 32 x 32, 16 and 32 deep, 2 to 5 stages.
struct dmma_tile {
    static constexpr int BM = 128, BN = 64, BK = 32;  // 8 warps, each 4 x 4 pieces of 8 x 8
    static constexpr int WM = 32, WN = 32;
    static constexpr int STAGES = 2;      // 2 x 53 KiB of shared memory a block
    static constexpr int MIN_BLOCKS = 2;  // 128 registers a thread, 64 of them results
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    static constexpr int LDA = BK + 4;  // doubles from one row of the A tile to the next
    static constexpr int LDB = BN + 4;  // and of the B tile
    static constexpr int STAGE = BM * LDA + BK * LDB;  // doubles in one stage
    static constexpr size_t SMEM = (size_t)STAGES * STAGE * sizeof(double);
    static_assert(BK % 16 == 0, "whole m16n8k16 steps a tile");
    static_assert(BM * BK % (2 * THREADS) == 0 && BK * BN % (2 * THREADS) == 0,
                  "16-byte copies of both tiles split evenly");
};

// The instruction shapes: D (M x 8) += A (M x K) B (K x 8), a warp. copies_first: whether a
// tile's copies of the next tile are issued before its instructions, as v9 issues them (only
// the v20-copyfirst experiment), rather than halfway through them.
struct dmma_m8n8k4 {
    static constexpr int m = 8, k = 4;
    static constexpr bool copies_first = false;
};
struct dmma_m16n8k16 {
    static constexpr int m = 16, k = 16;
    static constexpr bool copies_first = false;
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
// (i, j), rows 8 i + g and columns 8 j + 2 t, 8 j + 2 t + 1 of the warp's WM x WN results
// (32 x 32). as and bs point at the warp's first row of A and first column of B in the stage.
template <class MMA, int KK0, int KK1>
__device__ __forceinline__ void dmma_steps(double (&acc)[dmma_tile::WM / 8][dmma_tile::WN / 8][2],
                                           const double *as, const double *bs, int g, int t) {
    typedef dmma_tile T;
    if constexpr (MMA::k == 4) {
#pragma unroll
        for (int kk = KK0; kk < KK1; kk += 4) {
            double af[T::WM / 8], bf[T::WN / 8];
#pragma unroll
            for (int i = 0; i < T::WM / 8; i++) af[i] = as[(8 * i + g) * T::LDA + kk + t];
#pragma unroll
            for (int j = 0; j < T::WN / 8; j++) bf[j] = bs[(kk + t) * T::LDB + 8 * j + g];
#pragma unroll
            for (int i = 0; i < T::WM / 8; i++)
#pragma unroll
                for (int j = 0; j < T::WN / 8; j++) mma_8x8x4(acc[i][j], af[i], bf[j]);
        }
    } else {
#pragma unroll
        for (int kk = KK0; kk < KK1; kk += 16) {
            double bf[T::WN / 8][4];  // the warp's 4 columns of B, kept while A's blocks go by
#pragma unroll
            for (int j = 0; j < T::WN / 8; j++)
#pragma unroll
                for (int i = 0; i < 4; i++) bf[j][i] = bs[(kk + t + 4 * i) * T::LDB + 8 * j + g];
#pragma unroll
            for (int i = 0; i < T::WM / 16; i++) {
                double af[8];
#pragma unroll
                for (int e = 0; e < 8; e++)
                    af[e] = as[(16 * i + g + 8 * (e % 2)) * T::LDA + kk + t + 4 * (e / 2)];
#pragma unroll
                for (int j = 0; j < T::WN / 8; j++)
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
    typedef dmma_tile T;
    constexpr int A_ROWS = T::THREADS / (T::BK / 2);  // rows of A a pass copies
    constexpr int B_ROWS = T::THREADS / (T::BN / 2);
    int tid = threadIdx.x;
    int a_row = tid / (T::BK / 2), a_col = tid % (T::BK / 2) * 2;
    int b_row = tid / (T::BN / 2), b_col = tid % (T::BN / 2) * 2;
    double *as = stage + a_row * T::LDA + a_col;
    double *bs = stage + T::BM * T::LDA + b_row * T::LDB + b_col;
    if (t.r0 + T::BM <= m && t.c0 + T::BN <= n && k0 + T::BK <= k) {
        const double *pa = a + (t.r0 + a_row) * k + k0 + a_col;
        const double *pb = b + (k0 + b_row) * n + t.c0 + b_col;
#pragma unroll
        for (int i = 0; i < T::BM / A_ROWS; i++) {
            double *dst = as + i * A_ROWS * T::LDA;
            const double *src = pa + (size_t)i * A_ROWS * k;
            if (VA) copy_async<16>(dst, src, true);
            else copy_async<8>(dst, src, true), copy_async<8>(dst + 1, src + 1, true);
        }
#pragma unroll
        for (int i = 0; i < T::BK / B_ROWS; i++) {
            double *dst = bs + i * B_ROWS * T::LDB;
            const double *src = pb + (size_t)i * B_ROWS * n;
            if (VB) copy_async<16>(dst, src, true);
            else copy_async<8>(dst, src, true), copy_async<8>(dst + 1, src + 1, true);
        }
        return;
    }
    // A tile on an edge: each copy guarded (not unrolled: the addresses of all of them at
    // once would take registers the results need).
#pragma unroll 1
    for (int i = 0; i < T::BM / A_ROWS; i++) {
        size_t r = t.r0 + a_row + i * A_ROWS, col = k0 + a_col;
        double *dst = as + i * A_ROWS * T::LDA;
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
    for (int i = 0; i < T::BK / B_ROWS; i++) {
        size_t r = k0 + b_row + i * B_ROWS, col = t.c0 + b_col;
        double *dst = bs + i * B_ROWS * T::LDB;
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
__device__ tile_origin grouped_tile(size_t tile, size_t m, size_t n, int tile_rows, int tile_cols) {
    constexpr int GROUP_ROWS = 16;  // 16 rows x 16 or 17 columns of tiles in flight (v22)
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
__global__ void __launch_bounds__(dmma_tile::THREADS, VA && VB ? dmma_tile::MIN_BLOCKS : 1)
matmul_v20_dmma(const double *__restrict__ a, const double *__restrict__ b,
                double *__restrict__ c, size_t m, size_t n, size_t k) {
    typedef dmma_tile T;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    double *ring = (double *)smem_bytes;
    tile_origin t = GROUPED ? grouped_tile(blockIdx.x, m, n, T::BM, T::BN)
                            : block_tile(n, T::BM, T::BN);
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, tg = lane % 4;
    int row0 = warp / (T::BN / T::WN) * T::WM, col0 = warp % (T::BN / T::WN) * T::WN;
    size_t k_tiles = (k + T::BK - 1) / T::BK;
#pragma unroll
    for (int s = 0; s < T::STAGES - 1; s++) {
        if ((size_t)s < k_tiles)
            dmma_copy_tile<VA, VB>(ring + s * T::STAGE, a, b, t, (size_t)s * T::BK, m, n, k);
        copy_commit();
    }
    double acc[T::WM / 8][T::WN / 8][2] = {};
    for (size_t kt = 0; kt < k_tiles; kt++) {
        copy_wait<T::STAGES - 2>();  // this thread's copies of tile kt have landed
        __syncthreads();  // everyone's have, and everyone is done with tile kt - 1
        const double *as = ring + kt % T::STAGES * T::STAGE + row0 * T::LDA;
        const double *bs = ring + kt % T::STAGES * T::STAGE + T::BM * T::LDA + col0;
        constexpr int HALF = MMA::copies_first ? 0 : T::BK / 2 / MMA::k * MMA::k;  // whole ones
        dmma_steps<MMA, 0, HALF>(acc, as, bs, g, tg);
        size_t next = kt + T::STAGES - 1;  // into the buffer tile kt - 1 used
        if (next < k_tiles)
            dmma_copy_tile<VA, VB>(ring + next % T::STAGES * T::STAGE, a, b, t,
                                        next * T::BK, m, n, k);
        copy_commit();
        dmma_steps<MMA, HALF, T::BK>(acc, as, bs, g, tg);
    }
    // Lane (g, t) holds two neighbouring results of each piece: one 16-byte store where n is even.
#pragma unroll
    for (int i = 0; i < T::WM / 8; i++)
#pragma unroll
        for (int j = 0; j < T::WN / 8; j++)
            store_row<VB, 2>(c, acc[i][j], t.r0 + row0 + 8 * i + g, t.c0 + col0 + 8 * j + 2 * tg,
                             m, n);
}

template <class MMA, bool VA, bool VB, bool GROUPED>
static void launch_dmma_kernel(const matmul_problem *p) {
    typedef dmma_tile T;
    static bool ready = false;  // shared memory beyond 48 KiB must be asked for, once
    if (!ready) {
        CHECK(cudaFuncSetAttribute(matmul_v20_dmma<MMA, VA, VB, GROUPED>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)T::SMEM));
        ready = true;
    }
    matmul_v20_dmma<MMA, VA, VB, GROUPED><<<tiles(p->m, p->n, T::BM, T::BN), T::THREADS,
                                            T::SMEM>>>(p->a, p->b, p->c, p->m, p->n, p->k);
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
#endif
