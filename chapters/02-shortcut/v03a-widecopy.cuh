// ---- v3a widecopy ------------------------------------------------------------------------------

// v3 moves each tile with 4-byte loads: 2 x 8 LDG.32 and 2 x 8 STS.32 a thread a tile. Now each
// thread moves 16 bytes at a time (tile_spot: a warp's float4s are two whole tile rows), 2 LDG.128
// and 2 STS.128 a tile an input: a quarter of the instructions for the same bytes. (np and the
// block origins are multiples of 64: every float4 is aligned.) The steps read the tile as in v3.
template <int RB, int RB_THREADS, int BLOCK64, int KT>
__global__ void shortcut_v3a_widecopy(const float *__restrict__ dp, const float *__restrict__ tp,
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
#pragma unroll
        for (int k = 0; k < KT; k++) {
            float a[RB], b[RB];
#pragma unroll
            for (int u = 0; u < RB; u++) a[u] = as[k][u * RB_THREADS + ty];
#pragma unroll
            for (int w = 0; w < RB; w++) b[w] = bs[k][w * RB_THREADS + tx];
#pragma unroll
            for (int u = 0; u < RB; u++)
#pragma unroll
                for (int w = 0; w < RB; w++) v[u][w] = fminf(v[u][w], a[u] + b[w]);
        }
        __syncthreads();  // everyone is done with the tile before the next one overwrites it
    }
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) {
            size_t i = i0 + u * RB_THREADS + ty, j = j0 + w * RB_THREADS + tx;
            if (i < n && j < n) r[i * n + j] = v[u][w];
        }
}

static void launch_v3a(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    constexpr int KT = 8;  // k steps a tile: 8 x 64 floats of each input, 4 KiB a block
    static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v3a_widecopy<RB, RB_THREADS, BLOCK64, KT>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
