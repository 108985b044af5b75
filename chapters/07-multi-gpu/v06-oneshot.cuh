// ---- v6 oneshot (from v5) -----------------------------------------------------------------------
// For a small buffer the fixed costs of a call are all of its time: v5's 2(G - 1) steps of flags,
// and between calls the host ordering them across GPUs. One shot: one kernel a GPU, whose blocks
// meet the other GPUs' blocks (meet.cuh) and then load every GPU's whole input over NVLink and
// add it: one step and two meetings, no host work between calls. The price is traffic: each GPU
// loads (G - 1) n floats, where v2 on load 2(G - 1)/G n: the same on two GPUs, G/2 times as
// many on G.

// Meetings: at the start (every GPU has reached this call, so its input is ready) and at the end
// (every GPU has loaded our input, so the caller may change it once our kernel has ended).
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
allreduce_v6_oneshot(const __grid_constant__ meet_args a, int me, int gpus, size_t n) {
    unsigned long long e = begin_call(a.count);
    if (!meet(a, me, gpus, MEET_START, e)) return;
    // the whole buffer, shared by every thread of the grid
    size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    sum_range(a.out[me], a.x, gpus, 0, n, thread, threads);
    meet(a, me, gpus, MEET_END, e);
}

static void launch_v6(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    // BLOCKS of THREADS at most, one float4 a thread before that (4 KiB: one block): blocks
    // that meet cost a flag each, and a small buffer needs few threads. At the most, 16K threads
    // with 4 loads in flight each, as v5 (about 1 MiB in flight a GPU).
    constexpr int THREADS = 512;
    constexpr unsigned BLOCKS = 32;
    static_assert(BLOCKS <= MEET_BLOCKS && MAX_GPUS <= THREADS, "a flag a block; a thread a GPU");
    int G = p->gpus;
    size_t want = (p->n / 4 + THREADS - 1) / THREADS;  // the same grid on every GPU
    unsigned blocks = want < 1 ? 1 : want < BLOCKS ? (unsigned)want : BLOCKS;
    meet_args a;
    for (int g = 0; g < G; g++)
        a.x[g] = p->x[g], a.out[g] = p->out[g], a.flags[g] = p->meet_flags[g];
    fork_unless_batched(p);
    for (int g = 0; g < G; g++) {
        a.count = p->meet_count[g], a.failure = p->failure[g];
        CHECK(cudaSetDevice(g));
        allreduce_v6_oneshot<THREADS><<<blocks, THREADS, 0, p->stream[g][0]>>>(a, g, G, p->n);
        CHECK_LAUNCH();
    }
    join_unless_batched(p);
}
