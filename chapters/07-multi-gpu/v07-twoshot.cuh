// ---- v7 twoshot (from v6) -----------------------------------------------------------------------
// v6 on more than two GPUs loads G/2 times the bytes that reduce-scatter + all-gather need. Two
// shots: v4's algorithm in one kernel. Block b sums slice b of our shard from every GPU's input,
// meets, then loads slice b of every other GPU's shard from its result: one meeting more than
// v6, each GPU loads 2(G - 1)/G n floats and does 1/G of the adds.

// Meetings: at the start (inputs ready), in the middle (block b of every GPU has summed its
// slice b, so ours may load it) and at the end (every GPU has loaded our input and our slice).
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
allreduce_v7_twoshot(const __grid_constant__ meet_args a, int me, int gpus, size_t n) {
    unsigned long long e = begin_call(a.count);
    if (!meet(a, me, gpus, MEET_START, e)) return;
    // reduce-scatter: slice b of our shard, shared by the block's threads
    span k = chunk_of(n, gpus, me, blockIdx.x, gridDim.x, 0, 1);
    sum_range(a.out[me], a.x, gpus, k.lo, k.count, threadIdx.x, blockDim.x);
    if (!meet(a, me, gpus, MEET_MIDDLE, e)) return;
    // all-gather: slice b of every other GPU's shard, which block b of that GPU summed
    for (int h = 0; h < gpus; h++) {
        if (h == me) continue;
        span theirs = chunk_of(n, gpus, h, blockIdx.x, gridDim.x, 0, 1);
        copy_range(a.out[me] + theirs.lo, a.out[h] + theirs.lo, theirs.count, threadIdx.x,
                   blockDim.x);
    }
    meet(a, me, gpus, MEET_END, e);
}

static void launch_v7(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    // BLOCKS of THREADS at most, one float4 of our shard a thread before that: as v6.
    constexpr int THREADS = 512;
    constexpr unsigned BLOCKS = 32;
    static_assert(BLOCKS <= MEET_BLOCKS && MAX_GPUS <= THREADS, "a flag a block; a thread a GPU");
    int G = p->gpus;
    size_t want = (p->n / 4 / G + THREADS - 1) / THREADS;  // the same grid on every GPU
    unsigned blocks = want < 1 ? 1 : want < BLOCKS ? (unsigned)want : BLOCKS;
    meet_args a;
    for (int g = 0; g < G; g++)
        a.x[g] = p->x[g], a.out[g] = p->out[g], a.flags[g] = p->meet_flags[g];
    fork_unless_batched(p);
    for (int g = 0; g < G; g++) {
        a.count = p->meet_count[g], a.failure = p->failure[g];
        CHECK(cudaSetDevice(g));
        allreduce_v7_twoshot<THREADS><<<blocks, THREADS, 0, p->stream[g][0]>>>(a, g, G, p->n);
        CHECK_LAUNCH();
    }
    join_unless_batched(p);
}
