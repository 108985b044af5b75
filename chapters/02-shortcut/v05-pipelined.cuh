// ---- v5 pipelined -----------------------------------------------------------------------------

// In v4 each step's first addition waits for that step's shared loads, some 30 cycles, and 3
// warps a scheduler (2 a block, 6 blocks an SM) cannot always cover it. Now each thread reads the
// operands of step k + 1 into a second set of registers before it computes step k, so the loads
// have a whole step (128 instructions) to arrive. The compiler reuses the sums' temporaries for
// them: the kernel needs only one register more than v4.
template <int RB, int RB_THREADS, int BLOCK64, int KT>
__global__ void shortcut_v5_pipelined(const float *__restrict__ dp, const float *__restrict__ tp,
                                      float *__restrict__ r, size_t n, size_t np) {
    constexpr int VEC = 4;  // floats per float4
    // float4s each thread loads of a KT x 64 tile of one input: 8 x 64 / 4 / 64 = 2
    constexpr int LOADS_F4 = KT * BLOCK64 / VEC / (RB_THREADS * RB_THREADS);
    static_assert(KT * BLOCK64 / VEC % (RB_THREADS * RB_THREADS) == 0, "an even share");
    __shared__ __align__(16) float as[KT][BLOCK64];  // as[k][i - i0] = d[i][k0 + k]
    __shared__ __align__(16) float bs[KT][BLOCK64];  // bs[k][j - j0] = d[k0 + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RB_THREADS + tx;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    size_t kp = (n + KT - 1) / KT * KT;  // k runs over whole tiles; rows k >= n hold +inf
    float4 pa[LOADS_F4], pb[LOADS_F4];
#pragma unroll
    for (int q = 0; q < LOADS_F4; q++) {
        tile_spot at = spot<RB_THREADS, BLOCK64>(t, q);
        size_t at_k = at.row * np + at.col;  // row k = at.row of tp and dp
        pa[q] = *reinterpret_cast<const float4 *>(&tp[at_k + i0]);
        pb[q] = *reinterpret_cast<const float4 *>(&dp[at_k + j0]);
    }
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
    for (size_t k0 = 0; k0 < kp; k0 += KT) {
#pragma unroll
        for (int q = 0; q < LOADS_F4; q++) {
            tile_spot at = spot<RB_THREADS, BLOCK64>(t, q);
            *reinterpret_cast<float4 *>(&as[at.row][at.col]) = pa[q];
            *reinterpret_cast<float4 *>(&bs[at.row][at.col]) = pb[q];
        }
        __syncthreads();  // the tile is in shared memory before anyone reads it
        if (k0 + KT < kp) {  // the next tile's loads, in flight during the steps below
#pragma unroll
            for (int q = 0; q < LOADS_F4; q++) {
                tile_spot at = spot<RB_THREADS, BLOCK64>(t, q);
                size_t at_k = (k0 + KT + at.row) * np + at.col;  // in the next tile
                pa[q] = *reinterpret_cast<const float4 *>(&tp[at_k + i0]);
                pb[q] = *reinterpret_cast<const float4 *>(&dp[at_k + j0]);
            }
        }
        float a[2][RB], b[2][RB];  // step k's operands in [k % 2], step k + 1's in the other
        load8(as[0], ty, a[0]);
        load8(bs[0], tx, b[0]);
#pragma unroll
        for (int k = 0; k < KT; k++) {
            if (k + 1 < KT) {  // on their way while step k computes
                load8(as[k + 1], ty, a[(k + 1) % 2]);
                load8(bs[k + 1], tx, b[(k + 1) % 2]);
            }
#pragma unroll
            for (int u = 0; u < RB; u++)
#pragma unroll
                for (int w = 0; w < RB; w++)
                    v[u][w] = fminf(v[u][w], a[k % 2][u] + b[k % 2][w]);
        }
        __syncthreads();  // everyone is done with the tile before the next one overwrites it
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + own(u, ty), j = j0 + own(w, tx);
            if (i < n && j < n) r[i * n + j] = v[u][w];
        }
}

static void launch_v5(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    constexpr int KT = 8;  // k steps a tile: 8 x 64 floats of each input, 4 KiB a block
    static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v5_pipelined<RB, RB_THREADS, BLOCK64, KT>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
