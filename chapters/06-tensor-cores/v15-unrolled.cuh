// ---- v15 unrolled -------------------------------------------------------------------------------
// v14 still works out each stage's addresses as it goes: the slot times a stage's bytes, added to
// the first stage's, then moved into the registers wgmma reads its descriptors from. Now the k
// loop takes the ring a whole turn at a time, unrolled, so each of the four steps of a turn has
// its stage as a constant: the barriers' addresses become fixed offsets, B's descriptors one
// uniform add each (A's still pass through a thread's registers: v16). Steps before stage 0
// comes round, and the last few, go one at a time as before. Same kernel otherwise.

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, int CLUSTER, int LAG,
          class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v15_unrolled(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    const __grid_constant__ CUtensorMap map_c, float *c, size_t m, size_t n, size_t k,
    float4 *partials, unsigned *counters, int min_idle) {
#ifdef KL_SM90A
    // the producer needs few registers: setmaxnreg hands 232 a thread to the consumers, keeps 40
    constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // 128 x 40 + 256 x 232 <= 65536
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    typedef ring_and_c<ring, C_COLS, C_BUFFERS> layout;
    extern __shared__ unsigned char raw[];
    layout &sh = ring_at<layout>(raw);
    ring &s = sh.ring;
    int wg = threadIdx.x / WG;  // 0: the producer; 1 and 2: rows 64 (wg - 1) .. + 63
    unsigned rank = cluster_rank();  // this block's tile of each pair: rows BM rank .. + BM - 1
    size_t pair_count = (m + CLUSTER * BM - 1) / (CLUSTER * BM) * ((n + BN - 1) / BN);
    size_t cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    int steps = (int)((k + BK - 1) / BK);
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) {
            mbar_init(&s.full[i], 1);             // the producer's one arrival, plus the bytes
            mbar_init(&s.empty[i], CLUSTER * 2 * WG / 32);  // per consumer warp of the cluster
        }
        mbar_fence_init();
    }
    cluster_sync();  // every block's barriers exist before any block copies into them
    int used = 0;     // stages used so far, over all of this block's tiles
    if (wg == 0) {
        registers_down<PRODUCER_REGS>();
        streamk_work work(pair_count, steps, cluster, clusters, min_idle);  // used by thread 0
        if (threadIdx.x == 0)
            for (work_unit u; work.next_unit(u);) {
                tile_origin t = Order::at(u.pair, m, n, CLUSTER * BM, BN);
                for (int step = u.k0; step < u.k1; step++, used++) {
                    int slot = used % STAGES;
                    if (used >= STAGES) mbar_wait(&s.empty[slot], (used / STAGES - 1) % 2);
                    load_stage_multicast<CLUSTER>(s, slot, &map_a, &map_b, step,
                                                  t.r0 + rank * BM, t.c0, rank);
                }
            }
    } else {
        registers_up<CONSUMER_REGS>();
        static_assert(LAG < STAGES, "the leader needs the follower's releases to go further");
        constexpr int START = 3;  // named barrier 3: the upper warpgroup waits there for the lower
        if (wg == 1) named_barrier(START, 2 * WG);  // until the lower one has issued LAG stages
        int boxes = 0;  // boxes of C this warpgroup has handed to the copy engine
        // the low words of the descriptors of stage 0's tiles, and its full barrier's address:
        // stage i's are these plus i stages' bytes (the ring's arrays are stage after stage)
        constexpr unsigned A_STAGE = sizeof(s.a[0]) / 16, B_STAGE = sizeof(s.b[0]) / 16;
        const unsigned a0 = kept(desc_low(smem(s.a[0] + (wg - 1) * 64 * BK)));
        const unsigned b0 = kept(desc_low(smem(s.b[0])));
        const unsigned full0 = kept(smem(&s.full[0]));
        unsigned slot = 0, phase = 0;  // the next stage and its parity
        // (`used` still counts the stages, for the stagger's start only)
        streamk_work work(pair_count, steps, cluster, clusters, min_idle);
        for (work_unit u; work.next_unit(u);) {
            tile_origin t = Order::at(u.pair, m, n, CLUSTER * BM, BN);
            size_t r0 = t.r0 + rank * BM;  // this block's tile: BM rows of the pair
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
                if (wg == 2 && used == LAG - 1) named_arrive(START, 2 * WG);  // LAG stages issued
                wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
                if (!first) release_stage_cluster<CLUSTER>(&s.empty[(at + STAGES - 1) % STAGES]);
                used++;
            };
            for (int step = u.k0; step < u.k1;) {
                if (slot == 0 && u.k1 - step >= STAGES) {  // a whole turn of the ring from stage 0
#pragma unroll
                    for (int j = 0; j < STAGES; j++) k_step(j, j == 0 && step == u.k0);
                    step += STAGES;
                    phase ^= 1;
                } else {  // one step: until stage 0 comes round, and the last few
                    k_step(slot, step == u.k0);
                    step++;
                    if (++slot == STAGES) slot = 0, phase ^= 1;  // round the ring: the parity flips
                }
            }
            wgmma_wait<0>();
            // the last, too: the stage before the next
            release_stage_cluster<CLUSTER>(&s.empty[(slot + STAGES - 1) % STAGES]);
            fence_registers(acc);
            if (u.k0 > 0 || u.k1 < steps) {  // a shared pair: a counter per block and warpgroup
                size_t part = (u.pair - work.whole) * CLUSTER + rank;  // this block's tile of it
                unsigned *counter = counters + part * 2 + (wg - 1);
                if (u.k0 > 0) {  // not its first steps: leave our sum to the cluster that has them
                    share_partial(acc, partial_slot(partials, blockIdx.x, wg), counter, wg);
                    continue;
                }
                size_t last = work.sharers_end(u.pair, cluster);  // its first steps: add the rest
                wait_partials(counter, (unsigned)(last - cluster - 1), wg);
                for (size_t q = cluster + 1; q < last; q++)
                    add_partial(acc, partial_slot(partials, q * CLUSTER + rank, wg));
            }
            if (c_rows_aligned(n))
                store_warpgroup_tma<BN / 2, C_COLS, C_BUFFERS>(acc, sh.c[wg - 1], &map_c,
                                                               r0 + (wg - 1) * 64, t.c0, m, n, boxes);
            else
                store_warpgroup(acc, c, r0 + (wg - 1) * 64, t.c0, m, n);
        }
        if (wg == 2 && used < LAG) named_arrive(START, 2 * WG);  // fewer stages than LAG in all
        if (threadIdx.x % WG == 0) bulk_wait<0>();  // C is written before the block leaves
    }
    cluster_sync();  // no block leaves while another may still arrive on its barriers
