// ---- v5a inflight -------------------------------------------------------------------------------
// v5 waits for this stage's wgmma to finish before the block barrier, so the tensor cores idle
// through the barrier and the next copies' issue. Now a warpgroup waits only for the stage before
// (wgmma_wait<1>): this stage's multiply runs on through the barrier, and the stage refilled is
// the one before, whose wgmma are done.

template <int BM, int BN, int BK, int STAGES>
__global__ __launch_bounds__(2 * WG) void tc_v5a_inflight(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k) {
#ifdef KL_SM90A
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    extern __shared__ unsigned char raw[];
    ring &s = ring_at<ring>(raw);
    int wg = threadIdx.x / WG;  // rows 64 wg .. + 63 of the tile
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
    float acc[BN / 2] = {};
    fence_registers(acc);  // the zeros are in place before any wgmma
    for (int step = 0; step < steps; step++) {
        int slot = step % STAGES;
        mbar_wait(&s.full[slot], step / STAGES % 2);  // this stage's copies have landed
        wgmma_fence();
        wgmma_stage<BK>(acc, s.a[slot] + wg * 64 * BK, s.b[slot]);
        wgmma_commit();
        wgmma_wait<1>();  // the previous stage's wgmma are done; this stage's may still run
        __syncthreads();  // both warpgroups are done with the previous stage: it may be refilled
        // with k step step - 1 + STAGES, the next one not yet loaded (the same slot, mod STAGES)
        if (threadIdx.x == 0 && step > 0 && step - 1 + STAGES < steps)
            load_stage(s, (step - 1) % STAGES, &map_a, &map_b, step - 1 + STAGES, t.r0, t.c0);
    }
    wgmma_wait<0>();  // the last stage's wgmma are done
    fence_registers(acc);
    store_warpgroup(acc, c, t.r0 + wg * 64, t.c0, m, n);
#endif
}

static void launch_v5a(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 128;  // two warpgroups, each 64 rows by one 64 x 128 wgmma
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int STAGES = 4;          // four stages of 32 KB: 128 KB, one block an SM
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    auto kernel = tc_v5a_inflight<BM, BN, BK, STAGES>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps(p, BM, BK);
    kernel<<<tiles(p->m, p->n, BM, BN), 2 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b128, p->c,
                                                                       p->m, p->n, p->k);
}
