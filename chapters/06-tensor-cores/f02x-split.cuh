// ---- f2-split (f2 with its last round of tiles split along k) ---------------------------------
// An experiment on f2. A block takes tiles at a stride of one a block (132 on an H100), so a run
// lasts ceil(tiles / 132) rounds of tiles; at 4096^3 f2 has 704 tiles, and the sixth round holds
// 44 while 88 blocks have nothing to do. f2-split cuts each tile of the last round into pieces
// along k, as many as there are blocks for them (132 / 44 = 3), each a run of whole stages: every
// block works in the last round, for a third of the time. A piece's FP32 sums go to memory; the
// block that finishes a tile's last piece adds the pieces, in order, and stores C. It launches a
// block on every SM, so that a problem of fewer tiles than SMs (one partial round) is split too.
// With no partial round, or too few blocks to share it, it is f2. The README has what it measured.

// How f2-split shares the work out: the first `whole` tiles whole (the full rounds), then each of
// the last round's `tail` tiles as `pieces` pieces along k. Pieces begin at a promotion
// (PROMOTE_K), so a piece's sums are whole runs of f2's, and there are no more pieces than runs.
struct split_plan {
    size_t whole, tail;
    int pieces;
};
__host__ __device__ inline split_plan split_plan_of(size_t tile_count, unsigned blocks, int steps) {
    constexpr int RUN = PROMOTE_K / FP8_BK;  // stages a run
    int runs = (steps + RUN - 1) / RUN;
    split_plan p;
    p.tail = tile_count % blocks;
    p.whole = tile_count - p.tail;
    size_t share = p.tail ? blocks / p.tail : 1;  // blocks for each tile of the last round
    p.pieces = (int)(share < (size_t)runs ? share : (size_t)runs);
    if (p.pieces < 1) p.pieces = 1;
    return p;
}

// The FP32 sums of one piece: a 128 x 192 tile (the pieces hold one for each SM).
constexpr size_t SPLIT_TILE = 128 * 192;

// Work item `item` of a plan: a tile and its stages first .. last - 1 (all of k for a whole tile).
struct split_work {
    size_t tile;
    int first, last;
};
__host__ __device__ inline split_work split_work_of(size_t item, split_plan p, int steps) {
    constexpr int RUN = PROMOTE_K / FP8_BK;
    if (item < p.whole) return {item, 0, steps};
    size_t i = item - p.whole;
    int piece = (int)(i % p.pieces), runs = (steps + RUN - 1) / RUN;
    int first = piece * runs / p.pieces * RUN, last = (piece + 1) * runs / p.pieces * RUN;
    return {p.whole + i / p.pieces, first, last < steps ? last : steps};
}

