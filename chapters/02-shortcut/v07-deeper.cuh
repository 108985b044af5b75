// ---- v7 deeper ---------------------------------------------------------------------------------

// v6's kernel with 16 steps a tile instead of 8 (only the launcher changes): a barrier, a wait
// and a round of copies every 16 steps instead of every 8, and the copies of one tile have twice
// as long to arrive. The two buffers take 16 KiB a block, and 6 blocks an SM (the registers'
// limit: 132 registers, allocated as 136, leave room for 3 warps a scheduler) need 96 KiB, well
// within the SM's shared memory.

static void launch_v7(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    constexpr int KT = 16;  // twice v6's steps a tile: 2 buffers of 16 x 64 floats an input, 16 KiB
    static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v6_async<RB, RB_THREADS, BLOCK64, KT>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
