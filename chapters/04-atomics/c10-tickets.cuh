// ---- c10 tickets (from c1) ----------------------------------------------------------------------

// c1, keeping what atomicAdd returns: the value the counter held just before this update's
// add. The adds on one counter are done one after another at L2, so a counter that receives
// c updates returns 0, 1, ..., c - 1, each to exactly one of them, in an order nobody chose:
// a ticket.
//
// That is how threads claim slots in a shared array without two taking the same one
// (queue[atomicAdd(&tail, 1)] = item). A returned value must travel back from L2 before the
// thread can use it: ATOMG.E.ADD, where c1 sends a REDG and moves on. And we store every
// ticket, 4 bytes written per update, so that the CPU can check them all.
__global__ void counters_c10_tickets(unsigned *count, unsigned *ticket, size_t n, unsigned m,
                                     unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        ticket[i] = atomicAdd(&count[a], 1u);  // the useful result: nobody else got this value
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c10(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_TICKETS;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c10_tickets<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->returned, p->n,
                                                                  p->m, counter_step(p));
    CHECK_LAUNCH();
}
