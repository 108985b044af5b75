// ---- v6-noprefetch (what v6's prefetch costs and buys) ------------------------------------------
// v6 keeps v3's prefetch: the next tile's A_PER_THREAD + B_PER_THREAD values wait in registers
// (a_next, b_next) while the current tile is used. This row takes it out, so that its price in
// registers and its gain in time are measured apart: each tile is loaded straight into shared
// memory, and the threads wait for it before computing. Everything else is v6.
template <int BM, int BN, int BK, int TM, int TN, int rb_unroll, int RB_THREADS = BM / TM * BN / TN,
          int A_PER_THREAD = BM * BK / RB_THREADS, int B_PER_THREAD = BK * BN / RB_THREADS>
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
    constexpr int BM = 128;  // tile rows
    constexpr int BN = 128;  // tile columns
    constexpr int BK = 8;    // tile depth
    constexpr int TM = 8;    // results per thread, down a column
#ifdef MATMUL_FP64  // 8 x 8 doubles: 128 registers of results alone, half of the 255 a thread has
    constexpr int TN = 4;
#else
    constexpr int TN = 8;    // results per thread, along a row
#endif
    // kk steps unrolled. For doubles a full unroll lets the compiler hoist all 64 scalar A loads
    // of the tile and run out of registers (spills); one step at a time fits.
#ifdef MATMUL_FP64
    constexpr int UNROLL = 1;
#else
    constexpr int UNROLL = BK;
#endif
    constexpr int THREADS = BM / TM * BN / TN;  // 256 (FP64: 512)
    static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0, "tiles split evenly");
    matmul_v6_noprefetch<BM, BN, BK, TM, TN, UNROLL><<<tiles(p->m, p->n, BM, BN), THREADS>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
