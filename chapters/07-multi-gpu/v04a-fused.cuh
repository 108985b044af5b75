// ---- v4a fused ----------------------------------------------------------------------------------
// v4 runs three kernels a GPU, and between the sum and the gather every GPU waits, in a kernel
// of its own, for the last block of every other GPU. One kernel instead: block b sums slice b of
// our shard, meets block b of every other GPU (a flag a block and a peer, not a GPU), and loads
// slice b of every other GPU's shard, which block b of that GPU summed: no launch between the
// steps, and a block waits only for its own partners.

// Block b's step 1, reduce-scatter: slice b of shard g, summed from every GPU's input. Between
// the steps block b of GPU g may read slice b of GPU h's shard only once block b of GPU h has
// finished it: thread h tells block b of GPU h "we reached this epoch" and waits for it to say
// the same. Step 2, all-gather: block b loads slice b of every other shard. The flags are v4's
// (direct_args), word b * MAX_GPUS + h of GPU g's set by block b of GPU h.
//
// out[me][slice b of shard me] = x[0] + ... + x[G-1] there, in that order. Each thread issues
// INFLIGHT 16-byte loads from one GPU before adding them, GPU after GPU. Every block of every GPU
// must be on its GPU at once (block b waits for block b of the others): few blocks, one a channel.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
allreduce_v4a_fused(const __grid_constant__ direct_args a, int me, int gpus, size_t n,
                    unsigned long long epoch, unsigned long long *failure) {
    constexpr int INFLIGHT = 4;  // as copy_range: 16-byte loads a thread issues before the adds
    span mine = chunk_of(n, gpus, me, blockIdx.x, gridDim.x, 0, 1);  // slice b of our shard
    size_t lo = mine.lo, count = mine.count;
    size_t count4 = count / 4;
    unsigned threads = blockDim.x, first = threadIdx.x;  // the block shares the slice (32-bit
                                                         // indices: no spill on sm_80)
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

    // Thread h < G, h != me: tell block b of GPU h we have reached `epoch` (our slice is
    // summed), then wait until it has told us the same.
    __syncthreads();  // every thread's sums are issued before the flags go out
    int ok = 1;
    size_t at = (size_t)blockIdx.x * MAX_GPUS;  // block b's flag words: [b][0 .. MAX_GPUS)
    if (int h = threadIdx.x; h < gpus && h != me) {  // h: this thread's peer, here only
        __threadfence_system();  // our slice's sums are visible to every GPU before the flag is
        system_flag(a.flags[h][at + me]).store(epoch, cuda::memory_order_release);
        ok = wait_flag(&a.flags[me][at + h], epoch, failure, h);
    }
    if (!__syncthreads_and(ok)) return;  // every thread waits for the flags, or all give up

    // out[me] gets slice b of every other GPU's finished shard, loaded from that GPU's out.
    for (int h = 0; h < gpus; h++) {
        if (h == me) continue;
        span theirs = chunk_of(n, gpus, h, blockIdx.x, gridDim.x, 0, 1);
        copy_range(a.out[me] + theirs.lo, a.out[h] + theirs.lo, theirs.count, threadIdx.x,
                   blockDim.x);
    }
}

static void launch_v4a(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    // CHANNELS blocks of THREADS, 16K threads with 4 16-byte loads in flight each: about 1 MiB in
    // flight a GPU. Few enough blocks that every block of every GPU runs at once, as the
    // meetings of block b with block b need.
    constexpr int CHANNELS = 32;
    constexpr int THREADS = 512;
    static_assert(CHANNELS * MAX_GPUS <= FLAG_WORDS && MAX_GPUS <= THREADS,
                  "a flag word a channel and a peer; a thread a peer");
    int G = p->gpus;
    direct_args a;
    for (int g = 0; g < G; g++)
        a.x[g] = p->x[g], a.out[g] = p->out[g], a.flags[g] = p->barrier_flags[g];
    unsigned long long epoch = ++p->barrier_epoch;  // v4's count: both only ever raise a flag
    fork_streams(p);
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        allreduce_v4a_fused<THREADS><<<CHANNELS, THREADS, 0, p->stream[g][0]>>>(a, g, G, p->n,
                                                                                epoch,
                                                                                p->failure[g]);
        CHECK_LAUNCH();
    }
    join_streams(p);
}
