// ---- v0 wmma ------------------------------------------------------------------------------------
// The tensor cores through the WMMA API: a warp loads 16 x 16 fragments of A and B, and one
// mma_sync multiplies them (16 x 16 x 16: 4096 multiply-adds in one instruction of the warp).
// Each warp owns a 64 x 32 piece of C (4 x 2 fragments) and fetches its own operands, 16 columns
// of k at a time, into a scratch area of its own: load_matrix_sync reads whole 16 x 16 blocks,
// so the edges of the matrices need a zero-padded copy. No warp shares what it loaded.

template <int BM, int BN, int THREADS>
__global__ __launch_bounds__(THREADS) void tc_v0_wmma(
    const bf16 *a, const bf16 *b, float *c, size_t m, size_t n, size_t k, size_t ld) {
#if __CUDA_ARCH__ >= 800
    constexpr int WARP_M = 64, WARP_N = 32;  // a warp's piece of C
    // per warp: A's 64 x 16 and B's 32 x 16 slices (3 KB), reused as 256 floats for the stores
    __shared__ alignas(128) bf16 scratch[THREADS / 32][(WARP_M + WARP_N) * 16];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    size_t r0 = t.r0 + warp / 4 * WARP_M, c0 = t.c0 + warp % 4 * WARP_N;
    bf16 *sa = scratch[warp], *sb = sa + WARP_M * 16;
    acc_frag acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    for (size_t k0 = 0; k0 < k; k0 += 16) {
        // A: 64 rows x 2 pieces, 4 a lane; B: 32 rows x 2 pieces, 2 a lane
        for (int p = lane; p < WARP_M * 2; p += 32)
            *reinterpret_cast<uint4 *>(sa + p * 8) = load_piece(a, r0 + p / 2, k0 + p % 2 * 8, m, k, ld);
        for (int p = lane; p < WARP_N * 2; p += 32)
            *reinterpret_cast<uint4 *>(sb + p * 8) = load_piece(b, c0 + p / 2, k0 + p % 2 * 8, n, k, ld);
        __syncwarp();  // the slices are in the scratch
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa[4];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> fb[2];
        for (int i = 0; i < 4; i++) wmma::load_matrix_sync(fa[i], sa + i * 16 * 16, 16);
        // B's rows are C's columns: as the k x n operand, B is column-major
        for (int j = 0; j < 2; j++) wmma::load_matrix_sync(fb[j], sb + j * 16 * 16, 16);
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        __syncwarp();  // every lane has its fragments: the scratch may be overwritten
    }
    store_fragments(acc, reinterpret_cast<float *>(sa), c, r0, c0, m, n);
#endif
}

static void launch_v0(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 128;  // a block's tile of C: 2 x 4 warps of 64 x 32 each
    constexpr int THREADS = 256;       // the 8 warps
    auto kernel = tc_v0_wmma<BM, BN, THREADS>;
    kernel<<<tiles(p->m, p->n, BM, BN), THREADS>>>(p->a, p->b, p->c, p->m, p->n, p->k, p->ld);
}
