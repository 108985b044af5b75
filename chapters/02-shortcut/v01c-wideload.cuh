// ---- v1c wideload ------------------------------------------------------------------------------

// v1b loads its 8 + 8 values a step one float at a time: 16 LDG.32. Now thread (tx, ty) owns 4
// consecutive rows twice, 32 apart (i0 + 4ty + {0..3} and i0 + 32 + 4ty + {0..3}), and the
// same for the columns with tx, so its 8 + 8 values are four aligned float4s (block64.cuh:
// load8, own): 4 LDG.128 a step instead of 16 LDG.32, for the same bytes. For one load the
// warp's 32 threads (tx 0..7, ty 0..3) touch 8 consecutive float4s of a row of dp (128 bytes,
// one line) or 4 float4s of a row of tp.
template <int RB, int RB_THREADS, int BLOCK64>
__global__ void shortcut_v1c_wideload(const float *__restrict__ dp, const float *__restrict__ tp,
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
        load8(&tp[k * np + i0], ty, a);  // d[i][k]
        load8(&dp[k * np + j0], tx, b);  // d[k][j]
#pragma unroll
        for (int u = 0; u < RB; u++)
#pragma unroll
            for (int w = 0; w < RB; w++) v[u][w] = fminf(v[u][w], a[u] + b[w]);
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + own(u, ty), j = j0 + own(w, tx);
            if (i < n && j < n) r[i * n + j] = v[u][w];  // the padding is computed, not stored
        }
}

static void launch_v1c(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v1c_wideload<RB, RB_THREADS, BLOCK64>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
