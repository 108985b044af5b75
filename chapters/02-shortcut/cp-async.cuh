// ---- cp.async copies of a tile (v6 on) --------------------------------------------------------

// cp.async (sm_80 and later) copies 16 bytes from global straight into shared memory, with no
// register in between; v6 to v9 copy their tiles with it, a group of copies a tile.
// Before Ampere (sm_75) there is no cp.async: an ordinary copy through a register stands in, and
// the commit and the wait have nothing to do.
__device__ __forceinline__ void copy16_async(float *smem, const float *gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    *reinterpret_cast<float4 *>(smem) = *reinterpret_cast<const float4 *>(gmem);
#else
    unsigned to = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(gmem) : "memory");
#endif
}

// Closes the group of copies issued so far.
__device__ __forceinline__ void copy_commit() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until every copy this thread committed has landed.
__device__ __forceinline__ void copy_wait_all() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

// Thread t's float4s of a KT x 64 tile of tp and of dp (the rows k0.. of both), as in v4:
// float4 number t + 64 q sits in row (t + 64 q) / 16 at column 4 ((t + 64 q) % 16). A warp
// copies two whole tile rows, 2 x 256 contiguous bytes, per cp.async.
template <int RB_THREADS, int BLOCK64, int KT>
__device__ __forceinline__ void copy_tile_async(float (*as)[BLOCK64], float (*bs)[BLOCK64],
                                                const float *tp_k0, const float *dp_k0, size_t np,
                                                int t) {
    constexpr int VEC = 4;  // floats per float4
#pragma unroll
    for (int q = 0; q < KT * BLOCK64 / VEC / (RB_THREADS * RB_THREADS); q++) {
        tile_spot at = spot<RB_THREADS, BLOCK64>(t, q);
        copy16_async(&as[at.row][at.col], tp_k0 + at.row * np + at.col);
        copy16_async(&bs[at.row][at.col], dp_k0 + at.row * np + at.col);
    }
    copy_commit();
}
