// ---- v2 regblock -------------------------------------------------------------------------------

// Each thread keeps 8 x 8 results in registers: per step k it needs 8 values d[i][k] and 8
// values d[k][j] and does 64 add+min pairs with them, 4 pairs per value loaded instead of v1's
// 1/2. A block of 8 x 8 threads covers 64 x 64 results, on inputs padded to a multiple of 64 so
// that no thread needs a guard (pad.cuh).
//
// d[i][k] is read from the transpose tp, along a row. Thread (tx, ty) owns 4 consecutive rows
// twice, 32 apart (i0 + 4ty + {0..3} and i0 + 32 + 4ty + {0..3}), and the same for the columns
// with tx, so its 8 + 8 values are four aligned float4s: 4 LDG.128 a step instead of 16 LDG.32.
// For one load the warp's 32 threads (tx 0..7, ty 0..3) touch 8 consecutive float4s of a row of
// dp (128 bytes, one line) or 4 float4s of a row of tp.

// __launch_bounds__(64 threads, at least 1 block an SM) frees the compiler's register budget:
// without it the compiler holds the kernel to fewer registers, too few to keep the unrolled
// steps' loads in flight; with it, the kernel takes 152 and an SM still holds 6 blocks (each of
// the 4 schedulers has 16384 registers, and 3 warps of 32 x 152 = 4864 fit in them).
template <int RB, int RB_THREADS, int BLOCK64, int V2_UNROLL>
__global__ void __launch_bounds__(RB_THREADS *RB_THREADS, 1)
    shortcut_v2_regblock(const float *__restrict__ dp, const float *__restrict__ tp,
                         float *__restrict__ r, size_t n, size_t np) {
    // EXERCISE: regblock begin
    int tx = threadIdx.x, ty = threadIdx.y;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
#pragma unroll V2_UNROLL
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
    // EXERCISE: regblock end
}

static void launch_v2(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    // Steps unrolled in the k loop: with 4 steps in view the compiler issues the next steps'
    // loads before this step's arithmetic, so a load has some 400 instructions to arrive, not 130.
    constexpr int V2_UNROLL = 4;
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v2_regblock<RB, RB_THREADS, BLOCK64, V2_UNROLL>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
