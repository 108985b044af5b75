// ---- v6a vectorized -----------------------------------------------------------------------------

// v6's kernel with loads of 16 bytes: each thread reads a float4, so a warp reads 512 contiguous
// bytes per load instruction instead of 128, a quarter of the load instructions and four times
// the bytes each one brings. The tree is still v6's, in shared memory. The last count % 4
// floats, which fill no float4, are added by threads 0-2 of block 0.
template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, SM_THREADS / BLOCK)
    reduction_v6a_vectorized(const float *__restrict__ in, float *__restrict__ out, size_t count) {
    static_assert(BLOCK >= 64 && (BLOCK & (BLOCK - 1)) == 0, "a power of two, two warps or more");
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
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
    s[t] = v;
    __syncthreads();  // every thread's sum is in s before anyone adds
#pragma unroll
    for (unsigned stride = BLOCK / 2; stride > 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t < 32) {  // warp 0: s[0, 64) holds the block's last 64 sums
        v = s[t];
#pragma unroll
        for (unsigned stride = 32; stride > 0; stride /= 2) {
            v += s[t + stride];
            __syncwarp();  // every lane has read s[t + stride] before any lane overwrites it
            s[t] = v;
            __syncwarp();  // and has written its sum before the next step reads it
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}

static void launch_v6a(void *problem) {
    run_two_passes((reduction_problem *)problem, reduction_v6a_vectorized<THREADS>, 4);
}
