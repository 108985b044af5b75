// ---- v2 warps -----------------------------------------------------------------------------------

// Two changes that go together. Loads: each thread reads 16 bytes at once (a uint4), so a warp
// reads 512 contiguous bytes per instruction instead of 32, and the load units issue 1/16 as
// many requests. Bins: each warp has its own 256, so only the 32 lanes of one warp compete for
// a bin, never two warps. The last n % 16 bytes, which fill no uint4, are counted one per
// thread by block 0. The block's eight sub-histograms are summed at the merge.

// Counts the four bytes of w into the bins h (any byte order: all four are counted).
__device__ __forceinline__ void count_word(unsigned *h, unsigned w) {
    atomicAdd(&h[w & 0xFF], 1u);
    atomicAdd(&h[(w >> 8) & 0xFF], 1u);
    atomicAdd(&h[(w >> 16) & 0xFF], 1u);
    atomicAdd(&h[w >> 24], 1u);
}

__global__ void histogram_v2_warps(const uint8_t *__restrict__ data, size_t n,
                                   unsigned *__restrict__ bins) {
    constexpr int WARPS = HIST_THREADS / 32;  // the block's warps, each with its own histogram
    __shared__ unsigned local[WARPS][BINS];    // one histogram per warp: 8 KiB
    for (int i = threadIdx.x; i < WARPS * BINS; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = local[threadIdx.x / 32];
    const uint4 *data16 = (const uint4 *)data;  // cudaMalloc aligns data to 256 bytes
    size_t n16 = n / 16;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = data16[i];  // 16 bytes; lanes read 32 neighbouring uint4s, 512 bytes
        count_word(mine, v.x), count_word(mine, v.y), count_word(mine, v.z), count_word(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16) atomicAdd(&mine[data[n16 * 16 + threadIdx.x]], 1u);
    __syncthreads();  // every byte counted before the merge
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (int w = 0; w < WARPS; w++) sum += local[w][b];
        if (sum) atomicAdd(&bins[b], sum);
    }
}

static void launch_v2(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v2_warps, 16);
    histogram_v2_warps<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}
