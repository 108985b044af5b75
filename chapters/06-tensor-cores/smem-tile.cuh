// ---- a block's tile of A or B into shared memory (v1 on) ----------------------------------------

// A block's tile of ROWS rows of PIECES 16-byte pieces into shared memory, row r's piece q at
// Place(r, q) (in 16-byte units): each thread moves 16-byte pieces; a warp covers 4 rows of 128
// contiguous bytes.
template <int PIECES>
__device__ inline int plain(int r, int q) { return r * PIECES + q; }

template <int ROWS, int PIECES, int THREADS, int (*Place)(int, int)>
__device__ void load_tile(uint4 *s, const bf16 *x, size_t row0, size_t k0, size_t rows,
                          size_t k, size_t ld) {
    for (int p = threadIdx.x; p < ROWS * PIECES; p += THREADS)
        s[Place(p / PIECES, p % PIECES)] =
            load_piece(x, row0 + p / PIECES, k0 + p % PIECES * 8, rows, k, ld);
}
