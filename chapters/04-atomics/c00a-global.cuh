// ---- c0a global ---------------------------------------------------------------------------------

// c0's plain ++ moved to the global counters, on the grid walk every later counter kernel uses:
// no shared tally, no atomic. The ++ is still load, add one, store, now with a trip to L2 between
// the load and the store, and two threads that load a word before either stores both write
// old + 1. racecheck watches shared memory only and does not see this race; the count does.
__global__ void counters_c0a_global(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        count[a]++;  // the race
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c0a(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c0a_global<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                 counter_step(p));
    CHECK_LAUNCH();
}
