// ---- v2 mma -------------------------------------------------------------------------------------
// The same tiles, multiplied with mma.sync (16 x 8 x 16) on fragments that ldmatrix loads: the
// layouts WMMA hid are now ours, and the results go to C from the registers, with no staging.

template <int BM, int BN, int BK, int THREADS>
__global__ __launch_bounds__(THREADS) void tc_v2_mma(
    const bf16 *a, const bf16 *b, float *c, size_t m, size_t n, size_t k, size_t ld) {
#if __CUDA_ARCH__ >= 800
    constexpr int WARP_M = 64, WARP_N = 32;  // a warp's piece of C
    constexpr int PIECES = BK / 8;           // 16-byte pieces in a row of a tile
    __shared__ alignas(128) uint4 sa[BM * PIECES], sb[BN * PIECES];  // 16 KB each
    int warp = threadIdx.x / 32;
    int wm = warp / 4 * WARP_M, wn = warp % 4 * WARP_N;  // the warp's piece of the tile
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    float acc[4][4][4] = {};
    for (size_t k0 = 0; k0 < k; k0 += BK) {
        load_tile<BM, PIECES, THREADS, plain<PIECES>>(sa, a, t.r0, k0, m, k, ld);
        load_tile<BN, PIECES, THREADS, plain<PIECES>>(sb, b, t.c0, k0, n, k, ld);
        __syncthreads();  // both tiles are in shared memory
        warp_tile_mma<BK, plain<PIECES>>(sa, sb, wm, wn, acc);
        __syncthreads();  // every warp has read the tiles: the next ones may overwrite them
    }
    store_warp_tile(acc, c, t.r0 + wm, t.c0 + wn, m, n);
#endif
}

static void launch_v2(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 128;  // a block's tile of C: 2 x 4 warps of 64 x 32 each
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of a shared tile
    constexpr int THREADS = 256;       // the 8 warps
    auto kernel = tc_v2_mma<BM, BN, BK, THREADS>;
    kernel<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k, p->ld);
}
