// ---- v6c transposed -----------------------------------------------------------------------------
// The only change: A is stored transposed in shared memory, as[kk][row], so that a thread's TM
// values of A for one k step are contiguous and come in 16-byte loads (load_frag), one k step at
// a time. v6 merged as[row][kk .. kk+3] into 16-byte loads too, but each brought 4 k steps of one
// row, so the fragments of several steps were alive at once: we expect fewer registers. The
// price: a thread's 4 elements of A now go to 4 rows of the tile, 4-byte stores that conflict.
// (The FP64 build now unrolls the kk loop in full too: what kept it rolled was v6's scalar loads
// of A for several steps, which are gone.)
template <int BM, int BN, int BK, int TM, int TN, bool VA, bool VB,
          int RB_THREADS = BM / TM * BN / TN,
          int A_PER_THREAD = BM * BK / RB_THREADS, int B_PER_THREAD = BK * BN / RB_THREADS>
__global__ void __launch_bounds__(RB_THREADS, 1)
matmul_v6c_transposed(const real *__restrict__ a, const real *__restrict__ b,
                      real *__restrict__ c, size_t m, size_t n, size_t k) {
    __shared__ __align__(16) real as[BK][BM];  // as[kk][row]: A transposed
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

static void launch_v6c(void *problem) {
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
    constexpr int THREADS = BM / TM * BN / TN;  // 256 (FP64: 512)
    static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0, "tiles split evenly");
    auto go = [&](auto kernel) {
        kernel<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    };
    // The rows of A are 16-byte aligned when k % VEC == 0, those of B and C when n % VEC == 0.
    bool va = p->k % VEC == 0, vb = p->n % VEC == 0;
    if (va && vb) go(matmul_v6c_transposed<BM, BN, BK, TM, TN, true, true>);
    else if (va) go(matmul_v6c_transposed<BM, BN, BK, TM, TN, true, false>);
    else if (vb) go(matmul_v6c_transposed<BM, BN, BK, TM, TN, false, true>);
    else go(matmul_v6c_transposed<BM, BN, BK, TM, TN, false, false>);
    CHECK_LAUNCH();
}
