// ---- the grid ---------------------------------------------------------------------------------

// Every version hands out tiles of the matrix, one per block. blockIdx.x numbers the tiles row
// by row; a 2D grid would read more simply but caps gridDim.y at 65535 tiles (about two
// million rows), and any m >= 1 must work.
struct tile_origin {
    size_t r0, c0;  // the tile's first row and column in the input
};

__device__ tile_origin block_tile(size_t n, int tile_rows, int tile_cols) {
    size_t tiles_per_row = (n + tile_cols - 1) / tile_cols;
    tile_origin t;
    t.r0 = (size_t)(blockIdx.x / tiles_per_row) * tile_rows;
    t.c0 = (size_t)(blockIdx.x % tiles_per_row) * tile_cols;
    return t;
}

// From v5 on: the same tiles numbered column by column, so that the blocks running together
// write neighbouring rows of out, as they read neighbouring rows of in.
__device__ tile_origin block_tile_by_column(size_t m, int tile_rows, int tile_cols) {
    size_t tiles_per_col = (m + tile_rows - 1) / tile_rows;
    tile_origin t;
    t.r0 = (size_t)(blockIdx.x % tiles_per_col) * tile_rows;
    t.c0 = (size_t)(blockIdx.x / tiles_per_col) * tile_cols;
    return t;
}

static unsigned tiles(size_t m, size_t n, int tile_rows, int tile_cols) {
    return (unsigned)(ceil_div(m, tile_rows) * ceil_div(n, tile_cols));
}
