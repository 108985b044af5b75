// ---- v3 banked ----------------------------------------------------------------------------------

// v2's lanes collide in shared memory's banks: a warp's 32 accesses take one pass only when they
// fall in 32 different banks (bank = word address % 32), and in v2 bin b is word b. Here each
// lane gets its own copy of the bins, laid out so that lane l's counter of bin b is word
// b * 32 + l: always bank l (banked-bins.cuh, which v4 uses too). Every warp access is now
// conflict-free, whatever the data.
//
// In v2, 32 random bytes land in random banks and collide (about 3.5 on the busiest bank), and
// the degenerate input sends all 32 lanes to one word. Lane l of every warp in the block shares
// copy l, so we still need the atomics, but two warps meet on a word only by chance. 256 x 32
// words: 32 KiB a block.
__global__ void histogram_v3_banked(const uint8_t *__restrict__ data, size_t n,
                                    unsigned *__restrict__ bins) {
    __shared__ unsigned local[BINS][32];  // [bin][lane]: 32 KiB
    for (int i = threadIdx.x; i < BINS * 32; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = &local[0][threadIdx.x % 32];  // this lane's column
    const uint4 *data16 = (const uint4 *)data;
    size_t n16 = n / 16;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = data16[i];
        count_word_banked(mine, v.x), count_word_banked(mine, v.y);
        count_word_banked(mine, v.z), count_word_banked(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16)
        atomicAdd(&mine[data[n16 * 16 + threadIdx.x] * 32], 1u);
    __syncthreads();  // every byte counted before the merge
    merge_banked(local, bins);
}

static void launch_v3(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v3_banked, 16);
    histogram_v3_banked<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}
