// ---- v5 ordered -------------------------------------------------------------------------------

// v4's kernel; only the order in which blocks take tiles changes: block_tile_by_column (in
// grid.cuh) numbers them column by column. The blocks running together then write a few bands
// of rows of out, so the pieces of each output row are written at nearly the same time, while
// their sectors are still in L2.
//
// Blocks start in blockIdx order, about a thousand at a time. Numbered row by row (v4), the
// blocks running together share a few bands of rows of in, but each writes 64 different rows of
// out: together they write a little to every row of out.
template <int TILE, int BLOCK_COLS, int BLOCK_ROWS>
__global__ void transpose_v5_ordered(const float *__restrict__ in, float *__restrict__ out,
                                     size_t m, size_t n) {
    __shared__ float tile[TILE][TILE + 1];
    tile_origin t = block_tile_by_column(m, TILE, TILE);
#pragma unroll
    for (int y = 0; y < TILE; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE; x += BLOCK_COLS) {  // two warp-wide halves of a tile row
            int i = threadIdx.y + y, j = threadIdx.x + x;
            size_t r = t.r0 + i, c = t.c0 + j;
            if (r < m && c < n) tile[i][j] = in[r * n + c];
        }
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
#pragma unroll
    for (int y = 0; y < TILE; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE; x += BLOCK_COLS) {
            int i = threadIdx.y + y, j = threadIdx.x + x;
            size_t out_r = t.c0 + i, out_c = t.r0 + j;
            if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[j][i];
        }
    }
}

static void launch_v5(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int TILE = 64;        // 64 x (64 + 1) floats: 16.3 KiB of shared memory a block
    constexpr int BLOCK_COLS = 32;  // one warp across the block: half a tile row, 128 bytes
    constexpr int BLOCK_ROWS = 8;   // 32 x 8 = 256 threads, as in v3; each moves 16 elements
    dim3 block(BLOCK_COLS, BLOCK_ROWS);
    transpose_v5_ordered<TILE, BLOCK_COLS, BLOCK_ROWS>
        <<<tiles(p->m, p->n, TILE, TILE), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
