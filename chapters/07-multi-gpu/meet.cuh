// ---- blocks of every GPU meet inside one kernel (v6 on) -----------------------------------------
// v4 to v5a wait for other GPUs inside their kernels, but between two calls the host orders them
// (fork_streams and join_streams): the next call cannot begin on any GPU before the last has
// ended on all of them. From v6 on the kernels order themselves. Block b of every GPU meets
// block b of every other GPU at fixed points of the call, and the blocks count the calls
// themselves, so calls that follow each other on a stream (a batch, a CUDA graph) need nothing
// from the host in between, as NCCL's do.
//
// A meeting at point `phase` of call e: thread h < G, h != me, stores e into the flag
// [phase][b][me] in GPU h's memory, then waits until our flag [phase][b][h] holds e or more.
// The order of memory operations is nvlink.cuh's: the block's stores, __syncthreads, a fence at
// system scope, the flag stored with release semantics; the flag loaded with acquire semantics,
// __syncthreads, and only then the block's loads of other GPUs' data, at the L2.
//
// e, the call's number, is one more than block b of this GPU has counted so far (count[b], in
// this GPU's memory, read and written by block b alone; kernels on one stream run in order, so
// the next call's block b finds it). Every GPU launches the same grid for a call, so block b has
// counted the same calls on every GPU, and the flags only grow: none is ever reset, and a flag
// left by an earlier call is always below what a wait asks for. No GPU's block b gets more than
// one call ahead of another's: to end call e it must have met block b of every GPU at e's last
// meeting. A block may meet only its own partners, so a block loads only what the same block of
// the other GPUs wrote (v6a's staging, v7's slices) or what was there before the call began (the
// inputs).

// The meetings of a call, and where a block's flags are: [phase][block][peer], MEET_WORDS words
// a GPU (MEET_BLOCKS and MEET_WORDS are with the chapter's other sizes, in allreduce.cu).
enum { MEET_START, MEET_MIDDLE, MEET_END, MEET_PHASES };
static_assert(MEET_WORDS == MEET_PHASES * MEET_BLOCKS * MAX_GPUS, "a word a phase, block, peer");

typedef struct {
    const float *x[MAX_GPUS];             // every GPU's input
    float *out[MAX_GPUS];                 // every GPU's result
    unsigned long long *flags[MAX_GPUS];  // every GPU's meeting flags: MEET_WORDS each
    unsigned long long *count;            // ours: MEET_BLOCKS words, block b's calls so far
    unsigned long long *failure;          // ours: a wait that timed out says so here (4 words)
} meet_args;

// Block b begins a call: its number e, one more than the block's count, which now holds e.
__device__ unsigned long long begin_call(unsigned long long *count) {
    unsigned long long e = count[blockIdx.x] + 1;
    __syncthreads();  // every thread has read the count before thread 0 changes it
    if (threadIdx.x == 0) count[blockIdx.x] = e;
    return e;
}

// Block b of this GPU meets block b of every other GPU at `phase` of call e. True for every
// thread when all came; false when a wait gave up (the failure record says which).
__device__ bool meet(const meet_args &a, int me, int gpus, int phase, unsigned long long e) {
    __syncthreads();  // every thread's stores before the meeting are issued
    int h = threadIdx.x, ok = 1;
    if (h < gpus && h != me) {
        size_t at = ((size_t)phase * MEET_BLOCKS + blockIdx.x) * MAX_GPUS;  // [phase][b][0]
        __threadfence_system();  // ... and visible to every GPU before the flag is
        system_flag(a.flags[h][at + me]).store(e, cuda::memory_order_release);
        ok = wait_flag(&a.flags[me][at + h], e, a.failure, h);
    }
    return __syncthreads_and(ok);  // a barrier, and every thread learns whether all came
}
