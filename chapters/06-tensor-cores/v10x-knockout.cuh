// ---- v10-nostore and v10-halfstore, v10-stageonly, v10-resident, v10-loadsonly: knock-outs ------
// v10 with one part of its work taken out, each row a question. Their results are wrong on
// purpose (the table runs them unchecked, as `peak`), and only their times mean anything.
//   v10-nostore    no C at all: what the end of a tile costs.
//   v10-halfstore  only the blocks of even index store: if C's bytes were too many for L2 and
//                  DRAM at once, halving them would make each store faster.
//   v10-stageonly  each box written into shared memory and the warpgroup met, as v10 does, but
//                  never handed to the copy engine: the threads' part of the end of a tile.
//   v10-resident   every tile loads the first tile's A and B, which stay in L2: what reading
//                  from DRAM costs.
//   v10-loadsonly  the loads and the ring's barriers, no multiplies (C is still stored, as zeros):
//                  how fast the kernel goes with nothing to multiply.
// The kernel is v10's with those switches (`KNOCK`); make diff CH=06-tensor-cores A=v10
// B=v10-nostore shows them.

enum { NO_STORE, HALF_STORE, STAGE_ONLY, RESIDENT, LOADS_ONLY };

#ifdef KL_SM90A
// store_warpgroup_tma (tma-store.cuh) without the copies: the boxes go into shared memory with
// the same stores, fence and meetings, and stay there. With no copy to read a buffer, nothing
// waits for one to be free; and every box is staged, even one wholly outside C, whatever n is.
template <int R, int C_COLS, int C_BUFFERS>
__device__ void stage_warpgroup(const float (&acc)[R], float (*buf)[64 * C_COLS], int &boxes) {
    int t = threadIdx.x % WG, lane = t % 32, id = threadIdx.x / WG;
    int row = t / 32 * 16 + lane / 4;
#pragma unroll
    for (int box = 0; box < 2 * R / C_COLS; box++) {
        float *b = buf[boxes++ % C_BUFFERS];
        named_barrier(id, WG);
#pragma unroll
        for (int j = 0; j < C_COLS / 8; j++) {
            int a = 4 * (box * C_COLS / 8 + j);
            int col = j * 8 + lane % 4 * 2;
            int at = (col / 4 ^ row % 8) * 4 + col % 4;
            st_shared_v2(b + row * C_COLS + at, acc[a], acc[a + 1]);
            st_shared_v2(b + (row + 8) * C_COLS + at, acc[a + 2], acc[a + 3]);
        }
        fence_async_shared();
        named_barrier(id, WG);
    }
}
#endif

template <int BM, int BN, int BK, int STAGES, int C_COLS, int C_BUFFERS, class Order, int KNOCK>
__global__ __launch_bounds__(3 * WG, 1) void tc_v10_knockout(
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
                    if (KNOCK == RESIDENT) load_stage(s, slot, &map_a, &map_b, step, 0, 0);
                    else load_stage(s, slot, &map_a, &map_b, step, t.r0, t.c0);
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
                if (KNOCK != LOADS_ONLY)
                    wgmma_stage<BK>(acc, s.a[slot] + (wg - 1) * 64 * BK, s.b[slot]);
                wgmma_commit();
                wgmma_wait<1>();  // the previous stage's wgmma are done: give its buffers back
                if (step > 0) release_stage(&s.empty[(used - 1) % STAGES]);
            }
            wgmma_wait<0>();
            release_stage(&s.empty[(used - 1) % STAGES]);  // the tile's last stage, too
            fence_registers(acc);
            if (KNOCK == NO_STORE || (KNOCK == HALF_STORE && blockIdx.x % 2)) {
                if (acc[0] == 1e30f) c[0] = acc[1];  // keeps the multiplies (never true here)
            } else if (KNOCK == STAGE_ONLY)
                stage_warpgroup<BN / 2, C_COLS, C_BUFFERS>(acc, sh.c[wg - 1], boxes);
            else if (c_rows_aligned(n))
                store_warpgroup_tma<BN / 2, C_COLS, C_BUFFERS>(acc, sh.c[wg - 1], &map_c,
                                                               t.r0 + (wg - 1) * 64, t.c0, m, n, boxes);
            else
                store_warpgroup(acc, c, t.r0 + (wg - 1) * 64, t.c0, m, n);
        }
        if (threadIdx.x % WG == 0) bulk_wait<0>();  // C is written before the block leaves
    }
#endif
}

template <int KNOCK>
static void launch_v10_knockout(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, C_COLS = 32, C_BUFFERS = 2;  // v10's
    typedef ring_and_c<stage_ring<BM, BN, BK, STAGES>, C_COLS, C_BUFFERS> layout;
    auto kernel = tc_v10_knockout<BM, BN, BK, STAGES, C_COLS, C_BUFFERS, grouped_order, KNOCK>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<layout>()), ready = true;
    make_maps(p, BM, BK);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<layout>()>>>(p->map_a, p->map_b256, *map_of_c<C_COLS, 64>(p),
                                                   p->c, p->m, p->n, p->k);
}
static void launch_v10_nostore(void *problem) { launch_v10_knockout<NO_STORE>(problem); }
static void launch_v10_halfstore(void *problem) { launch_v10_knockout<HALF_STORE>(problem); }
static void launch_v10_stageonly(void *problem) { launch_v10_knockout<STAGE_ONLY>(problem); }
static void launch_v10_resident(void *problem) { launch_v10_knockout<RESIDENT>(problem); }
static void launch_v10_loadsonly(void *problem) { launch_v10_knockout<LOADS_ONLY>(problem); }
