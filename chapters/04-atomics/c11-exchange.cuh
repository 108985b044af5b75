// ---- c11 exchange ------------------------------------------------------------------------------

// atomicExch(&count[a], i + 1) writes this update's own value and returns the one it replaced.
// Exchanges do not commute, so the word's end only says who came last; what they return says
// the whole order. The first exchange on a counter gets its initial 0, each later one gets the
// value of the one just before it, and the last value written stays: one chain, which the CPU
// walks (chain_check_cpu).
//
// There is no exchange that returns nothing (PTX's red has add, inc, dec, min, max, and, or,
// xor), so the hardware always sends the old value back: ATOMG.E.EXCH.
__global__ void counters_c11_exchange(unsigned *word, unsigned *replaced, size_t n, unsigned m,
                                      unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        replaced[i] = atomicExch(&word[a], (unsigned)i + 1);  // i + 1 <= 2^31 - 1: never 0
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c11(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_CHAIN;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c11_exchange<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->returned, p->n,
                                                                   p->m, counter_step(p));
    CHECK_LAUNCH();
}
