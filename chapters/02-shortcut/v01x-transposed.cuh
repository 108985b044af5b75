// ---- v0-transposed and v1-transposed: the CPU's transposition, an experiment --------------------

// An experiment on v0 and v1: the CPU's first optimisation of this loop, which transposes d once
// (t[j][k] = d[k][j]) so that one thread's loop over k reads both of its operands along a row,
// d[i][k] and t[j][k], and each cache line serves 16 steps. The same threads, the same sums,
// d[k][j] read as t[j][k]. On the GPU it does not pay: a load is served for the 32 threads of a
// warp at once, and it costs the sectors their 32 addresses fall in, not what one thread reads.
//
// At one k the threads of a warp differ in i or in j, and both are now the row of the array
// they index, n floats apart. A warp is 16 values of the index from threadIdx.x by 2 of the
// other, so at one k (n a multiple of 8, so that every row starts on a 32-byte sector):
//   v0 (i across the warp):  d[i][k] 16 sectors, d[k][j] 2 neighbouring floats in 1     17
//   v0-transposed:           d[i][k] 16 sectors, t[j][k] 2 rows, 2 sectors              18
//   v1 (j across the warp):  d[i][k] 2 sectors,  d[k][j] 16 floats, 64 bytes in 2       4
//   v1-transposed:           d[i][k] 2 sectors,  t[j][k] 16 rows, 16 sectors            18
// With both operands read along k, neither arrangement of the threads coalesces. t is made on
// the host before any version runs and is not part of the timed launches (see main).
// WARP_ALONG_J: j runs across the warp (v1's threads), or i does (v0's).
template <int NAIVE, bool WARP_ALONG_J>
__global__ void shortcut_transposed(const float *__restrict__ d, const float *__restrict__ t,
                                    float *__restrict__ r, size_t n) {
    size_t x = (size_t)blockIdx.x * NAIVE + threadIdx.x;  // x in [0, n), fastest across the warp
    size_t y = (size_t)blockIdx.y * NAIVE + threadIdx.y;  // y in [0, n)
    size_t i = WARP_ALONG_J ? y : x, j = WARP_ALONG_J ? x : y;
    if (i >= n || j >= n) return;
    const float *d_i = d + i * n, *t_j = t + j * n;  // row i of d, row j of t: both along k
    float v = INFINITY;
    for (size_t k = 0; k < n; k++) v = fminf(v, d_i[k] + t_j[k]);
    r[i * n + j] = v;
}

static void launch_v0_transposed(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int NAIVE = 16;  // v0's block: 16 x 16 threads, one result each
    unsigned blocks = (unsigned)ceil_div(p->n, NAIVE);
    shortcut_transposed<NAIVE, false><<<dim3(blocks, blocks), dim3(NAIVE, NAIVE)>>>(p->d, p->t,
                                                                                    p->r, p->n);
    CHECK_LAUNCH();
}

static void launch_v1_transposed(void *problem) {
    shortcut_problem *p = (shortcut_problem *)problem;
    constexpr int NAIVE = 16;  // v1's block: 16 x 16 threads, one result each
    unsigned blocks = (unsigned)ceil_div(p->n, NAIVE);
    shortcut_transposed<NAIVE, true><<<dim3(blocks, blocks), dim3(NAIVE, NAIVE)>>>(p->d, p->t,
                                                                                   p->r, p->n);
    CHECK_LAUNCH();
}
