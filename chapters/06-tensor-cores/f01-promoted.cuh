// ---- f1 promoted --------------------------------------------------------------------------------
// f0 sums all of k in the wgmma accumulators, which on Hopper keep fewer bits than FP32 when the
// inputs are FP8, so a long sum loses precision. Now the accumulators sum one stage (128 values
// of k) and each consumer thread then adds them into FP32 sums of its own with ordinary adds
// ("promotion"); the next stage's first wgmma overwrites the accumulators instead of adding.
// The second set of sums costs a register per result: a 128 x 256 tile would need 256 a thread,
// more than the 232 setmaxnreg gives, so the tile is 128 x 128 (f0-narrow measures that part).

template <int BM, int BN, int STAGES>
__global__ __launch_bounds__(3 * WG, 1) void tc_f1_promoted(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k, float scale) {
#ifdef KL_SM90A
    // the producer needs few registers: setmaxnreg hands 232 a thread to the consumers, keeps 40
    constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // 128 x 40 + 256 x 232 <= 65536
    constexpr int PROMOTE_STAGES = PROMOTE_K / FP8_BK;       // stages summed between promotions
    static_assert(PROMOTE_K % FP8_BK == 0, "a promotion ends a stage");
    typedef fp8_ring<BM, BN, STAGES> ring;
    extern __shared__ unsigned char raw[];
    ring &s = ring_at<ring>(raw);
    int wg = threadIdx.x / WG;  // 0: the producer; 1 and 2: rows 64 (wg - 1) .. + 63
    size_t tile_count = (m + BM - 1) / BM * ((n + BN - 1) / BN);
    int steps = (int)((k + FP8_BK - 1) / FP8_BK);
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) {
            mbar_init(&s.full[i], 1);             // the producer's one arrival, plus the bytes
            mbar_init(&s.empty[i], 2 * WG / 32);  // one arrival per consumer warp
        }
        mbar_fence_init();
    }
    __syncthreads();  // the barriers exist before anyone uses them
    int used = 0;     // stages used so far, over all of this block's tiles
    if (wg == 0) {
        registers_down<PRODUCER_REGS>();
        if (threadIdx.x == 0)
            for (size_t tile = blockIdx.x; tile < tile_count; tile += gridDim.x) {
                tile_origin t = grouped_at(tile, m, n, BM, BN);
                for (int step = 0; step < steps; step++, used++) {
                    int slot = used % STAGES;
                    if (used >= STAGES) mbar_wait(&s.empty[slot], (used / STAGES - 1) % 2);
                    load_stage_fp8(s, slot, &map_a, &map_b, step, t.r0, t.c0);
                }
            }
    } else {
        registers_up<CONSUMER_REGS>();
        for (size_t tile = blockIdx.x; tile < tile_count; tile += gridDim.x) {
            tile_origin t = grouped_at(tile, m, n, BM, BN);
            // acc: one stage's products, in the tensor cores' accumulators; sum: all of them so
            // far, added in FP32 by this thread. The zeros in acc are never added to anything
            // (each stage's first wgmma overwrites them); they keep the compiler from reading
            // registers that were never written.
            float acc[BN / 2], sum[BN / 2];
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f, sum[i] = 0.0f;
            fence_registers(acc);
            bool held = false;  // the stage before is still ours (its wgmma may be running)
            for (int step = 0; step < steps; step++, used++) {
                int slot = used % STAGES;
                bool first = step % PROMOTE_STAGES == 0;  // overwrite acc instead of adding
                bool promote = (step + 1) % PROMOTE_STAGES == 0 || step + 1 == steps;
                mbar_wait(&s.full[slot], used / STAGES % 2);
                wgmma_fence();  // and orders the previous stage's adds (below) before this overwrite
                wgmma_stage_fp8(acc, s.a[slot] + (wg - 1) * 64 * FP8_BK, s.b[slot], first ? 0 : 1);
                wgmma_commit();
                if (!promote) {  // as f0: wait for the stage before's wgmma, give its buffers back
                    wgmma_wait<1>();
                    if (held) release_stage(&s.empty[(used - 1) % STAGES]);
                    held = true;
                    continue;
                }
                // The adds need these products, so the warpgroup waits for all its wgmma.
                // The other consumer warpgroup's wgmma can keep the tensor cores busy
                // meanwhile, where the two have drifted apart (f3-twosets asks how far).
                wgmma_wait<0>();
                if (held) release_stage(&s.empty[(used - 1) % STAGES]);
                release_stage(&s.empty[slot]);
                held = false;
                fence_registers(acc);
#pragma unroll
                for (int i = 0; i < BN / 2; i++) sum[i] += acc[i];
            }
            store_scaled(sum, scale, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
        }
    }
#endif
}

static void launch_f1(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    constexpr int BM = 128, BN = 128;  // two consumer warpgroups, each 64 x 128: 64 + 64 registers
    constexpr int STAGES = 4;          // four stages of 32 KB: 128 KB, one block an SM
    typedef fp8_ring<BM, BN, STAGES> ring;
    auto kernel = tc_f1_promoted<BM, BN, STAGES>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps_fp8(p);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b128, p->c, p->m, p->n, p->k,
                                                 p->scale);
}
