// ---- v2 tiled -----------------------------------------------------------------------------------
// v1 loads every element of A n times and of B m times: most of those loads hit in L1, but
// each is a load instruction and a request to L1. Here a block of TILE x TILE threads first
// copies a TILE x TILE tile of A and one of B into shared memory, then each thread uses them
// TILE times: the global load requests the SMs send fall by a factor TILE. (DRAM traffic need
// not fall: it depends on what L2 keeps, and at 4096^3 v2 reads more from DRAM than v1; the
// README has the counts.) Tiles that overhang the matrix are padded with zeros, which add
// nothing to the sums (edges: padding).
template <int TILE>
__global__ void matmul_v2_tiled(const real *a, const real *b, real *c, size_t m, size_t n,
                                size_t k) {
    // EXERCISE: tiled begin
    __shared__ real as[TILE][TILE];  // as[row][kk]: TILE x TILE of A
    __shared__ real bs[TILE][TILE];  // bs[kk][col]: TILE x TILE of B
    tile_origin t = block_tile(n, TILE, TILE);
    int ty = threadIdx.y, tx = threadIdx.x;  // tx fastest across the warp
    size_t r = t.r0 + ty, col = t.c0 + tx;
    real acc = 0;
    for (size_t k0 = 0; k0 < k; k0 += TILE) {
        as[ty][tx] = load_or_zero(a, r, k0 + tx, m, k);   // a warp: 128 bytes of one row of A
        bs[ty][tx] = load_or_zero(b, k0 + ty, col, k, n); // a warp: 128 bytes of one row of B
        __syncthreads();  // both tiles are complete before anyone reads them
        // as[ty][kk] is one address for the warp (a broadcast); bs[kk][tx] is 32 banks.
#pragma unroll 1  // kept rolled on purpose: unrolling is v4's lesson
        for (int kk = 0; kk < TILE; kk++) acc += as[ty][kk] * bs[kk][tx];
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
    if (r < m && col < n) c[r * n + col] = acc;
    // EXERCISE: tiled end
}

static void launch_v2(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int TILE = 32;  // one warp across a tile row; 32 x 32 threads
    dim3 block(TILE, TILE);
    matmul_v2_tiled<TILE><<<tiles(p->m, p->n, TILE, TILE), block>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
