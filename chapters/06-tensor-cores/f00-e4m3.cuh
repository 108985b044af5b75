// ---- f0 e4m3 ------------------------------------------------------------------------------------
// v9's kernel (persistent, the tiles walked down bands, one producer warpgroup and two consumers,
// setmaxnreg) on E4M3 tiles: a stage's 128-byte rows now hold 128 values of k, and each wgmma
// multiplies 32 of them. The whole sum over k stays in the wgmma accumulators, as in v9, and the
// scales s_a s_b multiply each result once, as it is stored.

template <int BM, int BN, int STAGES>
__global__ __launch_bounds__(3 * WG, 1) void tc_f0_e4m3(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k, float scale) {
#ifdef KL_SM90A
    // the producer needs few registers: setmaxnreg hands 232 a thread to the consumers, keeps 40
    constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // 128 x 40 + 256 x 232 <= 65536
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
            float acc[BN / 2];
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
            fence_registers(acc);  // the zeros are in place before any wgmma
            for (int step = 0; step < steps; step++, used++) {
                int slot = used % STAGES;
                mbar_wait(&s.full[slot], used / STAGES % 2);
                wgmma_fence();
                wgmma_stage_fp8(acc, s.a[slot] + (wg - 1) * 64 * FP8_BK, s.b[slot], 1);
                wgmma_commit();
                wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
                if (step > 0) release_stage(&s.empty[(used - 1) % STAGES]);
            }
            wgmma_wait<0>();
            release_stage(&s.empty[(used - 1) % STAGES]);  // the tile's last stage, too
            fence_registers(acc);
            store_scaled(acc, scale, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
        }
    }
#endif
}

static void launch_f0(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    constexpr int BM = 128, BN = 256;  // two consumer warpgroups, each 64 rows by a 64 x 256 wgmma
    constexpr int STAGES = 4;          // four stages of 48 KB (128 values of k): 192 KB, one block an SM
    typedef fp8_ring<BM, BN, STAGES> ring;
    auto kernel = tc_f0_e4m3<BM, BN, STAGES>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps_fp8(p);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b256, p->c, p->m, p->n, p->k,
                                                 p->scale);
}
