// ---- the warp's tile with mma.sync (v2 on) -----------------------------------------------------

// A warp's 64 x 32 piece of C from the tiles in shared memory, 16 columns of k at a time: for
// each, 4 ldmatrix.x4 fetch four 16 x 16 pieces of A, 2 fetch four 8 x 16 pieces of B, and 16
// mma multiply them. acc[i][j]: rows wm + 16 i, columns wn + 8 j.
template <int BK, int (*Place)(int, int)>
__device__ void warp_tile_mma(const uint4 *sa, const uint4 *sb, int wm, int wn,
                              float (&acc)[4][4][4]) {
    // EXERCISE: mma begin
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) {
        uint32_t fa[4][4], fb[2][4];
        // A: lanes 0-15 point at rows 0-15 of k 0-7, lanes 16-31 at the same rows of k 8-15
#pragma unroll
        for (int i = 0; i < 4; i++)
            ldmatrix_x4(fa[i], sa + Place(wm + i * 16 + lane % 16, kk * 2 + lane / 16));
        // B: matrices (rows 0-7, k 0-7), (0-7, k 8-15), (8-15, k 0-7), (8-15, k 8-15)
#pragma unroll
        for (int j = 0; j < 2; j++)
            ldmatrix_x4(fb[j], sb + Place(wn + j * 16 + lane / 16 * 8 + lane % 8,
                                          kk * 2 + lane / 8 % 2));
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                mma_16x8x16(acc[i][j], fa[i], fb[j / 2][j % 2 * 2], fb[j / 2][j % 2 * 2 + 1]);
    }
    // EXERCISE: mma end
}

// The accumulators to C, straight from the registers: lane l holds rows l / 4 and l / 4 + 8 of
// each 16 x 8 piece, two neighbouring columns each.
__device__ void store_warp_tile(const float (&acc)[4][4][4], float *c, size_t r0, size_t c0,
                                size_t m, size_t n) {
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            size_t row = r0 + i * 16 + lane / 4, col = c0 + j * 8 + lane % 4 * 2;
            store_pair(c, row, col, m, n, acc[i][j][0], acc[i][j][1]);
            store_pair(c, row + 8, col, m, n, acc[i][j][2], acc[i][j][3]);
        }
}
