// ---- v0 naive -----------------------------------------------------------------------------------
// One thread per element of C, and threadIdx.x runs down the rows. At each step l the 32
// threads of a warp read A[r][l] for 32 rows, k floats apart: 32 sectors for 32 useful floats.
// They all read the same B[l][c] (one broadcast) and finally write C in 32 different rows, a sector each.
template <int BLOCK_X, int BLOCK_Y>
__global__ void matmul_v0_naive(const real *a, const real *b, real *c, size_t m, size_t n,
                                size_t k) {
    tile_origin t = block_tile(n, BLOCK_X, BLOCK_Y);  // BLOCK_X rows x BLOCK_Y columns of C
    size_t r = t.r0 + threadIdx.x;  // r in [0, m), fastest across the warp
    size_t col = t.c0 + threadIdx.y;
    if (r >= m || col >= n) return;
    real acc = 0;
    for (size_t l = 0; l < k; l++) acc += a[r * k + l] * b[l * n + col];
    c[r * n + col] = acc;
}

static void launch_v0(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int BLOCK_X = 32;  // a warp
    constexpr int BLOCK_Y = 8;   // 256 threads a block
    dim3 block(BLOCK_X, BLOCK_Y);
    matmul_v0_naive<BLOCK_X, BLOCK_Y><<<tiles(p->m, p->n, BLOCK_X, BLOCK_Y), block>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
