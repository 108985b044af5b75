// ---- v13-quadstore (an experiment on v13): C straight from registers, 16 bytes a thread ---------
// v10 to v13 end a tile box by box: each warpgroup writes 8 KB of C into shared memory, fences,
// meets at a named barrier, hands the box to the copy engine, and waits for a buffer before the
// next box, and multiplies nothing meanwhile. The knock-outs on v10
// (v10x-knockout.cuh) price the end of a tile at about a tenth of v10's time at 4096^3, about
// a third of it in the threads' staging and meetings. Here each thread stores its results itself,
// 16 bytes at a time (quad-store.cuh): the four threads of a quad trade pairs of columns by
// shuffles so that each holds four neighbouring floats of a row. No staging buffer, no
// meeting, no fence: a store leaves the thread at once. The question it asks: is the price in
// the staging, or in the bytes leaving the SM however they go? Everything else is v13's.

template <int BM, int BN, int BK, int STAGES, int CLUSTER, int LAG,
          class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v13_quadstore(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k,
    float4 *partials, unsigned *counters, int min_idle) {
#ifdef KL_SM90A
    // the producer needs few registers: setmaxnreg hands 232 a thread to the consumers, keeps 40
    constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // 128 x 40 + 256 x 232 <= 65536
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    extern __shared__ unsigned char raw[];
    ring &s = ring_at<ring>(raw);  // the ring alone: C needs no buffer in shared memory now
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
        streamk_work work(pair_count, steps, cluster, clusters, min_idle);
        for (work_unit u; work.next_unit(u);) {
            tile_origin t = Order::at(u.pair, m, n, CLUSTER * BM, BN);
            size_t r0 = t.r0 + rank * BM;  // this block's tile: BM rows of the pair
            float acc[BN / 2];
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
            fence_registers(acc);  // the zeros are in place before any wgmma
            for (int step = u.k0; step < u.k1; step++, used++) {
                int slot = used % STAGES;
                mbar_wait(&s.full[slot], used / STAGES % 2);
                wgmma_fence();
                wgmma_stage<BK>(acc, s.a[slot] + (wg - 1) * 64 * BK, s.b[slot]);
                wgmma_commit();
                if (wg == 2 && used == LAG - 1) named_arrive(START, 2 * WG);  // LAG stages issued
                wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
                if (step > u.k0) release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);
            }
            wgmma_wait<0>();
            release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);  // the last, too
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
            if (c_rows_aligned(n))  // rows on 16 bytes: n a multiple of 4
                store_warpgroup_quads(acc, c, r0 + (wg - 1) * 64, t.c0, m, n);
            else
                store_warpgroup(acc, c, r0 + (wg - 1) * 64, t.c0, m, n);
        }
        if (wg == 2 && used < LAG) named_arrive(START, 2 * WG);  // fewer stages than LAG in all
    }
    cluster_sync();  // no block leaves while another may still arrive on its barriers
#endif
}

static void launch_v13_quadstore(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 256;  // two consumer warpgroups, each 64 rows by a 64 x 256 wgmma
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int STAGES = 4;          // four stages of 48 KB: 192 KB, one block an SM
    constexpr int CLUSTER = 2;         // tiles one above the other: each block copies 128 rows of B
    constexpr int LAG = 2;             // v12's stagger, two stages (v12-staggered.cuh says why)
    static_assert(BN / CLUSTER == 128, "a block's part of B is a box of map_b128");
    static_assert(BM / 2 * BN == STREAMK_SLOT_FLOATS, "a slot holds a warpgroup's results");
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    static_assert(ring_bytes<ring>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel = tc_v13_quadstore<BM, BN, BK, STAGES, CLUSTER, LAG, grouped_pairs_order>;
    static int clusters = 0;  // the clusters the GPU holds at once, asked at the first launch
    if (!clusters) clusters = cluster_capacity<CLUSTER>(kernel, ring_bytes<ring>(), p->sms);
    make_maps(p, BM, BK);
    unsigned grid = streamk_grid(tiles(p->m, p->n, CLUSTER * BM, BN), (unsigned)clusters,
                                 (int)ceil_div(p->k, BK), STREAMK_MIN_IDLE_STEPS);
    launch_clusters<CLUSTER>(kernel, ring_bytes<ring>(), grid, p->sms, clusters, p->map_a,
                             p->map_b128, p->c, p->m, p->n, p->k, p->partials, p->counters,
                             STREAMK_MIN_IDLE_STEPS);
}
