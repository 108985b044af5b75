// ---- v7a rotated -------------------------------------------------------------------------------
// v7's gather visits the other GPUs in the order 0, 1, 2, ... on every GPU: on four GPUs, GPUs
// 1, 2 and 3 first all load from GPU 0 while GPUs 2 and 3 are loaded by none, and GPU 0's links
// carry three streams where each GPU's could carry one; at the end GPU 3 serves three (measured
// with v4 and the experiment v4-rotated, README). v7a
// starts each GPU's gather at the next GPU: GPU g loads g + 1, g + 2, ... (mod G), so each GPU
// is loaded by one other at a time. On two GPUs there is one peer and nothing changes.
// Everything else is v7's.

// Meetings: at the start (inputs ready), in the middle (block b of every GPU has summed its
// slice b, so ours may load it) and at the end (every GPU has loaded our input and our slice).
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
allreduce_v7a_rotated(const __grid_constant__ meet_args a, int me, int gpus, size_t n) {
    unsigned long long e = begin_call(a.count);
    if (!meet(a, me, gpus, MEET_START, e)) return;
    // reduce-scatter: slice b of our shard, shared by the block's threads
    span k = chunk_of(n, gpus, me, blockIdx.x, gridDim.x, 0, 1);
    sum_range(a.out[me], a.x, gpus, k.lo, k.count, threadIdx.x, blockDim.x);
    if (!meet(a, me, gpus, MEET_MIDDLE, e)) return;
    // all-gather: slice b of every other GPU's shard, which block b of that GPU summed
    for (int r = 1; r < gpus; r++) {
        int h = (me + r) % gpus;  // the next GPU first
        span theirs = chunk_of(n, gpus, h, blockIdx.x, gridDim.x, 0, 1);
        copy_range(a.out[me] + theirs.lo, a.out[h] + theirs.lo, theirs.count, threadIdx.x,
                   blockDim.x);
    }
    meet(a, me, gpus, MEET_END, e);
}

static void launch_v7a(void *problem) {
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
        allreduce_v7a_rotated<THREADS><<<blocks, THREADS, 0, p->stream[g][0]>>>(a, g, G, p->n);
        CHECK_LAUNCH();
    }
    join_unless_batched(p);
}
