// ---- v4b deeper ---------------------------------------------------------------------------------
// v4a with a fourth stage: three tiles on the way instead of two while the tensor cores work, so
// a slow copy hides behind longer. Four stages of 32 KB leave room for one block an SM where
// three let two share it: the 8 warps of one block now do all the waiting an SM does.

template <int BM, int BN, int BK, int THREADS, int STAGES>
__global__ __launch_bounds__(THREADS) void tc_v4b_deeper(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k) {
#ifdef KL_SM90A
    constexpr int WARP_M = 64, WARP_N = 32;  // a warp's piece of C
    constexpr int PIECES = BK / 8;           // 16-byte pieces in a row of a tile
    // Stage s: A's tile s.a[s] and B's s.b[s], each starting on 1024 bytes, where the copy
    // engine's swizzle puts piece q of row r at q XOR (r % 8): swizzled<PIECES>(r, q) exactly.
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    extern __shared__ unsigned char raw[];
    ring &s = ring_at<ring>(raw);
    auto tile_a = [&](int i) { return reinterpret_cast<const uint4 *>(s.a[i]); };
    auto tile_b = [&](int i) { return reinterpret_cast<const uint4 *>(s.b[i]); };
    int warp = threadIdx.x / 32;
    int wm = warp / 4 * WARP_M, wn = warp % 4 * WARP_N;  // the warp's piece of the tile
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    int steps = (int)((k + BK - 1) / BK);
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) mbar_init(&s.full[i], 1);
        mbar_fence_init();
    }
    __syncthreads();  // the barriers exist before anyone uses them
    // the first STAGES tiles on their way, one stage each; the copy engine zero-fills what lies
    // past m, n or k, so a partial tile needs no guard
    if (threadIdx.x == 0)
        for (int i = 0; i < STAGES && i < steps; i++) load_stage(s, i, &map_a, &map_b, i, t.r0, t.c0);
    float acc[4][4][4] = {};
    for (int step = 0; step < steps; step++) {
        int slot = step % STAGES;
        mbar_wait(&s.full[slot], step / STAGES % 2);  // this stage's copies have landed
        warp_tile_mma<BK, swizzled<PIECES>>(tile_a(slot), tile_b(slot), wm, wn, acc);
        __syncthreads();  // every warp is done with the stage: it may be refilled
        if (threadIdx.x == 0 && step + STAGES < steps)
            load_stage(s, slot, &map_a, &map_b, step + STAGES, t.r0, t.c0);
    }
    store_warp_tile(acc, c, t.r0 + wm, t.c0 + wn, m, n);
#endif
}

static void launch_v4b(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 128;  // a block's tile of C: 2 x 4 warps of 64 x 32 each
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int THREADS = 256;       // the 8 warps
    constexpr int STAGES = 4;          // four stages of 32 KB: 128 KB, one block an SM
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    auto kernel = tc_v4b_deeper<BM, BN, BK, THREADS, STAGES>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps(p, BM, BK);
    kernel<<<tiles(p->m, p->n, BM, BN), THREADS, ring_bytes<ring>()>>>(p->map_a, p->map_b128, p->c,
                                                                       p->m, p->n, p->k);
}
