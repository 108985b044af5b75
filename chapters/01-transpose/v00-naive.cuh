// ---- v0 naive -----------------------------------------------------------------------------------

// The starting point: one thread per element, no shared memory. The 32 threads of a warp share
// a row r and take 32 consecutive columns c: they read 128 contiguous bytes (one transaction)
// but write 32 floats that lie m floats apart in out, one 32-byte sector each. Writes move 8
// times the bytes they need.
template <int BLOCK_COLS, int BLOCK_ROWS>
__global__ void transpose_v0_naive(const float *__restrict__ in, float *__restrict__ out,
                                   size_t m, size_t n) {
    tile_origin t = block_tile(n, BLOCK_ROWS, BLOCK_COLS);
    size_t r = t.r0 + threadIdx.y;  // r in [0, m)
    size_t c = t.c0 + threadIdx.x;  // c in [0, n), fastest across the warp
    if (r < m && c < n) out[c * m + r] = in[r * n + c];
}

static void launch_v0(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int BLOCK_COLS = 32;  // a warp across the columns
    constexpr int BLOCK_ROWS = 8;   // 256 threads a block
    dim3 block(BLOCK_COLS, BLOCK_ROWS);
    transpose_v0_naive<BLOCK_COLS, BLOCK_ROWS>
        <<<tiles(p->m, p->n, BLOCK_ROWS, BLOCK_COLS), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
