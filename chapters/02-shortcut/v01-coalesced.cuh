// ---- v1 coalesced ------------------------------------------------------------------------------

// The only change: j comes from threadIdx.x and i from threadIdx.y. A warp is now 16
// consecutive j by 2 consecutive i: it reads d[k][j] as 64 contiguous bytes and d[i][k] as two
// floats that every thread of a half-warp shares (a broadcast), and it writes 16 floats of a row.
template <int NAIVE>
__global__ void shortcut_v1_coalesced(const float *__restrict__ d, float *__restrict__ r,
                                      size_t n) {
    // EXERCISE: coalesced begin
    size_t j = (size_t)blockIdx.x * NAIVE + threadIdx.x;  // j in [0, n), fastest across the warp
    size_t i = (size_t)blockIdx.y * NAIVE + threadIdx.y;  // i in [0, n)
    if (i >= n || j >= n) return;
    float v = INFINITY;
    for (size_t k = 0; k < n; k++) v = fminf(v, d[i * n + k] + d[k * n + j]);
    r[i * n + j] = v;
    // EXERCISE: coalesced end
}

static void launch_v1(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int NAIVE = 16;  // 16 x 16 = 256 threads a block, one result each
    unsigned blocks = (unsigned)ceil_div(p->n, NAIVE);
    shortcut_v1_coalesced<NAIVE><<<dim3(blocks, blocks), dim3(NAIVE, NAIVE)>>>(p->d, p->r, p->n);
    CHECK_LAUNCH();
}
