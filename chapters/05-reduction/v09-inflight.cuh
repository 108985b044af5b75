// ---- v9 inflight --------------------------------------------------------------------------------

// A thread of v8 issues a load, waits for it (several hundred cycles from device memory),
// adds, and only then issues the next. Device memory needs megabytes in flight across the GPU
// to run at full speed (bandwidth times latency). Here each thread issues INFLIGHT loads, a
// grid stride apart, before the first add: four times the bytes in flight with the same
// threads. The remainder loop takes the last fewer-than-INFLIGHT strides.
template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, SM_THREADS / BLOCK)
    reduction_v9_inflight(const float *__restrict__ in, float *__restrict__ out, size_t count) {
    constexpr int INFLIGHT = 4;  // 64 bytes a thread, 128 KiB an SM in flight, in 16 registers
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
    if (threadIdx.x == 0) atomicAdd(out, v);
}

static void launch_v9(void *problem) {
    reduction_problem *p = (reduction_problem *)problem;
    CHECK(cudaMemsetAsync(p->out, 0, sizeof(float)));  // the sum starts from zero every launch
    reduction_v9_inflight<THREADS><<<grid_for(p, p->n, 4), THREADS>>>(p->x, p->out, p->n);
    CHECK_LAUNCH();
}
