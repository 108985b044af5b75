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
