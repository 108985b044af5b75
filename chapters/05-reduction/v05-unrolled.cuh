// ---- v5 unrolled --------------------------------------------------------------------------------

// v4's kernel with the block size as a template parameter. The compiler now knows every
// stride, unrolls the tree completely, compares t with constants, and drops the loop counter
// and its branch. The launcher picks the instance for THREADS.
template <unsigned BLOCK>
__global__ void reduction_v5_unrolled(const float *__restrict__ in, float *__restrict__ out,
                                      size_t count) {
    static_assert(BLOCK >= 64 && (BLOCK & (BLOCK - 1)) == 0, "a power of two, two warps or more");
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * BLOCK) + t;
    float v = i < count ? in[i] : 0.0f;
    if (i + BLOCK < count) v += in[i + BLOCK];
    s[t] = v;
    __syncthreads();  // the block's elements are all in s before anyone adds
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

static void launch_v5(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v5_unrolled<THREADS>, 2 * THREADS);
}
