// ---- C through shared memory and TMA stores (v10 on) --------------------------------------------

// The shared memory of v10 on: v8's ring, then for each consumer warpgroup C_BUFFERS buffers of
// 64 rows of C_COLS floats, where its results wait for the copy engine.
template <class Ring, int C_COLS, int C_BUFFERS>
struct ring_and_c {
    Ring ring;
    alignas(1024) float c[2][C_BUFFERS][64 * C_COLS];  // whole 1024-byte atoms of the swizzle
};

// TMA stores rows of C that start on 16 bytes: n a multiple of 4. Where it is not, the kernels
// store from registers, as v9 does.
__host__ __device__ inline bool c_rows_aligned(size_t n) { return n * sizeof(float) % 16 == 0; }

#ifdef KL_SM90A
// A warpgroup's 64 x 2R results to C at (r0, c0), box by box of 64 rows and C_COLS
// columns: each box is written into the next buffer in the copy engine's 128-byte swizzle (the
// 16-byte piece q of row r at place q XOR (r % 8), as in the tiles of A and B), then stored by
// one TMA copy that thread 0 of the warpgroup issues. `boxes` counts the warpgroup's boxes over
// all its tiles: box b goes into buffer b % C_BUFFERS once the copy that last read it is done.
// A box wholly outside C is skipped by the whole warpgroup.
template <int R, int C_COLS, int C_BUFFERS>
__device__ void store_warpgroup_tma(const float (&acc)[R], float (*buf)[64 * C_COLS],
                                    const CUtensorMap *map_c, size_t r0, size_t c0, size_t m,
                                    size_t n, int &boxes) {
    static_assert(C_COLS * sizeof(float) == 128, "a box row is the 128-byte swizzle's row");
    int t = threadIdx.x % WG, lane = t % 32, id = threadIdx.x / WG;  // named barrier 1 or 2
    int row = t / 32 * 16 + lane / 4;  // and row + 8: this thread's rows of the box, in [0, 64)
#pragma unroll
    for (int box = 0; box < 2 * R / C_COLS; box++) {
        size_t col0 = c0 + box * C_COLS;
        if (r0 >= m || col0 >= n) continue;  // the same for every thread of the warpgroup
        float *b = buf[boxes++ % C_BUFFERS];
        if (t == 0) bulk_wait_read<C_BUFFERS - 1>();  // the copy that last read b is done...
        named_barrier(id, WG);                        // ...and the warpgroup knows it
#pragma unroll
        for (int j = 0; j < C_COLS / 8; j++) {
            int a = 4 * (box * C_COLS / 8 + j);  // acc[a], acc[a + 1]: row; acc[a + 2], acc[a + 3]: row + 8
            int col = j * 8 + lane % 4 * 2;      // in [0, C_COLS): in piece col / 4, at col % 4
            int at = (col / 4 ^ row % 8) * 4 + col % 4;  // (row + 8) % 8 is row % 8: the same place
            st_shared_v2(b + row * C_COLS + at, acc[a], acc[a + 1]);
            st_shared_v2(b + (row + 8) * C_COLS + at, acc[a + 2], acc[a + 3]);
        }
        fence_async_shared();   // our stores, visible to the copy engine...
        named_barrier(id, WG);  // ...once every thread of the warpgroup has made them
        if (t == 0) {
            tma_store(b, map_c, (int)col0, (int)r0);
            bulk_commit();
        }
    }
}
#endif

// The tensor map of C: FP32, n columns and m rows, boxes of BOX_COLS x BOX_ROWS in the
// 128-byte swizzle, made once at the first launch (as make_maps does for A and B: the driver's
// encoder takes host time that must not fall inside a timed launch). Where n is not a multiple
// of 4 TMA cannot store to C: the map stays empty, and the kernels store from registers. Either
// program's problem will do (the BF16 one's tc_problem, the FP8 one's fp8_problem): both hold
// C, FP32, as c, m and n.
template <int BOX_COLS, int BOX_ROWS, class Problem>
static const CUtensorMap *map_of_c(Problem *p) {
    static CUtensorMap map;
    static bool made = false;
    if (!made && c_rows_aligned(p->n)) {
        cuuint64_t dims[2] = {p->n, p->m}, stride[1] = {p->n * sizeof(float)};
        cuuint32_t box[2] = {BOX_COLS, BOX_ROWS}, step[2] = {1, 1};
        CUresult r = tensor_map_encoder()(
            &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, p->c, dims, stride, box, step,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r != CUDA_SUCCESS) {
            fprintf(stderr, "cuTensorMapEncodeTiled failed (error %d) for C, %zu x %zu\n", (int)r,
                    p->m, p->n);
            exit(KL_EXIT_GPU);
        }
    }
    made = true;
    return &map;
}
