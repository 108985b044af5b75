// ---- v4 unrolled --------------------------------------------------------------------------------
// The only change: the kk loop is unrolled. The rolled loop spends, per FMA, a loop counter,
// a compare, a branch and address arithmetic; unrolled, each shared load has a constant offset
// and four consecutive as[ty][kk] become one 16-byte load. The FMA share of the instructions
// rises (plots/evidence/sm_90/03-matmul-sass.csv counts the SASS of both kernels; the README
// quotes it).
template <int TILE>
__global__ void matmul_v4_unrolled(const real *a, const real *b, real *c, size_t m, size_t n,
                                   size_t k) {
    __shared__ real as[TILE][TILE];
    __shared__ real bs[TILE][TILE];
    tile_origin t = block_tile(n, TILE, TILE);
    int ty = threadIdx.y, tx = threadIdx.x;
    size_t r = t.r0 + ty, col = t.c0 + tx;
    real a_next = load_or_zero(a, r, tx, m, k), b_next = load_or_zero(b, ty, col, k, n);
    real acc = 0;
    for (size_t k0 = 0; k0 < k; k0 += TILE) {
        as[ty][tx] = a_next;
        bs[ty][tx] = b_next;
        __syncthreads();  // both tiles are complete before anyone reads them
        a_next = load_or_zero(a, r, k0 + TILE + tx, m, k);
        b_next = load_or_zero(b, k0 + TILE + ty, col, k, n);
#pragma unroll
        for (int kk = 0; kk < TILE; kk++) acc += as[ty][kk] * bs[kk][tx];
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
    if (r < m && col < n) c[r * n + col] = acc;
}

static void launch_v4(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int TILE = 32;  // one warp across a tile row; 32 x 32 threads
    dim3 block(TILE, TILE);
    matmul_v4_unrolled<TILE><<<tiles(p->m, p->n, TILE, TILE), block>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
