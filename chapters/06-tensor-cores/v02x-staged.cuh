// ---- v2-staged (what v2's stores from registers buy) --------------------------------------------
// v2 makes two changes: ldmatrix and mma.sync instead of WMMA, and the results written to C
// straight from the registers instead of through shared memory. Only the second can be undone
// alone (WMMA's fragments have no documented layout to store from), so this row does that: v2's
// kernel with v1's way to C, each warp's results staged through 256 floats of its own.

// A warp's acc[i][j] (rows 16 i + lane / 4 and 8 below, columns 8 j + 2 (lane % 4) and the
// next: mma.sync's layout) into `scratch` as a row-major 16 x 16 block for each i and pair of
// j, then to C as store_fragments does: lane l stores row l / 2, columns 8 (l % 2) .. + 7.
__device__ void store_warp_tile_staged(const float (&acc)[4][4][4], float *scratch, float *c,
                                       size_t r0, size_t c0, size_t m, size_t n) {
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int jj = 0; jj < 2; jj++) {  // columns 16 jj .. + 15: pieces j = 2 jj and 2 jj + 1
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const float *d = acc[i][2 * jj + h];
                int r = lane / 4, q = h * 8 + lane % 4 * 2;  // r in [0, 8), q in [0, 16)
                scratch[r * 16 + q] = d[0], scratch[r * 16 + q + 1] = d[1];
                scratch[(r + 8) * 16 + q] = d[2], scratch[(r + 8) * 16 + q + 1] = d[3];
            }
            __syncwarp();  // the block is in the scratch
            int r = lane / 2, q = lane % 2 * 8;
#pragma unroll
            for (int x = 0; x < 8; x += 2)
                store_pair(c, r0 + i * 16 + r, c0 + jj * 16 + q + x, m, n, scratch[r * 16 + q + x],
                           scratch[r * 16 + q + x + 1]);
            __syncwarp();  // the scratch is free for the next block
        }
}

template <int BM, int BN, int BK, int THREADS>
__global__ __launch_bounds__(THREADS) void tc_v2_staged(
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
    // each warp's 256-float scratch for the stores, in the A tile the loop is done with
    store_warp_tile_staged(acc, reinterpret_cast<float *>(sa) + warp * 256, c, t.r0 + wm,
                           t.c0 + wn, m, n);
#endif
}

static void launch_v2_staged(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 128;  // a block's tile of C: 2 x 4 warps of 64 x 32 each
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of a shared tile
    constexpr int THREADS = 256;       // the 8 warps
    auto kernel = tc_v2_staged<BM, BN, BK, THREADS>;
    kernel<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k, p->ld);
}
