// ---- v10-storewarp (an experiment): stores issued by producer warps (from v10-unrolled) ---------
// In v10 a consumer warpgroup stages a box of C, meets, and its thread 0 hands the box to the
// copy engine and waits until the copy engine has read the buffer it will write next: the
// warpgroup's next box waits for both. Here the two idle warps of the producer warpgroup do that
// for the consumers, warp w for consumer warpgroup w: a consumer warpgroup stages a box, arrives
// at the box's "full" barrier without waiting, and goes on to its next box as soon as its
// storing warp says that buffer is free. If issuing the stores and waiting for the buffers is
// what the end of a tile costs, the consumers' part of it falls to v10-stageonly's.

#ifdef KL_SM90A
// Named barriers 3-10 (1 and 2 are the consumer warpgroups' own meetings): for consumer
// warpgroup wg in {1, 2} and its buffer b, "full" (the box is staged) and "free" (the copy
// engine has read it); each is met by the warpgroup's 128 threads and its storing warp's 32.
// Box s of a warpgroup, counted over all its tiles, uses buffer s % C_BUFFERS.
template <int C_BUFFERS>
__device__ inline int full_at(int wg, int s) { return 3 + (wg - 1) * C_BUFFERS + s % C_BUFFERS; }
template <int C_BUFFERS>
__device__ inline int free_at(int wg, int s) {
    return 3 + (wg + 1) * C_BUFFERS + s % C_BUFFERS;
}

// The consumer warpgroup's part: store_warpgroup_tma's stores into the swizzled buffer, without
// the copy: before box s it waits for the buffer of box s - C_BUFFERS to be free, after it
// arrives at the box's full barrier and goes on.
template <int R, int C_COLS, int C_BUFFERS>
__device__ void stage_for_warp(const float (&acc)[R], float (*buf)[64 * C_COLS], size_t r0,
                               size_t c0, size_t m, size_t n, int &boxes) {
    int t = threadIdx.x % WG, lane = t % 32, wg = threadIdx.x / WG;
    int row = t / 32 * 16 + lane / 4;  // and row + 8: this thread's rows of the box, in [0, 64)
#pragma unroll
    for (int box = 0; box < 2 * R / C_COLS; box++) {
        size_t col0 = c0 + box * C_COLS;
        if (r0 >= m || col0 >= n) continue;  // the same for every thread, and the storing warp
        int s = boxes++;
        float *b = buf[s % C_BUFFERS];
        if (s >= C_BUFFERS) named_barrier(free_at<C_BUFFERS>(wg, s), WG + 32);
#pragma unroll
        for (int j = 0; j < C_COLS / 8; j++) {
            int a = 4 * (box * C_COLS / 8 + j);  // acc[a], [a + 1]: row; [a + 2], [a + 3]: row + 8
            int col = j * 8 + lane % 4 * 2;      // in [0, C_COLS): in piece col / 4, at col % 4
            int at = (col / 4 ^ row % 8) * 4 + col % 4;
            st_shared_v2(b + row * C_COLS + at, acc[a], acc[a + 1]);
            st_shared_v2(b + (row + 8) * C_COLS + at, acc[a + 2], acc[a + 3]);
        }
        fence_async_shared();                                  // visible to the copy engine...
        named_arrive(full_at<C_BUFFERS>(wg, s), WG + 32);  // ...once the storing warp knows
    }
}

