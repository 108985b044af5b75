// ---- v8 wide ------------------------------------------------------------------------------------

// v7 with a tile twice as wide: 128 x 64, 32 elements a thread. Before v7 a bigger tile bought
// little, because the loads went out a few at a time whatever their number; now all 32 are in
// flight at once. Each warp reads 256 contiguous bytes of an input row (two loads) and still
// writes 512 of an output row, and a block moves twice the bytes per barrier.
template <int TILE_ROWS, int TILE_COLS, int BLOCK_COLS, int BLOCK_ROWS>
__global__ void transpose_v8_wide(const float *__restrict__ in, float *__restrict__ out,
                                  size_t m, size_t n) {
    __shared__ float tile[TILE_ROWS][TILE_COLS + 1];
    tile_origin t = block_tile_by_column(m, TILE_ROWS, TILE_COLS);
    float v[TILE_ROWS / BLOCK_ROWS][TILE_COLS / BLOCK_COLS];  // this thread's elements, in flight
#pragma unroll
    for (int y = 0; y < TILE_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE_COLS; x += BLOCK_COLS) {
            size_t r = t.r0 + threadIdx.y + y, c = t.c0 + threadIdx.x + x;
            v[y / BLOCK_ROWS][x / BLOCK_COLS] = (r < m && c < n) ? in[r * n + c] : 0.0f;
        }
    }
#pragma unroll
    for (int y = 0; y < TILE_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE_COLS; x += BLOCK_COLS)
            tile[threadIdx.y + y][threadIdx.x + x] = v[y / BLOCK_ROWS][x / BLOCK_COLS];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    float w[TILE_COLS / BLOCK_ROWS][TILE_ROWS / BLOCK_COLS];  // this thread's outputs
#pragma unroll
    for (int y = 0; y < TILE_COLS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE_ROWS; x += BLOCK_COLS)
            w[y / BLOCK_ROWS][x / BLOCK_COLS] = tile[threadIdx.x + x][threadIdx.y + y];
    }
#pragma unroll
    for (int y = 0; y < TILE_COLS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE_ROWS; x += BLOCK_COLS) {
            size_t out_r = t.c0 + threadIdx.y + y, out_c = t.r0 + threadIdx.x + x;
            if (out_r < n && out_c < m)
                out[out_r * m + out_c] = w[y / BLOCK_ROWS][x / BLOCK_COLS];
        }
    }
}

static void launch_v8(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int TILE_ROWS = 128;  // 128 x (64 + 1) floats: 32.5 KiB of shared memory a block
    constexpr int TILE_COLS = 64;   // two warps across the tile's width: 256 bytes of a row
    constexpr int BLOCK_COLS = 32;  // one warp across the block: half a tile row, 128 bytes
    constexpr int BLOCK_ROWS = 8;   // 32 x 8 = 256 threads; each moves 32 elements
    dim3 block(BLOCK_COLS, BLOCK_ROWS);
    transpose_v8_wide<TILE_ROWS, TILE_COLS, BLOCK_COLS, BLOCK_ROWS>
        <<<tiles(p->m, p->n, TILE_ROWS, TILE_COLS), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
