// ---- v4 unrolled --------------------------------------------------------------------------------

// An experiment that did not pay: v3 waits for each 16-byte load before its atomics, so one
// load per thread is in flight. Device memory needs bandwidth x latency bytes in flight, and
// we guessed 24 KiB per SM was too few. Here each thread issues UNROLL loads, then counts them
// all. It measures no faster: v3 already reads at near the copy speed (see the README).
template <int UNROLL>
__global__ void histogram_v4_unrolled(const uint8_t *__restrict__ data, size_t n,
                                      unsigned *__restrict__ bins) {
    __shared__ unsigned local[BINS][32];  // [bin][lane]: 32 KiB
    for (int i = threadIdx.x; i < BINS * 32; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = &local[0][threadIdx.x % 32];
    const uint4 *data16 = (const uint4 *)data;
    size_t n16 = n / 16;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // i, i + stride, ..., i + (UNROLL - 1) stride: all in range
    for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) v[u] = data16[i + u * stride];  // all loads first
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            count_word_banked(mine, v[u].x), count_word_banked(mine, v[u].y);
            count_word_banked(mine, v[u].z), count_word_banked(mine, v[u].w);
        }
    }
    for (; i < n16; i += stride) {  // what is left, one uint4 at a time
        uint4 v = data16[i];
        count_word_banked(mine, v.x), count_word_banked(mine, v.y);
        count_word_banked(mine, v.z), count_word_banked(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16)
        atomicAdd(&mine[data[n16 * 16 + threadIdx.x] * 32], 1u);
    __syncthreads();  // every byte counted before the merge
    merge_banked(local, bins);
}

static void launch_v4(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    // 64 bytes per thread per step, four times the loads in flight; the compiler fits it in as
    // many registers as v3 (its report: make evidence)
    constexpr int UNROLL = 4;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v4_unrolled<UNROLL>, 16 * UNROLL);
    histogram_v4_unrolled<UNROLL><<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}
