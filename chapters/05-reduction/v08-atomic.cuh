// ---- v8 atomic ----------------------------------------------------------------------------------

// The second pass was a whole kernel launch to add about a thousand numbers. Instead, each block
// adds its sum straight into the result with one atomicAdd: a thousand atomics on one address,
// spread over the kernel's run, are nothing next to the array. The result must start at zero,
// so the launcher clears it first (cudaMemsetAsync), every launch. The order of the atomics
// varies, so the last bits of the result may vary from run to run.
template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, SM_THREADS / BLOCK)
    reduction_v8_atomic(const float *__restrict__ in, float *__restrict__ out, size_t count) {
    // EXERCISE: atomic begin
    // cudaMalloc returns 256-byte aligned memory, so in (x or partials) is 16-byte aligned
    const float4 *in4 = (const float4 *)in;
    size_t count4 = count / 4;                           // whole float4s
    size_t first = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK;  // the whole grid's threads
    float v = 0.0f;
    for (size_t i = first; i < count4; i += stride) {  // i: consecutive float4s across the warp
        float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (first < count % 4) v += in[4 * count4 + first];  // the last 0-3 floats: threads 0-2
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) atomicAdd(out, v);
    // EXERCISE: atomic end
}

static void launch_v8(void *problem) {
    // EXERCISE: atomic begin
    reduction_problem *p = (reduction_problem *)problem;
    CHECK(cudaMemsetAsync(p->out, 0, sizeof(float)));  // the sum starts from zero every launch
    reduction_v8_atomic<THREADS><<<grid_for(p, p->n, 4), THREADS>>>(p->x, p->out, p->n);
    CHECK_LAUNCH();
    // EXERCISE: atomic end
}
