// ---- v2 padded ----------------------------------------------------------------------------------

// The only change: each tile row is TILE + 1 floats long. Element [i][j] sits at word
// i * 33 + j, in bank (i + j) % 32, so the 32 reads of a column land in 32 different banks
// and the warp reads them in one go.
template <int TILE>
__global__ void transpose_v2_padded(const float *__restrict__ in, float *__restrict__ out,
                                    size_t m, size_t n) {
    // EXERCISE: padded begin
    __shared__ float tile[TILE][TILE + 1];  // tile: TILE x (TILE + 1) floats
    tile_origin t = block_tile(n, TILE, TILE);
    size_t r = t.r0 + threadIdx.y, c = t.c0 + threadIdx.x;
    if (r < m && c < n) tile[threadIdx.y][threadIdx.x] = in[r * n + c];
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    size_t out_r = t.c0 + threadIdx.y, out_c = t.r0 + threadIdx.x;
    if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[threadIdx.x][threadIdx.y];
    // EXERCISE: padded end
}

static void launch_v2(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int TILE = 32;  // one warp across a tile row: 32 floats, 128 bytes
    dim3 block(TILE, TILE);   // 1024 threads, one per element of the tile
    transpose_v2_padded<TILE><<<tiles(p->m, p->n, TILE, TILE), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
