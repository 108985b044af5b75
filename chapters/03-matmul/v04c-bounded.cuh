// ---- v4c bounded --------------------------------------------------------------------------------
// The only change: __launch_bounds__(THREADS, 1), the promise that a block has at most THREADS
// threads and that one block an SM is enough. Free of the need to fit several blocks, the
// compiler takes more registers a thread for its schedule (make EXTRA_NVFLAGS="-Xptxas -v"
// prints them), and fewer blocks of v4b's fit an SM: fewer warps, each with a freer schedule,
// and which wins is the measurement's to say. v5 keeps the bound, where it also holds a block
// of 512 threads to the 128 registers a thread it can have.
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM * BN / TM, 1)
matmul_v4c_bounded(const real *a, const real *b, real *c, size_t m, size_t n, size_t k) {
    constexpr int THREADS = BM * BN / TM;
    constexpr int COPIES = BM * BK / THREADS;  // elements of A, and of B, a thread copies a tile
    __shared__ real as[BM][BK];  // as[row][kk]
    __shared__ real bs[BK][BN];  // bs[kk][col]
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x;
    int col = tid % BN, row0 = tid / BN * TM;  // a warp: 32 columns, the same rows
    // Loading: a warp reads 4 rows x 32 bytes of A and 128 contiguous bytes of B; a thread's
    // copies are THREADS / BK rows of A and THREADS / BN rows of B apart.
    int a_r = tid / BK, a_c = tid % BK, b_r = tid / BN, b_c = tid % BN;
    real a_next[COPIES], b_next[COPIES];
#pragma unroll
    for (int i = 0; i < COPIES; i++) {
        a_next[i] = load_or_zero(a, t.r0 + a_r + i * (THREADS / BK), a_c, m, k);
        b_next[i] = load_or_zero(b, b_r + i * (THREADS / BN), t.c0 + b_c, k, n);
    }
    real acc[TM] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int i = 0; i < COPIES; i++) {
            as[a_r + i * (THREADS / BK)][a_c] = a_next[i];
            bs[b_r + i * (THREADS / BN)][b_c] = b_next[i];
        }
        __syncthreads();  // both tiles are complete before anyone reads them
#pragma unroll
        for (int i = 0; i < COPIES; i++) {
            a_next[i] = load_or_zero(a, t.r0 + a_r + i * (THREADS / BK), k0 + BK + a_c, m, k);
            b_next[i] = load_or_zero(b, k0 + BK + b_r + i * (THREADS / BN), t.c0 + b_c, k, n);
        }
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

static void launch_v4c(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int BM = 32;  // v4a's tile
    constexpr int BN = 32;
    constexpr int BK = 8;   // v4b's tile depth
    constexpr int TM = 8;   // results per thread, down a column
    constexpr int THREADS = BM * BN / TM;  // 128
    static_assert(BM * BK == BK * BN && BM * BK % THREADS == 0, "A and B tiles split evenly");
    matmul_v4c_bounded<BM, BN, BK, TM><<<tiles(p->m, p->n, BM, BN), THREADS>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