template <int BM, int BN, int STAGES>
__global__ __launch_bounds__(3 * WG, 1) void tc_f2_split(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    float *c, size_t m, size_t n, size_t k, float scale, float *pieces, unsigned *done) {
#ifdef KL_SM90A
    // the producer needs few registers: setmaxnreg hands 232 a thread to the consumers, keeps 40
    constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // 128 x 40 + 256 x 232 <= 65536
    constexpr int PROMOTE_STAGES = PROMOTE_K / FP8_BK;       // stages summed between promotions
    static_assert(PROMOTE_K % FP8_BK == 0, "a promotion ends a stage");
    typedef fp8_ring<BM, BN, STAGES> ring;
    extern __shared__ unsigned char raw[];
    ring &s = ring_at<ring>(raw);
    int wg = threadIdx.x / WG;  // 0: the producer; 1 and 2: rows 64 (wg - 1) .. + 63
    size_t tile_count = (m + BM - 1) / BM * ((n + BN - 1) / BN);
    int steps = (int)((k + FP8_BK - 1) / FP8_BK);
    split_plan plan = split_plan_of(tile_count, gridDim.x, steps);
    size_t items = plan.whole + plan.tail * plan.pieces;
    __shared__ bool last_piece;  // this block added the last piece of its tile
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
            for (size_t item = blockIdx.x; item < items; item += gridDim.x) {
                split_work w = split_work_of(item, plan, steps);
                tile_origin t = grouped_at(w.tile, m, n, BM, BN);
                for (int step = w.first; step < w.last; step++, used++) {
                    int slot = used % STAGES;
                    if (used >= STAGES) mbar_wait(&s.empty[slot], (used / STAGES - 1) % 2);
                    load_stage_fp8(s, slot, &map_a, &map_b, step, t.r0, t.c0);
                }
            }
    } else {
        registers_up<CONSUMER_REGS>();
        for (size_t item = blockIdx.x; item < items; item += gridDim.x) {
            split_work w = split_work_of(item, plan, steps);
            tile_origin t = grouped_at(w.tile, m, n, BM, BN);
            // acc: one stage's products, in the tensor cores' accumulators; sum: all of them so
            // far, added in FP32 by this thread. The zeros in acc are never added to anything
            // (each stage's first wgmma overwrites them); they keep the compiler from reading
            // registers that were never written.
            float acc[BN / 2], sum[BN / 2];
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f, sum[i] = 0.0f;
            fence_registers(acc);
            bool held = false;  // the stage before is still ours (its wgmma may be running)
            for (int step = w.first; step < w.last; step++, used++) {
                int slot = used % STAGES;
                bool first = step % PROMOTE_STAGES == 0;  // overwrite acc instead of adding
                bool promote = (step + 1) % PROMOTE_STAGES == 0 || step + 1 == w.last;
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
            if (item >= plan.whole && plan.pieces > 1) {
                // A piece: its sums to memory, four registers a thread at a time, the 256
                // consumer threads side by side. Then one thread counts the piece done, after a
                // fence (release); the block that counts the last piece reads them all back
                // (acquire), piece by piece.
                size_t i = item - plan.whole, tile_at = i / plan.pieces;
                int me = threadIdx.x - WG;
                float4 *mine = (float4 *)(pieces + i * SPLIT_TILE) + me;
#pragma unroll
                for (int r = 0; r < BN / 2; r += 4)
                    mine[r / 4 * 2 * WG] = make_float4(sum[r], sum[r + 1], sum[r + 2], sum[r + 3]);
                named_barrier(1, 2 * WG);  // every consumer thread's sums are written
                if (me == 0) {
                    __threadfence();  // the sums before the count, for whoever reads the count
                    last_piece = atomicAdd(&done[tile_at], 1) == (unsigned)plan.pieces - 1;
                    __threadfence();  // the count before the reads below
                }
                named_barrier(1, 2 * WG);
                if (!last_piece) continue;
                const float4 *all =
                    (const float4 *)(pieces + tile_at * plan.pieces * SPLIT_TILE) + me;
                // the first piece's sums are where the adds start; a piece's loads are independent
#pragma unroll
                for (int r = 0; r < BN / 2; r += 4) {
                    float4 v = __ldcg(all + r / 4 * 2 * WG);
                    sum[r] = v.x, sum[r + 1] = v.y, sum[r + 2] = v.z, sum[r + 3] = v.w;
                }
                for (int q = 1; q < plan.pieces; q++) {  // in order: the same sum every run
                    const float4 *from = all + (size_t)q * (SPLIT_TILE / 4);
#pragma unroll
                    for (int r = 0; r < BN / 2; r += 4) {
                        float4 v = __ldcg(from + r / 4 * 2 * WG);
                        sum[r] += v.x, sum[r + 1] += v.y, sum[r + 2] += v.z, sum[r + 3] += v.w;
                    }
                }
                if (me == 0) done[tile_at] = 0;  // ready for the next launch
            }
            store_scaled(sum, scale, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
        }
    }
#endif
}

static void launch_f2_split(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    constexpr int BM = 128, BN = 192;  // f2's tile
    constexpr int STAGES = 4;          // four stages of 40 KB: 160 KB, one block an SM
    typedef fp8_ring<BM, BN, STAGES> ring;
    auto kernel = tc_f2_split<BM, BN, STAGES>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps_fp8(p);
    unsigned grid = (unsigned)p->sms;  // one block an SM, all of them: fewer tiles are split too
    kernel<<<grid, 3 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b192, p->c, p->m, p->n, p->k,
                                                 p->scale, p->pieces, p->pieces_done);
}
