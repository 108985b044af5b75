// ---- f3 multicast -------------------------------------------------------------------------------
// v11's step on the FP8 ladder. At FP8's rate a stage feeds the tensor cores for half as long as
// BF16's, so the same bytes from L2 must come twice as fast, and f2's blocks read each tile of B
// for themselves. Now the grid runs in clusters of two blocks on pairs of tiles one above the
// other: each block copies its own tile of A and half of the pair's tile of B, and the multicast
// writes that half into both blocks' shared memory (cluster-pairs.cuh). A stage reads 28 KB from
// L2 instead of 40; a stage is refilled only when the consumers of both blocks are done with it.

template <int BM, int BN, int STAGES, int CLUSTER, class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_f3_multicast(
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
    unsigned rank = cluster_rank();  // this block's tile of each pair: rows BM rank .. + BM - 1
    size_t pair_count = (m + CLUSTER * BM - 1) / (CLUSTER * BM) * ((n + BN - 1) / BN);
    size_t first = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;  // pairs by cluster
    int steps = (int)((k + FP8_BK - 1) / FP8_BK);
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
        for (size_t pair = first; pair < pair_count; pair += clusters) {
            tile_origin t = Order::at(pair, m, n, CLUSTER * BM, BN);
            size_t r0 = t.r0 + rank * BM;  // this block's tile: BM rows of the pair
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
                    if (held) release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);
                    held = true;
                    continue;
                }
                // The adds need these products, so the warpgroup waits for all its wgmma.
                // The other consumer warpgroup's wgmma can keep the tensor cores busy
                // meanwhile, where the two have drifted apart (f3-twosets asks how far).
                wgmma_wait<0>();
                if (held) release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);
                release_stage_cluster<CLUSTER>(&s.empty[slot]);
                held = false;
                fence_registers(acc);
#pragma unroll
                for (int i = 0; i < BN / 2; i++) sum[i] += acc[i];
            }
            store_scaled(sum, scale, c, r0 + (wg - 1) * 64, t.c0, m, n);
        }
    }
    cluster_sync();  // no block leaves while another may still arrive on its barriers
#endif
}

// The tile is BM x BN, its pairs CLUSTER BM x BN, and each block copies BN / CLUSTER rows of B
// with the map `map_b` (boxes of that many rows). f3-narrow (f03x-narrow.cuh) launches it too.
template <int BM, int BN, int STAGES>
static void launch_pairs_fp8(fp8_problem *p, const CUtensorMap &map_b) {
    constexpr int CLUSTER = 2;  // tiles one above the other: each block copies BN / 2 rows of B
    typedef fp8_ring<BM, BN, STAGES> ring;
    auto kernel = tc_f3_multicast<BM, BN, STAGES, CLUSTER, grouped_pairs_order>;
    static int clusters = 0;  // the clusters the GPU holds at once, asked at the first launch
    launch_clusters<CLUSTER>(kernel, ring_bytes<ring>(), tiles(p->m, p->n, CLUSTER * BM, BN),
                             p->sms, clusters, p->map_a, map_b, p->c, p->m, p->n, p->k, p->scale);
}

static void launch_f3(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    make_maps_fp8(p);
    // f2's tile, 128 x 192, in four stages of 40 KB (160 KB); each block copies 96 rows of B
    launch_pairs_fp8<128, 192, 4>(p, p->map_b96);
}
