// ---- v1 strided ---------------------------------------------------------------------------------

// The same tree, with the work handed to the first threads: at step s thread t adds element
// 2st + s into element 2st. The working threads now fill whole warps (no divergence until
// fewer than 32 remain), and there is no %. But a warp's 32 addresses are 2s words apart: at
// s = 1 they hit the even banks twice each, at s = 4 four banks eight times each, and shared
// memory serves one word per bank per cycle.
__global__ void reduction_v1_strided(const float *__restrict__ in, float *__restrict__ out,
                                     size_t count) {
    __shared__ float s[THREADS];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    s[t] = i < count ? in[i] : 0.0f;
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned k = 2 * stride * t;  // k in [0, blockDim.x): 2s words apart across the warp
        if (k < blockDim.x) s[k] += s[k + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

static void launch_v1(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v1_strided, THREADS);
}
