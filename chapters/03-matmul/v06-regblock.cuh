// ---- v6 regblock --------------------------------------------------------------------------------
// Each thread computes a TM x TN block: per kk it loads TM values of A and TN of B into
// registers and does TM * TN FMAs with them, 64 FMAs for 16 loads. The 128 x 128 tile also
// halves the global traffic per FMA of v5's 64 x 64 one. The price is registers: 64
// accumulators plus the fragments and addresses, so many that an SM holds a single 256-thread
// block (make EXTRA_NVFLAGS="-Xptxas -v" prints the count).
template <int BM, int BN, int BK, int TM, int TN, int rb_unroll, int RB_THREADS = BM / TM * BN / TN,
          int A_PER_THREAD = BM * BK / RB_THREADS, int B_PER_THREAD = BK * BN / RB_THREADS>
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
    matmul_v6_regblock<BM, BN, BK, TM, TN, UNROLL><<<tiles(p->m, p->n, BM, BN), THREADS>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
