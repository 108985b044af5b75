// ---- a thread's 8 x 8 results of a 64 x 64 block: load8 and own (v1c on) ----------------------

// The 8 values of one row (of tp, dp or a tile) that thread c uses when it owns 8 x 8 results
// of a 64 x 64 block: 4 at 4c and 4 at 32 + 4c, as two float4s. (v1c, v1d, v2 and v4 to v9 read
// with it.)
__device__ __forceinline__ void load8(const float *row, int c, float x[8]) {
    constexpr int VEC = 4;    // floats per 16-byte load
    constexpr int HALF = 32;  // the second group of 4 starts 32 rows or columns later
    float4 lo = *reinterpret_cast<const float4 *>(row + VEC * c);
    float4 hi = *reinterpret_cast<const float4 *>(row + HALF + VEC * c);
    x[0] = lo.x, x[1] = lo.y, x[2] = lo.z, x[3] = lo.w;
    x[4] = hi.x, x[5] = hi.y, x[6] = hi.z, x[7] = hi.w;
}

// Result (u, w) of thread (tx, ty) is r[i][j] with i = i0 + own(u, ty), j = j0 + own(w, tx):
// the rows and columns that load8 reads.
__device__ __forceinline__ int own(int u, int c) {
    constexpr int VEC = 4, HALF = 32;  // as in load8
    return (u / VEC) * HALF + VEC * c + u % VEC;
}
