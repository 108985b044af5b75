// ---- the one-shot over staging buffers, one meeting a call (v6a on) -----------------------------
// v6a's kernel, which v6b launches on other grids: each GPU stages its input into one of two
// buffers by the call's parity, meets once, then loads every GPU's staging buffer of that parity
// and adds (v06a-staged.cuh says why; its launcher and v6b's set the grid).
//
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
