// ---- v0 naive ----------------------------------------------------------------------------------

// One thread per result, 16 x 16 threads a block, and i taken from threadIdx.x. A warp is 16
// consecutive i by 2 consecutive j, so each step it reads d[i][k] from 16 different rows, one
// 32-byte sector each for 4 useful bytes, and d[k][j] from two neighbouring floats.
// Grids are 2D: gridDim.y allows 65535 rows of blocks, far more than any n that fits in memory.
template <int NAIVE>
__global__ void shortcut_v0_naive(const float *__restrict__ d, float *__restrict__ r, size_t n) {
    size_t i = (size_t)blockIdx.x * NAIVE + threadIdx.x;  // i in [0, n), fastest across the warp
    size_t j = (size_t)blockIdx.y * NAIVE + threadIdx.y;  // j in [0, n)
    if (i >= n || j >= n) return;
    float v = INFINITY;  // the identity of min
    for (size_t k = 0; k < n; k++) v = fminf(v, d[i * n + k] + d[k * n + j]);
    r[i * n + j] = v;
}

static void launch_v0(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int NAIVE = 16;  // 16 x 16 = 256 threads a block, one result each
    unsigned blocks = (unsigned)ceil_div(p->n, NAIVE);
    shortcut_v0_naive<NAIVE><<<dim3(blocks, blocks), dim3(NAIVE, NAIVE)>>>(p->d, p->r, p->n);
    CHECK_LAUNCH();
}
