// ---- v0 global ----------------------------------------------------------------------------------

// One global atomicAdd per byte. A warp reads 32 neighbouring bytes (one 32-byte sector) and
// sends 32 atomics to L2, where all the updates of a bin are done one after another: 256
// addresses for the whole GPU. On the degenerate input all of them go to one.
__global__ void histogram_v0_global(const uint8_t *__restrict__ data, size_t n,
                                    unsigned *__restrict__ bins) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i]], 1u);
}

static void launch_v0(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));  // every launch counts afresh
    unsigned blocks = hist_blocks(p, (const void *)histogram_v0_global, 1);
    histogram_v0_global<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}
