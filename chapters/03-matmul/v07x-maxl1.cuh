// ---- v1-maxshared and v7-maxl1: the carveout, an experiment -------------------------------------
// On Hopper an SM's L1 cache and its shared memory are one 256 KiB memory, split between the two
// when a kernel starts: the carveout. The driver picks the split from what the kernel needs (its
// shared memory a block, times the blocks that fit an SM), and a kernel may state a preference,
// as a percentage of the largest shared memory an SM offers (228 KiB on Hopper), with the
// function attribute cudaFuncAttributePreferredSharedMemoryCarveout. (cudaFuncSetCacheConfig's
// PreferL1 and PreferShared are the older form of the same hint. A launch attribute of the same
// name exists too; the H200's driver ignored it when we measured, and honoured this one.) Two
// rows ask for the extremes, and change nothing else:
//   v1-maxshared  v1, which has no shared memory and finds its reused rows of B in L1, asks for
//                 all the shared memory (100): L1 keeps what is left
//   v7-maxl1      v7, two blocks of 8 KiB an SM, asks for the largest L1 (0)
// Each sets the preference for its own launch and puts the default back after it, so v1 and v7
// themselves run as the driver chooses. Nsight Compute's launch__shared_mem_config_size shows
// the split the driver chose (ncu.args). In the FP32 build only.
#ifndef MATMUL_FP64
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

static void launch_v7_maxl1(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, MIN_BLOCKS = 2;  // v7's (launch_v7)
    dim3 grid(tiles(p->m, p->n, BM, BN)), block(BM / TM * BN / TN);
    auto go = [&](auto kernel) {
        launch_carveout(kernel, grid, block, cudaSharedmemCarveoutMaxL1, p->a, p->b, p->c, p->m,
                        p->n, p->k);
    };
    bool va = p->k % VEC == 0, vb = p->n % VEC == 0;  // as launch_v7 decides
    if (va && vb) go(matmul_v7_vectorized<BM, BN, BK, TM, TN, MIN_BLOCKS, true, true>);
    else if (va) go(matmul_v7_vectorized<BM, BN, BK, TM, TN, MIN_BLOCKS, true, false>);
    else if (vb) go(matmul_v7_vectorized<BM, BN, BK, TM, TN, MIN_BLOCKS, false, true>);
    else go(matmul_v7_vectorized<BM, BN, BK, TM, TN, MIN_BLOCKS, false, false>);
}
#endif
