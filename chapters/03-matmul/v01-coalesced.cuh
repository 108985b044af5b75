// ---- v1 coalesced -------------------------------------------------------------------------------
// The only change: threadIdx.x runs along the columns. A warp now shares its row r: A[r][l]
// is one broadcast, B[l][c .. c+31] is 128 contiguous bytes, and the write of C is too.
template <int BLOCK_X, int BLOCK_Y>
__global__ void matmul_v1_coalesced(const real *a, const real *b, real *c, size_t m, size_t n,
                                    size_t k) {
    tile_origin t = block_tile(n, BLOCK_Y, BLOCK_X);  // BLOCK_Y rows x BLOCK_X columns of C
    size_t r = t.r0 + threadIdx.y;
    size_t col = t.c0 + threadIdx.x;  // col in [0, n), fastest across the warp
    if (r >= m || col >= n) return;
    real acc = 0;
    for (size_t l = 0; l < k; l++) acc += a[r * k + l] * b[l * n + col];
    c[r * n + col] = acc;
}

static void launch_v1(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int BLOCK_X = 32;  // a warp
    constexpr int BLOCK_Y = 8;   // 256 threads a block
    dim3 block(BLOCK_X, BLOCK_Y);
    matmul_v1_coalesced<BLOCK_X, BLOCK_Y><<<tiles(p->m, p->n, BLOCK_Y, BLOCK_X), block>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
