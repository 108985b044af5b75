// ---- pairs of tiles in clusters of two blocks, B multicast (v11 on) -----------------------------

// v9's bands for pairs of tiles: 8 rows of pairs are v9's 16 rows of tiles (2048 rows of A), so
// the 66 clusters at work read about as many bands of A and of B as v9's 132 blocks do.
struct grouped_pairs_order {
    __device__ static tile_origin at(size_t pair, size_t m, size_t n, int pair_m, int tile_n) {
        constexpr int GROUP = 8;  // rows of pairs in a band
        size_t rows = (m + pair_m - 1) / pair_m, cols = (n + tile_n - 1) / tile_n;
        size_t band = pair / (GROUP * cols), first = band * GROUP;  // the band's first row
        size_t high = rows - first < GROUP ? rows - first : GROUP;   // the last may be lower
        size_t q = pair - band * GROUP * cols;                        // the place in the band
        return {(first + q % high) * pair_m, q / high * tile_n};
    }
};

#ifdef KL_SM90A
// Thread 0 of block `rank` fills stage `slot` with k step `step`: its own tile of A (rows r0 ..)
// and part `rank` of the pair's tile of B (its rows / CLUSTER rows from c0 + rank rows / CLUSTER),
// which the multicast writes into the same place in every block of the cluster. The full barrier
// counts all of A and B: the other parts of B come from the other blocks' producers. Either
// program's ring will do (BF16's stage_ring, FP8's fp8_ring): a row of a tile is 128 bytes in
// both, 64 values of k in BF16, 128 in FP8, and the sizes follow from the ring's arrays.
template <int CLUSTER, class Ring>
__device__ inline void load_stage_multicast(Ring &s, int slot, const CUtensorMap *map_a,
                                            const CUtensorMap *map_b, int step, size_t r0,
                                            size_t c0, unsigned rank) {
    constexpr int ROW = 128;                              // bytes: a row of a tile of A or B
    constexpr int K = ROW / sizeof(s.a[0][0]);            // values of k a stage
    constexpr int PART = sizeof(s.b[0]) / ROW / CLUSTER;  // rows of B that each block copies for all
    mbar_arrive_expect(&s.full[slot], sizeof(s.a[0]) + sizeof(s.b[0]));
    tma_load(s.a[slot], map_a, step * K, (int)r0, &s.full[slot]);
    tma_load_multicast(s.b[slot] + rank * PART * K, map_b, step * K, (int)(c0 + rank * PART),
                       &s.full[slot], (1u << CLUSTER) - 1);
}

// A consumer warp is done with a stage: one arrival on the stage's empty barrier in every block
// of the cluster, since every block's producer writes into this block's stage.
template <int CLUSTER>
__device__ inline void release_stage_cluster(uint64_t *empty) {
    __syncwarp();
    if (threadIdx.x % 32 == 0)
        for (unsigned r = 0; r < CLUSTER; r++) mbar_arrive_cluster(empty, r);
}
#endif

// The launch of `kernel` in clusters of CLUSTER blocks along x (blocks CLUSTER c .. CLUSTER c +
// CLUSTER - 1 are cluster c; __cluster_dims__ would not compile for the sm_80 build this file
// also makes), 3 warpgroups and `smem` bytes a block.
template <int CLUSTER>
static cudaLaunchConfig_t cluster_config(size_t smem, cudaLaunchAttribute *cluster) {
    cluster->id = cudaLaunchAttributeClusterDimension;
    cluster->val.clusterDim.x = CLUSTER;
    cluster->val.clusterDim.y = cluster->val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(3 * WG);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = cluster, cfg.numAttrs = 1;
    return cfg;
}

// The clusters the GPU holds at once (cudaOccupancyMaxActiveClusters), with a line if they
// leave SMs without a block.
template <int CLUSTER, class Kernel>
static int cluster_capacity(Kernel kernel, size_t smem, int sms) {
    cudaLaunchAttribute cluster = {};
    cudaLaunchConfig_t cfg = cluster_config<CLUSTER>(smem, &cluster);
    allow_smem(kernel, smem);
    cfg.gridDim = dim3(sms / CLUSTER * CLUSTER);  // a grid of whole clusters, a block an SM
    int clusters = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
    if (clusters < 1) {
        fprintf(stderr, "the GPU runs no cluster of %d blocks of this kernel\n", CLUSTER);
        exit(KL_EXIT_GPU);
    }
    if (CLUSTER * clusters < sms)  // SMs left without a block: say so, it costs time
        fprintf(stderr, "clusters of %d blocks: %d at once, on %d of the %d SMs\n", CLUSTER,
                clusters, CLUSTER * clusters, sms);
    return clusters;
}

// Launches `kernel` in `wanted` clusters (v11, v12: one for each pair of tiles), up to the
// clusters the GPU holds at once. `clusters` is the launcher's own: 0 until the first launch
// asks the GPU.
template <int CLUSTER, class Kernel, class... Args>
static void launch_clusters(Kernel kernel, size_t smem, unsigned wanted, int sms, int &clusters,
                            Args... args) {
    if (!clusters) clusters = cluster_capacity<CLUSTER>(kernel, smem, sms);
    cudaLaunchAttribute cluster = {};
    cudaLaunchConfig_t cfg = cluster_config<CLUSTER>(smem, &cluster);
    cfg.gridDim = dim3(CLUSTER * min(wanted, (unsigned)clusters));
    CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
}
