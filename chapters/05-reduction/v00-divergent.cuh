// ---- v0 divergent -------------------------------------------------------------------------------

// The starting point: one element a thread. The block loads THREADS elements into shared memory
// and sums them as a tree: at step s (1, 2, 4, ...) thread t adds element t + s into element t
// when t % 2s == 0. Blocks write their sums; the launcher repeats the kernel on the sums until
// one is left (run_passes, in passes.cuh).
//
// The working threads are spread out: at s = 1 every other lane of each warp works, at s = 16
// one lane in 32, yet the whole warp issues every instruction. And % of a run-time value is a
// long integer division.
__global__ void reduction_v0_divergent(const float *__restrict__ in, float *__restrict__ out,
                                       size_t count) {
    __shared__ float s[THREADS];  // one float per thread
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;  // i in [0, count), consecutive across the warp
    s[t] = i < count ? in[i] : 0.0f;                 // past the end: 0 changes no sum
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0) s[t] += s[t + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

static void launch_v0(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v0_divergent, THREADS);
}
