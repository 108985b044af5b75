// ---- v7-ldg to v7-padded: v7's changes one at a time --------------------------------------------
// v7 bundles four changes, and the step from v6 to v7 measures them together. These rows make
// them one at a time, each on top of the one before, so that the README's table shows what each
// is worth on its own:
//   v7-ldg         v6 with every global load through the read-only path (__ldg)
//   v7-wide        + 16-byte global loads and stores: LDG.128 and STG.128
//   v7-transposed  + A stored transposed, as[kk][row]: a thread's TM values of A come in
//                  16-byte shared loads, one k step at a time
//   v7-padded      + PAD columns of padding on the transposed tile
// and v7 is v7-padded with two blocks an SM (__launch_bounds__): the fifth change. The kernel is
// v6's, with STEP switching the changes on in that order.

// v6's tile and threads (launch_v6's numbers), PAD as in v7, and the changes that step STEP makes.
template <int STEP>
struct v7_step {
    static constexpr int BM = 128, BN = 128, BK = 8, TM = 8;  // tile rows, columns, depth; TM as v6
#ifdef MATMUL_FP64  // as v6: 8 x 4 doubles a thread, one kk step unrolled at a time
    static constexpr int TN = 4, rb_unroll = 1;
#else
    static constexpr int TN = 8, rb_unroll = BK;
#endif
    static constexpr int RB_THREADS = BM / TM * BN / TN;  // 256
    static constexpr int A_PER_THREAD = BM * BK / RB_THREADS, B_PER_THREAD = BK * BN / RB_THREADS;
    static constexpr int A_VECS = BM * BK / VEC / RB_THREADS;  // the same in 16-byte vectors
    static constexpr int B_VECS = BK * BN / VEC / RB_THREADS;
    static constexpr int PAD = 4;  // v7's padding of the transposed tile
    static constexpr bool wide = STEP >= 2, transposed = STEP >= 3, padded = STEP >= 4;
    static constexpr int a_rows = transposed ? BK : BM;  // as[kk][row], or v6's as[row][kk]
    static constexpr int a_cols = transposed ? BM + (padded ? PAD : 0) : BK;
    static constexpr int unroll = transposed ? BK : rb_unroll;  // kk steps unrolled, as v6 or v7
};

// v6's load_or_zero through the read-only path: LDG.E.CONSTANT instead of LDG.E.
__device__ __forceinline__ real ldg_or_zero(const real *__restrict__ x, size_t r, size_t c,
                                            size_t rows, size_t cols) {
    return (r < rows && c < cols) ? __ldg(&x[r * cols + c]) : (real)0;
}

// The A and B elements of the tile at k0 that this thread copies, into registers: v6's pattern
// one element at a time, or (wide) v7's in 16-byte vectors.
template <class S, bool VA, bool VB>
__device__ __forceinline__ void v7_step_load(real *a_next, real *b_next, const real *__restrict__ a,
                                             const real *__restrict__ b, tile_origin t, size_t k0,
                                             size_t m, size_t n, size_t k) {
    constexpr int BN = S::BN, BK = S::BK, RB_THREADS = S::RB_THREADS;
    constexpr int A_PER_THREAD = S::A_PER_THREAD, B_PER_THREAD = S::B_PER_THREAD;
    constexpr int A_VECS = S::A_VECS, B_VECS = S::B_VECS;
    int tid = threadIdx.x;
    if constexpr (S::wide) {
#pragma unroll
        for (int i = 0; i < A_VECS; i++) {
            int e = tid + i * RB_THREADS;
            *(vec *)&a_next[i * VEC] =
                load_vec<VA>(a, t.r0 + e / (BK / VEC), k0 + e % (BK / VEC) * VEC, m, k);
        }
#pragma unroll
        for (int i = 0; i < B_VECS; i++) {
            int e = tid + i * RB_THREADS;
            *(vec *)&b_next[i * VEC] =
                load_vec<VB>(b, k0 + e / (BN / VEC), t.c0 + e % (BN / VEC) * VEC, k, n);
        }
    } else {
#pragma unroll
        for (int i = 0; i < A_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            a_next[i] = ldg_or_zero(a, t.r0 + e / BK, k0 + e % BK, m, k);
        }
#pragma unroll
        for (int i = 0; i < B_PER_THREAD; i++) {
            int e = tid + i * RB_THREADS;
            b_next[i] = ldg_or_zero(b, k0 + e / BN, t.c0 + e % BN, k, n);
        }
    }
}

