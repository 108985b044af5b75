// ---- v16-timeline (an experiment on v16): where each block's time goes ------------------------
// v16's kernel, which also notes the GPU's clock (%globaltimer, nanoseconds) at five points of
// every unit of work a consumer warpgroup takes: its start, the end of its k loop, the end of
// its wait for the others' partial sums, the end of what it does with partial sums (leave its
// own, or add the others'), and the end of its stores of C (handed to the copy engine, whose
// copies may still be on their way). The notes go into a buffer in global memory, a record a
// unit; --save DIR writes those of the launch that is checked into DIR/v16-timeline-units.csv,
// and make timeline CH=06-tensor-cores turns them into a table and a figure of the blocks along
// time (plots/timeline.py). A note is one thread's store, a few a tile; make timeline times v16
// in the same run, so the two rows say what the notes cost.
// make diff CH=06-tensor-cores A=v16 B=v16-timeline shows the notes alone.

// A record: the unit (its pair, its k steps k0..k1, and its kind), then the five times. A
// whole pair waits for no sums and has none, a sharer waits for none and stores no C: those
// times repeat the one before.
enum { UNIT_WHOLE, UNIT_SHARER, UNIT_ADDER };
constexpr int TIMELINE_WORDS = 9;  // pair, k0, k1, kind, start, loop, wait, sums, end
// Each consumer warpgroup's notes: a header of 2 words (how many records, and when the
// warpgroup began, after the cluster's first meeting), then up to max_units records.
__host__ __device__ inline size_t timeline_stride(int max_units) {
    return 2 + (size_t)TIMELINE_WORDS * max_units;
}

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, int CLUSTER, int LAG,
          class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v16_timeline(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    const __grid_constant__ CUtensorMap map_c, float *c, size_t m, size_t n, size_t k,
    float4 *partials, unsigned *counters, int min_idle,
    unsigned long long *notes, int max_units) {
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
        const int uniform_wg = __shfl_sync(~0u, wg, 0);  // wg, as one value a warp
        const unsigned a0 = kept(desc_low(smem(s.a[0] + (uniform_wg - 1) * 64 * BK)));
        const unsigned b0 = kept(desc_low(smem(s.b[0])));
        const unsigned full0 = kept(smem(&s.full[0]));
        unsigned slot = 0, phase = 0;  // the next stage and its parity
        // (`used` still counts the stages, for the stagger's start only)
        streamk_work work(pair_count, steps, cluster, clusters, min_idle);
        bool noter = threadIdx.x % WG == 0;  // one thread of the warpgroup takes the notes
        unsigned long long *mine = notes + (blockIdx.x * 2 + (wg - 1)) * timeline_stride(max_units);
        if (noter) mine[1] = nanoseconds();
        int units = 0;
        unsigned long long *note = mine + 2;  // this unit's record
        for (work_unit u; work.next_unit(u); units++, note += TIMELINE_WORDS) {
            bool noting = noter && units < max_units;  // a guard: the launcher bounds the units
            if (noting) note[0] = u.pair, note[1] = u.k0, note[2] = u.k1, note[3] = UNIT_WHOLE,
                        note[4] = nanoseconds();
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
            if (noting) note[5] = note[6] = note[7] = nanoseconds();
            if (u.k0 > 0 || u.k1 < steps) {  // a shared pair: a counter per block and warpgroup
                size_t part = (u.pair - work.whole) * CLUSTER + rank;  // this block's tile of it
                unsigned *counter = counters + part * 2 + (wg - 1);
                if (u.k0 > 0) {  // not its first steps: leave our sum to the cluster that has them
                    share_partial(acc, partial_slot(partials, blockIdx.x, wg), counter, wg);
                    if (noting) note[3] = UNIT_SHARER, note[7] = note[8] = nanoseconds();
                    continue;
                }
                size_t last = work.sharers_end(u.pair, cluster);  // its first steps: add the rest
                wait_partials(counter, (unsigned)(last - cluster - 1), wg);
                if (noting) note[6] = nanoseconds();
                for (size_t q = cluster + 1; q < last; q++)
                    add_partial(acc, partial_slot(partials, q * CLUSTER + rank, wg));
                if (noting) note[3] = UNIT_ADDER, note[7] = nanoseconds();
            }
            if (c_rows_aligned(n))
                store_warpgroup_tma<BN / 2, C_COLS, C_BUFFERS>(acc, sh.c[wg - 1], &map_c,
                                                               r0 + (wg - 1) * 64, t.c0, m, n, boxes);
            else
                store_warpgroup(acc, c, r0 + (wg - 1) * 64, t.c0, m, n);
            if (noting) note[8] = nanoseconds();
        }
        if (noter) mine[0] = units < max_units ? units : max_units;
        if (wg == 2 && used < LAG) named_arrive(START, 2 * WG);  // fewer stages than LAG in all
        if (threadIdx.x % WG == 0) bulk_wait<0>();  // C is written before the block leaves
    }
    cluster_sync();  // no block leaves while another may still arrive on its barriers
