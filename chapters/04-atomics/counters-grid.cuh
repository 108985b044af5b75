// ---- the grid ---------------------------------------------------------------------------------

// Every counter kernel but c0 walks the updates with a grid-stride loop: thread g does updates
// g, g + stride, g + 2 stride... Consecutive lanes take consecutive updates, so with m >= 32 a
// warp touches 32 neighbouring counters, and with m = 1 all 32 lanes hit the same word.
// a = i % m is stepped by stride % m rather than divided: a 64-bit division costs dozens of
// instructions, as many as the update itself.
constexpr int COUNTER_THREADS = 256;  // threads a block, in every counter kernel: 8 warps

// The grid of every grid-stride counter kernel: enough blocks to fill the GPU, no more.
static unsigned counter_blocks(const counters_problem *p) {
    size_t want = ceil_div(p->n, COUNTER_THREADS);
    return (unsigned)(want < p->blocks ? want : p->blocks);
}

// stride % m for that grid: how far the counter index moves between a thread's updates.
static unsigned counter_step(const counters_problem *p) {
    return (unsigned)(((size_t)counter_blocks(p) * COUNTER_THREADS) % p->m);
}
