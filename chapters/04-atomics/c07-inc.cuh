// ---- c7 inc (from c1) ---------------------------------------------------------------------------

// atomicInc(&count[a], limit) stores old + 1, or 0 when old has reached the limit: a counter
// that goes round 0, 1, ..., limit, 0, ... Its returned value would be the next slot of a ring
// of limit + 1 slots, never past the end. Ignored here, so this is a reduction like c1's
// (REDG.E.INC), with the compare done at L2 too. Every update applies the same function, so
// their order cannot matter: counter a ends at c % (limit + 1).
__global__ void counters_c7_inc(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomicInc(&count[a], INC_LIMIT);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c7(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_WRAP;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c7_inc<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                             counter_step(p));
    CHECK_LAUNCH();
}
