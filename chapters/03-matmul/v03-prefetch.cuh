// ---- v3 prefetch --------------------------------------------------------------------------------
// In v2 a warp waits for its global loads, then computes, then waits again: the memory and the
// FMA units take turns. Here the loads of the next tile are issued into registers before the
// current tile is used, so their latency hides behind 32 FMAs; after the barrier the registers
// go to shared memory.
template <int TILE>
__global__ void matmul_v3_prefetch(const real *a, const real *b, real *c, size_t m, size_t n,
                                   size_t k) {
    // EXERCISE: prefetch begin
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
        // The next tile's loads: in flight while we compute (zeros past the end of k).
        a_next = load_or_zero(a, r, k0 + TILE + tx, m, k);
        b_next = load_or_zero(b, k0 + TILE + ty, col, k, n);
#pragma unroll 1  // kept rolled on purpose: unrolling is v4's lesson
        for (int kk = 0; kk < TILE; kk++) acc += as[ty][kk] * bs[kk][tx];
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
    if (r < m && col < n) c[r * n + col] = acc;
    // EXERCISE: prefetch end
}

static void launch_v3(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int TILE = 32;  // one warp across a tile row; 32 x 32 threads
    dim3 block(TILE, TILE);
    matmul_v3_prefetch<TILE><<<tiles(p->m, p->n, TILE, TILE), block>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
