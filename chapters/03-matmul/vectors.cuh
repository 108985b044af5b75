// ---- 16-byte loads and stores (v6b on) ----------------------------------------------------------
// What v6b and the versions after it move 16 bytes at a time: VEC elements of a row of A or B
// into a vector (load_vec), a thread's share of a tile into registers (load_vecs, v6b to v6d), a
// thread's fragment from shared memory into registers (load_frag), and its results into C
// (store_row) and back (load_row, v13).

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

// The tile at k0: this thread's vectors e = tid + i * RB_THREADS, the VEC elements from element
// VEC e, into a_next[VEC i ..] and b_next[VEC i ..]. A warp reads 16 rows x 32 bytes of A and
// 512 contiguous bytes of a row of B. (v6b to v6d.)
template <int BN, int BK, int RB_THREADS, int A_VECS, int B_VECS, bool VA, bool VB>
__device__ __forceinline__ void load_vecs(real *a_next, real *b_next, const real *__restrict__ a,
                                          const real *__restrict__ b, tile_origin t, size_t k0,
                                          size_t m, size_t n, size_t k) {
    int tid = threadIdx.x;
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
