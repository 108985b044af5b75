// ---- copies into a ring of tiles, and the kernel that runs it (v9 on) ---------------------------
// cp.async (sm_80 and later) copies global memory straight into shared memory, without
// registers, into a ring of S::stages buffers: while a block computes tile t, the copies of tiles
// t + 1 .. t + stages - 1 are in flight, and one barrier a tile is enough. A is copied 4 bytes at
// a time, so it can land transposed; B 16 bytes at a time where its rows allow. Out-of-range
// elements are zero-filled by the copy itself (edges: padding). v9 to v12, v14 and v19 run this
// kernel, each with a tile shape of its own; v13's kernel is a copy of its main loop.
// Three parameters serve later versions, and v9 to v16 pass them as no-ops: B's and C's row
// lengths, ldb and ldc (n until v17 pads B and v18 cuts C), and VC, C's 16-byte stores, apart
// from VB (the same until v17). They are here from v9 on because every row measured from v9 on
// ran this code; v17's and v18's files are where they first differ from n and from VB.

// One asynchronous copy of BYTES (4, 8 or 16) into shared memory, or zeros when !inside.
template <int BYTES>
__device__ __forceinline__ void copy_async(void *smem, const void *gmem, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    // no cp.async before Ampere: an ordinary copy through registers does the same job
    if (BYTES == 16) *(vec *)smem = inside ? *(const vec *)gmem : vec{};
    else *(real *)smem = inside ? *(const real *)gmem : (real)0;
#else
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    int src_bytes = inside ? BYTES : 0;  // 0: read nothing, fill BYTES zeros
    if (BYTES == 16)  // .cg: straight to shared memory, not kept in L1
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem),
                     "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(gmem),
                     "n"(BYTES), "r"(src_bytes));
#endif
}

__device__ __forceinline__ void copy_commit() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void copy_wait() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}

// The order of a thread's FMAs in a step: row i of its results, left to right, for each i.
struct rows_forward {
    __device__ static constexpr int column(int, int jj, int) { return jj; }
};

// A tile shape: BM_ x BN_ results a block, BK_ deep, warps of WM_ x WN_, STAGES_ buffers,
// and MIN_BLOCKS_ blocks that must fit an SM at once (it caps the registers per thread).
// ORDER_ says in which order a thread's FMAs of a step run (ORDER_::column).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MIN_BLOCKS_,
          class ORDER_ = rows_forward>
struct shape {
    static constexpr int bm = BM_, bn = BN_, bk = BK_, wm = WM_, wn = WN_, stages = STAGES_;
    static constexpr int min_blocks = MIN_BLOCKS_;
    typedef ORDER_ order;
    static constexpr int threads = (BM_ / WM_) * (BN_ / WN_) * 32;
    static constexpr int lanes_m = 8, lanes_n = 4;  // a warp: 8 lanes down its patch, 4 across (v8)
    static constexpr int piece = 4;                 // a thread's results in pieces of 4 x 4 (v8)
    static constexpr int pad = 4;                   // rows bm + 4 long, as v7's transposed tile
    static constexpr int tm = WM_ / lanes_m, tn = WN_ / lanes_n;    // results per thread
    static constexpr int a_stride = BM_ + pad;                      // as[kk][row], padded
    static constexpr int stage_elems = BK_ * a_stride + BK_ * BN_;  // one A and one B tile
    static constexpr size_t smem = (size_t)STAGES_ * stage_elems * sizeof(real);
    static_assert(BM_ % WM_ == 0 && BN_ % WN_ == 0, "warps tile the block");
    static_assert(tm % piece == 0 && tn % piece == 0, "whole 4 x 4 pieces per thread");
    static_assert(BM_ * BK_ % threads == 0, "A tile elements split evenly");
    static_assert(BK_ * BN_ % (VEC * threads) == 0, "B tile vectors split evenly");
    static_assert(STAGES_ >= 2, "a ring needs two buffers at least");
    static_assert(threads % BK_ == 0 && threads % (BN_ / VEC) == 0 && threads % BN_ == 0,
                  "a thread's copies are whole rows apart");
};

