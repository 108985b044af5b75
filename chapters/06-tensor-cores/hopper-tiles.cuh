// ---- Hopper's tiles in shared memory (v4a on) ---------------------------------------------------

// A ring of STAGES stages, each a BM x BK tile of A and a BN x BK tile of B as the copy engine
// lays them out (BK = 64: rows of 128 bytes, 128-byte swizzle), and per stage an mbarrier that
// says "full" (the copies have landed) and one that says "empty" (the multiplies are done).
template <int BM, int BN, int BK, int STAGES>
struct stage_ring {
    bf16 a[STAGES][BM * BK];  // 16 KB a stage (8 in v11-pingpong): whole 1024-byte swizzle atoms
    bf16 b[STAGES][BN * BK];  // 16 or 32 KB
    uint64_t full[STAGES], empty[STAGES];
};

#ifdef KL_SM90A
// One thread fills stage `slot` with k step `step` of the tile at (r0, c0): it announces the
// bytes on the stage's full barrier and starts the two copies, which complete on it.
template <int BM, int BN, int BK, int STAGES>
__device__ inline void load_stage(stage_ring<BM, BN, BK, STAGES> &s, int slot,
                                  const CUtensorMap *map_a, const CUtensorMap *map_b, int step,
                                  size_t r0, size_t c0) {
    mbar_arrive_expect(&s.full[slot], (BM + BN) * BK * sizeof(bf16));
    tma_load(s.a[slot], map_a, step * BK, (int)r0, &s.full[slot]);
    tma_load(s.b[slot], map_b, step * BK, (int)c0, &s.full[slot]);
}

// A warpgroup's 64 rows of A times the stage's R / 2 rows of B, BK columns of k: BK / 16 wgmma
// of k = 16 each, the descriptors moved 32 bytes along k each time.
template <int BK, int R>
__device__ inline void wgmma_stage(float (&acc)[R], const bf16 *a, const bf16 *b) {
    uint64_t da = smem_desc(a), db = smem_desc(b);
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) {
        if constexpr (R == 64) wgmma_64x128x16(acc, da + 2 * kk, db + 2 * kk);
        else wgmma_64x256x16(acc, da + 2 * kk, db + 2 * kk);
    }
}

// wgmma_stage for v14: the tiles given as the low words of their descriptors (desc_low).
template <int BK>
__device__ inline void wgmma_stage_low(float (&acc)[128], unsigned a, unsigned b) {
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) wgmma_64x256x16(acc, desc_of(a + 2 * kk), desc_of(b + 2 * kk));
}

// A warpgroup's 64 x 2R results to C. Thread t of the warpgroup holds, for each 8 columns
// j, rows 16 (t / 32) + (t % 32) / 4 and 8 below it, columns 8 j + 2 (t % 4) and the next.
template <int R>
__device__ void store_warpgroup(const float (&acc)[R], float *c, size_t r0, size_t c0, size_t m,
                                size_t n) {
    int t = threadIdx.x % WG, lane = t % 32;
    size_t row = r0 + t / 32 * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < R / 4; j++) {
        size_t col = c0 + j * 8 + lane % 4 * 2;
        store_pair(c, row, col, m, n, acc[4 * j], acc[4 * j + 1]);
        store_pair(c, row + 8, col, m, n, acc[4 * j + 2], acc[4 * j + 3]);
    }
}
#endif  // KL_SM90A

// The tensor maps of A and B: what TMA needs to know of a matrix (its address, k columns and
// `rows` rows, rows ld elements apart) and of the box it copies (box_k columns, box_rows rows,
// 128-byte swizzle, zeros outside the matrix). Made on the host, passed by value to the kernel.
static void make_map(CUtensorMap *map, const bf16 *x, size_t rows, size_t k, size_t ld,
                     unsigned box_k, unsigned box_rows) {
    encode_tiled_fn encode = tensor_map_encoder();
    cuuint64_t dims[2] = {k, rows}, stride[1] = {ld * sizeof(bf16)};
    cuuint32_t box[2] = {box_k, box_rows}, step[2] = {1, 1};
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)x, dims, stride, box,
                        step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed (error %d) for %zu x %zu\n", (int)r, rows, k);
        exit(KL_EXIT_GPU);
    }
}

// The maps of A (boxes of bk x bm, and bk x 64 for v11-pingpong's tiles of 64 rows) and of B
// (bk x 128 and bk x 256), made at the first launch that needs them: every Hopper version copies
// boxes of its BK = 64 columns and BM = 128 rows of A, so one set serves them all.
static void make_maps(tc_problem *p, unsigned bm, unsigned bk) {
    if (p->maps_made) return;
    make_map(&p->map_a, p->a, p->m, p->k, p->ld, bk, bm);
    make_map(&p->map_a64, p->a, p->m, p->k, p->ld, bk, 64);
    make_map(&p->map_b128, p->b, p->n, p->k, p->ld, bk, 128);
    make_map(&p->map_b256, p->b, p->n, p->k, p->ld, bk, 256);
    p->maps_made = true;
}
