// ---- v9-loop and v9-4x8 (with its loop alone): experiments on v9 --------------------------------

// v9 stops at about 76% of peak3. These rows ask where the rest goes (README, "Where the rest
// goes"). v9-loop is v9's kernel with LOOP: the same instructions of the tile loop, the same
// number of times, with no copies from global memory and no barriers; whatever v9 loses to them,
// v9-loop does not. It is a measurement, not a result: unchecked.
template <int RB, int RB_THREADS, int BLOCK64, int KT, int MIN_BLOCKS>
__global__ void __launch_bounds__(RB_THREADS *RB_THREADS, MIN_BLOCKS)
    shortcut_v9_loop(const float *__restrict__ dp, const float *__restrict__ tp,
                     float *__restrict__ r, size_t n, size_t np) {
    min3_kernel<RB, RB_THREADS, BLOCK64, KT, RB, true>(dp, tp, r, n, np);
}

// v9-4x8: more warps for the schedulers to choose from. 4 x 8 results a thread in blocks of
// 128 threads (8 x 16) need fewer registers, so an SM holds 16 warps to v9's 12, at the price of
// one more shared load for every 32 pairs instead of every 64. __launch_bounds__(128, 4) gives
// the compiler about 128 registers; it takes 107, 4 blocks (16 warps) an SM. v9-4x8-loop is its
// loop alone, as v9-loop is v9's.
template <int RB, int RB_THREADS, int BLOCK64, int KT, int ROWS, int MIN_BLOCKS, bool LOOP>
__global__ void __launch_bounds__(RB_THREADS * BLOCK64 / ROWS, MIN_BLOCKS)
    shortcut_v9_4x8(const float *__restrict__ dp, const float *__restrict__ tp,
                    float *__restrict__ r, size_t n, size_t np) {
    min3_kernel<RB, RB_THREADS, BLOCK64, KT, ROWS, LOOP>(dp, tp, r, n, np);
}

static void launch_v9_loop(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    constexpr int KT = 16;  // k steps a tile, v7's: 2 buffers of 16 x 64 floats an input, 16 KiB
    static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");
    constexpr int MIN_BLOCKS = 5;  // v9's bound
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v9_loop<RB, RB_THREADS, BLOCK64, KT, MIN_BLOCKS>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}

template <bool LOOP>
static void launch_4x8(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    constexpr int KT = 16;  // k steps a tile, v7's: 2 buffers of 16 x 64 floats an input, 16 KiB
    static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");
    constexpr int ROWS = 4;        // rows of results a thread: 4 x 8, blocks of 8 x 16 threads
    constexpr int MIN_BLOCKS = 4;  // at least 4 blocks of 128 an SM: about 128 registers a thread
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v9_4x8<RB, RB_THREADS, BLOCK64, KT, ROWS, MIN_BLOCKS, LOOP>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, BLOCK64 / ROWS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
static void launch_v9_4x8(void *problem) { launch_4x8<false>(problem); }
static void launch_v9_4x8_loop(void *problem) { launch_4x8<true>(problem); }