// Issues the copies of the tile starting at k0 into one stage of the ring. B's rows are ldb
// elements apart (n, except in v17); VB: they start on 16 bytes (ldb a multiple of VEC).
template <class S, bool VB>
__device__ __forceinline__ void copy_tile(real *stage, const real *__restrict__ a,
                                          const real *__restrict__ b, tile_origin t, size_t k0,
                                          size_t m, size_t n, size_t k, size_t ldb) {
    real *as = stage, *bs = stage + S::bk * S::a_stride;
    int tid = threadIdx.x;
    if (t.r0 + S::bm <= m && t.c0 + S::bn <= n && k0 + S::bk <= k) {
        // The whole tile lies inside A and B, as almost every tile does: no guards, and the
        // copies of a thread are a constant number of rows apart. Same elements as below.
        const real *pa = a + (t.r0 + tid / S::bk) * k + k0 + tid % S::bk;
        real *sa = &as[tid % S::bk * S::a_stride + tid / S::bk];
#pragma unroll
        for (int i = 0; i < S::bm * S::bk / S::threads; i++)
            copy_async<sizeof(real)>(sa + i * (S::threads / S::bk),
                                     pa + (size_t)i * (S::threads / S::bk) * k, true);
        if (VB) {
            const real *pb = b + (k0 + tid / (S::bn / VEC)) * ldb + t.c0 + tid % (S::bn / VEC) * VEC;
            real *sb = &bs[tid / (S::bn / VEC) * S::bn + tid % (S::bn / VEC) * VEC];
#pragma unroll
            for (int i = 0; i < S::bk * S::bn / VEC / S::threads; i++)
                copy_async<16>(sb + i * (S::threads / (S::bn / VEC)) * S::bn,
                               pb + (size_t)i * (S::threads / (S::bn / VEC)) * ldb, true);
        } else {
            // Rows of B that do not start on 16 bytes: one element a copy, and the 32 copies
            // of a warp side by side, so that they read 128 contiguous bytes and write 32
            // banks. (Four elements a thread, as in the 16-byte copies, would put a warp's
            // copies 4 elements apart: a quarter of each sector used, and 4-way conflicts.)
            const real *pb = b + (k0 + tid / S::bn) * ldb + t.c0 + tid % S::bn;
#pragma unroll 4  // wholly unrolled, v13's pieces kernel on v14's tile (v15) runs out of
                  // registers on sm_80; kept for every version since
            for (int i = 0; i < S::bk * S::bn / S::threads; i++)
                copy_async<sizeof(real)>(&bs[tid + i * S::threads],
                                         pb + (size_t)i * (S::threads / S::bn) * ldb, true);
        }
        return;
    }
    // A: element e is row e / bk, column e % bk; a warp copies 32 / bk rows x bk floats and
    // stores them down the columns of as, in distinct banks thanks to PAD.
#pragma unroll
    for (int i = 0; i < S::bm * S::bk / S::threads; i++) {
        int e = tid + i * S::threads, row = e / S::bk, kk = e % S::bk;
        size_t r = t.r0 + row, col = k0 + kk;
        bool inside = r < m && col < k;
        copy_async<sizeof(real)>(&as[kk * S::a_stride + row], inside ? &a[r * k + col] : a,
                                 inside);
    }
    // B: vector e is row e / (bn / VEC), columns VEC * (e % (bn / VEC)) ..: contiguous rows.
#pragma unroll
    for (int i = 0; i < S::bk * S::bn / VEC / S::threads; i++) {
        int e = tid + i * S::threads, row = e / (S::bn / VEC), cv = e % (S::bn / VEC) * VEC;
        size_t r = k0 + row, col = t.c0 + cv;
        if (VB) {
            bool inside = r < k && col < n;
            copy_async<16>(&bs[row * S::bn + cv], inside ? &b[r * ldb + col] : b, inside);
        } else {
#pragma unroll
            for (int j = 0; j < VEC; j++) {
                bool inside = r < k && col + j < n;
                copy_async<sizeof(real)>(&bs[row * S::bn + cv + j],
                                         inside ? &b[r * ldb + col + j] : b, inside);
            }
        }
    }
}

