// ---- v4 lastwarp --------------------------------------------------------------------------------

// Once 64 sums are left, only warp 0 works. Its 32 threads finish the last six steps alone:
// no __syncthreads() for the whole block and no `t < stride` test, only __syncwarp(), which
// keeps the warp's reads of a step before its writes (threads of a warp need not run in
// lockstep since Volta, so we may not assume it). The upper lanes add sums nobody uses:
// cheaper than telling them apart.
__global__ void reduction_v4_lastwarp(const float *__restrict__ in, float *__restrict__ out,
                                      size_t count) {
    __shared__ float s[THREADS];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + t;
    float v = i < count ? in[i] : 0.0f;
    if (i + blockDim.x < count) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t < 32) {  // warp 0: s[0, 64) holds the block's last 64 sums
        v = s[t];
        for (unsigned stride = 32; stride > 0; stride /= 2) {
            v += s[t + stride];
            __syncwarp();  // every lane has read s[t + stride] before any lane overwrites it
            s[t] = v;
            __syncwarp();  // and has written its sum before the next step reads it
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}

static void launch_v4(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v4_lastwarp, 2 * THREADS);
}
