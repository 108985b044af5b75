// ---- v4-rotated (v4 with the peers visited from the next GPU on), an experiment ------------
// v4 on four GPUs: in the gather every GPU loads GPU 0's shard first, then GPU 1's, ... (each
// skipping its own), so at the start GPUs 1, 2 and 3 load from GPU 0 at once while GPUs 2 and 3
// are loaded by none, and GPU 0's links carry three streams where each GPU's links could carry
// one; at the end GPU 3 serves three. On two GPUs there is one peer and
// no order to choose. v4-rotated visits the peers in an order that starts from the next GPU:
// GPU g loads g + 1, g + 2, ... (mod G), so at every moment each GPU is loaded by one other, and
// every GPU's links carry the same share. The sum does the same with the inputs it loads.
//
// Everything else is v4's: its flags (direct_args), its barrier kernel and its grid.

// out[me][lo, lo + count) = x[me + 1] + ... + x[me + G] there (mod G), in that order: each float
// is summed on one GPU only (its shard's), so every GPU still ends with the same bits.
__global__ void allreduce_v4_rotated_sum(const __grid_constant__ direct_args a, int me, int gpus,
                                          size_t lo, size_t count) {
    constexpr int INFLIGHT = 4;  // as copy_range: 16-byte loads a thread issues before the adds
    size_t count4 = count / 4, threads = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float4 *dst = (float4 *)(a.out[me] + lo);
    for (size_t i = first; i < count4; i += INFLIGHT * threads) {
        float4 s[INFLIGHT];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) s[u] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int r = 1; r <= gpus; r++) {
            int h = (me + r) % gpus;  // the next GPU first, ourselves last
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
        for (int r = 1; r <= gpus; r++) s += a.x[(me + r) % gpus][lo + k];
        a.out[me][lo + k] = s;
    }
}

// out[me] gets every other GPU's finished shard, loaded from that GPU's out, the next GPU first.
__global__ void allreduce_v4_rotated_gather(const __grid_constant__ direct_args a, int me,
                                             int gpus, size_t n) {
    size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    for (int r = 1; r < gpus; r++) {
        int h = (me + r) % gpus;  // GPU g loads g + 1, g + 2, ...: each GPU loaded by one at a time
        span theirs = shard(n, gpus, h);
        copy_range(a.out[me] + theirs.lo, a.out[h] + theirs.lo, theirs.count, thread, threads);
    }
}

static void launch_v4_rotated(void *problem) {
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
        allreduce_v4_rotated_sum<<<grid_for(p, mine.count / 4 + 1, THREADS), THREADS, 0,
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
        allreduce_v4_rotated_gather<<<grid_for(p, p->n / 4 + 1, THREADS), THREADS, 0,
                                       p->stream[g][0]>>>(a, g, G, p->n);
        CHECK_LAUNCH();
    }
    join_streams(p);
}
