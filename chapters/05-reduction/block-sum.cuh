// ---- sums in registers: a warp's by shuffles, a block's from its warps' (v7 on) -----------------

// v7's tree in registers, which v8-v10 use too: __shfl_down_sync hands each lane the value of
// the lane `offset` above it, so five shuffles sum a warp with no shared memory and no barrier.
// Shared memory holds only the warp sums, and one __syncthreads() remains.

// Lane 0 ends with the sum of the warp's 32 values (the other lanes hold partial sums).
__device__ float warp_sum(float v) {
    // EXERCISE: shuffle begin
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
    // EXERCISE: shuffle end
}

// Thread 0 ends with the sum of the block's values. All BLOCK threads must call it.
template <unsigned BLOCK>
__device__ float block_sum(float v) {
    // EXERCISE: shuffle begin
    __shared__ float warp_sums[BLOCK / 32];  // one per warp
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();  // every warp's sum is written before warp 0 reads them
    v = 0.0f;
    if (warp == 0) v = warp_sum(lane < BLOCK / 32 ? warp_sums[lane] : 0.0f);
    return v;
    // EXERCISE: shuffle end
}
