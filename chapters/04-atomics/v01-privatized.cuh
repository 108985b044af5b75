// ---- v1 privatized ------------------------------------------------------------------------------

// Each block counts into its own 256 bins in shared memory, where an atomic is done in the SM
// a few cycles away instead of in L2, and only the block's 256 threads compete for a bin
// instead of the whole GPU. At the end the block adds its bins to the global ones: 256 global
// atomics per block in place of one per byte (merge_bins, merge-bins.cuh).
__global__ void histogram_v1_privatized(const uint8_t *__restrict__ data, size_t n,
                                        unsigned *__restrict__ bins) {
    // EXERCISE: privatized begin
    __shared__ unsigned local[BINS];  // the block's histogram: 1 KiB
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();  // clear before counting
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();  // every byte counted before the merge reads the bins
    merge_bins(local, bins);
    // EXERCISE: privatized end
}

static void launch_v1(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v1_privatized, 1);
    histogram_v1_privatized<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}