// The storing warp of consumer warpgroup wg: the same tiles and boxes in the same order. Box s:
// wait until it is staged, lane 0 hands it to the copy engine, then once the copy engine has
// read box s - C_BUFFERS + 1 the warp frees that buffer, which box s + 1 will use. The last
// C_BUFFERS - 1 boxes' buffers are never needed again; the warpgroup waits for the last "free"
// the warp gives (at its end), so that every arrival is met.
template <int R, int C_COLS, int C_BUFFERS, class Order>
__device__ void store_for(float (*buf)[64 * C_COLS], const CUtensorMap *map_c, int wg, int BM,
                          int BN, size_t m, size_t n, size_t tile_count) {
    static_assert(C_BUFFERS == 2, "frees box s - 1 after box s: two buffers");
    int lane = threadIdx.x % 32, s = 0;
    for (size_t tile = blockIdx.x; tile < tile_count; tile += gridDim.x) {
        tile_origin t = Order::at(tile, m, n, BM, BN);
        size_t r0 = t.r0 + (wg - 1) * 64;
        for (int box = 0; box < 2 * R / C_COLS; box++) {
            size_t col0 = t.c0 + box * C_COLS;
            if (r0 >= m || col0 >= n) continue;  // the warpgroup skips it too
            named_barrier(full_at<C_BUFFERS>(wg, s), WG + 32);  // box s is staged
            if (lane == 0) {
                tma_store(buf[s % C_BUFFERS], map_c, (int)col0, (int)r0);
                bulk_commit();
                bulk_wait_read<1>();  // box s - 1's buffer has been read
            }
            __syncwarp();
            if (s >= 1) named_arrive(free_at<C_BUFFERS>(wg, s - 1), WG + 32);
            s++;
        }
    }
    if (lane == 0) bulk_wait<0>();  // C is written before the block leaves
}
#endif

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v10_storewarp(
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
    size_t tile_count = (m + BM - 1) / BM * ((n + BN - 1) / BN);
    int steps = (int)((k + BK - 1) / BK);
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
        int warp = threadIdx.x / 32;  // 0 loads; 1 and 2 store for consumer warpgroups 1 and 2
        if ((warp == 1 || warp == 2) && c_rows_aligned(n))
            store_for<BN / 2, C_COLS, C_BUFFERS, Order>(sh.c[warp - 1], &map_c, warp, BM, BN, m,
                                                        n, tile_count);
        if (threadIdx.x == 0)
            for (size_t tile = blockIdx.x; tile < tile_count; tile += gridDim.x) {
                tile_origin t = Order::at(tile, m, n, BM, BN);
                for (int step = 0; step < steps; step++, used++) {
                    int slot = used % STAGES;
                    if (used >= STAGES) mbar_wait(&s.empty[slot], (used / STAGES - 1) % 2);
                    load_stage(s, slot, &map_a, &map_b, step, t.r0, t.c0);
                }
            }
    } else {
        registers_up<CONSUMER_REGS>();
        int boxes = 0;  // boxes of C this warpgroup has handed to its storing warp
        // the low words of the descriptors of stage 0's tiles, and its full barrier's address:
        // stage i's are these plus i stages' bytes (the ring's arrays are stage after stage)
        constexpr unsigned A_STAGE = sizeof(s.a[0]) / 16, B_STAGE = sizeof(s.b[0]) / 16;
        const int uniform_wg = __shfl_sync(~0u, wg, 0);  // wg, as one value a warp
        const unsigned a0 = kept(desc_low(smem(s.a[0] + (uniform_wg - 1) * 64 * BK)));
        const unsigned b0 = kept(desc_low(smem(s.b[0])));
        const unsigned full0 = kept(smem(&s.full[0]));
        unsigned slot = 0, phase = 0;  // the next stage and its parity
        for (size_t tile = blockIdx.x; tile < tile_count; tile += gridDim.x) {
            tile_origin t = Order::at(tile, m, n, BM, BN);
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
                wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
                if (!first) release_stage(&s.empty[(at + STAGES - 1) % STAGES]);
            };
            for (int step = 0; step < steps;) {
                if (slot == 0 && steps - step >= STAGES) {  // a whole turn of the ring from stage 0
#pragma unroll
                    for (int j = 0; j < STAGES; j++) k_step(j, j == 0 && step == 0);
                    step += STAGES;
                    phase ^= 1;
                } else {  // one step: until stage 0 comes round, and the last few
                    k_step(slot, step == 0);
                    step++;
                    if (++slot == STAGES) slot = 0, phase ^= 1;  // round the ring: the parity flips
                }
            }
            wgmma_wait<0>();
            release_stage(&s.empty[(slot + STAGES - 1) % STAGES]);  // the tile's last stage, too
            fence_registers(acc);
            if (c_rows_aligned(n))
                stage_for_warp<BN / 2, C_COLS, C_BUFFERS>(acc, sh.c[wg - 1], t.r0 + (wg - 1) * 64,
                                                          t.c0, m, n, boxes);
            else
                store_warpgroup(acc, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
        }
        // the storing warp's last word: the buffer of our last box but one is free (its own
        // bulk_wait makes C written before the block leaves)
        if (c_rows_aligned(n) && boxes >= C_BUFFERS)
            named_barrier(free_at<C_BUFFERS>(wg, boxes - C_BUFFERS), WG + 32);
    }
#endif
}

static void launch_v10_storewarp(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, C_COLS = 32, C_BUFFERS = 2;  // v10's
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    static_assert(ring_bytes<layout>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel = tc_v10_storewarp<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, grouped_order>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<layout>()), ready = true;
    make_maps(p, BM, BK);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<layout>()>>>(p->map_a, p->map_b256, *map_of_c<C_COLS, 64>(p),
                                                   p->c, p->m, p->n, p->k);
}
