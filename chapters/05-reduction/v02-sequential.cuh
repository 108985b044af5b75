// ---- v2 sequential ------------------------------------------------------------------------------

// Fold the range in half instead: at step s (blockDim / 2, then half that, ...) thread t < s
// adds element t + s into element t. A warp reads 32 consecutive words and writes 32
// consecutive words, one per bank: no conflicts, and the working threads are still packed.
__global__ void reduction_v2_sequential(const float *__restrict__ in, float *__restrict__ out,
                                        size_t count) {
    __shared__ float s[THREADS];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    s[t] = i < count ? in[i] : 0.0f;
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];  // t and t + s: consecutive across the warp
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

static void launch_v2(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v2_sequential, THREADS);
}
