// ---- v1b padded --------------------------------------------------------------------------------

// v1a tests every row and column it loads against n, and a warp's load of d[i][k] (ty = 0..3)
// touches 4 rows of d: 4 sectors for 16 bytes. Now a preprocessing kernel (pad.cuh) copies d to
// dp, padded with +inf to a multiple of 64, and writes its transpose tp: no load needs a guard,
// and d[i][k] is read as tp[k][i], along a row, so the warp's 4 values are 16 contiguous bytes,
// one sector. The thread's 8 x 8 results and the course's layout are v1a's.
template <int RB, int RB_THREADS, int BLOCK64>
__global__ void shortcut_v1b_padded(const float *__restrict__ dp, const float *__restrict__ tp,
                                    float *__restrict__ r, size_t n, size_t np) {
    int tx = threadIdx.x, ty = threadIdx.y;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
    for (size_t k = 0; k < n; k++) {  // padded rows k >= n would only add +inf
        float a[RB], b[RB];
#pragma unroll
        for (int u = 0; u < RB; u++) a[u] = tp[k * np + i0 + u * RB_THREADS + ty];  // d[i][k]
#pragma unroll
        for (int w = 0; w < RB; w++) b[w] = dp[k * np + j0 + w * RB_THREADS + tx];  // d[k][j]
#pragma unroll
        for (int u = 0; u < RB; u++)
#pragma unroll
            for (int w = 0; w < RB; w++) v[u][w] = fminf(v[u][w], a[u] + b[w]);
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + u * RB_THREADS + ty, j = j0 + w * RB_THREADS + tx;
            if (i < n && j < n) r[i * n + j] = v[u][w];  // the padding is computed, not stored
        }
}

static void launch_v1b(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v1b_padded<RB, RB_THREADS, BLOCK64>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
