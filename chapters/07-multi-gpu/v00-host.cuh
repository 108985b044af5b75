// ---- v0 host ------------------------------------------------------------------------------------
// The way one would do it without knowing better: every buffer down to the host over PCIe, a CPU
// loop adds them, the sum goes back up to every GPU. PCIe carries G buffers each way, the host
// waits for the copies before it can add, and one CPU core does every add.
static void launch_v0(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    size_t bytes = p->n * sizeof(float);
    fork_streams(p);
    for (int g = 0; g < p->gpus; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaMemcpyAsync(p->host_in[g], p->x[g], bytes, cudaMemcpyDeviceToHost,
                              p->stream[g][0]));
    }
    // The host must have every buffer before it adds (this also waits for the previous launch's
    // copies up, which read host_sum, on the same streams).
    for (int g = 0; g < p->gpus; g++) CHECK(cudaStreamSynchronize(p->stream[g][0]));
    memcpy(p->host_sum, p->host_in[0], bytes);
    for (int g = 1; g < p->gpus; g++)  // GPU by GPU, in order: the same adds as v1
        for (size_t i = 0; i < p->n; i++) p->host_sum[i] += p->host_in[g][i];
    for (int g = 0; g < p->gpus; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaMemcpyAsync(p->out[g], p->host_sum, bytes, cudaMemcpyHostToDevice,
                              p->stream[g][0]));
    }
    join_streams(p);
}
