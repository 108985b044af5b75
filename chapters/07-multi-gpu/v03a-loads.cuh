// ---- v3a loads ----------------------------------------------------------------------------------
// v3 with the copies replaced by loads. With peer access enabled (main), a pointer to another
// GPU's memory works in a kernel: a load goes over NVLink and comes back. The sum kernel loads
// each chunk of every GPU's input straight from that GPU (no copy into scratch and no copy-in
// stream), and the all-gather is a kernel that loads the finished chunks: every float crosses
// once, moved by the SMs instead of the copy engines. Chunks, the sum and gather streams and
// the summed-chunk events stay as in v3; the copy-in stream and the arrival events go.

typedef struct {
    const float *x[MAX_GPUS];  // every GPU's input
    float *out[MAX_GPUS];      // every GPU's result
} loads_args;

// out[me][lo, lo + count) = x[0] + ... + x[G-1] there, in that order. Each thread issues INFLIGHT
// 16-byte loads from one GPU before adding them, GPU after GPU.
__global__ void allreduce_v3a_loads_sum(const __grid_constant__ loads_args a, int me, int gpus,
                                        size_t lo, size_t count) {
    constexpr int INFLIGHT = 4;  // as copy_range: 16-byte loads a thread issues before the adds
    size_t count4 = count / 4, threads = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float4 *dst = (float4 *)(a.out[me] + lo);
    for (size_t i = first; i < count4; i += INFLIGHT * threads) {
        float4 s[INFLIGHT];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) s[u] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int h = 0; h < gpus; h++) {
            const float4 *src = (const float4 *)(a.x[h] + lo);
            float4 q[INFLIGHT];
#pragma unroll
            for (int u = 0; u < INFLIGHT; u++)  // all issued before the adds
                q[u] = i + u * threads < count4 ? src[i + u * threads] : make_float4(0, 0, 0, 0);
#pragma unroll
            for (int u = 0; u < INFLIGHT; u++)
                s[u] = make_float4(s[u].x + q[u].x, s[u].y + q[u].y, s[u].z + q[u].z,
                                   s[u].w + q[u].w);
        }
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++)
            if (i + u * threads < count4) dst[i + u * threads] = s[u];
    }
    for (size_t k = 4 * count4 + first; k < count; k += threads) {  // the last 0-3 floats
        float s = 0.0f;
        for (int h = 0; h < gpus; h++) s += a.x[h][lo + k];
        a.out[me][lo + k] = s;
    }
}

// out[me] gets chunk c of every other GPU's finished shard, loaded from that GPU's out (which
// that GPU's sum kernel of chunk c wrote: the events order it before us).
__global__ void allreduce_v3a_loads_gather(const __grid_constant__ loads_args a, int me, int gpus,
                                           size_t n, size_t chunks, size_t c) {
    size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    for (int h = 0; h < gpus; h++) {
        if (h == me) continue;
        span theirs = shard(n, gpus, h), k = part(theirs.lo, theirs.count, chunks, c);
        copy_range(a.out[me] + k.lo, a.out[h] + k.lo, k.count, thread, threads);
    }
}

static void launch_v3a(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    constexpr int THREADS = 256;  // a grid-stride block: eight warps
    // LARGEST_CHUNK and MAX_CHUNKS: as v3, so that the two cut every size into the same chunks.
    constexpr size_t LARGEST_CHUNK = (size_t)1 << 20;
    constexpr size_t MAX_CHUNKS = 16;  // leaves about 1/16 of the loads outside the overlap
    static_assert(2 * MAX_CHUNKS <= EVENTS, "v3a uses v3's events");
    int G = p->gpus;
    // The same number of chunks in every shard, so chunk c names the same floats everywhere
    size_t chunks = (shard(p->n, G, G - 1).count + LARGEST_CHUNK - 1) / LARGEST_CHUNK;
    chunks = chunks < 1 ? 1 : chunks > MAX_CHUNKS ? MAX_CHUNKS : chunks;
    loads_args a;
    for (int g = 0; g < G; g++) a.x[g] = p->x[g], a.out[g] = p->out[g];
    fork_streams(p);
    for (int g = 0; g < G; g++) {  // reduce-scatter, chunk by chunk
        CHECK(cudaSetDevice(g));
        cudaStream_t sum = p->stream[g][0];
        span mine = shard(p->n, G, g);
        for (size_t c = 0; c < chunks; c++) {
            span k = part(mine.lo, mine.count, chunks, c);
            allreduce_v3a_loads_sum<<<grid_for(p, k.count / 4 + 1, THREADS), THREADS, 0, sum>>>(
                a, g, G, k.lo, k.count);
            CHECK_LAUNCH();
            CHECK(cudaEventRecord(p->ev[g][MAX_CHUNKS + c], sum));  // chunk c is summed
        }
    }
    for (int g = 0; g < G; g++) {  // all-gather, chunk by chunk, as each is summed
        CHECK(cudaSetDevice(g));
        cudaStream_t outs = p->stream[g][2];
        for (size_t c = 0; c < chunks; c++) {
            for (int h = 0; h < G; h++)
                if (h != g) CHECK(cudaStreamWaitEvent(outs, p->ev[h][MAX_CHUNKS + c], 0));
            allreduce_v3a_loads_gather<<<grid_for(p, p->n / chunks / 4 + 1, THREADS), THREADS, 0,
                                         outs>>>(a, g, G, p->n, chunks, c);
            CHECK_LAUNCH();
        }
    }
    join_streams(p);
}
