// ---- v4 tile64 ----------------------------------------------------------------------------------

// A 64 x 64 tile for v3's 256 threads: each thread moves 16 elements, so a block has 16 KiB of
// loads to issue before its barrier instead of 4 KiB. Device memory needs many bytes in flight
// to reach full bandwidth (bandwidth times latency: several MB across the GPU), and fewer,
// larger tiles also quarter the barriers per byte. (How many of the 16 loads really are in
// flight at once is v7's subject.)
// TRY: move the tile in float4s (16-byte loads and stores). Is it faster? Why not?
template <int TILE, int BLOCK_COLS, int BLOCK_ROWS>
__global__ void transpose_v4_tile64(const float *__restrict__ in, float *__restrict__ out,
                                    size_t m, size_t n) {
    __shared__ float tile[TILE][TILE + 1];
    tile_origin t = block_tile(n, TILE, TILE);
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

static void launch_v4(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int TILE = 64;        // 64 x (64 + 1) floats: 16.3 KiB of shared memory a block
    constexpr int BLOCK_COLS = 32;  // one warp across the block: half a tile row, 128 bytes
    constexpr int BLOCK_ROWS = 8;   // 32 x 8 = 256 threads, as in v3; each moves 16 elements
    dim3 block(BLOCK_COLS, BLOCK_ROWS);
    transpose_v4_tile64<TILE, BLOCK_COLS, BLOCK_ROWS>
        <<<tiles(p->m, p->n, TILE, TILE), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
