// ---- c9 bitwise (from c1) -----------------------------------------------------------------------

// atomicAnd, atomicOr and atomicXor: the same reduction at L2 as c1 with a logic function in
// place of the adder (REDG.E.AND, .OR, .XOR). Update i does the one bitwise_op(i) names, so
// the row measures the three in equal parts.
//
// Atomics on one word give a defined end only when their operations commute, and AND and OR on
// the same bit do not (set then clear is not clear then set), so each operation has its own bit
// field (AND_FIELD, OR_FIELD, XOR_FIELD). The XOR field is the one that tells a lost or doubled
// update: it holds the parity of them all.
__global__ void counters_c9_bitwise(unsigned *bits, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        unsigned x = bitwise_operand(i);
        int op = bitwise_op(i);  // the same in all 32 lanes: one branch taken by the warp
        if (op == OP_AND) atomicAnd(&bits[a], x);
        else if (op == OP_OR) atomicOr(&bits[a], x);
        else atomicXor(&bits[a], x);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c9(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_BITS;
    fill_counters(p, BITS_START);
    counters_c9_bitwise<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                 counter_step(p));
    CHECK_LAUNCH();
}
