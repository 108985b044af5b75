// ---- WMMA's accumulator fragments and their way to C (v0 on) ------------------------------------

using namespace nvcuda;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc_frag;

// A warp's 4 x 2 accumulator fragments, stored through `scratch` (256 floats of the warp's own)
// into C: store_matrix_sync writes whole 16 x 16 blocks, so C's edges go through shared memory.
__device__ void store_fragments(acc_frag (&acc)[4][2], float *scratch, float *c, size_t r0,
                                size_t c0, size_t m, size_t n) {
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            // lane: row lane / 2 of the fragment, columns 8 (lane % 2) .. + 7
            int r = lane / 2, q = lane % 2 * 8;
#pragma unroll
            for (int x = 0; x < 8; x += 2)
                store_pair(c, r0 + i * 16 + r, c0 + j * 16 + q + x, m, n, scratch[r * 16 + q + x],
                           scratch[r * 16 + q + x + 1]);
            __syncwarp();  // the scratch is free for the next fragment
        }
}
