// ---- v10 lastblock ------------------------------------------------------------------------------

// v9's loads, with no memset and no float atomics: each block writes its sum to
// partials[block], then counts itself done with an integer atomic. The block that counts last
// knows every sum is written; it adds them in a fixed order, writes the result and resets the
// counter for the next launch. One kernel, and the same order of adds every run: the same bits.
//
// The counter starts at zero when the program loads and every launch leaves it at zero; one
// launch at a time may use it (we launch on one stream).
__device__ unsigned blocks_done;

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, SM_THREADS / BLOCK)
    reduction_v10_lastblock(const float *__restrict__ in, float *__restrict__ partials,
                            float *__restrict__ out, size_t count) {
    constexpr int INFLIGHT = 4;  // 64 bytes a thread, 128 KiB an SM in flight, in 16 registers
    __shared__ bool last;  // is this block the last one done?
    // cudaMalloc returns 256-byte aligned memory, so in (x or partials) is 16-byte aligned
    const float4 *in4 = (const float4 *)in;
    size_t count4 = count / 4;                           // whole float4s
    size_t first = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK;  // the whole grid's threads
    float v = 0.0f;
    size_t i = first;
    for (; i + (INFLIGHT - 1) * stride < count4; i += INFLIGHT * stride) {
        float4 q[INFLIGHT];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) q[u] = in4[i + u * stride];  // all issued first
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) v += (q[u].x + q[u].y) + (q[u].z + q[u].w);
    }
    for (; i < count4; i += stride) {  // what is left, one float4 at a time
        float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (first < count % 4) v += in[4 * count4 + first];  // the last 0-3 floats: threads 0-2
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();  // our sum is visible to every block before we count ourselves done
        last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
        __threadfence();  // in the last block: the reads below come after the count we saw
    }
    __syncthreads();  // every thread knows `last`; warp 0 is done with block_sum's shared sums
    if (!last) return;
    // The last block: every block's sum is written. __ldcg reads them from L2, past L1, which
    // may hold none of them. Thread t adds sums t, t + BLOCK, ...: the same order every run.
    v = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) v += __ldcg(&partials[b]);
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) {
        *out = v;
        blocks_done = 0;  // ready for the next launch
    }
}

static void launch_v10(void *problem) {
    reduction_problem *p = (reduction_problem *)problem;
    reduction_v10_lastblock<THREADS><<<grid_for(p, p->n, 4), THREADS>>>(p->x, p->partials, p->out,
                                                                         p->n);
    CHECK_LAUNCH();
}
