// ---- fill_counters: every counter set to one 32-bit word (c4 on) --------------------------------

// The counters of c4, c4-int, c8 and c9 start at a word that no byte-wise memset can write:
// -inf (0xFF800000) for c4's float maximum, INT_MIN for c4-int's and c8's integer maximum, and
// c9's BITS_START.
__global__ void fill_kernel(unsigned *x, size_t count, unsigned bits) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = bits;
}

// Sets every counter to `bits`, with at most the counter kernels' grid.
static void fill_counters(const counters_problem *p, unsigned bits) {
    unsigned fill_blocks = (unsigned)(ceil_div(p->m, COUNTER_THREADS) < p->blocks
                                          ? ceil_div(p->m, COUNTER_THREADS) : p->blocks);
    fill_kernel<<<fill_blocks, COUNTER_THREADS>>>(p->count, p->m, bits);
    CHECK_LAUNCH();
}