#endif
}

// --save: the notes of the launch just checked as DIR/v16-timeline-units.csv, a row a unit of
// work of a consumer warpgroup, its times in nanoseconds from the earliest warpgroup's start.
// (tc_save calls it through the problem's save_notes, which the launcher sets: the program's
// own code names nothing of this file, so a starter kit cut before v16 leaves it out whole.)
static void save_timeline(const void *problem, const char *dir) {
    const tc_problem *p = (const tc_problem *)problem;
    size_t stride = timeline_stride(p->note_units), lanes = (size_t)p->note_blocks * 2;
    unsigned long long *h = (unsigned long long *)host_alloc(
        lanes * stride * sizeof(unsigned long long), "v16-timeline's notes");
    CHECK(cudaMemcpy(h, p->notes, lanes * stride * sizeof(unsigned long long),
                     cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (size_t l = 0; l < lanes; l++) t0 = h[l * stride + 1] < t0 ? h[l * stride + 1] : t0;
    char path[4200];
    snprintf(path, sizeof path, "%s/v16-timeline-units.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "--save: cannot write %s: %s\n", path, strerror(errno));
        exit(KL_EXIT_USAGE);
    }
    static const char *const kinds[] = {"whole", "sharer", "adder"};
    fprintf(f, "m,n,k,block,warpgroup,unit,pair,k0,k1,kind,start_ns,loop_end_ns,wait_end_ns,"
               "sums_end_ns,end_ns\n");
    for (size_t l = 0; l < lanes; l++) {
        const unsigned long long *lane = h + l * stride;
        for (unsigned long long u = 0; u < lane[0]; u++) {
            const unsigned long long *r = lane + 2 + u * TIMELINE_WORDS;
            fprintf(f, "%zu,%zu,%zu,%zu,%zu,%llu,%llu,%llu,%llu,%s,%llu,%llu,%llu,%llu,%llu\n",
                    p->m, p->n, p->k, l / 2, l % 2 + 1, u, r[0], r[1], r[2],
                    kinds[r[3] < 3 ? r[3] : 0], r[4] - t0, r[5] - t0, r[6] - t0, r[7] - t0,
                    r[8] - t0);
        }
    }
    fclose(f);
    free(h);
}

// v16's launch, with a buffer for the notes: each block takes at most a whole pair a round,
// and in a split last round parts of two pairs (a run is shorter than a pair: fewer pairs are
// left than there are clusters).
static void launch_v16_timeline(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, C_COLS = 32, C_BUFFERS = 2;
    constexpr int CLUSTER = 2, LAG = 2;  // all as v16's
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    auto kernel =
        tc_v16_timeline<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, CLUSTER, LAG, grouped_pairs_order>;
    static int clusters = 0;
    if (!clusters) clusters = cluster_capacity<CLUSTER>(kernel, ring_bytes<layout>(), p->sms);
    make_maps(p, BM, BK);
    unsigned pairs = tiles(p->m, p->n, CLUSTER * BM, BN);
    unsigned grid = streamk_grid(pairs, (unsigned)clusters, (int)ceil_div(p->k, BK),
                                 STREAMK_MIN_IDLE_STEPS);
    grid = grid < (unsigned)clusters ? grid : (unsigned)clusters;  // as launch_clusters caps it
    int max_units = (int)ceil_div(pairs, grid) + 2;
    size_t words = (size_t)grid * CLUSTER * 2 * timeline_stride(max_units);
    if (words > p->note_words) {  // the first launch at these sizes (checked, not timed)
        CHECK(cudaFree(p->notes));
        p->notes = (unsigned long long *)gpu_alloc(words * sizeof(unsigned long long),
                                                   "v16-timeline's notes");
        p->note_words = words;
    }
    p->note_blocks = grid * CLUSTER, p->note_units = max_units;
    p->save_notes = save_timeline;
    launch_clusters<CLUSTER>(kernel, ring_bytes<layout>(), grid, p->sms, clusters, p->map_a,
                             p->map_b128, *map_of_c<C_COLS, 64>(p), p->c, p->m, p->n, p->k,
                             p->partials, p->counters, STREAMK_MIN_IDLE_STEPS, p->notes,
                             max_units);
}
