// ---- c6 sub (from c1) ---------------------------------------------------------------------------

// c1 with the sign turned: atomicSub(&count[a], 1). The hardware has no subtracting atomic; the
// compiler negates the operand and emits the same reduction as c1 (REDG.E.ADD of -1), so it is
// the same operation at L2. The counters count down from 0 and wrap around: counter a ends at
// 2^32 - c (modulo 2^32), where c is its count.
__global__ void counters_c6_sub(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomicSub(&count[a], 1u);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c6(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_DOWN;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c6_sub<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                             counter_step(p));
    CHECK_LAUNCH();
}
