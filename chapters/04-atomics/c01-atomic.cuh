// ---- c1 atomic ----------------------------------------------------------------------------------

// atomicAdd makes the load, the add and the store one indivisible operation, done where the
// word lives (the L2 cache for global memory): no other update can come in between, so none is
// lost. The order among threads is still anyone's: only the final sum is defined. Updates to
// one address are done one after another, which is what m = 1 measures.
__global__ void counters_c1_atomic(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomicAdd(&count[a], 1u);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c1(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c1_atomic<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                counter_step(p));
    CHECK_LAUNCH();
}
