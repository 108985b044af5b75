// ---- c3 casfloat --------------------------------------------------------------------------------

// The same loop for a float: CAS compares bits, so we carry the float's bits in an unsigned and
// do the addition as a float. Any operation can be made atomic this way (this is how a double
// atomicAdd was written before GPUs had one); the cost under contention is the same as c2's.
__device__ float atomic_add_float_cas(float *address, float value) {
    unsigned *bits = (unsigned *)address;
    unsigned old = *bits, seen;
    do {
        seen = old;
        old = atomicCAS(bits, seen, __float_as_uint(__uint_as_float(seen) + value));
    } while (old != seen);
    return __uint_as_float(old);
}

__global__ void counters_c3_casfloat(float *sum, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomic_add_float_cas(&sum[a], 1.0f);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c3(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_SUM;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));  // all-zero bits are 0.0f
    counters_c3_casfloat<<<counter_blocks(p), COUNTER_THREADS>>>((float *)p->count, p->n, p->m,
                                                                  counter_step(p));
    CHECK_LAUNCH();
}
