// ---- v6 coarsened -------------------------------------------------------------------------------

// Until now the tree ran once for every 2 x THREADS elements, and there were as many blocks as
// that. Now the grid is just big enough to fill every SM once (grid_for, in grid-stride.cuh), and
// each thread walks the whole array with the grid's stride, adding into a register: one load and
// one add per element, and the tree once per block at the end. A warp still reads 128
// contiguous bytes per step. Two passes: the block sums, then one block over them. A grid that
// fills every SM once counts on every block being resident: __launch_bounds__ holds the kernel
// to the registers of SM_THREADS / BLOCK blocks an SM (grid-stride.cuh).
template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, SM_THREADS / BLOCK)
    reduction_v6_coarsened(const float *__restrict__ in, float *__restrict__ out, size_t count) {
    static_assert(BLOCK >= 64 && (BLOCK & (BLOCK - 1)) == 0, "a power of two, two warps or more");
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK;  // the whole grid's threads
    float v = 0.0f;
    for (size_t i = (size_t)blockIdx.x * BLOCK + t; i < count; i += stride) v += in[i];
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

static void launch_v6(void *problem) {
    run_two_passes((reduction_problem *)problem, reduction_v6_coarsened<THREADS>, 1);
}
