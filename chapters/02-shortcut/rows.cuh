// ---- rows of results a thread, 8 or 4, for v8 and the experiments on v9 (v8 on) ---------------

// Thread ty's ROWS values of a tile row: 8 as load8 reads them, or 4 consecutive ones (4ty ..
// 4ty + 3), one float4; own_row says which rows of the block they are.
template <int ROWS>
__device__ __forceinline__ void load_rows(const float *row, int c, float x[ROWS]) {
    constexpr int VEC = 4;  // floats per float4
    if constexpr (ROWS == 8) {
        load8(row, c, x);
    } else {
        float4 q = *reinterpret_cast<const float4 *>(row + VEC * c);
        x[0] = q.x, x[1] = q.y, x[2] = q.z, x[3] = q.w;
    }
}
template <int ROWS>
__device__ __forceinline__ int own_row(int u, int c) {
    constexpr int VEC = 4;  // floats per float4
    return ROWS == 8 ? own(u, c) : VEC * c + u;
}

// A block of 64 threads copies a tile as v6 does; one of 128 copies it as two blocks of 64
// would, each half of the threads taking half the rows.
template <int RB_THREADS, int BLOCK64, int KT, int THREADS>
__device__ __forceinline__ void copy_tile_min3(float (*as)[BLOCK64], float (*bs)[BLOCK64],
                                               const float *tp_k0, const float *dp_k0, size_t np,
                                               int t) {
    constexpr int GROUP = RB_THREADS * RB_THREADS;
    if constexpr (THREADS == GROUP) {
        copy_tile_async<RB_THREADS, BLOCK64, KT>(as, bs, tp_k0, dp_k0, np, t);
    } else {
        constexpr int PART = KT * GROUP / THREADS;  // the rows each group of 64 copies
        int g = t / GROUP;
        copy_tile_async<RB_THREADS, BLOCK64, PART>(as + g * PART, bs + g * PART,
                                                   tp_k0 + g * PART * np, dp_k0 + g * PART * np,
                                                   np, t % GROUP);
    }
}
