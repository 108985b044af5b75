// ---- v11-pingpong (an experiment on v11): each consumer warpgroup on tiles of its own -----------
// v11's two consumer warpgroups share each tile, so they reach its end together, and while they
// store it the tensor cores wait (v10's knock-outs put that at a tenth of the time at 4096^3).
// CUTLASS's "ping-pong" kernels hide the end of a tile another way, and this is ours: each
// consumer warpgroup takes tiles of its own, 64 x 256, and the two take turns at the tensor
// cores. One runs the k loop of its tile while the other stores the tile before, then waits for
// its turn. The producer loads the tiles' stages one tile after another, as in v11, but a stage
// now serves one warpgroup of each block: its tile of A is 64 rows, and a stage is 40 KB.
//
// The turn is passed on two named barriers: a warpgroup starts the k loop of tile i once the
// other has issued every wgmma of tile i - 1. The turn is also what keeps the full barriers'
// parities right: a warpgroup skips the stages of the other's tiles without waiting on them,
// and waiting on a stage is safe only once every earlier use of its slot has been waited for.
//
// peak-1wg, the experiment's control: the peak kernel with one warpgroup an SM instead of two.
// Ping-pong assumes that one warpgroup alone can keep the tensor cores busy; peak-1wg measures
// whether it can.

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, int CLUSTER, class Order,
          bool LOADS>
__global__ __launch_bounds__(3 * WG, 1) void tc_v11_pingpong(
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
    int wg = threadIdx.x / WG;  // 0: the producer; 1: this block's tiles 0, 2, 4 ...; 2: 1, 3 ...
    unsigned rank = cluster_rank();  // this block's tile of each pair: rows BM rank .. + BM - 1
    size_t pair_count = (m + CLUSTER * BM - 1) / (CLUSTER * BM) * ((n + BN - 1) / BN);
    size_t first = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;  // pairs by cluster
    int steps = (int)((k + BK - 1) / BK);
    if (threadIdx.x == 0) {
        for (int i = 0; i < STAGES; i++) {
            mbar_init(&s.full[i], 1);             // the producer's one arrival, plus the bytes
            mbar_init(&s.empty[i], CLUSTER * WG / 32);  // per warp of one warpgroup a block
        }
        mbar_fence_init();
    }
    cluster_sync();  // every block's barriers exist before any block copies into them
    if (wg == 0) {
        registers_down<PRODUCER_REGS>();
        int used = 0;  // stages used so far, over all of this block's tiles
        if (threadIdx.x == 0)
            for (size_t pair = first; pair < pair_count; pair += clusters) {
                tile_origin t = Order::at(pair, m, n, CLUSTER * BM, BN);
                for (int step = 0; step < steps; step++, used++) {
                    int slot = used % STAGES;
                    if (used >= STAGES) mbar_wait(&s.empty[slot], (used / STAGES - 1) % 2);
                    if (LOADS)
                        load_stage_multicast<CLUSTER>(s, slot, &map_a, &map_b, step,
                                                      t.r0 + rank * BM, t.c0, rank);
                    else  // the knock-out: the stage is "full" of whatever it held
                        mbar_arrive(&s.full[slot]);
                }
            }
    } else {
        registers_up<CONSUMER_REGS>();
        constexpr int TURN = 3;  // named barriers 3 and 4: tile i may start its k loop (3 + i % 2)
        int boxes = 0;  // boxes of C this warpgroup has handed to the copy engine
        size_t tile = wg - 1;  // this block's tiles in its order: pair first + tile * clusters
        for (size_t pair = first + tile * clusters; pair < pair_count;
             pair += 2 * clusters, tile += 2) {
            tile_origin t = Order::at(pair, m, n, CLUSTER * BM, BN);
            size_t r0 = t.r0 + rank * BM;  // this block's tile: BM rows of the pair
            int used = (int)(tile * steps);  // the stages of the tiles before, both warpgroups'
            float acc[BN / 2];
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
            fence_registers(acc);  // the zeros are in place before any wgmma
            if (tile > 0) named_barrier(TURN + tile % 2, 2 * WG);  // the other's k loop is issued
            for (int step = 0; step < steps; step++, used++) {
                int slot = used % STAGES;
                mbar_wait(&s.full[slot], used / STAGES % 2);
                wgmma_fence();
                wgmma_stage<BK>(acc, s.a[slot], s.b[slot]);
                wgmma_commit();
                wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
                if (step > 0) release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);
            }
            // every wgmma of this tile is issued: the next tile's may queue up behind them
            if (pair + clusters < pair_count) named_arrive(TURN + (tile + 1) % 2, 2 * WG);
            wgmma_wait<0>();
            release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);  // the last, too
            fence_registers(acc);
            if (c_rows_aligned(n))
                store_warpgroup_tma<BN / 2, C_COLS, C_BUFFERS>(acc, sh.c[wg - 1], &map_c, r0,
                                                               t.c0, m, n, boxes);
            else
                store_warpgroup(acc, c, r0, t.c0, m, n);
        }
        if (threadIdx.x % WG == 0) bulk_wait<0>();  // C is written before the block leaves
    }
    cluster_sync();  // no block leaves while another may still arrive on its barriers
