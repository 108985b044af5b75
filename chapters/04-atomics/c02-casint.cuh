// ---- c2 casint ----------------------------------------------------------------------------------

// atomicAdd built from the one primitive every GPU atomic can be made of: atomicCAS(addr,
// expected, desired) stores desired only if the word still holds expected, and returns what it
// held. We read, compute old + 1, and ask for the swap. If another thread changed the word in
// between, the swap fails, returns the newer value, and we retry from it.
//
// With many threads on one word nearly every attempt fails, so the work per update grows with
// the contention, and each attempt is a round trip to L2 that returns a value (atomicAdd need
// not return one).
__device__ unsigned atomic_add_cas(unsigned *address, unsigned value) {
    // EXERCISE: casint begin
    unsigned old = *address;  // a guess at the current value; the CAS tells us if it is stale
    unsigned seen;
    do {
        seen = old;
        old = atomicCAS(address, seen, seen + value);
    } while (old != seen);  // somebody else got in first: try again from what they left
    return old;
    // EXERCISE: casint end
}

__global__ void counters_c2_casint(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomic_add_cas(&count[a], 1u);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c2(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c2_casint<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                counter_step(p));
    CHECK_LAUNCH();
}
