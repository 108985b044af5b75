// ---- v6a staged ---------------------------------------------------------------------------------
// v6 meets twice a call, and each meeting is a flag's round trip over NVLink: at small sizes the
// two trips are most of the call. One meeting: each GPU first copies its input into a staging
// buffer of its own, one of two picked by the call's parity, then meets, then loads every GPU's
// staging buffer of that parity and adds. No GPU reads another's input, so none waits at the end;
// the next call's meeting says all that the end meeting said (below). The price: 8n bytes of
// local memory a call (n floats read, n written) before the meeting.

// Why one meeting is enough. Call e of block b (e counted as in v6, meet.cuh) uses parity
// p = e mod 2: block b of every GPU copies its part of the input into its staging buffer p,
// meets block b of every other GPU (flag = e, release at system scope; acquire on the other
// side), then loads that same part of every GPU's staging buffer p.
//  - The meeting proves the data is there: GPU h's block b stored e only after its part of
//    staging buffer p was written and fenced (meet: __syncthreads, __threadfence_system, the
//    release store), and we load it only after our acquire load saw e and __syncthreads.
//  - The next meeting proves nobody still reads it. Block b of GPU g writes its part of staging
//    buffer p again at call e + 2. Before that, at call e + 1, it met block b of every GPU h: it
//    saw GPU h's flag reach e + 1. GPU h's block b stores e + 1 only from its kernel of call
//    e + 1, which its stream starts only after its kernel of call e has ended, with every load of
//    our staging buffer p. And our kernel of call e + 2 starts only after our call e + 1 has
//    ended. So every load of call e happens before any store of call e + 2: two buffers are
//    enough, never a third.
//  - The input: no other GPU reads it, so the caller may change it once our kernel has ended.
//  - Our own part: each thread adds exactly the floats it copied (copy_range and sum_range give
//    float4 j to thread j mod threads, on every GPU, the same grid), so it reads its own stores.
// What the argument assumes: calls are counted block by block, so block b must stage and load
// the same floats at every call, whatever its size. v6a's grid has a thread for every float4,
// the last one counted even when n is not a multiple of 4, up to 32 blocks: so float4 j goes to
// block (j mod 16384) / 512 at every size. The last 0-3 floats follow their float4, n / 4: the
// thread that would own it stages and adds them, here rather than in copy_range's and sum_range's
// tails (which give them to threads 0-2, in block 0 at every size). v6b's grids give float4 j to
// block (j mod 512 B) / 512 for its B blocks, and B grows with n from 32 KiB to 1 MiB: its
// calls keep the argument among calls of the same B (README, "v6a staged").
// Every wait is still v4's: a failed meeting ends the block, and the check reports it.
typedef struct {
    meet_args m;                   // x, out, the meeting's flags, the count, the failure record
    float *stage[2][MAX_GPUS];     // [parity][GPU]: every GPU's two staging buffers, n floats each
} staged_args;

template <int THREADS>
__global__ void __launch_bounds__(THREADS)
allreduce_v6a_staged(const __grid_constant__ staged_args a, int me, int gpus, size_t n) {
    unsigned long long e = begin_call(a.m.count);
    int parity = (int)(e & 1);  // staging buffer p was last read at call e - 2 (above)
    // the whole buffer, shared by every thread of the grid, as in v6
    size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    size_t whole = n / 4 * 4;  // the floats of whole float4s; the last n - whole (0-3) below
    bool tail = thread == n / 4 % threads;  // we own float4 n / 4, the last floats' (above)
    copy_range(a.stage[parity][me], a.m.x[me], whole, thread, threads);  // our input, staged
    if (tail)
        for (size_t k = whole; k < n; k++) a.stage[parity][me][k] = __ldcg(&a.m.x[me][k]);
    // one meeting: every GPU's block b has staged its part of the input
    if (!meet(a.m, me, gpus, MEET_START, e)) return;
    sum_range(a.m.out[me], a.stage[parity], gpus, 0, whole, thread, threads);
    if (tail)
        for (size_t k = whole; k < n; k++) {  // sum_range's order: 0 + GPU 0 + GPU 1 + ...
            float s = 0.0f;
            for (int h = 0; h < gpus; h++) s += __ldcg(&a.stage[parity][h][k]);
            a.m.out[me][k] = s;
        }
}

static void launch_v6a(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    // v6's grid: BLOCKS of THREADS at most, one float4 a thread before that, the last 0-3
    // floats counted as a float4 (their thread must be in the grid: the argument above)
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
