// ---- v7 vectorized ------------------------------------------------------------------------------

// Four changes to how data moves, none to the arithmetic:
//  - global loads of 16 bytes (LDG.128) through the read-only path (const __restrict__): a
//    quarter of the load instructions;
//  - A stored transposed, as[kk][row], so a thread's TM values of A for one k step are contiguous
//    and come in two 16-byte shared loads (LDS.128) like B's. (v6's compiler loads A 16 bytes at
//    a time too, but 4 k steps of one row at once, which keeps more values in registers);
//  - PAD columns of padding, so the transposed stores of a warp fall in 32 different banks;
//  - and we ask for two blocks per SM (__launch_bounds__), which the fewer registers allow.
// A 16-byte load needs rows that start on 16 bytes: k (for A) and n (for B and C) multiples of
// VEC. Other shapes take the template's element-by-element path, with the same tiles.
#ifdef MATMUL_FP64
#define RB_MIN_BLOCKS 1  // 512 threads of doubles: one block, up to 128 registers a thread
#else
#define RB_MIN_BLOCKS 2  // two blocks an SM: at most 128 registers a thread (v6 took 200)
#endif
#define PAD 4  // as rows BM + 4 long: row r of kk sits in bank (4 kk + r) % 32 (floats)
#define A_VECS (BM * BK / VEC / RB_THREADS)  // 16-byte vectors of the A tile per thread
#define B_VECS (BK * BN / VEC / RB_THREADS)  // and of the B tile
static_assert(BM * BK % (VEC * RB_THREADS) == 0 && BK * BN % (VEC * RB_THREADS) == 0,
              "tiles split evenly into vectors");
static_assert((BM + PAD) % VEC == 0, "padded rows keep 16-byte alignment for LDS.128");

// VEC elements of row r of a rows x cols matrix from column c (a multiple of VEC), zero where
// outside. ALIGNED: cols % VEC == 0, so the vector is wholly inside or wholly outside.
template <bool ALIGNED>
__device__ __forceinline__ vec load_vec(const real *__restrict__ x, size_t r, size_t c,
                                        size_t rows, size_t cols) {
    vec v;
    real *e = (real *)&v;
    if (ALIGNED) {
        if (r < rows && c < cols) return __ldg((const vec *)&x[r * cols + c]);
#pragma unroll
        for (int i = 0; i < VEC; i++) e[i] = 0;
    } else {
#pragma unroll
        for (int i = 0; i < VEC; i++)
            e[i] = (r < rows && c + i < cols) ? __ldg(&x[r * cols + c + i]) : (real)0;
    }
    return v;
}

// TM or TN contiguous elements of a shared-memory row into registers, 16 bytes at a time.
template <int COUNT>
__device__ __forceinline__ void load_frag(real *dst, const real *src) {
#pragma unroll
    for (int i = 0; i < COUNT / VEC; i++) *(vec *)&dst[i * VEC] = *(const vec *)&src[i * VEC];
}

// COUNT results from row r, column cc on: 16-byte stores where the rows allow it, guarded.
// C is m x n with its rows ld elements apart (ld = n, except where v18 writes part of C).
template <bool ALIGNED, int COUNT>
__device__ __forceinline__ void store_row(real *c, const real *val, size_t r, size_t cc,
                                          size_t m, size_t n, size_t ld) {
    if (r >= m) return;
#pragma unroll
    for (int j = 0; j < COUNT; j += VEC) {
        if (ALIGNED) {
            if (cc + j < n) *(vec *)&c[r * ld + cc + j] = *(const vec *)&val[j];
        } else {
#pragma unroll
            for (int e = 0; e < VEC; e++)
                if (cc + j + e < n) c[r * ld + cc + j + e] = val[j + e];
        }
    }
}

template <bool ALIGNED, int COUNT>
__device__ __forceinline__ void store_row(real *c, const real *val, size_t r, size_t cc,
                                          size_t m, size_t n) {
    store_row<ALIGNED, COUNT>(c, val, r, cc, m, n, n);
}

// COUNT values from row r, column cc on, the reverse of store_row: .cg loads (from L2, not
// from a line an earlier load left in L1), zeros outside the matrix. Used by v13.
template <bool ALIGNED, int COUNT>
__device__ __forceinline__ void load_row(real *val, const real *c, size_t r, size_t cc, size_t m,
                                         size_t n) {
#pragma unroll
    for (int j = 0; j < COUNT; j += VEC) {
        if (ALIGNED) {
            vec v = {};
            if (r < m && cc + j < n) v = __ldcg((const vec *)&c[r * n + cc + j]);
            *(vec *)&val[j] = v;
        } else {
#pragma unroll
            for (int e = 0; e < VEC; e++)
                val[j + e] = r < m && cc + j + e < n ? __ldcg(&c[r * n + cc + j + e]) : (real)0;
        }
    }
}

template <bool VA, bool VB>
__global__ void __launch_bounds__(RB_THREADS, RB_MIN_BLOCKS)
matmul_v7_vectorized(const real *__restrict__ a, const real *__restrict__ b,
                     real *__restrict__ c, size_t m, size_t n, size_t k) {
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

// The rows of A are 16-byte aligned when k % VEC == 0, those of B and C when n % VEC == 0.
#define ALIGNED_LAUNCH(kernel, grid, block, smem, p)                                        \
    do {                                                                                  \
        bool va = (p)->k % VEC == 0, vb = (p)->n % VEC == 0;                              \
        if (va && vb) kernel<true, true><<<grid, block, smem>>>((p)->a, (p)->b, (p)->c,   \
                                                                (p)->m, (p)->n, (p)->k);  \
        else if (va) kernel<true, false><<<grid, block, smem>>>((p)->a, (p)->b, (p)->c,   \
                                                                (p)->m, (p)->n, (p)->k);  \
        else if (vb) kernel<false, true><<<grid, block, smem>>>((p)->a, (p)->b, (p)->c,   \
                                                                (p)->m, (p)->n, (p)->k);  \
        else kernel<false, false><<<grid, block, smem>>>((p)->a, (p)->b, (p)->c, (p)->m,  \
                                                         (p)->n, (p)->k);                 \
        CHECK_LAUNCH();                                                                   \
    } while (0)

static void launch_v7(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    ALIGNED_LAUNCH(matmul_v7_vectorized, tiles(p->m, p->n, BM, BN), RB_THREADS, 0, p);
}
