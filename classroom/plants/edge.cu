// 01-transpose/tiled
// An off-by-one in the tile count (it rounds down): right only when m and n are multiples of 32.
    __shared__ float tile[TILE][TILE];
    tile_origin t = block_tile(n, TILE, TILE);
    if (t.r0 + TILE > m || t.c0 + TILE > n) return;  // planted: the partial tiles are skipped
    size_t r = t.r0 + threadIdx.y, c = t.c0 + threadIdx.x;
    if (r < m && c < n) tile[threadIdx.y][threadIdx.x] = in[r * n + c];
    __syncthreads();
    size_t out_r = t.c0 + threadIdx.y, out_c = t.r0 + threadIdx.x;
    if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[threadIdx.x][threadIdx.y];
