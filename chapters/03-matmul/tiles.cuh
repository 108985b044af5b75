// ---- a tile's elements, zero outside the matrix (v2 on) -----------------------------------------
// v2 to v6 copy their tiles an element at a time with load_or_zero: tiles that overhang the
// matrix are padded with zeros, which add nothing to the sums.

// The tile element at (r, c) of a rows x cols matrix, or 0 outside it.
__device__ __forceinline__ real load_or_zero(const real *x, size_t r, size_t c, size_t rows,
                                             size_t cols) {
    return (r < rows && c < cols) ? x[r * cols + c] : (real)0;
}
