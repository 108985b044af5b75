// 01-transpose/tiled
// The barrier between writing the tile and reading its columns is missing: racecheck reports it.
    __shared__ float tile[TILE][TILE];
    tile_origin t = block_tile(n, TILE, TILE);
    size_t r = t.r0 + threadIdx.y, c = t.c0 + threadIdx.x;
    if (r < m && c < n) tile[threadIdx.y][threadIdx.x] = in[r * n + c];
    size_t out_r = t.c0 + threadIdx.y, out_c = t.r0 + threadIdx.x;
    if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[threadIdx.x][threadIdx.y];
