// ---- v3 shared (from v1b) ----------------------------------------------------------------------

// The block's 64 threads share every value they load: in v1b each d[k][j] went through L1 to the
// 8 threads that use it, one load instruction each. Now the block copies KT rows of tp and dp
// (its 64 columns) into shared memory once, and every thread reads its 8 + 8 operands from
// there: a shared load takes no trip through the L1 tags and has half the latency.
//
// Each thread loads one column of the tile. While computing with one tile, each thread already
// has the loads of the next tile in flight into registers (pa, pb), so their latency hides behind
// 8 steps of arithmetic. The thread's results are the same 8 x 8 as in v1b; reads of
// as[k][8u + ty] are a 4-way broadcast and reads of bs[k][8w + tx] 8 consecutive words: no bank
// conflicts.
template <int RB, int RB_THREADS, int BLOCK64, int KT>
__global__ void shortcut_v3_shared(const float *__restrict__ dp, const float *__restrict__ tp,
                                   float *__restrict__ r, size_t n, size_t np) {
    __shared__ float as[KT][BLOCK64];  // as[k][i - i0] = d[i][k0 + k]
    __shared__ float bs[KT][BLOCK64];  // bs[k][j - j0] = d[k0 + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RB_THREADS + tx;  // t in [0, 64): the tile column this thread loads
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    size_t kp = (n + KT - 1) / KT * KT;  // k runs over whole tiles; rows k >= n hold +inf
    float pa[KT], pb[KT];         // the next tile, one column of it, on its way to shared memory
#pragma unroll
    for (int q = 0; q < KT; q++) pa[q] = tp[q * np + i0 + t], pb[q] = dp[q * np + j0 + t];
    float v[RB][RB];
#pragma unroll
    for (int u = 0; u < RB; u++)
#pragma unroll
        for (int w = 0; w < RB; w++) v[u][w] = INFINITY;
    for (size_t k0 = 0; k0 < kp; k0 += KT) {
#pragma unroll
        for (int q = 0; q < KT; q++) as[q][t] = pa[q], bs[q][t] = pb[q];
        __syncthreads();  // the tile is in shared memory before anyone reads it
        if (k0 + KT < kp) {  // the next tile's loads, in flight during the steps below
#pragma unroll
            for (int q = 0; q < KT; q++) {
                pa[q] = tp[(k0 + KT + q) * np + i0 + t];
                pb[q] = dp[(k0 + KT + q) * np + j0 + t];
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

static void launch_v3(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    constexpr int KT = 8;  // k steps a tile: 8 x 64 floats of each input, 4 KiB a block
    static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v3_shared<RB, RB_THREADS, BLOCK64, KT>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
