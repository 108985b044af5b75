// ---- v4 pipelined -------------------------------------------------------------------------------
// Until now a block loads a tile, waits for it, multiplies, and only then asks for the next:
// the tensor cores idle through every load. cp.async copies global memory to shared memory
// without passing through registers and without waiting, so the block keeps the next STAGES - 1
// tiles in flight in a ring of shared buffers while it multiplies the current one.

// One 16-byte piece, as load_piece, copied asynchronously: only the bytes before k are read,
// so the padding and everything past the edges arrive as zeros.
__device__ inline void copy_piece_async(uint4 *dst, const bf16 *x, size_t row, size_t col,
                                        size_t rows, size_t k, size_t ld) {
    bool in = row < rows && col < k;
    const bf16 *src = in ? x + row * ld + col : x;  // an address even when nothing is copied
    cp_async_16(dst, src, in ? (unsigned)(min((size_t)8, k - col) * sizeof(bf16)) : 0);
}

template <int ROWS, int PIECES, int THREADS>
__device__ void load_tile_async(uint4 *s, const bf16 *x, size_t row0, size_t k0, size_t rows,
                                size_t k, size_t ld) {
    for (int p = threadIdx.x; p < ROWS * PIECES; p += THREADS)
        copy_piece_async(s + swizzled<PIECES>(p / PIECES, p % PIECES), x, row0 + p / PIECES,
                         k0 + p % PIECES * 8, rows, k, ld);
}

template <int BM, int BN, int BK, int THREADS, int STAGES>
__global__ __launch_bounds__(THREADS, 2) void tc_v4_pipelined(
    const bf16 *a, const bf16 *b, float *c, size_t m, size_t n, size_t k, size_t ld) {
#if __CUDA_ARCH__ >= 800
    constexpr int WARP_M = 64, WARP_N = 32;  // a warp's piece of C
    constexpr int PIECES = BK / 8;           // 16-byte pieces in a row of a tile
    extern __shared__ uint4 ring[];  // stage s: A's tile at s * 2 tiles, B's right after it
    auto tile_a = [&](int s) { return ring + s * (BM + BN) * PIECES; };
    auto tile_b = [&](int s) { return ring + s * (BM + BN) * PIECES + BM * PIECES; };
    int warp = threadIdx.x / 32;
    int wm = warp / 4 * WARP_M, wn = warp % 4 * WARP_N;  // the warp's piece of the tile
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    int steps = (int)((k + BK - 1) / BK);
    // the first STAGES - 1 tiles on their way, one commit group each (empty ones past the end,
    // so that "wait until at most STAGES - 2 groups are pending" always means "this tile is in")
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
            load_tile_async<BM, PIECES, THREADS>(tile_a(s), a, t.r0, (size_t)s * BK, m, k, ld);
            load_tile_async<BN, PIECES, THREADS>(tile_b(s), b, t.c0, (size_t)s * BK, n, k, ld);
        }
        cp_async_commit();
    }
    float acc[4][4][4] = {};
    for (int step = 0; step < steps; step++) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();  // tile `step` is in for every thread, and every warp is done with
                          // the buffer of step - 1, which the next copy reuses
        int next = step + STAGES - 1;
        if (next < steps) {
            load_tile_async<BM, PIECES, THREADS>(tile_a(next % STAGES), a, t.r0, (size_t)next * BK,
                                                 m, k, ld);
            load_tile_async<BN, PIECES, THREADS>(tile_b(next % STAGES), b, t.c0, (size_t)next * BK,
                                                 n, k, ld);
        }
        cp_async_commit();
        warp_tile_mma<BK, swizzled<PIECES>>(tile_a(step % STAGES), tile_b(step % STAGES), wm, wn,
                                            acc);
    }
    cp_async_wait<0>();  // no copy outlives the block
    store_warp_tile(acc, c, t.r0 + wm, t.c0 + wn, m, n);
#endif
}

static void launch_v4(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 128;  // a block's tile of C: 2 x 4 warps of 64 x 32 each
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of a shared tile
    constexpr int THREADS = 256;       // the 8 warps
    // Three stages of 32 KB: two blocks fit on an SM (228 KB of shared memory; the launch bounds
    // hold a thread to 128 registers so that their registers fit too), and two tiles are always
    // on the way.
    constexpr int STAGES = 3;
    constexpr size_t SMEM = (size_t)STAGES * (BM + BN) * BK * sizeof(bf16);
    auto kernel = tc_v4_pipelined<BM, BN, BK, THREADS, STAGES>;
    static bool ready = false;
    if (!ready) {
        CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
        ready = true;
    }
    kernel<<<tiles(p->m, p->n, BM, BN), THREADS, SMEM>>>(p->a, p->b, p->c, p->m, p->n, p->k,
                                                         p->ld);
}
