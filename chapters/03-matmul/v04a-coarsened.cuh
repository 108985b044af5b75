// ---- v4a coarsened ------------------------------------------------------------------------------
// The only change: each thread computes TM results down one column instead of one, on v4's
// 32 x 32 tile, 32 deep, so the block has TILE x TILE / TM = 128 threads. Per kk a thread loads
// one B value and uses it TM times, and its A values are broadcasts (merged into 16-byte loads,
// as in v4): the shared loads per FMA fall from 1.25 to about 3/8. Fewer threads copy the same
// tiles, so each copies TM elements of A and TM of B, rows TILE / TM apart.
template <int TILE, int TM>
__global__ void matmul_v4a_coarsened(const real *a, const real *b, real *c, size_t m, size_t n,
                                     size_t k) {
    constexpr int ROWS = TILE / TM;  // thread rows: the block is TILE x ROWS threads
    __shared__ real as[TILE][TILE];
    __shared__ real bs[TILE][TILE];
    tile_origin t = block_tile(n, TILE, TILE);
    int ty = threadIdx.y, tx = threadIdx.x;
    size_t col = t.c0 + tx;
    // The thread copies rows ty, ty + ROWS, ... of each tile, column tx: ty + i * ROWS covers
    // [0, TILE) once over the ROWS thread rows, and a warp (one ty) reads 128 contiguous bytes.
    real a_next[TM], b_next[TM];
#pragma unroll
    for (int i = 0; i < TM; i++) {
        a_next[i] = load_or_zero(a, t.r0 + ty + i * ROWS, tx, m, k);
        b_next[i] = load_or_zero(b, ty + i * ROWS, col, k, n);
    }
    real acc[TM] = {};  // rows ty * TM + i of the tile, column tx
    for (size_t k0 = 0; k0 < k; k0 += TILE) {
#pragma unroll
        for (int i = 0; i < TM; i++) {
            as[ty + i * ROWS][tx] = a_next[i];
            bs[ty + i * ROWS][tx] = b_next[i];
        }
        __syncthreads();  // both tiles are complete before anyone reads them
#pragma unroll
        for (int i = 0; i < TM; i++) {
            a_next[i] = load_or_zero(a, t.r0 + ty + i * ROWS, k0 + TILE + tx, m, k);
            b_next[i] = load_or_zero(b, k0 + TILE + ty + i * ROWS, col, k, n);
        }
#pragma unroll
        for (int kk = 0; kk < TILE; kk++) {
            real bv = bs[kk][tx];  // one load, TM uses
#pragma unroll
            for (int i = 0; i < TM; i++) acc[i] += as[ty * TM + i][kk] * bv;
        }
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        size_t r = t.r0 + ty * TM + i;
        if (r < m && col < n) c[r * n + col] = acc[i];
    }
}

static void launch_v4a(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int TILE = 32;  // v4's tile: one warp across a tile row
    constexpr int TM = 8;     // results per thread, down a column
    static_assert(TILE % TM == 0, "the thread rows tile the block's rows");
    dim3 block(TILE, TILE / TM);  // 32 x 4 threads
    matmul_v4a_coarsened<TILE, TM><<<tiles(p->m, p->n, TILE, TILE), block>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
