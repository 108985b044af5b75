// ---- C from registers in 16-byte stores (v13-quadstore) ----------------------------------------

#ifdef KL_SM90A
// A warpgroup's 64 x 2R results to C at (r0, c0), straight from its registers. As in
// store_warpgroup (hopper-tiles.cuh), thread t holds, for each group j of 8 columns, rows
// 16 (t / 32) + (t % 32) / 4 and 8 below, columns 8 j + 2 q and the next (q = t % 4, its place
// in its quad of 4 threads): 8 bytes of a row, the four threads of a quad 32 bytes side by side.
// Here a quad takes two groups at a time, j and j + 1, 16 columns of each of its rows, and
// trades pairs so that thread q ends with the 4 neighbouring columns 4q .. 4q + 3 of the 16, one
// 16-byte store. Thread q wants the pairs that threads 2 (q % 2) and 2 (q % 2) + 1 hold in group
// j + q / 2. Two shuffles of a pair each do it, row by row: in the first, odd threads offer
// their pair of group j and even threads their pair of group j + 1, and thread q takes from
// thread {1, 3, 0, 2}[q] the right half of its 4 columns if q < 2, the left half if not; in the
// second, each offers its other pair and thread q takes the other half from thread
// {0, 2, 1, 3}[q] (thread 0 and thread 3 take their own). So for q < 2 the second shuffle's
// pair comes first in the row. Rows must start on 16 bytes (n a multiple of 4): then a store
// whose first column is inside C is wholly inside it. `.cg`: C is written once, kept in L2 only.
template <int R>
__device__ void store_warpgroup_quads(const float (&acc)[R], float *c, size_t r0, size_t c0,
                                      size_t m, size_t n) {
    static_assert(R % 8 == 0, "whole pairs of groups of 8 columns");
    int t = threadIdx.x % WG, lane = t % 32, q = lane % 4;
    int quad = lane - q;                                // the quad's first lane
    int first = quad + ((2 * q + (q < 2)) & 3);         // {1, 3, 0, 2}[q]
    int second = quad + (((q & 1) << 1) | (q >> 1));    // {0, 2, 1, 3}[q]
    bool odd = q & 1;
    size_t row = r0 + t / 32 * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < R / 4; j += 2) {
#pragma unroll
        for (int h = 0; h < 2; h++) {  // row, then row + 8: acc[4 j + 2 h] and the next
            float g0 = acc[4 * j + 2 * h], g1 = acc[4 * j + 2 * h + 1];              // group j
            float h0 = acc[4 * j + 4 + 2 * h], h1 = acc[4 * j + 4 + 2 * h + 1];      // group j + 1
            float a0 = __shfl_sync(0xffffffffu, odd ? g0 : h0, first);
            float a1 = __shfl_sync(0xffffffffu, odd ? g1 : h1, first);
            float b0 = __shfl_sync(0xffffffffu, odd ? h0 : g0, second);
            float b1 = __shfl_sync(0xffffffffu, odd ? h1 : g1, second);
            float4 v = q < 2 ? make_float4(b0, b1, a0, a1) : make_float4(a0, a1, b0, b1);
            size_t r = row + 8 * h, col = c0 + j * 8 + 4 * q;
            if (r < m && col < n) __stcg(reinterpret_cast<float4 *>(c + r * n + col), v);
        }
    }
}
#endif
