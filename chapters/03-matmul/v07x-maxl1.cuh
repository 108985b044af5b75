// ---- v7-maxl1 carveout-0: v7 asking for the largest L1, an experiment ---------------------------
// v1-maxshared's experiment (v01x-maxshared.cuh, which explains the carveout and holds
// launch_carveout) the other way: v7, two blocks of 8 KiB an SM, asks for the largest L1 (0), and
// changes nothing else. The preference is set for this launch and the default put back after it,
// so v7 itself runs as the driver chooses. In the FP32 build only.
#ifndef MATMUL_FP64
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
