// ---- v1a vectorized -----------------------------------------------------------------------------

// v1's kernel with loads of 16 bytes: each thread reads a uint4, so a warp reads 512 contiguous
// bytes per load instruction instead of 32, and the load units issue 1/16 as many requests.
// count_word (count-word.cuh) counts each of its four words. The bins are still one histogram
// per block. The last n % 16 bytes, which fill no uint4, are counted one per thread by block 0.
__global__ void histogram_v1a_vectorized(const uint8_t *__restrict__ data, size_t n,
                                         unsigned *__restrict__ bins) {
    __shared__ unsigned local[BINS];  // the block's histogram: 1 KiB
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();  // clear before counting
    const uint4 *data16 = (const uint4 *)data;  // cudaMalloc aligns data to 256 bytes
    size_t n16 = n / 16;                         // whole uint4s
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = data16[i];  // 16 bytes; lanes read 32 neighbouring uint4s, 512 bytes
        count_word(local, v.x), count_word(local, v.y);
        count_word(local, v.z), count_word(local, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16)  // the last 0-15 bytes: byte n16 * 16 + t
        atomicAdd(&local[data[n16 * 16 + threadIdx.x]], 1u);
    __syncthreads();  // every byte counted before the merge reads the bins
    merge_bins(local, bins);
}

static void launch_v1a(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v1a_vectorized, 16);
    histogram_v1a_vectorized<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}
