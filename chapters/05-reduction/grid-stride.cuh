// ---- a grid that fills the GPU once, and two passes over it (v6 on) -----------------------------

// The threads an SM holds at once, for the architecture being compiled. A kernel's
// __launch_bounds__(BLOCK, SM_THREADS / BLOCK) makes the compiler keep it within the registers
// for that many blocks an SM, so it needs the number at compile time, for each architecture:
// 2048 threads an SM on compute capability 8.0, 9.0 and 10.0, 1536 on 8.6, 8.9 and 12.0 (the
// consumer GPUs), 1024 on 7.5. The grid is sized from the GPU itself (main).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int SM_THREADS = 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
constexpr int SM_THREADS = 1536;
#else
constexpr int SM_THREADS = 2048;
#endif

// Blocks for a grid-stride pass over `count` items of `per_thread` floats each: the grid
// that fills the GPU, or fewer when the array is small, and at least one.
static unsigned grid_for(const reduction_problem *p, size_t count, size_t per_thread) {
    size_t blocks = ceil_div(count, per_thread * THREADS);
    if (blocks > p->grid) blocks = p->grid;
    return blocks > 0 ? (unsigned)blocks : 1;
}

// Two grid-stride passes: the block sums into partials, then one block sums those into out.
static void run_two_passes(reduction_problem *p, pass_kernel kernel, size_t per_thread) {
    unsigned blocks = grid_for(p, p->n, per_thread);
    if (blocks == 1) {
        kernel<<<1, THREADS>>>(p->x, p->out, p->n);
        CHECK_LAUNCH();
        return;
    }
    kernel<<<blocks, THREADS>>>(p->x, p->partials, p->n);
    CHECK_LAUNCH();
    kernel<<<1, THREADS>>>(p->partials, p->out, blocks);
    CHECK_LAUNCH();
}
