// ---- v1d unrolled ------------------------------------------------------------------------------

// v1c's loop holds one step: each step's four loads are issued just before its 64 pairs, which
// then wait for them. Unrolled 4 times, the loop shows the compiler four steps at once, so it
// can issue the next steps' loads before this step's arithmetic, and a load has some 400
// instructions to arrive instead of 130 (if the compiler finds the registers to hold them).
template <int RB, int RB_THREADS, int BLOCK64, int UNROLL>
__global__ void shortcut_v1d_unrolled(const float *__restrict__ dp, const float *__restrict__ tp,
                                      float *__restrict__ r, size_t n, size_t np) {
    int tx = threadIdx.x, ty = threadIdx.y;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
#pragma unroll UNROLL
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

static void launch_v1d(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    // Steps unrolled in the k loop: with 4 steps in view the compiler can issue the next steps'
    // loads before this step's arithmetic, so a load has some 400 instructions to arrive, not 130.
    constexpr int UNROLL = 4;
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v1d_unrolled<RB, RB_THREADS, BLOCK64, UNROLL>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
