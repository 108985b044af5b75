// ---- v6b fewblocks ------------------------------------------------------------------------------
// v6a's kernel on fewer blocks. Block b of every GPU meets block b of every other GPU, so each
// block of the grid is one more set of flags over NVLink, one more system-scope fence, and one
// more pair that may come late, and the meeting ends only when the last pair has met. v6 and v6a
// add a block for every 512 float4s (one float4 a thread); sum_range and copy_range keep INFLIGHT
// = 4 float4s a thread in flight, so v6b gives each thread those four before it adds a block:
// one block at 4 KiB and 16 KiB a GPU, two at 64 KiB, eight at 256 KiB (v6a: one, two, eight,
// 32), the same 32 from 1 MiB up. Bytes in flight a GPU are the same on paper; only the meetings
// shrink. No kernel of its own: the step is the grid. That grid hands float4 j (and the last
// 0-3 floats, with float4 n / 4) to block (j mod 512 B) / 512 of its B blocks, and B grows with
// n from 32 KiB to 1 MiB: v6a's argument for its staging holds among v6b's calls of one B, not
// where calls of other B, or of v6a, follow them on a stream with nothing from the host in
// between (they never do here: staged-sum.cuh, README).

static void launch_v6b(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    constexpr int THREADS = 512;
    constexpr unsigned BLOCKS = 32;
    // float4s a thread before the grid grows: sum_range's INFLIGHT, all a thread's loads at once
    constexpr size_t PER_THREAD = 4;
    static_assert(BLOCKS <= MEET_BLOCKS && MAX_GPUS <= THREADS, "a flag a block; a thread a GPU");
    int G = p->gpus;
    size_t want = ((p->n + 3) / 4 + THREADS * PER_THREAD - 1) / (THREADS * PER_THREAD);  // as v6a
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
