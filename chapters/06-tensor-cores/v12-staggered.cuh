// ---- v12 staggered ------------------------------------------------------------------------------
// v11's two consumer warpgroups go through the stages side by side and reach the end of a tile
// together, so both store their results at the same time and the tensor cores wait for both.
// Now the lower warpgroup starts LAG stages ahead of the upper one and stays ahead: it reaches
// the end of the tile first and stores its results while the upper one still multiplies, and
// the upper one stores while the lower one starts the next tile.

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, int CLUSTER, int LAG,
          class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v12_staggered(
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
    unsigned rank = cluster_rank();  // this block's tile of each pair: rows BM rank .. + BM - 1
    size_t pair_count = (m + CLUSTER * BM - 1) / (CLUSTER * BM) * ((n + BN - 1) / BN);
    size_t first = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;  // pairs by cluster
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
        if (threadIdx.x == 0)
            for (size_t pair = first; pair < pair_count; pair += clusters) {
                tile_origin t = Order::at(pair, m, n, CLUSTER * BM, BN);
                for (int step = 0; step < steps; step++, used++) {
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
        for (size_t pair = first; pair < pair_count; pair += clusters) {
            tile_origin t = Order::at(pair, m, n, CLUSTER * BM, BN);
            size_t r0 = t.r0 + rank * BM;  // this block's tile: BM rows of the pair
            float acc[BN / 2];
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
            fence_registers(acc);  // the zeros are in place before any wgmma
            for (int step = 0; step < steps; step++, used++) {
                int slot = used % STAGES;
                mbar_wait(&s.full[slot], used / STAGES % 2);
                wgmma_fence();
                wgmma_stage<BK>(acc, s.a[slot] + (wg - 1) * 64 * BK, s.b[slot]);
                wgmma_commit();
                if (wg == 2 && used == LAG - 1) named_arrive(START, 2 * WG);  // LAG stages issued
                wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
                if (step > 0) release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);
            }
            wgmma_wait<0>();
            release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);  // the last, too
            fence_registers(acc);
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

template <int LAG, class Order = grouped_pairs_order>
static void launch_staggered(tc_problem *p) {
    constexpr int BM = 128, BN = 256;  // two consumer warpgroups, each 64 rows by a 64 x 256 wgmma
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int STAGES = 4;          // four stages of 48 KB: 192 KB, one block an SM
    constexpr int C_COLS = 32;         // a box of C: 64 rows of 32 floats, the swizzle's 128 bytes
    constexpr int C_BUFFERS = 2;       // 2 x 8 KB a warpgroup: 32 KB, what 227 KB leave the ring
    constexpr int CLUSTER = 2;         // tiles one above the other: each block copies 128 rows of B
    static_assert(BN / CLUSTER == 128, "a block's part of B is a box of map_b128");
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    static_assert(ring_bytes<layout>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel = tc_v12_staggered<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, CLUSTER, LAG, Order>;
    static int clusters = 0;  // the clusters the GPU holds at once, asked at the first launch
    make_maps(p, BM, BK);
    launch_clusters<CLUSTER>(kernel, ring_bytes<layout>(), tiles(p->m, p->n, CLUSTER * BM, BN),
                             p->sms, clusters, p->map_a, p->map_b128, *map_of_c<C_COLS, 64>(p),
                             p->c, p->m, p->n, p->k);
}

// The lower warpgroup starts two stages ahead: two stages of one warpgroup's wgmma, with the
// tensor cores to itself, are the time the other warpgroup's store can hide behind (the README
// puts a number on it). A longer lag leaves the leader fewer stages of loads ahead of it
// (STAGES - LAG), and the lag it keeps is what those loads allow. v12-lag1 and v12-lag3
// (v12x-lag.cuh) try 1 and 3.
static void launch_v12(void *problem) { launch_staggered<2>((tc_problem *)problem); }
