// ---- the float4s a thread moves of a KT x 64 tile (v3a on) -------------------------------------

// The float4 that thread t moves on its q-th load of a KT x 64 tile: float4 number t + 64 q, in
// row (t + 64 q) / 16 at column 4 ((t + 64 q) % 16). A warp moves 32 consecutive float4s: two
// whole tile rows, 2 x 256 contiguous bytes of global memory, 512 bytes of shared memory.
struct tile_spot {
    int row, col;
};
template <int RB_THREADS, int BLOCK64>
__device__ __forceinline__ tile_spot spot(int t, int q) {
    constexpr int VEC = 4;  // floats per float4
    int e = t + q * RB_THREADS * RB_THREADS;
    return {e / (BLOCK64 / VEC), VEC * (e % (BLOCK64 / VEC))};
}