#endif
}

// v15 splits where v13 does (STREAMK_MIN_IDLE_STEPS, v13-streamk.cuh).

static void launch_unrolled(tc_problem *p, int min_idle) {
    constexpr int BM = 128, BN = 256;  // two consumer warpgroups, each 64 rows by a 64 x 256 wgmma
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int STAGES = 4;          // four stages of 48 KB: 192 KB, one block an SM
    constexpr int C_COLS = 32;         // a box of C: 64 rows of 32 floats, the swizzle's 128 bytes
    constexpr int C_BUFFERS = 2;       // 2 x 8 KB a warpgroup: 32 KB, what 227 KB leave the ring
    constexpr int CLUSTER = 2;         // tiles one above the other: each block copies 128 rows of B
    constexpr int LAG = 2;             // v12's stagger, two stages (v12-staggered.cuh says why)
    static_assert(BN / CLUSTER == 128, "a block's part of B is a box of map_b128");
    static_assert(BM / 2 * BN == STREAMK_SLOT_FLOATS, "a slot holds a warpgroup's results");
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    static_assert(ring_bytes<layout>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel =
        tc_v15_unrolled<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, CLUSTER, LAG, grouped_pairs_order>;
    static int clusters = 0;  // the clusters the GPU holds at once, asked at the first launch
    if (!clusters) clusters = cluster_capacity<CLUSTER>(kernel, ring_bytes<layout>(), p->sms);
    make_maps(p, BM, BK);
    unsigned grid = streamk_grid(tiles(p->m, p->n, CLUSTER * BM, BN), (unsigned)clusters,
                                 (int)ceil_div(p->k, BK), min_idle);
    launch_clusters<CLUSTER>(kernel, ring_bytes<layout>(), grid, p->sms, clusters, p->map_a,
                             p->map_b128, *map_of_c<C_COLS, 64>(p), p->c, p->m, p->n, p->k,
                             p->partials, p->counters, min_idle);
}

static void launch_v15(void *problem) {
    launch_unrolled((tc_problem *)problem, STREAMK_MIN_IDLE_STEPS);
}
