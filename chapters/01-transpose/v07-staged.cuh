// ---- v7 staged ----------------------------------------------------------------------------------

// v6's tile and order; what changes is when the loads go out. Each load keeps its own condition
// (an element outside the matrix becomes a 0 that is never written out) and lands in a register,
// so its predicate is dead as soon as it is issued, and all 16 loads go out back to back before
// the first store into the tile. The tile's stores and reads need no condition at all.
//
// In v6 one `if` guards each element's load and its shared-memory store, so the compiler must
// keep every element's condition in a predicate register until the store; a thread has seven of
// them. The SASS of v6 (make sass CH=01-transpose) shows the result: the 16 loads go out in
// batches of one to six, each batch stored before the next is loaded. The second half gets the
// same treatment: its shared-memory reads are unconditional, only the global stores are guarded.
template <int TILE_ROWS, int TILE_COLS, int BLOCK_COLS, int BLOCK_ROWS>
__global__ void transpose_v7_staged(const float *__restrict__ in, float *__restrict__ out,
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

static void launch_v7(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int TILE_ROWS = 128;  // 128 x (32 + 1) floats: 16.5 KiB of shared memory a block
    constexpr int TILE_COLS = 32;   // one warp across the tile's width
    constexpr int BLOCK_COLS = 32;  // one warp across the block: a tile row, 128 bytes
    constexpr int BLOCK_ROWS = 8;   // 32 x 8 = 256 threads; each moves 16 elements
    dim3 block(BLOCK_COLS, BLOCK_ROWS);
    transpose_v7_staged<TILE_ROWS, TILE_COLS, BLOCK_COLS, BLOCK_ROWS>
        <<<tiles(p->m, p->n, TILE_ROWS, TILE_COLS), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
