// ---- v9 bounded --------------------------------------------------------------------------------

// v8's kernel under __launch_bounds__(64 threads, at least 5 blocks an SM), v2's tool again.
// Without a bound the compiler settles on 133 registers and computes each pair of sums just
// before the VIMNMX3 that takes them, so every VIMNMX3 waits out its FADDs' latency; with it, it
// takes 162, computes the sums well ahead of their mins, and an SM still holds 6 blocks.
//
// v8 leaves about a quarter of the issue slots empty (74% busy at n = 6300), and Nsight Compute
// says why: the most common stall is `wait`, a warp waiting out the fixed latency of an
// instruction it depends on, and 6 blocks of 2 warps an SM are too few to fill those cycles.
template <int RB, int RB_THREADS, int BLOCK64, int KT, int MIN_BLOCKS>
__global__ void __launch_bounds__(RB_THREADS *RB_THREADS, MIN_BLOCKS)
    shortcut_v9_bounded(const float *__restrict__ dp, const float *__restrict__ tp,
                        float *__restrict__ r, size_t n, size_t np) {
    min3_kernel<RB, RB_THREADS, BLOCK64, KT>(dp, tp, r, n, np);
}

static void launch_v9(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    constexpr int KT = 16;  // k steps a tile, v7's: 2 buffers of 16 x 64 floats an input, 16 KiB
    static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");
    // At least 5 blocks an SM (10 warps, 3 a scheduler): registers enough to compute the sums
    // ahead of their mins, and 6 blocks still fit; 1 and 6 were both slower (README).
    constexpr int MIN_BLOCKS = 5;
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v9_bounded<RB, RB_THREADS, BLOCK64, KT, MIN_BLOCKS>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