template <int STEP, bool VA, bool VB>
__global__ void __launch_bounds__(v7_step<STEP>::RB_THREADS, 1)
matmul_v7_steps(const real *__restrict__ a, const real *__restrict__ b, real *__restrict__ c,
                size_t m, size_t n, size_t k) {
    typedef v7_step<STEP> S;
    constexpr int BM = S::BM, BN = S::BN, BK = S::BK, TM = S::TM, TN = S::TN;
    constexpr int RB_THREADS = S::RB_THREADS;
    constexpr int A_PER_THREAD = S::A_PER_THREAD, B_PER_THREAD = S::B_PER_THREAD;
    __shared__ __align__(16) real as[S::a_rows][S::a_cols];
    __shared__ __align__(16) real bs[BK][BN];
    tile_origin t = block_tile(n, BM, BN);
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);
    // v6's element e = tid + i * RB_THREADS, or v7's vector e (four elements from element
    // VEC e): either way a_next holds A_PER_THREAD elements and b_next B_PER_THREAD.
    real a_next[A_PER_THREAD], b_next[B_PER_THREAD];
    v7_step_load<S, VA, VB>(a_next, b_next, a, b, t, 0, m, n, k);
    real acc[TM][TN] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int i = 0; i < A_PER_THREAD; i++) {
            int e = S::wide ? (tid + i / VEC * RB_THREADS) * VEC + i % VEC : tid + i * RB_THREADS;
            int row = e / BK, kk = e % BK;  // element i's place in the tile, v6's order or v7's
            if constexpr (S::transposed) as[kk][row] = a_next[i];  // 4-byte stores, transposing
            else if constexpr (S::wide) {
                if (i % VEC == 0) *(vec *)&as[row][kk] = *(const vec *)&a_next[i];
            } else as[row][kk] = a_next[i];
        }
#pragma unroll
        for (int i = 0; i < B_PER_THREAD; i++) {
            int e = S::wide ? (tid + i / VEC * RB_THREADS) * VEC + i % VEC : tid + i * RB_THREADS;
            if constexpr (S::wide) {
                if (i % VEC == 0) *(vec *)&bs[e / BN][e % BN] = *(const vec *)&b_next[i];
            } else bs[e / BN][e % BN] = b_next[i];
        }
        __syncthreads();  // both tiles are complete before anyone reads them
        v7_step_load<S, VA, VB>(a_next, b_next, a, b, t, k0 + BK, m, n, k);
#pragma unroll(S::unroll)
        for (int kk = 0; kk < BK; kk++) {
            real af[TM], bf[TN];
            if constexpr (S::transposed) {
                load_frag<TM>(af, &as[kk][ty * TM]);
            } else {
#pragma unroll
                for (int i = 0; i < TM; i++) af[i] = as[ty * TM + i][kk];
            }
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
        if constexpr (S::wide) {
            store_row<VB, TN>(c, acc[i], r, t.c0 + tx * TN, m, n);
        } else {
#pragma unroll
            for (int j = 0; j < TN; j++) {
                size_t cc = t.c0 + tx * TN + j;
                if (r < m && cc < n) c[r * n + cc] = acc[i][j];
            }
        }
    }
}

template <int STEP>
static void launch_v7_step(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    typedef v7_step<STEP> S;
    auto go = [&](auto kernel) {
        kernel<<<tiles(p->m, p->n, S::BM, S::BN), S::RB_THREADS>>>(p->a, p->b, p->c, p->m, p->n,
                                                                   p->k);
    };
    bool va = p->k % VEC == 0, vb = p->n % VEC == 0;  // as launch_v7 decides
    if (va && vb) go(matmul_v7_steps<STEP, true, true>);
    else if (va) go(matmul_v7_steps<STEP, true, false>);
    else if (vb) go(matmul_v7_steps<STEP, false, true>);
    else go(matmul_v7_steps<STEP, false, false>);
    CHECK_LAUNCH();
}
static void launch_v7_ldg(void *problem) { launch_v7_step<1>(problem); }
static void launch_v7_wide(void *problem) { launch_v7_step<2>(problem); }
static void launch_v7_transposed(void *problem) { launch_v7_step<3>(problem); }
static void launch_v7_padded(void *problem) { launch_v7_step<4>(problem); }
