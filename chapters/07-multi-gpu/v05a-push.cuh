// ---- v5a push ----------------------------------------------------------------------------------
// v5 moves every byte with loads: a step's block loads the left neighbour's chunk over NVLink.
// A load is a request out and the data back, and the thread must keep the request in flight
// until the data comes: how many bytes a GPU moves is bounded by what its threads hold in flight.
// A store over NVLink goes out and is done for the thread. v5a is v5 with the direction
// turned round: each step stores its result into the right neighbour's memory, and the next step
// there reads it locally. NCCL's ring moves its data this way on Hopper (its P2P transport
// writes into the receiver's buffers unless told to read).
//
// The schedule (push_segment, spans.cuh): at step j GPU me works on segment (me - j) mod G, which
// its left neighbour pushed to it at step j - 1. Reduce-scatter, steps 0 .. G - 2: store our
// input (step 0) or what the left pushed plus our input into the right's acc. Step G - 1: what
// the left pushed plus our input is the whole sum: into our out and the right's. All-gather,
// steps G .. 2G - 3: pass on to the right the finished segment the left stored into our out.
// 2(G - 1) steps as v5; every float of acc and out is still written once a launch, so "ready"
// flags suffice.

typedef struct {
    const float *x;                           // our input
    float *acc, *right_acc;                   // partial sums: ours (the left stores), the right's
    float *out, *right_out;                   // results: ours, the right's
    unsigned long long *flags, *right_flags;  // a word a channel: ours (the left sets it), and
                                              // our right neighbour's (we set it)
    int me, gpus;
    size_t n, chunks;
    unsigned long long base;                  // what every flag held before this launch
    unsigned long long *failure;
} push_args;

// dst[i] = a[i] + b[i], and also into dst2 unless it is NULL: a was stored by another GPU (read at
// the L2), b is ours, dst is the right neighbour's memory. As add_range.
__device__ void add_push(float *__restrict__ dst, float *__restrict__ dst2,
                         const float *__restrict__ a, const float *__restrict__ b, size_t count,
                         size_t thread, size_t threads) {
    constexpr int INFLIGHT = 4;  // as add_range
    const float4 *a4 = (const float4 *)a, *b4 = (const float4 *)b;
    float4 *d4 = (float4 *)dst, *e4 = (float4 *)dst2;
    size_t count4 = count / 4, i = thread;
    for (; i + (INFLIGHT - 1) * threads < count4; i += INFLIGHT * threads) {
        float4 q[INFLIGHT], r[INFLIGHT];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++)  // all issued first
            q[u] = __ldcg(&a4[i + u * threads]), r[u] = b4[i + u * threads];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) {
            float4 s = make_float4(q[u].x + r[u].x, q[u].y + r[u].y, q[u].z + r[u].z,
                                   q[u].w + r[u].w);
            d4[i + u * threads] = s;
            if (dst2) e4[i + u * threads] = s;
        }
    }
    for (; i < count4; i += threads) {
        float4 q = __ldcg(&a4[i]), r = b4[i];
        float4 s = make_float4(q.x + r.x, q.y + r.y, q.z + r.z, q.w + r.w);
        d4[i] = s;
        if (dst2) e4[i] = s;
    }
    for (size_t k = 4 * count4 + thread; k < count; k += threads) {
        float s = __ldcg(&a[k]) + b[k];
        dst[k] = s;
        if (dst2) dst2[k] = s;
    }
}

// Block b is channel b; its flag words count as v5's.
template <int THREADS>
__global__ void __launch_bounds__(THREADS) allreduce_v5a_push(push_args a) {
    int steps = 2 * (a.gpus - 1);
    int left = (a.me + a.gpus - 1) % a.gpus;
    for (size_t c = 0; c < a.chunks; c++) {
        for (int j = 0; j < steps; j++) {
            unsigned long long mark = a.base + c * steps + j;
            // step j reads what the left neighbour stored here at step j - 1 of this chunk
            if (j > 0 && !block_wait(a.flags + blockIdx.x, mark, a.failure, left)) return;
            int seg = push_segment(a.me, a.gpus, j);
            span k = chunk_of(a.n, a.gpus, seg, blockIdx.x, gridDim.x, c, a.chunks);
            if (j == 0) {  // our input, as it is, to the right
                copy_range(a.right_acc + k.lo, a.x + k.lo, k.count, threadIdx.x, blockDim.x);
            } else if (j < a.gpus - 1) {  // the left's partial sum plus our input, to the right
                add_push(a.right_acc + k.lo, NULL, a.acc + k.lo, a.x + k.lo, k.count, threadIdx.x,
                         blockDim.x);
            } else if (j == a.gpus - 1) {  // the whole sum: ours and the right's
                add_push(a.right_out + k.lo, a.out + k.lo, a.acc + k.lo, a.x + k.lo, k.count,
                         threadIdx.x, blockDim.x);
            } else {  // all-gather: the finished segment the left stored in our out, to the right
                copy_range(a.right_out + k.lo, a.out + k.lo, k.count, threadIdx.x, blockDim.x);
            }
            block_signal(a.right_flags + blockIdx.x, mark + 1);
        }
    }
}

static void launch_v5a(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    // CHANNELS blocks of THREADS, 16K threads with 4 16-byte loads in flight each (the push,
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
        int right = (g + 1) % G;
        push_args a = {p->x[g], p->scratch[g], p->scratch[right], p->out[g], p->out[right],
                       p->ring_flags[g], p->ring_flags[right], g, G, p->n, chunks, p->ring_seq,
                       p->failure[g]};
        CHECK(cudaSetDevice(g));
        allreduce_v5a_push<THREADS><<<CHANNELS, THREADS, 0, p->stream[g][0]>>>(a);
        CHECK_LAUNCH();
    }
    p->ring_seq += chunks * 2 * (G - 1);  // every channel's flag ends this launch there
    join_streams(p);
}
