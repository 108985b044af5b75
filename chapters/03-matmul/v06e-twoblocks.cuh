// ---- v6e twoblocks ------------------------------------------------------------------------------
// The only change: two blocks an SM (MIN_BLOCKS in __launch_bounds__), which the registers that
// v6a to v6d freed allow: the compiler holds a thread to 128 registers, and one block's FMAs run
// while the other waits at its barrier. Not where the rows of A do not start on 16 bytes (!VA):
// there v6d's kernel held to 128 registers spills (-Xptxas -v), so it keeps one block an SM.
// (FP64: 512 threads, one block an SM in every build. Built for sm_80, the aligned builds spill
// a few bytes: a warning there.)
template <int BM, int BN, int BK, int TM, int TN, int MIN_BLOCKS, bool VA, bool VB,
          int RB_THREADS = BM / TM * BN / TN,
          int A_PER_THREAD = BM * BK / RB_THREADS, int B_PER_THREAD = BK * BN / RB_THREADS>
__global__ void __launch_bounds__(RB_THREADS, VA ? MIN_BLOCKS : 1)
matmul_v6e_twoblocks(const real *__restrict__ a, const real *__restrict__ b,
                     real *__restrict__ c, size_t m, size_t n, size_t k) {
    constexpr int PAD = 4;  // rows BM + 4 long: row r of kk sits in bank (4 kk + r) % 32 (floats)
    static_assert((BM + PAD) % VEC == 0, "padded rows keep 16-byte alignment for LDS.128");
    __shared__ __align__(16) real as[BK][BM + PAD];  // as[kk][row]: A transposed, padded
    __shared__ __align__(16) real bs[BK][BN];  // bs[kk][col]
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);  // the thread's block: rows ty*TM, cols tx*TN
    real a_next[A_PER_THREAD], b_next[B_PER_THREAD];
    constexpr int A_VECS = A_PER_THREAD / VEC, B_VECS = B_PER_THREAD / VEC;  // in vectors
    load_vecs<BN, BK, RB_THREADS, A_VECS, B_VECS, VA, VB>(a_next, b_next, a, b, t, 0, m, n, k);
    real acc[TM][TN] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int i = 0; i < A_PER_THREAD; i++) {  // element i is the tile's element e
            int e = (tid + i / VEC * RB_THREADS) * VEC + i % VEC, row = e / BK, kk = e % BK;
            as[kk][row] = a_next[i];  // transposed on the way in: 4-byte stores
        }
#pragma unroll
        for (int i = 0; i < B_PER_THREAD; i++) {
            int e = (tid + i / VEC * RB_THREADS) * VEC + i % VEC;
            if (i % VEC == 0) *(vec *)&bs[e / BN][e % BN] = *(const vec *)&b_next[i];
        }
        __syncthreads();  // both tiles are complete before anyone reads them
        load_vecs<BN, BK, RB_THREADS, A_VECS, B_VECS, VA, VB>(a_next, b_next, a, b, t, k0 + BK, m,
                                                             n, k);
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            real af[TM], bf[TN];  // the fragments: a column of A and a row of B, in registers
            load_frag<TM>(af, &as[kk][ty * TM]);
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
    for (int i = 0; i < TM; i++)
        store_row<VB, TN>(c, acc[i], t.r0 + ty * TM + i, t.c0 + tx * TN, m, n);
}

static void launch_v6e(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int BM = 128;  // tile rows
    constexpr int BN = 128;  // tile columns
    constexpr int BK = 8;    // tile depth
    constexpr int TM = 8;    // results per thread, down a column
#ifdef MATMUL_FP64  // 8 x 8 doubles: 128 registers of results alone, half of the 255 a thread has
    constexpr int TN = 4;
    constexpr int MIN_BLOCKS = 1;  // 512 threads of doubles: one block, 128 registers a thread
#else
    constexpr int TN = 8;          // results per thread, along a row
    constexpr int MIN_BLOCKS = 2;  // two blocks an SM: at most 128 registers a thread (v6 took 200)
#endif
    constexpr int THREADS = BM / TM * BN / TN;  // 256 (FP64: 512)
    static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0, "tiles split evenly");
    auto go = [&](auto kernel) {
        kernel<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    };
    // The rows of A are 16-byte aligned when k % VEC == 0, those of B and C when n % VEC == 0.
    bool va = p->k % VEC == 0, vb = p->n % VEC == 0;
    if (va && vb) go(matmul_v6e_twoblocks<BM, BN, BK, TM, TN, MIN_BLOCKS, true, true>);
    else if (va) go(matmul_v6e_twoblocks<BM, BN, BK, TM, TN, MIN_BLOCKS, true, false>);
    else if (vb) go(matmul_v6e_twoblocks<BM, BN, BK, TM, TN, MIN_BLOCKS, false, true>);
    else go(matmul_v6e_twoblocks<BM, BN, BK, TM, TN, MIN_BLOCKS, false, false>);
    CHECK_LAUNCH();
}
