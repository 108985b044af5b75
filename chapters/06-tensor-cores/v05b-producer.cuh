// ---- v5b producer -------------------------------------------------------------------------------
// In v5a every warp still stops at a block barrier after each stage, and a thread that multiplies
// issues the copies. Now the warps take roles: a producer warpgroup (one thread of it) only
// issues copies, waiting on each stage's "empty" barrier; two consumer warpgroups only multiply,
// waiting on "full" and arriving on "empty". No block barrier is left in the loop.

template <int BM, int BN, int BK, int STAGES>
__global__ __launch_bounds__(3 * WG, 1) void tc_v5b_producer(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k) {
#ifdef KL_SM90A
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    extern __shared__ unsigned char raw[];
    ring &s = ring_at<ring>(raw);
    int wg = threadIdx.x / WG;  // 0: the producer; 1 and 2: rows 64 (wg - 1) .. + 63
    tile_origin t = tile_at(blockIdx.x, n, BM, BN);
    int steps = (int)((k + BK - 1) / BK);
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) {
            mbar_init(&s.full[i], 1);             // the producer's one arrival, plus the bytes
            mbar_init(&s.empty[i], 2 * WG / 32);  // one arrival per consumer warp
        }
        mbar_fence_init();
    }
    __syncthreads();  // the barriers exist before anyone uses them
    if (wg == 0) {
        if (threadIdx.x == 0)
            for (int step = 0; step < steps; step++) {
                int slot = step % STAGES;
                if (step >= STAGES) mbar_wait(&s.empty[slot], (step / STAGES - 1) % 2);
                load_stage(s, slot, &map_a, &map_b, step, t.r0, t.c0);
            }
    } else {
        float acc[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
        fence_registers(acc);  // the zeros are in place before any wgmma
        for (int step = 0; step < steps; step++) {
            int slot = step % STAGES;
            mbar_wait(&s.full[slot], step / STAGES % 2);
            wgmma_fence();
            wgmma_stage<BK>(acc, s.a[slot] + (wg - 1) * 64 * BK, s.b[slot]);
            wgmma_commit();
            wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
            if (step > 0) release_stage(&s.empty[(step - 1) % STAGES]);
        }
        wgmma_wait<0>();
        fence_registers(acc);
        store_warpgroup(acc, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
    }
#endif
}

static void launch_v5b(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 128;  // two consumer warpgroups, each 64 rows by a 64 x 128 wgmma
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int STAGES = 4;          // four stages of 32 KB: 128 KB, one block an SM
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    auto kernel = tc_v5b_producer<BM, BN, BK, STAGES>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps(p, BM, BK);
    kernel<<<tiles(p->m, p->n, BM, BN), 3 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b128, p->c,
                                                                       p->m, p->n, p->k);
}
