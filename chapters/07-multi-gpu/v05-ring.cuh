// ---- v5 ring ------------------------------------------------------------------------------------
// v4a's block b waits for block b of every other GPU, and loads from all of them at once: fine
// where a switch joins every pair, impossible where each GPU has links to two neighbours. A ring
// needs only the neighbours. Each block, a channel as in v4a, runs a ring of its own, chunk by
// chunk: a step waits only for the left neighbour's flag, so the steps of different chunks
// overlap along the ring and no GPU waits for every other GPU.

// Cut every buffer into G segments; in 2(G - 1) steps each GPU adds its input into the segment
// its left neighbour passes on (reduce-scatter, ring_segment) and then passes the finished
// segments around (all-gather). Each block is a channel, a ring of its own over one slice of
// every segment, and the slice is cut into chunks. Step j of chunk c waits only for the left
// neighbour's flag saying it has done step j - 1 of chunk c, so the steps of different chunks
// overlap along the ring (a pipeline) and no GPU waits for a whole step of every other GPU.
// The partial sums go to scratch (acc), the finished ones to out: every float is written once a
// launch, so no neighbour can overwrite what the other still reads, and only "ready" flags are
// needed. NCCL's ring has small buffers it reuses, and flags going both ways (README).

typedef struct {
    const float *x, *left_x;                  // our input, our left neighbour's
    float *acc, *left_acc;                    // partial sums: ours, the left's
    float *out, *left_out;                    // results: ours, the left's
    unsigned long long *flags, *right_flags;  // a word a channel: ours (the left sets it), and
                                              // our right neighbour's (we set it)
    int me, gpus;
    size_t n, chunks;
    unsigned long long base;                  // what every flag held before this launch
    unsigned long long *failure;
} ring_args;

// Block b is channel b. Our flag word b counts the (chunk, step) pairs that our left neighbour's
// channel b has finished this launch, on top of `base`: mark + 1 says "step j of chunk c done".
template <int THREADS>
__global__ void __launch_bounds__(THREADS) allreduce_v5_ring(ring_args a) {
    // EXERCISE: ring begin
    int steps = 2 * (a.gpus - 1);
    int left = (a.me + a.gpus - 1) % a.gpus;
    for (size_t c = 0; c < a.chunks; c++) {
        for (int j = 0; j < steps; j++) {
            unsigned long long mark = a.base + c * steps + j;
            // step j reads what the left neighbour wrote at step j - 1 of this chunk
            if (j > 0 && !block_wait(a.flags + blockIdx.x, mark, a.failure, left)) return;
            int seg = ring_segment(a.me, a.gpus, j);
            span k = chunk_of(a.n, a.gpus, seg, blockIdx.x, gridDim.x, c, a.chunks);
            if (j < a.gpus - 1) {  // reduce-scatter: the left's partial sum plus our input
                const float *from = j == 0 ? a.left_x : a.left_acc;
                float *to = j == a.gpus - 2 ? a.out : a.acc;  // the last add makes the full sum
                add_range(to + k.lo, from + k.lo, a.x + k.lo, k.count, threadIdx.x, blockDim.x);
            } else {  // all-gather: the left's finished segment
                copy_range(a.out + k.lo, a.left_out + k.lo, k.count, threadIdx.x, blockDim.x);
            }
            block_signal(a.right_flags + blockIdx.x, mark + 1);
        }
    }
    // EXERCISE: ring end
}

static void launch_v5(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    // CHANNELS blocks of THREADS, 16K threads with 4 16-byte loads in flight each (add_range,
    // copy_range): about 1 MiB in flight a GPU, enough for hundreds of GB/s over links of a
    // microsecond or two. Few enough blocks that every channel of every GPU runs at once, as the
    // ring needs.
    constexpr int CHANNELS = 32;
    constexpr int THREADS = 512;
    // CHUNK: 256 Ki floats (1 MiB) a chunk of a channel: a step's flag costs a fence and a few
    // trips over NVLink, far less than moving the chunk.
    constexpr size_t CHUNK = (size_t)1 << 18;
    static_assert(CHANNELS <= FLAG_WORDS, "one flag word a channel");
    int G = p->gpus;
    size_t chunks = ring_chunks(p->n, G, CHANNELS, CHUNK);
    fork_streams(p);
    for (int g = 0; g < G; g++) {
        int left = (g + G - 1) % G, right = (g + 1) % G;
        ring_args a = {p->x[g], p->x[left], p->scratch[g], p->scratch[left], p->out[g],
                       p->out[left], p->ring_flags[g], p->ring_flags[right], g, G, p->n, chunks,
                       p->ring_seq, p->failure[g]};
        CHECK(cudaSetDevice(g));
        allreduce_v5_ring<THREADS><<<CHANNELS, THREADS, 0, p->stream[g][0]>>>(a);
        CHECK_LAUNCH();
    }
    p->ring_seq += chunks * 2 * (G - 1);  // every channel's flag ends this launch there
    join_streams(p);
}
