// ---- v1 naive -----------------------------------------------------------------------------------
// The GPUs talk to each other directly: cudaMemcpyPeerAsync moves a buffer from GPU h to GPU g
// with a copy engine, over NVLink where there is one, and never touches the host. Each GPU
// fetches the others' whole buffers one after another into its scratch and adds each into its
// result: out = x[0] + x[1] + ... in that order on every GPU, so every GPU gets the same bits.
// (G - 1) n floats cross into every GPU, and every GPU does every add.
__global__ void allreduce_v1_naive(float *__restrict__ out, const float *__restrict__ term,
                                   size_t count, bool first) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        out[i] = first ? term[i] : out[i] + term[i];  // i: consecutive across the warp
}

static void launch_v1(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    constexpr int THREADS = 256;  // a grid-stride block: eight warps
    size_t bytes = p->n * sizeof(float);
    fork_streams(p);
    for (int g = 0; g < p->gpus; g++) {
        CHECK(cudaSetDevice(g));
        cudaStream_t s = p->stream[g][0];
        for (int h = 0; h < p->gpus; h++) {
            const float *term = p->x[g];  // our own buffer needs no copy
            if (h != g) {
                // stream order: the previous add has read scratch before this copy overwrites it
                CHECK(cudaMemcpyPeerAsync(p->scratch[g], g, p->x[h], h, bytes, s));
                term = p->scratch[g];
            }
            allreduce_v1_naive<<<grid_for(p, p->n, THREADS), THREADS, 0, s>>>(p->out[g], term,
                                                                              p->n, h == 0);
            CHECK_LAUNCH();
        }
    }
    join_streams(p);
}
