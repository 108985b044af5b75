// ---- v10 tmastore -------------------------------------------------------------------------------
// v9's consumers write C from their registers: 8-byte stores spread over 8 rows a warp, each
// with its own address and edge checks, while the tensor cores wait. Now a warpgroup writes its
// results into shared memory, a box of 64 rows x 32 columns at a time, and one thread hands each
// box to the copy engine (a TMA store, tma-store.cuh), which writes it to C while the warps go
// on: the last boxes of a tile are still on their way as the next tile's multiplies start.

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, class Order>
__global__ __launch_bounds__(3 * WG, 1) void tc_v10_tmastore(
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
        int boxes = 0;  // boxes of C this warpgroup has handed to the copy engine
        for (size_t tile = blockIdx.x; tile < tile_count; tile += gridDim.x) {
            tile_origin t = Order::at(tile, m, n, BM, BN);
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
                if (step > 0) release_stage(&s.empty[(used - 1) % STAGES]);
            }
            wgmma_wait<0>();
            release_stage(&s.empty[(used - 1) % STAGES]);  // the tile's last stage, too
            fence_registers(acc);
            if (c_rows_aligned(n))
                store_warpgroup_tma<BN / 2, C_COLS, C_BUFFERS>(acc, sh.c[wg - 1], &map_c,
                                                               t.r0 + (wg - 1) * 64, t.c0, m, n, boxes);
            else
                store_warpgroup(acc, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
        }
        if (threadIdx.x % WG == 0) bulk_wait<0>();  // C is written before the block leaves
    }
#endif
}

template <int STAGES, int C_BUFFERS>
static void launch_tmastore(tc_problem *p) {
    constexpr int BM = 128, BN = 256;  // two consumer warpgroups, each 64 rows by a 64 x 256 wgmma
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int C_COLS = 32;         // a box of C: 64 rows of 32 floats, the swizzle's 128 bytes
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    static_assert(ring_bytes<layout>() <= 227 * 1024, "more than a block's shared memory");
    auto kernel = tc_v10_tmastore<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, grouped_order>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<layout>()), ready = true;
    make_maps(p, BM, BK);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<layout>()>>>(p->map_a, p->map_b256, *map_of_c<C_COLS, 64>(p),
                                                   p->c, p->m, p->n, p->k);
}

// Four stages of 48 KB: 192 KB, one block an SM; and 2 x 8 KB of C a warpgroup: 32 KB, what
// 227 KB leave the ring. v10x-room.cuh trades one for the other.
static void launch_v10(void *problem) { launch_tmastore<4, 2>((tc_problem *)problem); }
