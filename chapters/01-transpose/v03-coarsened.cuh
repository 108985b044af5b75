// ---- v3 coarsened -------------------------------------------------------------------------------

// v2's padded tile, moved by a quarter of the threads: 32 x 8 threads, each moving
// TILE / BLOCK_ROWS = 4 elements. Each thread now issues four independent loads before it
// waits, the index arithmetic is shared by four elements, and a block of 256 threads leaves
// room for more blocks per SM.
template <int TILE, int BLOCK_ROWS>
__global__ void transpose_v3_coarsened(const float *__restrict__ in, float *__restrict__ out,
                                       size_t m, size_t n) {
    __shared__ float tile[TILE][TILE + 1];
    tile_origin t = block_tile(n, TILE, TILE);
    size_t c = t.c0 + threadIdx.x;
    // j counts from 0, not from threadIdx.y: a trip count known at compile time lets the
    // compiler unroll the loop and issue all four loads before the first one returns.
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {  // tile rows y, y + 8, y + 16, y + 24
        int i = threadIdx.y + j;
        size_t r = t.r0 + i;
        if (r < m && c < n) tile[i][threadIdx.x] = in[r * n + c];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    size_t out_c = t.r0 + threadIdx.x;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int i = threadIdx.y + j;
        size_t out_r = t.c0 + i;
        if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[threadIdx.x][i];
    }
}

static void launch_v3(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int TILE = 32;       // one warp across a tile row: 32 floats, 128 bytes
    constexpr int BLOCK_ROWS = 8;  // 32 x 8 = 256 threads; each moves TILE / BLOCK_ROWS elements
    dim3 block(TILE, BLOCK_ROWS);
    transpose_v3_coarsened<TILE, BLOCK_ROWS>
        <<<tiles(p->m, p->n, TILE, TILE), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
