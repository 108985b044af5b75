// ---- f3-twosets (an experiment on f3): f3-narrow with two sets of accumulators ------------------
// f1 to f6 add a stage's products into their FP32 sums only once all of that stage's wgmma are
// done (wgmma_wait<0>), and only then start the next stage, whose first wgmma overwrites the
// same accumulators. Both consumer warpgroups wait on the same stage, so they tend to add at the
// same moment, and the tensor cores may have nothing to do meanwhile: a guess for why f3-narrow
// keeps them busy a smaller share of the time at 4096^3 than cuBLASLt does on a tile of the same
// size (the README's profile). Now each thread keeps two sets of accumulators and the stages take turns: one
// stage's wgmma write one set while the thread adds the other, the stage before's, into its
// sums, and the wait is wgmma_wait<1>, as in f0. Three sets of a tile's results a thread (two of
// accumulators, the sums) fit the 232 registers only at 128 x 128, so this is f3-narrow's launch:
// f3-narrow to f3-twosets is the second set alone. (It gains nothing: README.)

template <int BM, int BN, int STAGES, int CLUSTER, class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_f3_twosets(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k, float scale) {
#ifdef KL_SM90A
    // the producer needs few registers: setmaxnreg hands 232 a thread to the consumers, keeps 40
    constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // 128 x 40 + 256 x 232 <= 65536
    constexpr int RUN = 8;  // stages a turn of the loop below: an even number
    static_assert(PROMOTE_K == FP8_BK, "a promotion every stage: a stage's sums in one set");
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
            // acc0 and acc1 take turns by stage; sum: all of the stages so far. The zeros in
            // acc0 and acc1 are never added to anything (a stage's first wgmma overwrites
            // them); they keep the compiler from reading unwritten registers.
            float acc0[BN / 2], acc1[BN / 2], sum[BN / 2];
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc0[i] = 0.0f, acc1[i] = 0.0f, sum[i] = 0.0f;
            fence_registers(acc0);
            fence_registers(acc1);
            // One stage: its wgmma into `into`, then the stage before's products, in `done`,
            // into the sums once that stage's wgmma (and only that stage's) are done.
            auto stage = [&](float(&into)[BN / 2], float(&done)[BN / 2], bool after) {
                int slot = used % STAGES;
                mbar_wait(&s.full[slot], used / STAGES % 2);
                wgmma_fence();  // and orders the adds of `into` two stages ago before this overwrite
                wgmma_stage_fp8(into, s.a[slot] + (wg - 1) * 64 * FP8_BK, s.b[slot], 0);
                wgmma_commit();
                if (after) {  // a stage before this one in the run: add it
                    wgmma_wait<1>();  // the stage before is done; this one may still run
                    release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);
                    fence_registers(done);
#pragma unroll
                    for (int i = 0; i < BN / 2; i++) sum[i] += done[i];
                }
                used++;
            };
            // Runs of RUN stages, each written out whole (no branch inside), its last stage
            // waited for at its end. ptxas keeps the overlap only so: where a wgmma still
            // running at a loop's back edge has its registers read in the next turn, it makes
            // every wgmma wait for the one before (its warning C7514), whatever wgmma_wait says.
            int step = 0;
            for (; step + RUN <= steps; step += RUN) {
#pragma unroll
                for (int j = 0; j < RUN; j += 2) {
                    stage(acc0, acc1, j > 0);
                    stage(acc1, acc0, true);
                }
                wgmma_wait<0>();
                release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);
                fence_registers(acc1);
#pragma unroll
                for (int i = 0; i < BN / 2; i++) sum[i] += acc1[i];
            }
            // the last steps % RUN stages one at a time, as f3 does them
            for (; step < steps; step++) {
                stage(acc0, acc1, false);
                wgmma_wait<0>();
                release_stage_cluster<CLUSTER>(&s.empty[(used - 1) % STAGES]);
                fence_registers(acc0);
#pragma unroll
                for (int i = 0; i < BN / 2; i++) sum[i] += acc0[i];
            }
            store_scaled(sum, scale, c, r0 + (wg - 1) * 64, t.c0, m, n);
        }
    }
    cluster_sync();  // no block leaves while another may still arrive on its barriers
#endif
}

static void launch_f3_twosets(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    make_maps_fp8(p);
    // f1's tile, 128 x 128, in four stages of 32 KB (128 KB), in f3's clusters of two
    constexpr int BM = 128, BN = 128, STAGES = 4, CLUSTER = 2;
    typedef fp8_ring<BM, BN, STAGES> ring;
    auto kernel = tc_f3_twosets<BM, BN, STAGES, CLUSTER, grouped_pairs_order>;
    static int clusters = 0;  // the clusters the GPU holds at once, asked at the first launch
    launch_clusters<CLUSTER>(kernel, ring_bytes<ring>(), tiles(p->m, p->n, CLUSTER * BM, BN),
                             p->sms, clusters, p->map_a, p->map_b64, p->c, p->m, p->n, p->k,
                             p->scale);
}
