// ---- v6a staged ---------------------------------------------------------------------------------
// v6 meets twice a call, and each meeting is a flag's round trip over NVLink: at small sizes the
// two trips are most of the call. One meeting: each GPU first copies its input into a staging
// buffer of its own, one of two picked by the call's parity, then meets, then loads every GPU's
// staging buffer of that parity and adds. No GPU reads another's input, so none waits at the end;
// the next call's meeting says all that the end meeting said. The price: 8n bytes of local memory
// a call (n floats read, n written) before the meeting. (The kernel, which v6b launches too, and
// why one meeting is enough, are in staged-sum.cuh.)
static void launch_v6a(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    // v6's grid: BLOCKS of THREADS at most, one float4 a thread before that, the last 0-3
    // floats counted as a float4 (their thread must be in the grid: staged-sum.cuh's argument)
    constexpr int THREADS = 512;
    constexpr unsigned BLOCKS = 32;
    static_assert(BLOCKS <= MEET_BLOCKS && MAX_GPUS <= THREADS, "a flag a block; a thread a GPU");
    int G = p->gpus;
    size_t want = ((p->n + 3) / 4 + THREADS - 1) / THREADS;  // the same grid on every GPU
    unsigned blocks = want < 1 ? 1 : want < BLOCKS ? (unsigned)want : BLOCKS;
    staged_args a;
    for (int g = 0; g < G; g++) {
        a.m.x[g] = p->x[g], a.m.out[g] = p->out[g], a.m.flags[g] = p->meet_flags[g];
        a.stage[0][g] = p->stage[g][0], a.stage[1][g] = p->stage[g][1];
    }
    fork_unless_batched(p);
    for (int g = 0; g < G; g++) {
        a.m.count = p->meet_count[g], a.m.failure = p->failure[g];
        CHECK(cudaSetDevice(g));
        allreduce_v6a_staged<THREADS><<<blocks, THREADS, 0, p->stream[g][0]>>>(a, g, G, p->n);
        CHECK_LAUNCH();
    }
    join_unless_batched(p);
}
