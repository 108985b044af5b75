// ---- v16 dispatch -------------------------------------------------------------------------------
// No one version wins at every shape (the README's sweep shows where each does), so a library
// keeps several kernels and picks one by shape, and v16 does the same with v12 to v15. It
// estimates each one's time from the shape and the GPU alone, in units of one k step of a
// v14 block that shares its SM with two others:
//  - blocks run in rounds, as many at once as fit the SMs (v12's tile 1 an SM, v14's 3);
//  - a block's k step costs 1 when its SM is full, and less when fewer share it, in proportion
//    (a v14 block alone: 1/3), but never less than DISPATCH_ALONE hundredths (a floor that
//    the FP32 build never reaches; it binds for the FP64 build's small tile, four an SM); a k
//    step of v12's tile, four times the work with the whole SM, costs DISPATCH_BIG hundredths;
//  - a round costs DISPATCH_ROUND steps more (starting the pipeline, storing the tile), spread
//    over the blocks sharing an SM, which hide each other's;
//  - a cut tile costs what adding its planes takes: DISPATCH_CUT hundredths of a step for
//    each 8192 partial sums (v14's tile) of each plane.
// The four numbers were fitted to the H200's sweep (see the README). v16 prints the estimates
// once and runs the version with the smallest.
constexpr int DISPATCH_BIG = 120;
constexpr int DISPATCH_ALONE = 30;
constexpr int DISPATCH_ROUND = 2;
constexpr int DISPATCH_CUT = 50;

typedef struct {
    double steps[4];  // v12, v13, v14, v15
    size_t split;     // v15's s
    int pick;         // 12 .. 15
} dispatch_choice;

// `blocks` blocks of `steps` k steps each at `step` apiece, at most per_sm an SM at once.
static double rounds_time(double blocks, double per_sm, double steps, double step, double sms) {
    double t = 0.0;
    while (blocks > 0) {
        double now = fmin(blocks, per_sm * sms), sharing = fmin(per_sm, ceil(now / sms));
        t += steps * step * fmax(DISPATCH_ALONE / 100.0, sharing / per_sm) + DISPATCH_ROUND / sharing;
        blocks -= now;
    }
    return t;
}

static dispatch_choice dispatch_estimate(const matmul_problem *p) {
    typedef tallwarp_shape big_t;
    typedef smalltile_shape small_t;
    int device = 0, sm_count = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    double sms = sm_count, big_cost = DISPATCH_BIG / 100.0, cut = DISPATCH_CUT / 100.0 / 8192;
    unsigned big = tiles(p->m, p->n, big_t::bm, big_t::bn);
    unsigned small = tiles(p->m, p->n, small_t::bm, small_t::bn);
    unsigned big_wave = pieces_wave<big_t>(), small_wave = pieces_wave<small_t>();
    double big_per_sm = big_wave / sms, small_per_sm = small_wave / sms;
    size_t k_tiles = ceil_div(p->k, big_t::bk);
    double k_steps = (double)k_tiles;
    dispatch_choice d;
    // v12: whole tiles in rounds.
    d.steps[0] = rounds_time(big, big_per_sm, k_steps, big_cost, sms);
    // v13: the full rounds as v12, then the last tiles' steps cut into runs shared by all the
    // blocks of a round, if v13's own rule cuts them.
    size_t last = big % big_wave;
    d.steps[1] = d.steps[0];
    if (streamk_cuts(big_wave, last, k_tiles)) {
        double runs = (double)streamk_runs(big_wave, last);
        double planes = ceil(runs / (double)last);
        d.steps[1] = rounds_time(big - last, big_per_sm, k_steps, big_cost, sms) +
                     ceil((double)last * k_steps / runs) * big_cost + DISPATCH_ROUND +
                     planes * big_t::bm * big_t::bn * cut;
    }
    // v14: whole small tiles in rounds; v15: s runs of each.
    d.steps[2] = rounds_time(small, small_per_sm, k_steps, 1.0, sms);
    d.split = split_factor(small, small_wave, k_tiles);
    d.steps[3] = d.steps[2];
    if (d.split > 1)
        d.steps[3] = rounds_time((double)small * d.split, small_per_sm,
                                 ceil(k_steps / (double)d.split), 1.0, sms) +
                     (double)d.split * small_t::bm * small_t::bn * cut;
    int best = 0;
    for (int i = 1; i < 4; i++)
        if (d.steps[i] < d.steps[best]) best = i;
    d.pick = 12 + best;
    return d;
}

// v16's choice for problem p, estimated and printed once.
static int dispatch_pick(matmul_problem *p) {
    if (p->dispatch == 0) {
        dispatch_choice d = dispatch_estimate(p);
        printf("    v16: estimated time in k steps: v12 %.1f, v13 %.1f, v14 %.1f, v15 %.1f "
               "(s = %zu): runs v%d\n", d.steps[0], d.steps[1], d.steps[2], d.steps[3], d.split,
               d.pick);
        p->dispatch = d.pick;
    }
    return p->dispatch;
}

static void launch_v16(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    switch (dispatch_pick(p)) {
    case 12: launch_v12(p); break;
    case 13: launch_v13(p); break;
    case 14: launch_v14(p); break;
    default: launch_v15(p); break;
    }
    p->picked = p->dispatch;
}
