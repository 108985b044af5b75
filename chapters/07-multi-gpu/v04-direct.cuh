// ---- v4 direct ----------------------------------------------------------------------------------
// v3a's kernels are ordered across GPUs by events that the host records and waits for, chunk by
// chunk. v4 orders them on the GPUs: a barrier kernel between the sum and the gather, with flags
// that one GPU stores into another's memory (nvlink.cuh). Each step runs over the whole shard:
// with the SMs doing the moving there are no copy engines left to overlap with.

// One kernel per step. Step 1, reduce-scatter: GPU g sums x[0..G-1] over shard g, loading
// straight from each GPU. Between the steps GPU g may read GPU h's shard only once GPU h has
// finished it: a one-warp barrier kernel, lane h telling GPU h "we reached this epoch" and
// waiting for GPU h to say the same. Step 2, all-gather: GPU g loads every other shard.
static_assert(MAX_GPUS <= 32 && MAX_GPUS <= FLAG_WORDS, "one lane and one flag word a GPU");

// out[me][lo, lo + count) = x[0] + ... + x[G-1] there, in that order. Each thread issues INFLIGHT
// 16-byte loads from one GPU before adding them, GPU after GPU.
__global__ void allreduce_v4_direct_sum(const __grid_constant__ direct_args a, int me, int gpus,
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

// Lane h < G, h != me: tell GPU h we have reached `epoch` (our sum kernel, before us on our
// stream, is done), then wait until GPU h has told us the same.
__global__ void allreduce_v4_direct_barrier(const __grid_constant__ direct_args a, int me,
                                            int gpus, unsigned long long epoch,
                                            unsigned long long *failure) {
    int h = threadIdx.x;
    if (h >= gpus || h == me) return;
    __threadfence_system();  // our shard's sums are visible to every GPU before the flag is
    system_flag(a.flags[h][me]).store(epoch, cuda::memory_order_release);
    wait_flag(&a.flags[me][h], epoch, failure, h);
}

// out[me] gets every other GPU's finished shard, loaded from that GPU's out.
__global__ void allreduce_v4_direct_gather(const __grid_constant__ direct_args a, int me, int gpus,
                                           size_t n) {
    size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    for (int h = 0; h < gpus; h++) {
        if (h == me) continue;
        span theirs = shard(n, gpus, h);
        copy_range(a.out[me] + theirs.lo, a.out[h] + theirs.lo, theirs.count, thread, threads);
    }
}

static void launch_v4(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    constexpr int THREADS = 256;  // a grid-stride block: eight warps
    int G = p->gpus;
    direct_args a;
    for (int g = 0; g < G; g++)
        a.x[g] = p->x[g], a.out[g] = p->out[g], a.flags[g] = p->barrier_flags[g];
    unsigned long long epoch = ++p->barrier_epoch;
    fork_streams(p);
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        span mine = shard(p->n, G, g);
        allreduce_v4_direct_sum<<<grid_for(p, mine.count / 4 + 1, THREADS), THREADS, 0,
                                  p->stream[g][0]>>>(a, g, G, mine.lo, mine.count);
        CHECK_LAUNCH();
    }
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        allreduce_v4_direct_barrier<<<1, 32, 0, p->stream[g][0]>>>(a, g, G, epoch, p->failure[g]);
        CHECK_LAUNCH();
    }
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        allreduce_v4_direct_gather<<<grid_for(p, p->n / 4 + 1, THREADS), THREADS, 0,
                                     p->stream[g][0]>>>(a, g, G, p->n);
        CHECK_LAUNCH();
    }
    join_streams(p);
}
