// ---- the grid ---------------------------------------------------------------------------------

// Every histogram kernel is persistent: as many blocks as fit on the GPU at once, each walking
// the input with a grid-stride loop. A block's private histogram then serves a large share of
// the input, and its set-up and merge (256 global atomics) are paid once per block, not once
// per few bytes.
constexpr int HIST_THREADS = 256;  // threads a block, in every histogram kernel: 8 warps

// How many blocks of `kernel` fit on one SM at once, from the occupancy API. Asked at a kernel's
// first launch, which is the untimed one that is checked, and remembered, so a timed launch
// only looks it up.
static int resident_blocks(const void *kernel) {
    enum { MAX_KERNELS = 8 };
    static const void *known[MAX_KERNELS];
    static int blocks[MAX_KERNELS];
    int i = 0;
    for (; i < MAX_KERNELS && known[i]; i++)
        if (known[i] == kernel) return blocks[i];
    if (i == MAX_KERNELS) {
        fprintf(stderr, "atomics: more than %d histogram kernels\n", MAX_KERNELS);
        exit(KL_EXIT_GPU);
    }
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks[i], kernel, HIST_THREADS, 0));
    known[i] = kernel;
    return blocks[i];
}

// Blocks for `kernel` when its threads each take `per_thread` bytes per step of the loop: enough
// to cover n, at most what fits on the GPU at once, at least one.
static unsigned hist_blocks(const histogram_problem *p, const void *kernel, size_t per_thread) {
    size_t want = ceil_div(p->n, (size_t)HIST_THREADS * per_thread);
    size_t most = (size_t)p->sms * resident_blocks(kernel);
    return (unsigned)(want < 1 ? 1 : want < most ? want : most);
}