template <class S, bool VB, bool VC>
__global__ void __launch_bounds__(S::threads, S::min_blocks)
matmul_v9_async(const real *__restrict__ a, const real *__restrict__ b, real *__restrict__ c,
                size_t m, size_t n, size_t k, size_t ldb, size_t ldc) {
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    real *ring = (real *)smem_bytes;  // stages x (A tile bk x (bm + pad), B tile bk x bn)
    constexpr int LANES_M = S::lanes_m, LANES_N = S::lanes_n, PIECE = S::piece;
    tile_origin t = block_tile(n, S::bm, S::bn);
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int row0 = warp / (S::bn / S::wn) * S::wm + lane / LANES_N * PIECE;
    int col0 = warp % (S::bn / S::wn) * S::wn + lane % LANES_N * PIECE;
    size_t k_tiles = (k + S::bk - 1) / S::bk;
    // Fill all stages but one; a group is committed even when empty, so counts stay uniform.
#pragma unroll
    for (int s = 0; s < S::stages - 1; s++) {
        if ((size_t)s < k_tiles)
            copy_tile<S, VB>(ring + s * S::stage_elems, a, b, t, (size_t)s * S::bk, m, n, k, ldb);
        copy_commit();
    }
    real acc[S::tm][S::tn] = {};
    for (size_t kt = 0; kt < k_tiles; kt++) {
        copy_wait<S::stages - 2>();  // this thread's copies of tile kt have landed
        __syncthreads();  // everyone's have, and everyone is done computing tile kt - 1
        size_t next = kt + S::stages - 1;  // refills the buffer that tile kt - 1 used
        if (next < k_tiles)
            copy_tile<S, VB>(ring + next % S::stages * S::stage_elems, a, b, t, next * S::bk,
                             m, n, k, ldb);
        copy_commit();
        const real *as = ring + kt % S::stages * S::stage_elems;
        const real *bs = as + S::bk * S::a_stride;
#pragma unroll
        for (int kk = 0; kk < S::bk; kk++) {
            real af[S::tm], bf[S::tn];
#pragma unroll
            for (int p = 0; p < S::tm / PIECE; p++)
                load_frag<PIECE>(&af[p * PIECE], &as[kk * S::a_stride + row0 + p * LANES_M * PIECE]);
#pragma unroll
            for (int p = 0; p < S::tn / PIECE; p++)
                load_frag<PIECE>(&bf[p * PIECE], &bs[kk * S::bn + col0 + p * LANES_N * PIECE]);
#pragma unroll
            for (int i = 0; i < S::tm; i++)
#pragma unroll
                for (int jj = 0; jj < S::tn; jj++) {
                    int j = S::order::column(i, jj, S::tn);
                    acc[i][j] += af[i] * bf[j];
                }
        }
    }
#pragma unroll
    for (int i = 0; i < S::tm; i++) {
        size_t r = t.r0 + row0 + i / PIECE * (LANES_M * PIECE) + i % PIECE;
#pragma unroll
        for (int p = 0; p < S::tn / PIECE; p++)
            store_row<VC, PIECE>(c, &acc[i][p * PIECE], r, t.c0 + col0 + p * (LANES_N * PIECE),
                                 m, n, ldc);
    }
}

template <class S, bool VB, bool VC>
static void launch_async_kernel(const matmul_problem *p) {
    static bool ready = false;  // shared memory beyond 48 KiB must be asked for, once
    if (!ready) {
        CHECK(cudaFuncSetAttribute(matmul_v9_async<S, VB, VC>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::smem));
        ready = true;
    }
    matmul_v9_async<S, VB, VC><<<tiles(p->m, p->n, S::bm, S::bn), S::threads, S::smem>>>(
        p->a, p->b, p->c, p->m, p->n, p->k, p->ldb, p->ldc);
}

// Launches the async kernel for tile shape S, with the 16-byte paths where the rows of B (VB)
// and of C (VC) start on 16 bytes: both when n is a multiple of VEC, B's alone under v17.
template <class S>
static void launch_async(matmul_problem *p) {
    if (p->ldb % VEC == 0 && p->ldc % VEC == 0) launch_async_kernel<S, true, true>(p);
    else if (p->ldb % VEC == 0) launch_async_kernel<S, true, false>(p);
    else launch_async_kernel<S, false, false>(p);
    CHECK_LAUNCH();
}
