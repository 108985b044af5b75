// ---- v10 fetch256 -------------------------------------------------------------------------------

// v9, with one hint on its loads: `ld.global.nc.L2::256B` asks L2 to fetch 256 bytes along with
// the sectors the warp touched (the prefetch size: a hint, compute capability 8.0 and later). At
// 8191 x 8193 a warp's 128 bytes of a row start inside a sector and end inside another, whose
// rest the row's neighbouring loads ask for at another moment; with the hint the next piece's
// sectors are already there or on their way.
//
// CUDA C++ has no intrinsic for the hint, so load_fetch256 is one line of inline PTX; `.nc` is
// the read-only path that v9's `const __restrict__` loads already take.
__device__ __forceinline__ float load_fetch256(const float *p) {
#if __CUDA_ARCH__ >= 800
    float value;
    asm("ld.global.nc.L2::256B.f32 %0, [%1];" : "=f"(value) : "l"(p));
    return value;
#else
    return __ldg(p);  // the hint needs compute capability 8.0; on Turing v10 is v9
#endif
}

template <int TILE_ROWS, int TILE_COLS, int BLOCK_COLS, int BLOCK_ROWS>
__global__ void transpose_v10_fetch256(const float *__restrict__ in, float *__restrict__ out,
                                       size_t m, size_t n) {
    constexpr int SECTOR_FLOATS = 8;  // 32 bytes: the unit in which L2 and device memory move data
    __shared__ float tile[TILE_ROWS][TILE_COLS + 1];
    tile_origin t = block_tile_by_column(m, TILE_ROWS, TILE_COLS);
    float v[TILE_ROWS / BLOCK_ROWS][TILE_COLS / BLOCK_COLS];  // this thread's elements, in flight
#pragma unroll
    for (int y = 0; y < TILE_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE_COLS; x += BLOCK_COLS) {
            size_t r = t.r0 + threadIdx.y + y, c = t.c0 + threadIdx.x + x;
            v[y / BLOCK_ROWS][x / BLOCK_COLS] =
                (r < m && c < n) ? load_fetch256(&in[r * n + c]) : 0.0f;
        }
    }
#pragma unroll
    for (int y = 0; y < TILE_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE_COLS; x += BLOCK_COLS)
            tile[threadIdx.y + y][threadIdx.x + x] = v[y / BLOCK_ROWS][x / BLOCK_COLS];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    // Piece x of a run covers tile rows j = x + lane - shift: x = 0 starts before the run,
    // x = TILE_ROWS ends after it.
    int shift[TILE_COLS / BLOCK_ROWS];                           // per output row of this warp
    float w[TILE_COLS / BLOCK_ROWS][TILE_ROWS / BLOCK_COLS + 1];  // this thread's outputs
#pragma unroll
    for (int y = 0; y < TILE_COLS; y += BLOCK_ROWS) {
        size_t out_r = t.c0 + threadIdx.y + y;
        shift[y / BLOCK_ROWS] = (int)((out_r * m + t.r0) % SECTOR_FLOATS);
#pragma unroll
        for (int x = 0; x <= TILE_ROWS; x += BLOCK_COLS) {
            int j = x + (int)threadIdx.x - shift[y / BLOCK_ROWS];
            w[y / BLOCK_ROWS][x / BLOCK_COLS] =
                tile[min(max(j, 0), TILE_ROWS - 1)][threadIdx.y + y];
        }
    }
#pragma unroll
    for (int y = 0; y < TILE_COLS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x <= TILE_ROWS; x += BLOCK_COLS) {
            int j = x + (int)threadIdx.x - shift[y / BLOCK_ROWS];
            size_t out_r = t.c0 + threadIdx.y + y, out_c = t.r0 + j;
            if (j >= 0 && j < TILE_ROWS && out_r < n && out_c < m)
                out[out_r * m + out_c] = w[y / BLOCK_ROWS][x / BLOCK_COLS];
        }
    }
}

static void launch_v10(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    constexpr int TILE_ROWS = 128;  // 128 x (64 + 1) floats: 32.5 KiB of shared memory a block
    constexpr int TILE_COLS = 64;   // two warps across the tile's width: 256 bytes of a row
    constexpr int BLOCK_COLS = 32;  // one warp across the block: half a tile row, 128 bytes
    constexpr int BLOCK_ROWS = 8;   // 32 x 8 = 256 threads; each moves 32 elements
    dim3 block(BLOCK_COLS, BLOCK_ROWS);
    transpose_v10_fetch256<TILE_ROWS, TILE_COLS, BLOCK_COLS, BLOCK_ROWS>
        <<<tiles(p->m, p->n, TILE_ROWS, TILE_COLS), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}
