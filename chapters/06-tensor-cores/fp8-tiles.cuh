// ---- FP8's tiles in shared memory (the FP8 program, f0 on) --------------------------------------
// hopper-tiles.cuh's ring of stages, copy engine and stores, for E4M3 tiles. The FP8 program
// cannot include that file (its tensor maps are made for the BF16 problem); what does not depend
// on the element type it takes from hopper-ring.cuh, and here is what FP8 changes: a stage is 128
// values of k, not 64.

// A row of a tile is 128 bytes, the span of the 128-byte swizzle, as in the BF16 ring: 128 E4M3
// values of k where BF16 had 64. The same bytes a stage carry twice the k, so a stage feeds
// twice the multiply-adds (4 wgmma of k = 32, as BF16's were 4 of k = 16).
constexpr int FP8_BK = 128;

// A ring of STAGES stages, each a BM x 128 tile of A and a BN x 128 tile of B as the copy engine
// lays them out, and per stage the "full" and "empty" mbarriers of hopper-tiles.cuh's ring.
template <int BM, int BN, int STAGES>
struct fp8_ring {
    fp8 a[STAGES][BM * FP8_BK];  // 16 KB a stage at BM = 128: a multiple of the 1024-byte atom
    fp8 b[STAGES][BN * FP8_BK];  // 16, 22, 24, 26 or 32 KB (BN = 128, 176, 192, 208, 256)
    uint64_t full[STAGES], empty[STAGES];
};

#ifdef KL_SM90A
// One thread fills stage `slot` with k step `step` (values 128 step .. + 127) of the tile at
// (r0, c0): it announces the bytes on the stage's full barrier and starts the two copies. The
// copy engine counts a whole box even where it lies past m, n or k (it writes zeros there).
template <int BM, int BN, int STAGES>
__device__ inline void load_stage_fp8(fp8_ring<BM, BN, STAGES> &s, int slot,
                                      const CUtensorMap *map_a, const CUtensorMap *map_b,
                                      int step, size_t r0, size_t c0) {
    mbar_arrive_expect(&s.full[slot], (BM + BN) * FP8_BK);
    tma_load(s.a[slot], map_a, step * FP8_BK, (int)r0, &s.full[slot]);
    tma_load(s.b[slot], map_b, step * FP8_BK, (int)c0, &s.full[slot]);
}

// A warpgroup's 64 rows of A times the stage's 2R rows of B (R accumulators a thread, 128
// threads: 64 x 2R results), 128 values of k: 4 wgmma of k = 32. The descriptor is ptx.cuh's
// smem_desc unchanged (it counts bytes: 128-byte rows, 8-row groups 1024 bytes apart), and 32
// values of k are 32 bytes, 2 of its 16-byte units, as 16 BF16 were. `accumulate` is the first
// wgmma's: 0 starts the accumulators from this stage's products; the other three always add.
template <int R>
__device__ inline void wgmma_stage_fp8(float (&acc)[R], const fp8 *a, const fp8 *b,
                                       int accumulate) {
    uint64_t da = smem_desc(a), db = smem_desc(b);
#pragma unroll
    for (int kk = 0; kk < FP8_BK / 32; kk++) {
        int add = kk > 0 ? 1 : accumulate;
        if constexpr (R == 64) wgmma_64x128x32_e4m3(acc, da + 2 * kk, db + 2 * kk, add);
        else if constexpr (R == 96) wgmma_64x192x32_e4m3(acc, da + 2 * kk, db + 2 * kk, add);
        else if constexpr (R == 88) wgmma_64x176x32_e4m3(acc, da + 2 * kk, db + 2 * kk, add);
        else if constexpr (R == 104) wgmma_64x208x32_e4m3(acc, da + 2 * kk, db + 2 * kk, add);
        else wgmma_64x256x32_e4m3(acc, da + 2 * kk, db + 2 * kk, add);
    }
}

// A warpgroup's 64 x 2R results to C, each multiplied by `scale` (s_a s_b: the per-tensor
// scales, applied once here instead of to every product). Thread t of the warpgroup holds, for
// each 8 columns j, rows 16 (t / 32) + (t % 32) / 4 and 8 below it, columns 8 j + 2 (t % 4) and
// the next: the FP32 accumulator layout of every wgmma, whatever its inputs.
template <int R>
__device__ void store_scaled(const float (&acc)[R], float scale, float *c, size_t r0, size_t c0,
                             size_t m, size_t n) {
    int t = threadIdx.x % WG, lane = t % 32;
    size_t row = r0 + t / 32 * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < R / 4; j++) {
        size_t col = c0 + j * 8 + lane % 4 * 2;
        store_pair(c, row, col, m, n, acc[4 * j] * scale, acc[4 * j + 1] * scale);
        store_pair(c, row + 8, col, m, n, acc[4 * j + 2] * scale, acc[4 * j + 3] * scale);
    }
}

#endif  // KL_SM90A

// v9's tile order (v09-grouped.cuh's grouped_order): down bands of 16 rows of tiles, column
// after column, so the tiles at work at one time share their bands of A and B through L2.
__device__ inline tile_origin grouped_at(size_t tile, size_t m, size_t n, int tile_m, int tile_n) {
    constexpr int GROUP = 16;  // rows of tiles in a band, as v9's
    size_t rows = (m + tile_m - 1) / tile_m, cols = (n + tile_n - 1) / tile_n;
    size_t band = tile / (GROUP * cols), first = band * GROUP;  // the band's first row of tiles
    size_t high = rows - first < GROUP ? rows - first : GROUP;   // the last band may be lower
    size_t q = tile - band * GROUP * cols;                        // the place in the band
    return {(first + q % high) * tile_m, q / high * tile_n};
}

// The tensor map of an E4M3 matrix: `rows` rows of k bytes, rows ld bytes apart (ld a multiple
// of 16, as TMA needs), copied in boxes of 128 x box_rows with the 128-byte swizzle, zeros
// outside the matrix. The copy engine has no FP8 type: to it the values are bytes.
static void make_map_fp8(CUtensorMap *map, const fp8 *x, size_t rows, size_t k, size_t ld,
                         unsigned box_rows) {
    encode_tiled_fn encode = tensor_map_encoder();
    cuuint64_t dims[2] = {k, rows}, stride[1] = {ld};
    cuuint32_t box[2] = {(cuuint32_t)FP8_BK, box_rows}, step[2] = {1, 1};
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, (void *)x, dims, stride, box, step,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed (error %d) for %zu x %zu E4M3\n", (int)r,
                rows, k);
        exit(KL_EXIT_GPU);
    }
}
