// ---- v1-maxshared carveout-100: v1 asking for all the shared memory, an experiment --------------
// On Hopper an SM's L1 cache and its shared memory are one 256 KiB memory, split between the two
// when a kernel starts: the carveout. The driver picks the split from what the kernel needs (its
// shared memory a block, times the blocks that fit an SM), and a kernel may state a preference,
// as a percentage of the largest shared memory an SM offers (228 KiB on Hopper), with the
// function attribute cudaFuncAttributePreferredSharedMemoryCarveout. (cudaFuncSetCacheConfig's
// PreferL1 and PreferShared are the older form of the same hint. A launch attribute of the same
// name exists too; the H200's driver ignored it when we measured, and honoured this one.)
// v1-maxshared asks for the extreme that should hurt v1, and changes nothing else: v1 has no
// shared memory and finds its reused rows of B in L1, and asks for all the shared memory (100),
// so that L1 keeps what is left. (v7-maxl1 asks v7 for the other extreme.) The preference is set
// for this launch and the default put back after it, so v1 itself runs as the driver chooses.
// Nsight Compute's launch__shared_mem_config_size shows the split the driver chose (ncu.args).
// In the FP32 build only.
#ifndef MATMUL_FP64
// Launches kernel with the carveout preference `percent`, then puts the default back.
template <typename... Params, typename... Args>
static void launch_carveout(void (*kernel)(Params...), dim3 grid, dim3 block, int percent,
                            Args... args) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
    kernel<<<grid, block>>>(args...);
    CHECK_LAUNCH();
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutDefault));
}

static void launch_v1_maxshared(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int BLOCK_X = 32, BLOCK_Y = 8;  // v1's block (launch_v1)
    launch_carveout(matmul_v1_coalesced<BLOCK_X, BLOCK_Y>, tiles(p->m, p->n, BLOCK_Y, BLOCK_X),
                    dim3(BLOCK_X, BLOCK_Y), cudaSharedmemCarveoutMaxShared, p->a, p->b, p->c,
                    p->m, p->n, p->k);
}

#endif
