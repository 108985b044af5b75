// ---- v1 tiled -----------------------------------------------------------------------------------

// v0 wrote a column of out per warp; now a block stages a TILE x TILE block in shared memory.
// Each warp reads one tile row from in (128 contiguous bytes) and, after the barrier, writes
// one tile column of it as one row of out (also 128 contiguous bytes): both global accesses are
// coalesced. The price: reading tile[threadIdx.x][threadIdx.y] walks down a column, 32 floats
// 128 bytes apart, all in the same one of shared memory's 32 banks, one thread at a time.
template <int TILE>
__global__ void transpose_v1_tiled(const float *__restrict__ in, float *__restrict__ out,
                                   size_t m, size_t n) {
    // EXERCISE: tiled begin
    __shared__ float tile[TILE][TILE];  // tile: TILE x TILE floats, 4 KiB
    tile_origin t = block_tile(n, TILE, TILE);
    size_t r = t.r0 + threadIdx.y, c = t.c0 + threadIdx.x;
    if (r < m && c < n) tile[threadIdx.y][threadIdx.x] = in[r * n + c];
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    // Swap roles: threadIdx.x now runs along a row of out, that is, along a column of the tile.
    size_t out_r = t.c0 + threadIdx.y, out_c = t.r0 + threadIdx.x;
    if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[threadIdx.x][threadIdx.y];
    // EXERCISE: tiled end
}

static void launch_v1(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int TILE = 32;  // one warp across a tile row: 32 floats, 128 bytes
    dim3 block(TILE, TILE);   // 1024 threads, one per element of the tile
    transpose_v1_tiled<TILE><<<tiles(p->m, p->n, TILE, TILE), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
