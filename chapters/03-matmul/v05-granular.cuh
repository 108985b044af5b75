// ---- v5 granular --------------------------------------------------------------------------------
// The only change: v4c's tile, 8 deep, grows from 32 x 32 results to 64 x 64, for 512 threads.
// A value copied into shared memory now serves 64 FMAs instead of 32, so the global loads per
// FMA halve. Each thread copies one element of A and one of B a tile (v4c: two of each), so
// v4c's copy loops are single copies here. The tiles take 4 KiB (v4c's 2, v4a's 8).
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM * BN / TM, 1)
matmul_v5_granular(const real *a, const real *b, real *c, size_t m, size_t n, size_t k) {
    __shared__ real as[BM][BK];  // as[row][kk]
    __shared__ real bs[BK][BN];  // bs[kk][col]
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x;
    int col = tid % BN, row0 = tid / BN * TM;  // a warp: 32 columns, the same rows
    // Loading: a warp reads 4 rows x 32 bytes of A and 128 contiguous bytes of B.
    int a_r = tid / BK, a_c = tid % BK, b_r = tid / BN, b_c = tid % BN;
    real a_next = load_or_zero(a, t.r0 + a_r, a_c, m, k);
    real b_next = load_or_zero(b, b_r, t.c0 + b_c, k, n);
    real acc[TM] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
        as[a_r][a_c] = a_next;
        bs[b_r][b_c] = b_next;
        __syncthreads();  // both tiles are complete before anyone reads them
        a_next = load_or_zero(a, t.r0 + a_r, k0 + BK + a_c, m, k);
        b_next = load_or_zero(b, k0 + BK + b_r, t.c0 + b_c, k, n);
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
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
    constexpr int BM = 64;  // tile rows
    constexpr int BN = 64;  // tile columns: two warps across
    constexpr int BK = 8;   // tile depth: a 64 x 8 tile of A is one element per thread
    constexpr int TM = 8;   // results per thread, down a column
    constexpr int THREADS = BM * BN / TM;  // 512
    static_assert(BM * BK == THREADS, "one element of the A tile per thread");
    static_assert(BK * BN == THREADS, "one element of the B tile per thread");
    matmul_v5_granular<BM, BN, BK, TM><<<tiles(p->m, p->n, BM, BN), THREADS>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
