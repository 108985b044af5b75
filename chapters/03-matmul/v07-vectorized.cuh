// ---- v7 vectorized ------------------------------------------------------------------------------
// The only change: v6e's kernel written in vectors (a_next[A_VECS]) where v6b to v6e keep v6's
// arrays of elements, and B's fragment loaded with load_frag: the same accesses, in the form v8
// and the versions after it build on. The compiler needs fewer registers for this form: the
// builds for rows of A that do not start on 16 bytes now fit 128 registers without spilling, so
// the bound asks for two blocks in every build (v6e: where VA only). Where the rows are aligned
// (4096^3) the accesses and the occupancy are v6e's, and what changes is the compiler's code.
template <int BM, int BN, int BK, int TM, int TN, int MIN_BLOCKS, bool VA, bool VB>
__global__ void __launch_bounds__(BM / TM * BN / TN, MIN_BLOCKS)
matmul_v7_vectorized(const real *__restrict__ a, const real *__restrict__ b,
                     real *__restrict__ c, size_t m, size_t n, size_t k) {
    constexpr int RB_THREADS = BM / TM * BN / TN;  // 256 (FP64: 512)
    constexpr int PAD = 4;  // rows BM + 4 long: row r of kk sits in bank (4 kk + r) % 32 (floats)
    constexpr int A_VECS = BM * BK / VEC / RB_THREADS;  // 16-byte vectors of the A tile per thread
    constexpr int B_VECS = BK * BN / VEC / RB_THREADS;  // and of the B tile
    static_assert(BM * BK % (VEC * RB_THREADS) == 0 && BK * BN % (VEC * RB_THREADS) == 0,
                  "tiles split evenly into vectors");
    static_assert((BM + PAD) % VEC == 0, "padded rows keep 16-byte alignment for LDS.128");
    __shared__ __align__(16) real as[BK][BM + PAD];  // as[kk][row]: A transposed, padded
    __shared__ __align__(16) real bs[BK][BN];        // bs[kk][col]
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);
    // Vector e = tid + i * RB_THREADS: A (row e / (BK/VEC), columns VEC * (e % (BK/VEC)) ..):
    // a warp reads 16 rows x 32 bytes; B: a warp reads 512 contiguous bytes of a row.
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
        for (int i = 0; i < A_VECS; i++) {  // transpose on the way in: 4-byte stores
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
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            real af[TM], bf[TN];
            load_frag<TM>(af, &as[kk][ty * TM]);
            load_frag<TN>(bf, &bs[kk][tx * TN]);
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

static void launch_v7(void *problem) {
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
    auto go = [&](auto kernel) {
        kernel<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    };
    // The rows of A are 16-byte aligned when k % VEC == 0, those of B and C when n % VEC == 0.
    bool va = p->k % VEC == 0, vb = p->n % VEC == 0;
    if (va && vb) go(matmul_v7_vectorized<BM, BN, BK, TM, TN, MIN_BLOCKS, true, true>);
    else if (va) go(matmul_v7_vectorized<BM, BN, BK, TM, TN, MIN_BLOCKS, true, false>);
    else if (vb) go(matmul_v7_vectorized<BM, BN, BK, TM, TN, MIN_BLOCKS, false, true>);
    else go(matmul_v7_vectorized<BM, BN, BK, TM, TN, MIN_BLOCKS, false, false>);
    CHECK_LAUNCH();
}
