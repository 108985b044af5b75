// ---- the banked bins: one copy of the bins a lane, bin b of lane l at word b * 32 + l (v3 on) ---

// v3's layout, which v4 keeps: local[bin][lane], so lane l's counter of bin b is word b * 32 + l,
// always in bank l. count_word_banked counts a word's four bytes into the lane's column (as
// count_word does into a plain histogram); merge_banked adds the 32 copies of each bin to the
// global bins.
__device__ __forceinline__ void count_word_banked(unsigned *h, unsigned w) {
    atomicAdd(&h[(w & 0xFF) * 32], 1u);  // h points at lane l's column: h[b * 32] is bin b
    atomicAdd(&h[((w >> 8) & 0xFF) * 32], 1u);
    atomicAdd(&h[((w >> 16) & 0xFF) * 32], 1u);
    atomicAdd(&h[(w >> 24) * 32], 1u);
}

// Sums the 32 lane copies of each bin and adds them to the global bins. Thread t reads copy
// (t + l) % 32 at step l, so the 32 lanes of a warp read 32 different banks.
__device__ void merge_banked(const unsigned (*local)[32], unsigned *bins) {
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (int l = 0; l < 32; l++) sum += local[b][(l + b) % 32];
        if (sum) atomicAdd(&bins[b], sum);
    }
}
