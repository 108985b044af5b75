// ---- v11 multicast ------------------------------------------------------------------------------
// Two blocks of v10 whose tiles lie one above the other read the same tiles of B from L2, each
// for itself. Now the grid runs in clusters of two blocks on neighbouring SMs that take such a
// pair of tiles together: each block copies its own tile of A and half of the tile of B, and
// TMA's multicast writes that half into the shared memory of both. Each block still gets all of
// B, but a stage reads 32 KB from L2 instead of 48. A stage is refilled only when the consumers
// of both blocks are done with it, so a consumer warp arrives on the "empty" barriers of both.

// v9's bands for pairs of tiles: 8 rows of pairs are v9's 16 rows of tiles (2048 rows of A), so
// the 66 clusters at work read about as many bands of A and of B as v9's 132 blocks do.
struct grouped_pairs_order {
    __device__ static tile_origin at(size_t pair, size_t m, size_t n, int pair_m, int tile_n) {
        constexpr int GROUP = 8;  // rows of pairs in a band
        size_t rows = (m + pair_m - 1) / pair_m, cols = (n + tile_n - 1) / tile_n;
        size_t band = pair / (GROUP * cols), first = band * GROUP;  // the band's first row
        size_t high = rows - first < GROUP ? rows - first : GROUP;   // the last may be lower
        size_t q = pair - band * GROUP * cols;                        // the place in the band
        return {(first + q % high) * pair_m, q / high * tile_n};
    }
};

#ifdef KL_SM90A
// Thread 0 of block `rank` fills stage `slot` with k step `step`: its own tile of A (rows r0 ..)
// and part `rank` of the pair's tile of B (BN / CLUSTER rows from c0 + rank BN / CLUSTER), which
// the multicast writes into the same place in every block of the cluster. The full barrier
// counts all of A and B: the other parts of B come from the other blocks' producers.
template <int CLUSTER, int BM, int BN, int BK, int STAGES>
__device__ inline void load_stage_multicast(stage_ring<BM, BN, BK, STAGES> &s, int slot,
                                            const CUtensorMap *map_a, const CUtensorMap *map_b,
                                            int step, size_t r0, size_t c0, unsigned rank) {
    constexpr int PART = BN / CLUSTER;  // rows of B that each block copies for all
    mbar_arrive_expect(&s.full[slot], (BM + BN) * BK * sizeof(bf16));
    tma_load(s.a[slot], map_a, step * BK, (int)r0, &s.full[slot]);
    tma_load_multicast(s.b[slot] + rank * PART * BK, map_b, step * BK, (int)(c0 + rank * PART),
                       &s.full[slot], (1u << CLUSTER) - 1);
}

// A consumer warp is done with a stage: one arrival on the stage's empty barrier in every block
// of the cluster, since every block's producer writes into this block's stage.
template <int CLUSTER>
__device__ inline void release_stage_cluster(uint64_t *empty) {
    __syncwarp();
    if (threadIdx.x % 32 == 0)
        for (unsigned r = 0; r < CLUSTER; r++) mbar_arrive_cluster(empty, r);
}
#endif

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, int CLUSTER, class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v11_multicast(
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
        if (threadIdx.x % WG == 0) bulk_wait<0>();  // C is written before the block leaves
    }
    cluster_sync();  // no block leaves while another may still arrive on its barriers
#endif
}

static void launch_v11(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 256;  // two consumer warpgroups, each 64 rows by a 64 x 256 wgmma
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int STAGES = 4;          // four stages of 48 KB: 192 KB, one block an SM
    constexpr int C_COLS = 32;         // a box of C: 64 rows of 32 floats, the swizzle's 128 bytes
    constexpr int C_BUFFERS = 2;       // 2 x 8 KB a warpgroup: 32 KB, what 227 KB leave the ring
    constexpr int CLUSTER = 2;         // tiles one above the other: each block copies 128 rows of B
    static_assert(BN / CLUSTER == 128, "a block's part of B is a box of map_b128");
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    static_assert(ring_bytes<layout>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel = tc_v11_multicast<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, CLUSTER, grouped_pairs_order>;
    // a launch in clusters of CLUSTER blocks along x (__cluster_dims__ would not compile for the
    // sm_80 build this file also makes): blocks 2c and 2c + 1 are cluster c
    cudaLaunchAttribute cluster = {};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = CLUSTER, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(3 * WG);
    cfg.dynamicSmemBytes = ring_bytes<layout>();
    cfg.attrs = &cluster, cfg.numAttrs = 1;
    static int clusters = 0;  // the clusters this GPU runs at once, a block an SM: asked once
    if (!clusters) {
        allow_smem(kernel, ring_bytes<layout>());
        cfg.gridDim = dim3(p->sms / CLUSTER * CLUSTER);  // a grid of whole clusters, one an SM
        CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
        if (clusters < 1) {
            fprintf(stderr, "v11: the GPU runs no cluster of %d blocks of this kernel\n", CLUSTER);
            exit(KL_EXIT_GPU);
        }
        if (CLUSTER * clusters < p->sms)  // SMs left without a block: say so, it costs time
            fprintf(stderr, "v11: %d clusters of %d blocks at once, %d of the %d SMs\n", clusters,
                    CLUSTER, CLUSTER * clusters, p->sms);
    }
    make_maps(p, BM, BK);
    unsigned pairs = tiles(p->m, p->n, CLUSTER * BM, BN);
    cfg.gridDim = dim3(CLUSTER * min(pairs, (unsigned)clusters));
    CHECK(cudaLaunchKernelEx(&cfg, kernel, p->map_a, p->map_b128, *map_of_c<C_COLS, 64>(p), p->c,
                             p->m, p->n, p->k));
}
