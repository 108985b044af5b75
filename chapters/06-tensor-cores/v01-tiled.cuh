// ---- v1 tiled -----------------------------------------------------------------------------------
// Chapter 03's lesson on tensor cores: the block loads a 128 x 64 tile of A and one of B into
// shared memory once, and all 8 warps take their fragments from there. A warp used to fetch
// 64 + 32 rows for its 64 x 32 results; now the block fetches 128 + 128 rows for 128 x 128.

template <int BM, int BN, int BK, int THREADS>
__global__ __launch_bounds__(THREADS) void tc_v1_tiled(
    const bf16 *a, const bf16 *b, float *c, size_t m, size_t n, size_t k, size_t ld) {
#if __CUDA_ARCH__ >= 800
    constexpr int WARP_M = 64, WARP_N = 32;  // a warp's piece of C
    constexpr int PIECES = BK / 8;           // 16-byte pieces in a row of a tile
    __shared__ alignas(128) uint4 sa[BM * PIECES], sb[BN * PIECES];  // 16 KB each
    int warp = threadIdx.x / 32;
    int wm = warp / 4 * WARP_M, wn = warp % 4 * WARP_N;  // the warp's piece of the tile
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    acc_frag acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    const bf16 *ta = reinterpret_cast<const bf16 *>(sa), *tb = reinterpret_cast<const bf16 *>(sb);
    for (size_t k0 = 0; k0 < k; k0 += BK) {
        load_tile<BM, PIECES, THREADS, plain<PIECES>>(sa, a, t.r0, k0, m, k, ld);
        load_tile<BN, PIECES, THREADS, plain<PIECES>>(sb, b, t.c0, k0, n, k, ld);
        __syncthreads();  // both tiles are in shared memory
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> fb[2];
            for (int i = 0; i < 4; i++) wmma::load_matrix_sync(fa[i], ta + (wm + i * 16) * BK + kk, BK);
            for (int j = 0; j < 2; j++) wmma::load_matrix_sync(fb[j], tb + (wn + j * 16) * BK + kk, BK);
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // every warp has read the tiles: the next ones may overwrite them
    }
    // each warp's 256-float scratch for the stores, in the A tile the loop is done with
    store_fragments(acc, reinterpret_cast<float *>(sa) + warp * 256, c, t.r0 + wm, t.c0 + wn, m, n);
#endif
}

static void launch_v1(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 128;  // a block's tile of C: 2 x 4 warps of 64 x 32 each
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of a shared tile
    constexpr int THREADS = 256;       // the 8 warps
    auto kernel = tc_v1_tiled<BM, BN, BK, THREADS>;
    kernel<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k, p->ld);
}
