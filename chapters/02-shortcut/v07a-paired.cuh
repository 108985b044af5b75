// ---- v7a paired ---------------------------------------------------------------------------------

// v7 loads step k + 1's operands while it computes step k (v5's pipelining). Now the steps go
// in twos: both steps' operands are loaded, then their 128 pairs are computed, so the loads of
// the second step are in flight while the first step's pairs go. It is what v8 needs: a
// three-way min takes a sum from each of two steps. We expect about v7's speed, and fewer
// registers, since no third set of operands is on its way.
template <int RB, int RB_THREADS, int BLOCK64, int KT>
__global__ void shortcut_v7a_paired(const float *__restrict__ dp, const float *__restrict__ tp,
                                    float *__restrict__ r, size_t n, size_t np) {
    constexpr int VEC = 4;  // floats per float4
    static_assert(KT * BLOCK64 / VEC % (RB_THREADS * RB_THREADS) == 0, "an even share");
    static_assert(KT % 2 == 0, "the steps go in twos");
    __shared__ __align__(16) float as[2][KT][BLOCK64];  // as[buf][k][i - i0] = d[i][k0 + k]
    __shared__ __align__(16) float bs[2][KT][BLOCK64];  // bs[buf][k][j - j0] = d[k0 + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RB_THREADS + tx;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    size_t kp = (n + KT - 1) / KT * KT;  // k runs over whole tiles; rows k >= n hold +inf
    copy_tile_async<RB_THREADS, BLOCK64, KT>(as[0], bs[0], tp + i0, dp + j0, np, t);
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
    int buf = 0;  // the buffer that holds tile k0
    for (size_t k0 = 0; k0 < kp; k0 += KT, buf ^= 1) {
        copy_wait_all();  // this thread's copies landed
        __syncthreads();  // all copies of tile k0 landed; everyone is done with tile k0 - KT
        if (k0 + KT < kp)  // into the buffer that tile k0 - KT used
            copy_tile_async<RB_THREADS, BLOCK64, KT>(as[buf ^ 1], bs[buf ^ 1],
                                                     tp + (k0 + KT) * np + i0,
                                                     dp + (k0 + KT) * np + j0, np, t);
        float a[2][RB], b[2][RB];  // the operands of steps k and k + 1
#pragma unroll
        for (int k = 0; k < KT; k += 2) {
            load8(as[buf][k], ty, a[0]);
            load8(bs[buf][k], tx, b[0]);
            load8(as[buf][k + 1], ty, a[1]);
            load8(bs[buf][k + 1], tx, b[1]);
#pragma unroll
            for (int u = 0; u < RB; u++)
#pragma unroll
                for (int w = 0; w < RB; w++)
                    v[u][w] = fminf(fminf(v[u][w], a[0][u] + b[0][w]), a[1][u] + b[1][w]);
        }
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + own(u, ty), j = j0 + own(w, tx);
            if (i < n && j < n) r[i * n + j] = v[u][w];
        }
}

static void launch_v7a(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    constexpr int KT = 16;  // k steps a tile, v7's: 2 buffers of 16 x 64 floats an input, 16 KiB
    static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v7a_paired<RB, RB_THREADS, BLOCK64, KT>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
