// ---- v2 warps -----------------------------------------------------------------------------------

// v1a's kernel with one histogram per warp: each warp has its own 256 bins, so only the 32
// lanes of one warp compete for a bin, never two warps. The block's eight sub-histograms are
// summed at the merge.
__global__ void histogram_v2_warps(const uint8_t *__restrict__ data, size_t n,
                                   unsigned *__restrict__ bins) {
    constexpr int WARPS = HIST_THREADS / 32;  // the block's warps, each with its own histogram
    __shared__ unsigned local[WARPS][BINS];    // one histogram per warp: 8 KiB
    for (int i = threadIdx.x; i < WARPS * BINS; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = local[threadIdx.x / 32];
    const uint4 *data16 = (const uint4 *)data;  // cudaMalloc aligns data to 256 bytes
    size_t n16 = n / 16;                         // whole uint4s
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = data16[i];  // 16 bytes; lanes read 32 neighbouring uint4s, 512 bytes
        count_word(mine, v.x), count_word(mine, v.y);
        count_word(mine, v.z), count_word(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16)  // the last 0-15 bytes: byte n16 * 16 + t
        atomicAdd(&mine[data[n16 * 16 + threadIdx.x]], 1u);
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
