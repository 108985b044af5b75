// ---- c4 casmax ----------------------------------------------------------------------------------

// A float maximum, which CUDA does not provide, from the same loop, with one difference that
// matters: a thread whose value is not larger than what the word holds has nothing to write and
// leaves. Once the maximum is large, most updates are one read and no CAS, so contention fades
// as the run goes on.
__device__ float atomic_max_float_cas(float *address, float value) {
    unsigned *bits = (unsigned *)address;
    unsigned old = *bits;
    while (value > __uint_as_float(old)) {  // only a larger value needs a swap
        unsigned seen = old;
        old = atomicCAS(bits, seen, __float_as_uint(value));
        if (old == seen) break;  // ours is in
    }
    return __uint_as_float(old);
}

__global__ void counters_c4_casmax(float *max, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomic_max_float_cas(&max[a], update_value(i));
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c4(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_MAX;
    fill_counters(p, 0xFF800000u);  // -inf: the maximum of nothing (fill-counters.cuh)
    counters_c4_casmax<<<counter_blocks(p), COUNTER_THREADS>>>((float *)p->count, p->n, p->m,
                                                                counter_step(p));
    CHECK_LAUNCH();
}
