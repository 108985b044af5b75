// ---- v3 swizzled --------------------------------------------------------------------------------
// A shared row is 128 bytes, the width of all 32 banks. ldmatrix reads the same piece q of 8
// consecutive rows, which plain() puts in the same 4 banks: an 8-way conflict on every load.
// swizzled() stores piece q of row r at position q XOR (r % 8): the 8 rows' pieces land in 8
// different groups of 4 banks. Stores and loads use the same function, so nothing else changes.

// Piece q of row r of a tile with PIECES pieces a row. (It is the pattern Hopper's copy engine
// calls the 128-byte swizzle, which v4a gets for free.)
template <int PIECES>
__device__ inline int swizzled(int r, int q) {
    // EXERCISE: swizzled begin
    return r * PIECES + (q ^ (r % 8));
    // EXERCISE: swizzled end
}

template <int BM, int BN, int BK, int THREADS>
__global__ __launch_bounds__(THREADS) void tc_v3_swizzled(
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
        load_tile<BM, PIECES, THREADS, swizzled<PIECES>>(sa, a, t.r0, k0, m, k, ld);
        load_tile<BN, PIECES, THREADS, swizzled<PIECES>>(sb, b, t.c0, k0, n, k, ld);
        __syncthreads();  // both tiles are in shared memory
        warp_tile_mma<BK, swizzled<PIECES>>(sa, sb, wm, wn, acc);
        __syncthreads();  // every warp has read the tiles: the next ones may overwrite them
    }
    store_warp_tile(acc, c, t.r0 + wm, t.c0 + wn, m, n);
#endif
}

static void launch_v3(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 128;  // a block's tile of C: 2 x 4 warps of 64 x 32 each
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of a shared tile
    constexpr int THREADS = 256;       // the 8 warps
    auto kernel = tc_v3_swizzled<BM, BN, BK, THREADS>;
    kernel<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k, p->ld);
}
