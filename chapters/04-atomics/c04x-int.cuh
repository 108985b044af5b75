// ---- c4-int (c4's loop on c8's integer keys: what c8's integers change) -------------------------

// c8 makes two changes to c4: the hardware's atomicMax in place of the compare-and-swap loop, and
// integer keys in place of float values. The first needs the second: CUDA's atomicMax takes
// integers only. This row makes the second alone: c4's loop on update_key(i), whose order is
// update_value(i)'s. A CAS compares bits either way, so c4 -> c4-int should cost nothing, and
// c4-int -> c8 (make diff CH=04-atomics A=c4-int B=c8) is the hardware's maximum alone.
__device__ int atomic_max_int_cas(int *address, int value) {
    int old = *address;
    while (value > old) {  // only a larger value needs a swap
        int seen = old;
        old = atomicCAS(address, seen, value);
        if (old == seen) break;  // ours is in
    }
    return old;
}

__global__ void counters_c4_int(int *max, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomic_max_int_cas(&max[a], update_key(i));
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c4_int(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_IMAX;
    fill_counters(p, 0x80000000u);  // INT_MIN
    counters_c4_int<<<counter_blocks(p), COUNTER_THREADS>>>((int *)p->count, p->n, p->m,
                                                             counter_step(p));
    CHECK_LAUNCH();
}
