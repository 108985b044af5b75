// ---- v6 async ----------------------------------------------------------------------------------

// v5 moves each tile through registers (LDG into pa/pb, then STS) and needs two barriers a tile:
// one before the tile is read, one before it is overwritten. Now cp.async (sm_80 and later)
// copies the next tile straight from global into a second shared buffer, with no registers and
// no STS, while the block computes with the first; the buffers swap every tile, so a single
// barrier a tile says both "the new tile has arrived" and "everyone is done with the old one".
//
// The kernel takes the tile depth KT as a parameter for v7; v6 keeps v5's KT = 8 steps.
// Before Ampere (sm_75) there is no cp.async: an ordinary copy through a register stands in, and
// the commit and the wait have nothing to do.
__device__ __forceinline__ void copy16_async(float *smem, const float *gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    *reinterpret_cast<float4 *>(smem) = *reinterpret_cast<const float4 *>(gmem);
#else
    unsigned to = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(gmem) : "memory");
#endif
}

// Closes the group of copies issued so far.
__device__ __forceinline__ void copy_commit() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until every copy this thread committed has landed.
__device__ __forceinline__ void copy_wait_all() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

// Thread t's float4s of a KT x 64 tile of tp and of dp (the rows k0.. of both), as in v4:
// float4 number t + 64 q sits in row (t + 64 q) / 16 at column 4 ((t + 64 q) % 16). A warp
// copies two whole tile rows, 2 x 256 contiguous bytes, per cp.async.
template <int RB_THREADS, int BLOCK64, int KT>
__device__ __forceinline__ void copy_tile_async(float (*as)[BLOCK64], float (*bs)[BLOCK64],
                                                const float *tp_k0, const float *dp_k0, size_t np,
                                                int t) {
    constexpr int VEC = 4;  // floats per float4
#pragma unroll
    for (int q = 0; q < KT * BLOCK64 / VEC / (RB_THREADS * RB_THREADS); q++) {
        tile_spot at = spot<RB_THREADS, BLOCK64>(t, q);
        copy16_async(&as[at.row][at.col], tp_k0 + at.row * np + at.col);
        copy16_async(&bs[at.row][at.col], dp_k0 + at.row * np + at.col);
    }
    copy_commit();
}

template <int RB, int RB_THREADS, int BLOCK64, int KT>
__global__ void shortcut_v6_async(const float *__restrict__ dp, const float *__restrict__ tp,
                                  float *__restrict__ r, size_t n, size_t np) {
    constexpr int VEC = 4;  // floats per float4
    static_assert(KT * BLOCK64 / VEC % (RB_THREADS * RB_THREADS) == 0, "an even share");
    __shared__ __align__(16) float as[2][KT][BLOCK64];  // as[buf][k][i - i0] = d[i][k0 + k]
    __shared__ __align__(16) float bs[2][KT][BLOCK64];  // bs[buf][k][j - j0] = d[k0 + k][j]
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RB_THREADS + tx;
    size_t i0 = (size_t)blockIdx.y * BLOCK64, j0 = (size_t)blockIdx.x * BLOCK64;
    size_t kp = (n + KT - 1) / KT * KT;  // whole tiles; rows k >= n hold +inf
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
        float a[2][RB], b[2][RB];  // v5's one-step-ahead shared loads
        load8(as[buf][0], ty, a[0]);
        load8(bs[buf][0], tx, b[0]);
#pragma unroll
        for (int k = 0; k < KT; k++) {
            if (k + 1 < KT) {
                load8(as[buf][k + 1], ty, a[(k + 1) % 2]);
                load8(bs[buf][k + 1], tx, b[(k + 1) % 2]);
            }
#pragma unroll
            for (int u = 0; u < RB; u++)
#pragma unroll
                for (int w = 0; w < RB; w++)
                    v[u][w] = fminf(v[u][w], a[k % 2][u] + b[k % 2][w]);
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

static void launch_v6(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int RB = 8;                     // results a thread along each dimension: 8 x 8
    constexpr int RB_THREADS = 8;             // threads a block along each dimension: 8 x 8
    constexpr int BLOCK64 = RB * RB_THREADS;  // 64 x 64 results a block
    static_assert(RB == 8 && BLOCK64 == 64, "load8 and own read 8 values of a 64-wide block");
    constexpr int KT = 8;  // k steps a tile, v5's: 2 buffers of 8 x 64 floats an input, 8 KiB
    static_assert(BLOCK64 % KT == 0, "n rounded up to KT stays inside the padded buffers");
    size_t np = pad_inputs<BLOCK64>(p);
    unsigned blocks = (unsigned)(np / BLOCK64);
    shortcut_v6_async<RB, RB_THREADS, BLOCK64, KT>
        <<<dim3(blocks, blocks), dim3(RB_THREADS, RB_THREADS)>>>(p->dp, p->tp, p->r, p->n, np);
    CHECK_LAUNCH();
}
