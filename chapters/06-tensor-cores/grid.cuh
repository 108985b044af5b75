// ---- the grid -----------------------------------------------------------------------------------

// Every version hands out tiles of C, one per block, numbered row by row in blockIdx.x.
struct tile_origin {
    size_t r0, c0;  // the tile's first row and column in C
};

__device__ inline tile_origin tile_at(size_t tile, size_t n, int tile_rows, int tile_cols) {
    size_t tiles_per_row = (n + tile_cols - 1) / tile_cols;
    return {tile / tiles_per_row * tile_rows, tile % tiles_per_row * tile_cols};
}

static unsigned tiles(size_t m, size_t n, int tile_rows, int tile_cols) {
    return (unsigned)(ceil_div(m, tile_rows) * ceil_div(n, tile_cols));
}

// One result pair C[row][col], C[row][col + 1] from a fragment: one 8-byte store when both are
// inside C and aligned (n even), else each on its own, and nothing outside C.
__device__ inline void store_pair(float *c, size_t row, size_t col, size_t m, size_t n, float x,
                                  float y) {
    if (row >= m) return;
    float *p = c + row * n + col;
    if (n % 2 == 0 && col + 1 < n) {
        *reinterpret_cast<float2 *>(p) = make_float2(x, y);
    } else {
        if (col < n) p[0] = x;
        if (col + 1 < n) p[1] = y;
    }
}

// One 16-byte piece of a matrix (8 BF16: row `row`, columns col .. col + 7, col a multiple of 8)
// with `rows` rows and k columns, zeros past its edges. A piece that starts before k ends
// inside the row's ld, so the load itself is always in bounds; its columns past k are padding.
__device__ inline uint4 load_piece(const bf16 *x, size_t row, size_t col, size_t rows, size_t k,
                                   size_t ld) {
    uint4 v = make_uint4(0, 0, 0, 0);
    if (row < rows && col < k) {
        v = *reinterpret_cast<const uint4 *>(x + row * ld + col);
        if (col + 8 > k) {  // the last piece of the row: clear the padding
            unsigned short *e = reinterpret_cast<unsigned short *>(&v);
#pragma unroll
            for (int i = 0; i < 8; i++)
                if (col + i >= k) e[i] = 0;
        }
    }
    return v;
}
