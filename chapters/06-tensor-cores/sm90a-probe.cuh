// ---- does this build hold sm_90a code for the GPU? ---------------------------------------------
// A kernel compiled for sm_90a says so. Both programs (this one and the FP8 program, in
// fp8-program.cuh) ask once, before they run a version that needs Hopper's wgmma, TMA or clusters.
__global__ void tc_probe_sm90a(int *yes) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    *yes = 1;
#else
    *yes = 0;
#endif
}

static bool probe_sm90a(void) {
    int *d = (int *)gpu_alloc(sizeof(int), "the probe");
    int yes = 0;
    tc_probe_sm90a<<<1, 1>>>(d);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&yes, d, sizeof yes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    return yes == 1;
}
