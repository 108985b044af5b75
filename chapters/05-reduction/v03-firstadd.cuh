// ---- v3 firstadd --------------------------------------------------------------------------------

// Half the threads of v2 sit idle from the first step on. Here each thread loads two elements,
// blockDim apart (each load still 128 contiguous bytes per warp), and adds them before the
// tree: a block covers 2 x THREADS elements, so half as many blocks run the same tree.
__global__ void reduction_v3_firstadd(const float *__restrict__ in, float *__restrict__ out,
                                      size_t count) {
    __shared__ float s[THREADS];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + t;  // and i + blockDim.x
    float v = i < count ? in[i] : 0.0f;
    if (i + blockDim.x < count) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

static void launch_v3(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v3_firstadd, 2 * THREADS);
}
