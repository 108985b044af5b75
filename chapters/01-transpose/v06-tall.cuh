// ---- v6 tall ------------------------------------------------------------------------------------

// v5 with the tile's shape changed: 128 rows by 32 columns instead of 64 by 64, the same 4096
// elements. Each warp now reads 32 floats of an input row (128 bytes) and writes 128 floats of
// an output row (512 contiguous bytes, four warps' worth): where rows of out do not start on a
// 32-byte sector, longer runs share fewer partly written sectors with other tiles.
//
// When m is not a multiple of 8, every warp-wide store begins and ends in a sector it shares
// with another store. Writes pay for seams more than reads do: a read can fetch a sector twice
// from L2, a write must merge the parts.
template <int TILE_ROWS, int TILE_COLS, int BLOCK_COLS, int BLOCK_ROWS>
__global__ void transpose_v6_tall(const float *__restrict__ in, float *__restrict__ out,
                                  size_t m, size_t n) {
    static_assert(TILE_COLS == BLOCK_COLS, "the loads: one warp across the tile's width");
    __shared__ float tile[TILE_ROWS][TILE_COLS + 1];
    tile_origin t = block_tile_by_column(m, TILE_ROWS, TILE_COLS);
    size_t c = t.c0 + threadIdx.x;
#pragma unroll
    for (int y = 0; y < TILE_ROWS; y += BLOCK_ROWS) {  // 16 rows a thread, one warp a row
        int i = threadIdx.y + y;
        size_t r = t.r0 + i;
        if (r < m && c < n) tile[i][threadIdx.x] = in[r * n + c];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
#pragma unroll
    for (int y = 0; y < TILE_COLS; y += BLOCK_ROWS) {  // 4 output rows a warp...
#pragma unroll
        for (int x = 0; x < TILE_ROWS; x += BLOCK_COLS) {  // ...each 128 floats long, in 4 pieces
            int i = threadIdx.y + y, j = threadIdx.x + x;
            size_t out_r = t.c0 + i, out_c = t.r0 + j;
            if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[j][i];
        }
    }
}

static void launch_v6(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int TILE_ROWS = 128;  // 128 x (32 + 1) floats: 16.5 KiB of shared memory a block
    constexpr int TILE_COLS = 32;   // one warp across the tile's width
    constexpr int BLOCK_COLS = 32;  // one warp across the block: a tile row, 128 bytes
    constexpr int BLOCK_ROWS = 8;   // 32 x 8 = 256 threads; each moves 16 elements
    dim3 block(BLOCK_COLS, BLOCK_ROWS);
    transpose_v6_tall<TILE_ROWS, TILE_COLS, BLOCK_COLS, BLOCK_ROWS>
        <<<tiles(p->m, p->n, TILE_ROWS, TILE_COLS), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
