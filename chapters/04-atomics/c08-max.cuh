// ---- c8 max (from c4-int) -----------------------------------------------------------------------

// c4's maximum done by the hardware: atomicMax on the integer keys behind c4's values (its
// value is key / 64, so the orders agree). A reduction at L2 (REDG.E.MAX.S32): every update
// travels there and takes its turn at the word, whether it raises the maximum or not, where
// c4 reads the word and sends a CAS only when its value is larger. The counters start at
// INT_MIN, the integers' -inf.
__global__ void counters_c8_max(int *max, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomicMax(&max[a], update_key(i));
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c8(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_IMAX;
    fill_counters(p, 0x80000000u);  // INT_MIN
    counters_c8_max<<<counter_blocks(p), COUNTER_THREADS>>>((int *)p->count, p->n, p->m,
                                                             counter_step(p));
    CHECK_LAUNCH();
}
