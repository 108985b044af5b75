// ---- f2-tmastore (an experiment on f2): its results through shared memory and TMA ---------------
// v10's step on the FP8 ladder. f2's consumers write C from their registers, as v9's did: 8-byte
// stores spread over 8 rows a warp while the tensor cores wait, and at FP8's rate a tile's
// multiplies take half as long as BF16's, so the same stores should cost twice the share. Here,
// as in v10, a warpgroup scales its sums, writes them into shared memory a box of 64 rows x 32
// columns at a time, and one thread hands each box to the copy engine (tma-store.cuh), which
// writes it to C while the next tile starts. It was slower than f2 (README).

template <int BM, int BN, int STAGES, int C_COLS, int C_BUFFERS>
__global__ __launch_bounds__(3 * WG, 1) void tc_f2_tmastore(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    const __grid_constant__ CUtensorMap map_c, float *c, size_t m, size_t n, size_t k,
    float scale) {
#ifdef KL_SM90A
    // the producer needs few registers: setmaxnreg hands 232 a thread to the consumers, keeps 40
    constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // 128 x 40 + 256 x 232 <= 65536
    constexpr int PROMOTE_STAGES = PROMOTE_K / FP8_BK;       // stages summed between promotions
    static_assert(PROMOTE_K % FP8_BK == 0, "a promotion ends a stage");
    typedef fp8_ring<BM, BN, STAGES> ring;
    typedef ring_and_c<ring, C_COLS, C_BUFFERS> layout;
    extern __shared__ unsigned char raw[];
    layout &sh = ring_at<layout>(raw);
    ring &s = sh.ring;
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
        int boxes = 0;  // boxes of C this warpgroup has handed to the copy engine
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
            if (c_rows_aligned(n)) {
#pragma unroll
                for (int i = 0; i < BN / 2; i++) sum[i] *= scale;  // s_a s_b, as store_scaled does
                store_warpgroup_tma<BN / 2, C_COLS, C_BUFFERS>(sum, sh.c[wg - 1], &map_c,
                                                               t.r0 + (wg - 1) * 64, t.c0, m, n, boxes);
            } else
                store_scaled(sum, scale, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
        }
        if (threadIdx.x % WG == 0) bulk_wait<0>();  // C is written before the block leaves
    }
#endif
}

static void launch_f2_tmastore(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    constexpr int BM = 128, BN = 192;  // two consumer warpgroups, each 64 x 192: 96 + 96 registers
    constexpr int STAGES = 4;          // four stages of 40 KB: 160 KB, one block an SM
    constexpr int C_COLS = 32;         // a box of C: 64 rows of 32 floats, as v10's
    constexpr int C_BUFFERS = 2;       // 2 x 8 KB a warpgroup: 32 KB more, 193 KB in all
    typedef ring_and_c<fp8_ring<BM, BN, STAGES>, C_COLS, C_BUFFERS> layout;
    static_assert(ring_bytes<layout>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel = tc_f2_tmastore<BM, BN, STAGES, C_COLS, C_BUFFERS>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<layout>()), ready = true;
    make_maps_fp8(p);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<layout>()>>>(p->map_a, p->map_b192, *map_of_c<C_COLS, 64>(p),
                                                   p->c, p->m, p->n, p->k, p->scale);
}
