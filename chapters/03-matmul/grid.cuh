// ---- the grid ---------------------------------------------------------------------------------

// Every version hands out tiles of C, one per block, numbered row by row in blockIdx.x (a 2D
// grid would cap the tiles down the rows at 65535).
struct tile_origin {
    size_t r0, c0;  // the tile's first row and column in C
};

__device__ tile_origin tile_at(size_t tile, size_t n, int tile_rows, int tile_cols) {
    size_t tiles_per_row = (n + tile_cols - 1) / tile_cols;
    tile_origin t;
    t.r0 = tile / tiles_per_row * tile_rows;
    t.c0 = tile % tiles_per_row * tile_cols;
    return t;
}

__device__ tile_origin block_tile(size_t n, int tile_rows, int tile_cols) {
    return tile_at(blockIdx.x, n, tile_rows, tile_cols);
}

static unsigned tiles(size_t m, size_t n, int tile_rows, int tile_cols) {
    return (unsigned)(ceil_div(m, tile_rows) * ceil_div(n, tile_cols));
}
