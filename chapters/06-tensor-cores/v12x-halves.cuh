// ---- v12-halves (an experiment on v12): its stores of C on 32 banks a half-warp -----------------
// v10-v16 write a box of C into shared memory with 8-byte stores, and shared memory serves an
// 8-byte store half a warp at a time: 16 lanes, 128 bytes, one pass if they fall on 32
// different banks. They do not: a half-warp holds rows 0-3 of its 8, and lanes 0-1 and 2-3 of
// each four hold pieces 2j and 2j + 1 of a row (16 bytes each; 8 columns of floats between
// them). After the swizzle (piece q of row r at q XOR r % 8) the 4 rows x 2 pieces land on 4
// places only, 2 rows each: two passes a half, four a store, where two are the least (the
// profile of v10 counts the conflicts). Here lanes 2-3 of each four store piece 2 (j XOR 2) + 1
// where lanes 0-1 store piece 2j: 4 places further, so a half-warp's 8 pieces fall on 8
// places, all 32 banks. Each lane still stores all of its columns, in another order; which of
// its registers goes first is a select. The kernel is v12's with this one call changed.

#ifdef KL_SM90A
// A warpgroup's 64 x 2R results to C, as store_warpgroup_tma (tma-store.cuh) with the columns
// of each box stored in the order above.
template <int R, int C_COLS, int C_BUFFERS>
__device__ void store_warpgroup_tma_halves(const float (&acc)[R], float (*buf)[64 * C_COLS],
                                           const CUtensorMap *map_c, size_t r0, size_t c0,
                                           size_t m, size_t n, int &boxes) {
    static_assert(C_COLS == 32, "4 groups of 8 columns a box: j XOR 2 stays in the box");
    int t = threadIdx.x % WG, lane = t % 32, id = threadIdx.x / WG;  // named barrier 1 or 2
    int row = t / 32 * 16 + lane / 4;  // and row + 8: this thread's rows of the box, in [0, 64)
    bool later = lane & 2;             // lanes 2-3 of four: columns 4-7 of each group of 8
#pragma unroll
    for (int box = 0; box < 2 * R / C_COLS; box++) {
        size_t col0 = c0 + box * C_COLS;
        if (r0 >= m || col0 >= n) continue;  // the same for every thread of the warpgroup
        float *b = buf[boxes++ % C_BUFFERS];
        if (t == 0) bulk_wait_read<C_BUFFERS - 1>();  // the copy that last read b is done...
        named_barrier(id, WG);                        // ...and the warpgroup knows it
#pragma unroll
        for (int j = 0; j < C_COLS / 8; j++) {
            int a = 4 * (box * C_COLS / 8 + j), a2 = 4 * (box * C_COLS / 8 + (j ^ 2));
            int g = later ? j ^ 2 : j;            // this lane's group of 8 columns at step j
            int col = g * 8 + lane % 4 * 2;       // in [0, C_COLS): in piece col / 4, at col % 4
            int at = (col / 4 ^ row % 8) * 4 + col % 4;
            st_shared_v2(b + row * C_COLS + at, later ? acc[a2] : acc[a],
                         later ? acc[a2 + 1] : acc[a + 1]);
            st_shared_v2(b + (row + 8) * C_COLS + at, later ? acc[a2 + 2] : acc[a + 2],
                         later ? acc[a2 + 3] : acc[a + 3]);
        }
        fence_async_shared();   // our stores, visible to the copy engine...
        named_barrier(id, WG);  // ...once every thread of the warpgroup has made them
        if (t == 0) {
            tma_store(b, map_c, (int)col0, (int)r0);
            bulk_commit();
        }
    }
}
#endif

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, int CLUSTER, int LAG,
          class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v12_halves(
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
                store_warpgroup_tma_halves<BN / 2, C_COLS, C_BUFFERS>(acc, sh.c[wg - 1], &map_c,
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

static void launch_v12_halves(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4;  // v12's tiles, stages and lag
    constexpr int C_COLS = 32, C_BUFFERS = 2, CLUSTER = 2, LAG = 2;
    static_assert(BN / CLUSTER == 128, "a block's part of B is a box of map_b128");
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    static_assert(ring_bytes<layout>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel = tc_v12_halves<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, CLUSTER, LAG,
                                grouped_pairs_order>;
    static int clusters = 0;  // the clusters the GPU holds at once, asked at the first launch
    make_maps(p, BM, BK);
    launch_clusters<CLUSTER>(kernel, ring_bytes<layout>(), tiles(p->m, p->n, CLUSTER * BM, BN),
                             p->sms, clusters, p->map_a, p->map_b128, *map_of_c<C_COLS, 64>(p),
                             p->c, p->m, p->n, p->k);
}