#endif
}

template <int STAGES, int C_BUFFERS, bool LOADS>
static void launch_pingpong(tc_problem *p) {
    constexpr int BM = 64, BN = 256;  // a warpgroup's tile: one 64 x 256 wgmma a k step of 16
    constexpr int BK = 64;            // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int C_COLS = 32;        // a box of C: 64 rows of 32 floats, the swizzle's 128 bytes
    constexpr int CLUSTER = 2;        // tiles one above the other: each block copies 128 rows of B
    static_assert(BN / CLUSTER == 128, "a block's part of B is a box of map_b128");
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    static_assert(ring_bytes<layout>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel = tc_v11_pingpong<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, CLUSTER,
                                  grouped_pairs_order, LOADS>;
    static int clusters = 0;  // the clusters the GPU holds at once, asked at the first launch
    make_maps(p, 128, BK);
    launch_clusters<CLUSTER>(kernel, ring_bytes<layout>(), tiles(p->m, p->n, CLUSTER * BM, BN),
                             p->sms, clusters, p->map_a64, p->map_b128, *map_of_c<C_COLS, 64>(p),
                             p->c, p->m, p->n, p->k);
}

// v11's settings, four stages (now of 40 KB) and two buffers of C a warpgroup: 192 KB in all,
// where v11 takes 224. A fifth stage fits if each warpgroup keeps one buffer of C (216 KB):
// v11-pingpong5. v11-pingpong-noload is v11-pingpong5 with no loads at all (unchecked).
static void launch_v11_pingpong(void *problem) {
    launch_pingpong<4, 2, true>((tc_problem *)problem);
}
static void launch_v11_pingpong5(void *problem) {
    launch_pingpong<5, 1, true>((tc_problem *)problem);
}
static void launch_v11_pingpong_noload(void *problem) {
    launch_pingpong<5, 1, false>((tc_problem *)problem);
}

// peak-1wg: tc_peak's loop (peak_loop) in one warpgroup an SM (a block of 128 threads with more
// than half the shared memory, so that no second block shares its SM).
__global__ __launch_bounds__(WG, 1) void tc_peak_1wg(float *sink, unsigned long long batches) {
#ifdef KL_SM90A
    constexpr int BK = 64;
    extern __shared__ unsigned char raw[];
    bf16 *tile = ring_at<bf16[(64 + 256) * BK]>(raw);  // A's 64 rows, then B's 256: 40 KB
    for (int i = threadIdx.x; i < (64 + 256) * BK; i += blockDim.x)
        tile[i] = __float2bfloat16((float)(i % 7 - 3) * 0.125f);
    fence_async_shared();  // ordinary stores, read by wgmma
    __syncthreads();
    unsigned long long mine = batches / gridDim.x + (blockIdx.x < batches % gridDim.x);
    float got = peak_loop(tile, mine);
    if (threadIdx.x == 0) sink[blockIdx.x] = got;
#endif
}

static void launch_peak_1wg(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    double ops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    unsigned long long batches = (unsigned long long)ceil(ops / PEAK_OPS);  // a batch a warpgroup
    constexpr size_t BYTES = 120 * 1024;  // more than half of an SM's 228 KB: one block an SM
    static bool allowed = false;           // once, outside the timed launches that follow
    if (!allowed) allow_smem(tc_peak_1wg, BYTES);
    allowed = true;
    tc_peak_1wg<<<p->sms, WG, BYTES>>>(p->peak_sink, batches);
}
