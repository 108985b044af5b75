// ---- v7 shuffle ---------------------------------------------------------------------------------

// v6a's kernel with the tree moved into registers: block_sum (in block-sum.cuh) sums each warp
// with five shuffles, no shared memory and no barrier. Shared memory holds only the eight warp
// sums, and one __syncthreads() remains of v6a's three (at 256 threads), and no __syncwarp().
template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, SM_THREADS / BLOCK)
    reduction_v7_shuffle(const float *__restrict__ in, float *__restrict__ out, size_t count) {
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
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

static void launch_v7(void *problem) {
    run_two_passes((reduction_problem *)problem, reduction_v7_shuffle<THREADS>, 4);
}
