// ---- merge_bins: a block's shared histogram into the global bins (v1 on) ------------------------

// v1 and v1a end every block the same way: its 256 shared bins are added to the global ones, one
// bin a thread, one global atomic for each bin that counted anything (zero bins are skipped).
__device__ void merge_bins(const unsigned *local, unsigned *bins) {
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}
