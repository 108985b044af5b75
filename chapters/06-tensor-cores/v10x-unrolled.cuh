// ---- v10-unrolled (an experiment on v10): v16's k loop ------------------------------------------
// v14-v16 make v13's k loop lean, unroll the ring's turn, and build the descriptors in uniform
// registers. v10-unrolled makes the three changes to v10's kernel, the simplest of the kernels
// that v16 builds on (v10-lean has v14's alone): make diff CH=06-tensor-cores A=v10-lean
// B=v10-unrolled shows v15's and v16's changes together.

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v10_unrolled(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    const __grid_constant__ CUtensorMap map_c, float *c, size_t m, size_t n, size_t k) {
#ifdef KL_SM90A
    // the producer needs few registers: setmaxnreg hands 232 a thread to the consumers, keeps 40
    constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // 128 x 40 + 256 x 232 <= 65536
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    typedef ring_and_c<ring, C_COLS, C_BUFFERS> layout;
    extern __shared__ unsigned char raw[];
    layout &sh = ring_at<layout>(raw);
    ring &s = sh.ring;
    int wg = threadIdx.x / WG;  // 0: the producer; 1 and 2: rows 64 (wg - 1) .. + 63
    size_t tile_count = (m + BM - 1) / BM * ((n + BN - 1) / BN);
    int steps = (int)((k + BK - 1) / BK);
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
                tile_origin t = Order::at(tile, m, n, BM, BN);
                for (int step = 0; step < steps; step++, used++) {
                    int slot = used % STAGES;
                    if (used >= STAGES) mbar_wait(&s.empty[slot], (used / STAGES - 1) % 2);
                    load_stage(s, slot, &map_a, &map_b, step, t.r0, t.c0);
                }
            }
    } else {
        registers_up<CONSUMER_REGS>();
        int boxes = 0;  // boxes of C this warpgroup has handed to the copy engine
        // the low words of the descriptors of stage 0's tiles, and its full barrier's address:
        // stage i's are these plus i stages' bytes (the ring's arrays are stage after stage)
        constexpr unsigned A_STAGE = sizeof(s.a[0]) / 16, B_STAGE = sizeof(s.b[0]) / 16;
        const int uniform_wg = __shfl_sync(~0u, wg, 0);  // wg, as one value a warp
        const unsigned a0 = kept(desc_low(smem(s.a[0] + (uniform_wg - 1) * 64 * BK)));
        const unsigned b0 = kept(desc_low(smem(s.b[0])));
        const unsigned full0 = kept(smem(&s.full[0]));
        unsigned slot = 0, phase = 0;  // the next stage and its parity
        for (size_t tile = blockIdx.x; tile < tile_count; tile += gridDim.x) {
            tile_origin t = Order::at(tile, m, n, BM, BN);
            float acc[BN / 2];
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
            fence_registers(acc);  // the zeros are in place before any wgmma
            // one k step on stage `at`: a constant where the turn is unrolled
            auto k_step = [&](unsigned at, bool first) {
                mbar_wait_at(full0 + at * sizeof(uint64_t), phase);
                wgmma_fence();
                wgmma_stage_low<BK>(acc, a0 + at * A_STAGE, b0 + at * B_STAGE);
                wgmma_commit();
                wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
                if (!first) release_stage(&s.empty[(at + STAGES - 1) % STAGES]);
            };
            for (int step = 0; step < steps;) {
                if (slot == 0 && steps - step >= STAGES) {  // a whole turn of the ring from stage 0
#pragma unroll
                    for (int j = 0; j < STAGES; j++) k_step(j, j == 0 && step == 0);
                    step += STAGES;
                    phase ^= 1;
                } else {  // one step: until stage 0 comes round, and the last few
                    k_step(slot, step == 0);
                    step++;
                    if (++slot == STAGES) slot = 0, phase ^= 1;  // round the ring: the parity flips
                }
            }
            wgmma_wait<0>();
            release_stage(&s.empty[(slot + STAGES - 1) % STAGES]);  // the tile's last stage, too
            fence_registers(acc);
            if (c_rows_aligned(n))
                store_warpgroup_tma<BN / 2, C_COLS, C_BUFFERS>(acc, sh.c[wg - 1], &map_c,
                                                               t.r0 + (wg - 1) * 64, t.c0, m, n, boxes);
            else
                store_warpgroup(acc, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
        }
        if (threadIdx.x % WG == 0) bulk_wait<0>();  // C is written before the block leaves
    }
#endif
}

static void launch_v10_unrolled(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, C_COLS = 32, C_BUFFERS = 2;  // v10's
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    static_assert(ring_bytes<layout>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel = tc_v10_unrolled<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, grouped_order>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<layout>()), ready = true;
    make_maps(p, BM, BK);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<layout>()>>>(p->map_a, p->map_b256, *map_of_c<C_COLS, 64>(p),
                                                   p->c, p->m, p->n, p->k);
}
