// Chapter 01: transpose. Moving data is all a transpose does, so this chapter is about one
// thing: which addresses the 32 threads of a warp touch at once.
//
//   memcpy      (baseline) cudaMemcpy of the same bytes: what the memory system can do
//   copy        (baseline) a plain copy kernel: what a kernel with perfect access can do
//   v0 naive      one thread per element; reads coalesced, writes 32 rows apart
//   v1 tiled      a 32 x 32 tile staged in shared memory, so reads and writes are both
//                 coalesced; the column reads from shared memory hit one bank 32 times
//   v2 padded     one extra column in the tile moves each row to the next bank: no conflicts
//   v3 coarsened  32 x 8 threads move the 32 x 32 tile, four elements each
//   v4 tile64     a 64 x 64 tile, sixteen elements a thread: more loads in flight per thread
//   v5 ordered    blocks take tiles column by column, so the blocks running together write
//                 neighbouring parts of out, as they already read neighbouring parts of in
//   v6 tall       128 x 32 tiles: each warp writes 512 contiguous bytes of an output row
//   v7 staged     all of a thread's loads go out before the first one is used: through
//                 registers, so that no bounds check has to wait in a predicate register
//   v8 wide       128 x 64 tiles, 32 elements a thread, now that they are all in flight
//   v9 aligned    each warp-wide store starts on a 32-byte sector of out, so only the two
//                 ends of an output run share a sector with another block
//   v10 fetch256  each load asks L2 to fetch 256 bytes, not just the sectors it touches, so
//                 the next piece of a row that starts inside a sector is already on its way
//
// Build and run:   make build/transpose && build/transpose            (8192 x 8192)
//                  build/transpose -m 8191 -n 8193 -v v9,v10 --reps 50
//                  build/transpose --list | --help | --check-only | --save out/
#include <string.h>

#include "copy.cuh"
#include "gpu.h"
#include "npy.h"
#include "progress.h"
#include "rng.h"

// 8192 x 8192 floats: 256 MiB read and 256 MiB written, far beyond the 50-60 MB L2 of a
// Hopper GPU, so we measure device memory and not the cache.
#define DEFAULT_M 8192
#define DEFAULT_N 8192
// 20 timed launches give a stable median; 3 warm-up launches take module loading and
// first-touch effects out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42

// The problem every version sees: in is m x n, out is n x m, both row-major on the device.
typedef struct {
    size_t m, n;
    const float *in;
    float *out;
    float *host_in, *host_out;  // the input, and a buffer for results copied back
    float *want;                // the CPU reference: in transposed
} transpose_problem;

// ---- the CPU reference ------------------------------------------------------------------------

// out[c][r] = in[r][c]: the definition, with nothing clever. pr (or NULL) hears of each row.
static void transpose_cpu(const float *in, float *out, size_t m, size_t n, progress *pr) {
    for (size_t r = 0; r < m; r++) {
        for (size_t c = 0; c < n; c++) out[c * m + r] = in[r * n + c];
        progress_update(pr, (double)r);
    }
}

// ---- the grid ---------------------------------------------------------------------------------

// Every version hands out tiles of the matrix, one per block. blockIdx.x numbers the tiles row
// by row; a 2D grid would read more simply but caps gridDim.y at 65535 tiles (about two
// million rows), and any m >= 1 must work.
struct tile_origin {
    size_t r0, c0;  // the tile's first row and column in the input
};

__device__ tile_origin block_tile(size_t n, int tile_rows, int tile_cols) {
    size_t tiles_per_row = (n + tile_cols - 1) / tile_cols;
    tile_origin t;
    t.r0 = (size_t)(blockIdx.x / tiles_per_row) * tile_rows;
    t.c0 = (size_t)(blockIdx.x % tiles_per_row) * tile_cols;
    return t;
}

static unsigned tiles(size_t m, size_t n, int tile_rows, int tile_cols) {
    return (unsigned)(ceil_div(m, tile_rows) * ceil_div(n, tile_cols));
}

// ---- baselines ----------------------------------------------------------------------------------

// memcpy: the same number of bytes through cudaMemcpy. It copies, it does not transpose, so
// its output is checked against the input.
static void launch_memcpy(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    CHECK(cudaMemcpyAsync(p->out, p->in, p->m * p->n * sizeof(float), cudaMemcpyDeviceToDevice));
}

// copy: chapter 00's copy kernel (common/copy.cuh) over the same bytes: the best access pattern
// there is. No transpose can beat it by much; what is left between it and memcpy is the cost
// of being a kernel at all.
static void launch_copy(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    copy_floats(p->in, p->out, p->m * p->n);
}

// ---- v0 naive -----------------------------------------------------------------------------------

// One thread per element. The 32 threads of a warp share a row r and take 32 consecutive
// columns c: they read 128 contiguous bytes (one transaction) but write 32 floats that lie m
// floats apart in out, one 32-byte sector each. Writes move 8 times the bytes they need.
#define NAIVE_X 32  // a warp across the columns
#define NAIVE_Y 8   // 256 threads a block

__global__ void transpose_v0_naive(const float *__restrict__ in, float *__restrict__ out,
                                   size_t m, size_t n) {
    tile_origin t = block_tile(n, NAIVE_Y, NAIVE_X);
    size_t r = t.r0 + threadIdx.y;  // r in [0, m)
    size_t c = t.c0 + threadIdx.x;  // c in [0, n), fastest across the warp
    if (r < m && c < n) out[c * m + r] = in[r * n + c];
}

static void launch_v0(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(NAIVE_X, NAIVE_Y);
    transpose_v0_naive<<<tiles(p->m, p->n, NAIVE_Y, NAIVE_X), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}

// ---- v1 tiled -----------------------------------------------------------------------------------

// Stage a TILE x TILE block in shared memory. Each warp reads one tile row from in (128
// contiguous bytes) and, after the barrier, writes one tile column of it as one row of out
// (also 128 contiguous bytes). Both global accesses are now coalesced. The price: reading
// tile[threadIdx.x][threadIdx.y] walks down a column, 32 floats 128 bytes apart, all in the
// same one of shared memory's 32 banks, so the warp's read is served one thread at a time.
#define TILE 32  // one warp across a tile row: 32 floats, 128 bytes

__global__ void transpose_v1_tiled(const float *__restrict__ in, float *__restrict__ out,
                                   size_t m, size_t n) {
    // EXERCISE: tiled begin
    __shared__ float tile[TILE][TILE];  // tile: TILE x TILE floats, 4 KiB
    tile_origin t = block_tile(n, TILE, TILE);
    size_t r = t.r0 + threadIdx.y, c = t.c0 + threadIdx.x;
    if (r < m && c < n) tile[threadIdx.y][threadIdx.x] = in[r * n + c];
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    // Swap roles: threadIdx.x now runs along a row of out, that is, along a column of the tile.
    size_t out_r = t.c0 + threadIdx.y, out_c = t.r0 + threadIdx.x;
    if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[threadIdx.x][threadIdx.y];
    // EXERCISE: tiled end
}

static void launch_v1(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, TILE);  // 1024 threads, one per element of the tile
    transpose_v1_tiled<<<tiles(p->m, p->n, TILE, TILE), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}

// ---- v2 padded ----------------------------------------------------------------------------------

// The only change: each tile row is TILE + 1 floats long. Element [i][j] sits at word
// i * 33 + j, in bank (i + j) % 32, so the 32 reads of a column land in 32 different banks
// and the warp reads them in one go.
__global__ void transpose_v2_padded(const float *__restrict__ in, float *__restrict__ out,
                                    size_t m, size_t n) {
    // EXERCISE: padded begin
    __shared__ float tile[TILE][TILE + 1];  // tile: TILE x (TILE + 1) floats
    tile_origin t = block_tile(n, TILE, TILE);
    size_t r = t.r0 + threadIdx.y, c = t.c0 + threadIdx.x;
    if (r < m && c < n) tile[threadIdx.y][threadIdx.x] = in[r * n + c];
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    size_t out_r = t.c0 + threadIdx.y, out_c = t.r0 + threadIdx.x;
    if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[threadIdx.x][threadIdx.y];
    // EXERCISE: padded end
}

static void launch_v2(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, TILE);
    transpose_v2_padded<<<tiles(p->m, p->n, TILE, TILE), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}

// ---- v3 coarsened -------------------------------------------------------------------------------

// The same padded tile, moved by a quarter of the threads: 32 x 8 threads, each moving
// TILE / BLOCK_ROWS = 4 elements. Each thread now issues four independent loads before it
// waits, the index arithmetic is shared by four elements, and a block of 256 threads leaves
// room for more blocks per SM.
#define BLOCK_ROWS 8  // 32 x 8 = 256 threads; each moves TILE / BLOCK_ROWS elements

__global__ void transpose_v3_coarsened(const float *__restrict__ in, float *__restrict__ out,
                                       size_t m, size_t n) {
    __shared__ float tile[TILE][TILE + 1];
    tile_origin t = block_tile(n, TILE, TILE);
    size_t c = t.c0 + threadIdx.x;
    // j counts from 0, not from threadIdx.y: a trip count known at compile time lets the
    // compiler unroll the loop and issue all four loads before the first one returns.
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {  // tile rows y, y + 8, y + 16, y + 24
        int i = threadIdx.y + j;
        size_t r = t.r0 + i;
        if (r < m && c < n) tile[i][threadIdx.x] = in[r * n + c];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    size_t out_c = t.r0 + threadIdx.x;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int i = threadIdx.y + j;
        size_t out_r = t.c0 + i;
        if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[threadIdx.x][i];
    }
}

static void launch_v3(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, BLOCK_ROWS);
    transpose_v3_coarsened<<<tiles(p->m, p->n, TILE, TILE), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}

// ---- v4 tile64 ----------------------------------------------------------------------------------

// A 64 x 64 tile for the same 256 threads: each thread moves 16 elements, so a block has 16 KiB
// of loads to issue before its barrier instead of 4 KiB. Device memory needs many bytes in
// flight to reach full bandwidth (bandwidth times latency: several MB across the GPU), and
// fewer, larger tiles also quarter the barriers per byte. (How many of the 16 loads really are
// in flight at once is v7's subject.)
#define TILE64 64  // 64 x (64 + 1) floats: 16.3 KiB of shared memory a block
// TRY: move the tile in float4s (16-byte loads and stores). Is it faster? Why not?

__global__ void transpose_v4_tile64(const float *__restrict__ in, float *__restrict__ out,
                                    size_t m, size_t n) {
    __shared__ float tile[TILE64][TILE64 + 1];
    tile_origin t = block_tile(n, TILE64, TILE64);
#pragma unroll
    for (int y = 0; y < TILE64; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE64; x += TILE) {  // two warp-wide halves of a tile row
            int i = threadIdx.y + y, j = threadIdx.x + x;
            size_t r = t.r0 + i, c = t.c0 + j;
            if (r < m && c < n) tile[i][j] = in[r * n + c];
        }
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
#pragma unroll
    for (int y = 0; y < TILE64; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE64; x += TILE) {
            int i = threadIdx.y + y, j = threadIdx.x + x;
            size_t out_r = t.c0 + i, out_c = t.r0 + j;
            if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[j][i];
        }
    }
}

static void launch_v4(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, BLOCK_ROWS);
    transpose_v4_tile64<<<tiles(p->m, p->n, TILE64, TILE64), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}

// ---- v5 ordered -------------------------------------------------------------------------------

// v4's kernel; only the order in which blocks take tiles changes. Blocks start in blockIdx
// order, about a thousand at a time. Numbered row by row (v4), the blocks running together
// share a few bands of rows of in, but each writes 64 different rows of out: together they
// write a little to every row of out. Numbered column by column, the blocks running together
// read a few bands of columns of in and write a few bands of rows of out, so the pieces of each
// output row are written at nearly the same time, while their sectors are still in L2.
__device__ tile_origin block_tile_by_column(size_t m, int tile_rows, int tile_cols) {
    size_t tiles_per_col = (m + tile_rows - 1) / tile_rows;
    tile_origin t;
    t.r0 = (size_t)(blockIdx.x % tiles_per_col) * tile_rows;
    t.c0 = (size_t)(blockIdx.x / tiles_per_col) * tile_cols;
    return t;
}

__global__ void transpose_v5_ordered(const float *__restrict__ in, float *__restrict__ out,
                                     size_t m, size_t n) {
    __shared__ float tile[TILE64][TILE64 + 1];
    tile_origin t = block_tile_by_column(m, TILE64, TILE64);
#pragma unroll
    for (int y = 0; y < TILE64; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE64; x += TILE) {  // two warp-wide halves of a tile row
            int i = threadIdx.y + y, j = threadIdx.x + x;
            size_t r = t.r0 + i, c = t.c0 + j;
            if (r < m && c < n) tile[i][j] = in[r * n + c];
        }
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
#pragma unroll
    for (int y = 0; y < TILE64; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TILE64; x += TILE) {
            int i = threadIdx.y + y, j = threadIdx.x + x;
            size_t out_r = t.c0 + i, out_c = t.r0 + j;
            if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[j][i];
        }
    }
}

static void launch_v5(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, BLOCK_ROWS);
    transpose_v5_ordered<<<tiles(p->m, p->n, TILE64, TILE64), block>>>(p->in, p->out, p->m, p->n);
    CHECK_LAUNCH();
}

// ---- v6 tall ------------------------------------------------------------------------------------

// The tile's shape: 128 rows by 32 columns instead of 64 by 64, the same 4096 elements. Each warp
// now reads 32 floats of an input row (128 bytes) and writes 128 floats of an output row (512
// contiguous bytes, four warps' worth). When m is not a multiple of 8, rows of out do not start
// on a 32-byte sector, and every warp-wide store begins and ends in a sector it shares with
// another store; longer runs mean fewer of those shared with another tile. Writes pay for seams
// more than reads do: a read can fetch a sector twice from L2, a write must merge the parts.
#define TALL_ROWS 128  // 128 x (32 + 1) floats: 16.5 KiB of shared memory a block
#define TALL_COLS 32   // one warp across the tile's width

__global__ void transpose_v6_tall(const float *__restrict__ in, float *__restrict__ out,
                                  size_t m, size_t n) {
    __shared__ float tile[TALL_ROWS][TALL_COLS + 1];
    tile_origin t = block_tile_by_column(m, TALL_ROWS, TALL_COLS);
    size_t c = t.c0 + threadIdx.x;
#pragma unroll
    for (int y = 0; y < TALL_ROWS; y += BLOCK_ROWS) {  // 16 rows a thread, one warp a row
        int i = threadIdx.y + y;
        size_t r = t.r0 + i;
        if (r < m && c < n) tile[i][threadIdx.x] = in[r * n + c];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
#pragma unroll
    for (int y = 0; y < TALL_COLS; y += BLOCK_ROWS) {  // 4 output rows a warp...
#pragma unroll
        for (int x = 0; x < TALL_ROWS; x += TILE) {  // ...each 128 floats long, in 4 pieces
            int i = threadIdx.y + y, j = threadIdx.x + x;
            size_t out_r = t.c0 + i, out_c = t.r0 + j;
            if (out_r < n && out_c < m) out[out_r * m + out_c] = tile[j][i];
        }
    }
}

static void launch_v6(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, BLOCK_ROWS);
    transpose_v6_tall<<<tiles(p->m, p->n, TALL_ROWS, TALL_COLS), block>>>(p->in, p->out, p->m,
                                                                       p->n);
    CHECK_LAUNCH();
}

// ---- v7 staged ----------------------------------------------------------------------------------

// v6's tile and order; what changes is when the loads go out. In v6 each element is guarded by
// one `if` around its load and its shared-memory store, so the compiler must keep every
// element's condition in a predicate register until the store; a thread has seven of them. The
// SASS of v6 (make sass CH=01-transpose) shows the result: the 16 loads go out in batches of
// one to six, each batch stored before the next is loaded. Here each load keeps its own
// condition (an element outside the matrix becomes a 0 that is never written out), so its
// predicate is dead as soon as the load is issued, and all 16 loads go out back to back. The
// shared-memory store is unconditional: a tile slot is always there. The second half gets the
// same treatment: its shared-memory reads are unconditional, only the global stores are guarded.
__global__ void transpose_v7_staged(const float *__restrict__ in, float *__restrict__ out,
                                    size_t m, size_t n) {
    __shared__ float tile[TALL_ROWS][TALL_COLS + 1];
    tile_origin t = block_tile_by_column(m, TALL_ROWS, TALL_COLS);
    float v[TALL_ROWS / BLOCK_ROWS][TALL_COLS / TILE];  // this thread's elements, in flight
#pragma unroll
    for (int y = 0; y < TALL_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TALL_COLS; x += TILE) {
            size_t r = t.r0 + threadIdx.y + y, c = t.c0 + threadIdx.x + x;
            v[y / BLOCK_ROWS][x / TILE] = (r < m && c < n) ? in[r * n + c] : 0.0f;
        }
    }
#pragma unroll
    for (int y = 0; y < TALL_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TALL_COLS; x += TILE)
            tile[threadIdx.y + y][threadIdx.x + x] = v[y / BLOCK_ROWS][x / TILE];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    float w[TALL_COLS / BLOCK_ROWS][TALL_ROWS / TILE];  // this thread's outputs
#pragma unroll
    for (int y = 0; y < TALL_COLS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TALL_ROWS; x += TILE)
            w[y / BLOCK_ROWS][x / TILE] = tile[threadIdx.x + x][threadIdx.y + y];
    }
#pragma unroll
    for (int y = 0; y < TALL_COLS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TALL_ROWS; x += TILE) {
            size_t out_r = t.c0 + threadIdx.y + y, out_c = t.r0 + threadIdx.x + x;
            if (out_r < n && out_c < m) out[out_r * m + out_c] = w[y / BLOCK_ROWS][x / TILE];
        }
    }
}

static void launch_v7(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, BLOCK_ROWS);
    transpose_v7_staged<<<tiles(p->m, p->n, TALL_ROWS, TALL_COLS), block>>>(p->in, p->out, p->m,
                                                                           p->n);
    CHECK_LAUNCH();
}

// ---- v8 wide ------------------------------------------------------------------------------------

// v7 with a tile twice as wide: 128 x 64, 32 elements a thread. Before v7 a bigger tile bought
// little, because the loads went out a few at a time whatever their number; now all 32 are in
// flight at once. Each warp reads 256 contiguous bytes of an input row (two loads) and still
// writes 512 of an output row, and a block moves twice the bytes per barrier.
#define WIDE_COLS 64  // 128 x (64 + 1) floats: 32.5 KiB of shared memory a block

__global__ void transpose_v8_wide(const float *__restrict__ in, float *__restrict__ out,
                                  size_t m, size_t n) {
    __shared__ float tile[TALL_ROWS][WIDE_COLS + 1];
    tile_origin t = block_tile_by_column(m, TALL_ROWS, WIDE_COLS);
    float v[TALL_ROWS / BLOCK_ROWS][WIDE_COLS / TILE];  // this thread's elements, in flight
#pragma unroll
    for (int y = 0; y < TALL_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < WIDE_COLS; x += TILE) {
            size_t r = t.r0 + threadIdx.y + y, c = t.c0 + threadIdx.x + x;
            v[y / BLOCK_ROWS][x / TILE] = (r < m && c < n) ? in[r * n + c] : 0.0f;
        }
    }
#pragma unroll
    for (int y = 0; y < TALL_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < WIDE_COLS; x += TILE)
            tile[threadIdx.y + y][threadIdx.x + x] = v[y / BLOCK_ROWS][x / TILE];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    float w[WIDE_COLS / BLOCK_ROWS][TALL_ROWS / TILE];  // this thread's outputs
#pragma unroll
    for (int y = 0; y < WIDE_COLS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TALL_ROWS; x += TILE)
            w[y / BLOCK_ROWS][x / TILE] = tile[threadIdx.x + x][threadIdx.y + y];
    }
#pragma unroll
    for (int y = 0; y < WIDE_COLS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < TALL_ROWS; x += TILE) {
            size_t out_r = t.c0 + threadIdx.y + y, out_c = t.r0 + threadIdx.x + x;
            if (out_r < n && out_c < m) out[out_r * m + out_c] = w[y / BLOCK_ROWS][x / TILE];
        }
    }
}

static void launch_v8(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, BLOCK_ROWS);
    transpose_v8_wide<<<tiles(p->m, p->n, TALL_ROWS, WIDE_COLS), block>>>(p->in, p->out, p->m,
                                                                         p->n);
    CHECK_LAUNCH();
}

// ---- v9 aligned ---------------------------------------------------------------------------------

// v8, with the output runs cut where the memory cuts them. A 128-float run of an output row starts
// `shift` floats past a 32-byte sector when m is not a multiple of 8. v8 stores it in four
// warp-wide pieces, each of which then begins and ends inside a sector it shares with the next
// piece or a neighbouring tile: five partly written sectors a run, written in eight parts that L2
// merges. v9 starts its pieces on sector boundaries instead: five pieces, the first and last short,
// and only the two ends of the run share a sector (with the neighbouring tiles). The lanes of a
// piece that fall outside the run read a clamped tile slot and store nothing. At sizes that are
// multiples of 8, shift is 0 and the fifth piece stores nothing.
#define SECTOR_FLOATS 8  // 32 bytes: the unit in which L2 and device memory move data

__global__ void transpose_v9_aligned(const float *__restrict__ in, float *__restrict__ out,
                                     size_t m, size_t n) {
    __shared__ float tile[TALL_ROWS][WIDE_COLS + 1];
    tile_origin t = block_tile_by_column(m, TALL_ROWS, WIDE_COLS);
    float v[TALL_ROWS / BLOCK_ROWS][WIDE_COLS / TILE];  // this thread's elements, in flight
#pragma unroll
    for (int y = 0; y < TALL_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < WIDE_COLS; x += TILE) {
            size_t r = t.r0 + threadIdx.y + y, c = t.c0 + threadIdx.x + x;
            v[y / BLOCK_ROWS][x / TILE] = (r < m && c < n) ? in[r * n + c] : 0.0f;
        }
    }
#pragma unroll
    for (int y = 0; y < TALL_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < WIDE_COLS; x += TILE)
            tile[threadIdx.y + y][threadIdx.x + x] = v[y / BLOCK_ROWS][x / TILE];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    // Piece x of a run covers tile rows j = x + lane - shift: x = 0 starts before the run,
    // x = TALL_ROWS ends after it.
    int shift[WIDE_COLS / BLOCK_ROWS];                      // per output row of this warp
    float w[WIDE_COLS / BLOCK_ROWS][TALL_ROWS / TILE + 1];  // this thread's outputs
#pragma unroll
    for (int y = 0; y < WIDE_COLS; y += BLOCK_ROWS) {
        size_t out_r = t.c0 + threadIdx.y + y;
        shift[y / BLOCK_ROWS] = (int)((out_r * m + t.r0) % SECTOR_FLOATS);
#pragma unroll
        for (int x = 0; x <= TALL_ROWS; x += TILE) {
            int j = x + (int)threadIdx.x - shift[y / BLOCK_ROWS];
            w[y / BLOCK_ROWS][x / TILE] = tile[min(max(j, 0), TALL_ROWS - 1)][threadIdx.y + y];
        }
    }
#pragma unroll
    for (int y = 0; y < WIDE_COLS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x <= TALL_ROWS; x += TILE) {
            int j = x + (int)threadIdx.x - shift[y / BLOCK_ROWS];
            size_t out_r = t.c0 + threadIdx.y + y, out_c = t.r0 + j;
            if (j >= 0 && j < TALL_ROWS && out_r < n && out_c < m)
                out[out_r * m + out_c] = w[y / BLOCK_ROWS][x / TILE];
        }
    }
}

static void launch_v9(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, BLOCK_ROWS);
    transpose_v9_aligned<<<tiles(p->m, p->n, TALL_ROWS, WIDE_COLS), block>>>(p->in, p->out, p->m,
                                                                            p->n);
    CHECK_LAUNCH();
}

// ---- v10 fetch256 -------------------------------------------------------------------------------

// v9, with one hint on its loads. At 8191 x 8193 a warp's 128 bytes of a row start inside a sector
// and end inside another, and the rest of those two sectors is asked for by the row's neighbouring
// loads: the same warp's other load, or at the tile's edges a neighbouring block's, at another
// moment. The PTX load `ld.global.nc.L2::256B` asks L2 to fetch 256 bytes along with the sectors
// the warp touched (the prefetch size: a hint, compute capability 8.0 and later), so the next
// piece's sectors are already there or on their way. CUDA C++ has no intrinsic for the hint, so
// load_fetch256 is one line of inline PTX; `.nc` is the read-only path that v9's
// `const __restrict__` loads already take.
__device__ __forceinline__ float load_fetch256(const float *p) {
#if __CUDA_ARCH__ >= 800
    float value;
    asm("ld.global.nc.L2::256B.f32 %0, [%1];" : "=f"(value) : "l"(p));
    return value;
#else
    return __ldg(p);  // the hint needs compute capability 8.0; on Turing v10 is v9
#endif
}

__global__ void transpose_v10_fetch256(const float *__restrict__ in, float *__restrict__ out,
                                       size_t m, size_t n) {
    __shared__ float tile[TALL_ROWS][WIDE_COLS + 1];
    tile_origin t = block_tile_by_column(m, TALL_ROWS, WIDE_COLS);
    float v[TALL_ROWS / BLOCK_ROWS][WIDE_COLS / TILE];  // this thread's elements, in flight
#pragma unroll
    for (int y = 0; y < TALL_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < WIDE_COLS; x += TILE) {
            size_t r = t.r0 + threadIdx.y + y, c = t.c0 + threadIdx.x + x;
            v[y / BLOCK_ROWS][x / TILE] = (r < m && c < n) ? load_fetch256(&in[r * n + c]) : 0.0f;
        }
    }
#pragma unroll
    for (int y = 0; y < TALL_ROWS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x < WIDE_COLS; x += TILE)
            tile[threadIdx.y + y][threadIdx.x + x] = v[y / BLOCK_ROWS][x / TILE];
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a column of it
    // Piece x of a run covers tile rows j = x + lane - shift: x = 0 starts before the run,
    // x = TALL_ROWS ends after it.
    int shift[WIDE_COLS / BLOCK_ROWS];                      // per output row of this warp
    float w[WIDE_COLS / BLOCK_ROWS][TALL_ROWS / TILE + 1];  // this thread's outputs
#pragma unroll
    for (int y = 0; y < WIDE_COLS; y += BLOCK_ROWS) {
        size_t out_r = t.c0 + threadIdx.y + y;
        shift[y / BLOCK_ROWS] = (int)((out_r * m + t.r0) % SECTOR_FLOATS);
#pragma unroll
        for (int x = 0; x <= TALL_ROWS; x += TILE) {
            int j = x + (int)threadIdx.x - shift[y / BLOCK_ROWS];
            w[y / BLOCK_ROWS][x / TILE] = tile[min(max(j, 0), TALL_ROWS - 1)][threadIdx.y + y];
        }
    }
#pragma unroll
    for (int y = 0; y < WIDE_COLS; y += BLOCK_ROWS) {
#pragma unroll
        for (int x = 0; x <= TALL_ROWS; x += TILE) {
            int j = x + (int)threadIdx.x - shift[y / BLOCK_ROWS];
            size_t out_r = t.c0 + threadIdx.y + y, out_c = t.r0 + j;
            if (j >= 0 && j < TALL_ROWS && out_r < n && out_c < m)
                out[out_r * m + out_c] = w[y / BLOCK_ROWS][x / TILE];
        }
    }
}

static void launch_v10(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    dim3 block(TILE, BLOCK_ROWS);
    transpose_v10_fetch256<<<tiles(p->m, p->n, TALL_ROWS, WIDE_COLS), block>>>(p->in, p->out,
                                                                              p->m, p->n);
    CHECK_LAUNCH();
}

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"memcpy", "cudaMemcpy", launch_memcpy, KL_BASELINE},
    {"copy", "copy-kernel", launch_copy, KL_BASELINE},
    {"v0", "naive", launch_v0, 0},
    {"v1", "tiled", launch_v1, 0},
    {"v2", "padded", launch_v2, 0},
    {"v3", "coarsened", launch_v3, 0},
    {"v4", "tile64", launch_v4, 0},
    {"v5", "ordered", launch_v5, 0},
    {"v6", "tall", launch_v6, 0},
    {"v7", "staged", launch_v7, 0},
    {"v8", "wide", launch_v8, 0},
    {"v9", "aligned", launch_v9, 0},
    {"v10", "fetch256", launch_v10, 0},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// ---- checking and saving ------------------------------------------------------------------------

// Baselines copy, so they must reproduce the input; versions must reproduce the reference.
// Nothing is computed, so both comparisons are exact (tolerance 0).
static void transpose_check(void *problem, const version *v, check_result *r) {
    transpose_problem *p = (transpose_problem *)problem;
    int is_copy = (v->flags & KL_BASELINE) != 0;
    CHECK(cudaMemcpy(p->host_out, p->out, p->m * p->n * sizeof(float), cudaMemcpyDeviceToHost));
    if (is_copy) check_f32(r, p->host_out, p->host_in, p->m, p->n, 0, 0.0, 0.0);
    else check_f32(r, p->host_out, p->want, p->n, p->m, 0, 0.0, 0.0);
}

static void transpose_save(void *problem, const char *dir, const char *tag) {
    transpose_problem *p = (transpose_problem *)problem;
    int is_copy = strcmp(tag, "memcpy") == 0 || strcmp(tag, "copy") == 0;
    size_t shape[2] = {is_copy ? p->m : p->n, is_copy ? p->n : p->m};
    if (npy_save(dir, tag, "<f4", shape, 2, p->host_out) != 0) exit(KL_EXIT_USAGE);
}

// ---- the self-test of the CPU reference (no GPU) -----------------------------------------------

static int transpose_self_test(void) {
    int failed = 0;
    // a 2 x 3 example worked by hand
    const float in[6] = {1, 2, 3, 4, 5, 6};
    const float want[6] = {1, 4, 2, 5, 3, 6};
    float out[6];
    transpose_cpu(in, out, 2, 3, NULL);
    int ok = memcmp(out, want, sizeof want) == 0;
    printf("%s transpose_cpu: 2 x 3 by hand\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    // transposing twice gives the input back, at odd shapes
    const size_t shapes[][2] = {{1, 1}, {1, 7}, {7, 1}, {3, 5}, {33, 31}, {64, 65}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t m = shapes[s][0], n = shapes[s][1];
        float *a = (float *)host_alloc(m * n * sizeof(float), "self-test");
        float *b = (float *)host_alloc(m * n * sizeof(float), "self-test");
        float *c = (float *)host_alloc(m * n * sizeof(float), "self-test");
        rng g;
        rng_init(&g, 7 + s);
        rng_fill_f32(&g, a, m * n, -1.0f, 1.0f);
        transpose_cpu(a, b, m, n, NULL);
        transpose_cpu(b, c, n, m, NULL);
        ok = memcmp(a, c, m * n * sizeof(float)) == 0;
        printf("%s transpose_cpu: twice is identity at %zu x %zu\n", ok ? "PASS" : "FAIL", m, n);
        failed += !ok;
        free(a), free(b), free(c);
    }
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ---- main ---------------------------------------------------------------------------------------

int main(int argc, char **argv) {
    options o = {};
    o.program = "transpose";
    o.chapter = "01-transpose";
    o.sizes = "mn";
    o.m_means = "rows of the input";
    o.n_means = "columns of the input";
    o.m = DEFAULT_M, o.n = DEFAULT_N, o.k = 1;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return transpose_self_test();

    env_info env;
    gpu_open(&env);
    bench_header(&o, &env);

    transpose_problem p = {};
    p.m = o.m, p.n = o.n;
    size_t bytes = size_mul(size_mul(p.m, p.n), sizeof(float));
    gpu_require(size_mul(bytes, 2), "the input and output matrices");
    p.in = (const float *)gpu_alloc(bytes, "the input matrix");
    p.out = (float *)gpu_alloc(bytes, "the output matrix");
    p.host_in = (float *)host_alloc(bytes, "the input");
    p.host_out = (float *)host_alloc(bytes, "the results");
    p.want = (float *)host_alloc(bytes, "the reference");

    rng g;
    rng_init(&g, o.seed);
    rng_fill_f32(&g, p.host_in, p.m * p.n, -1.0f, 1.0f);
    CHECK(cudaMemcpy((void *)p.in, p.host_in, bytes, cudaMemcpyHostToDevice));
    progress pr;
    progress_begin(&pr, "the CPU reference", (double)p.m);
    transpose_cpu(p.host_in, p.want, p.m, p.n, &pr);
    progress_end(&pr);
    if (o.save) {
        size_t shape[2] = {p.m, p.n};
        if (npy_save(o.save, "in", "<f4", shape, 2, p.host_in) != 0) return KL_EXIT_USAGE;
    }

    bench b = {};
    b.problem = &p;
    b.out = p.out;
    b.out_bytes = bytes;
    b.inputs[0] = p.in, b.input_bytes[0] = bytes;  // no version may write it (--check-each)
    b.bytes = 2.0 * (double)bytes;  // every element read once and written once
    b.check = transpose_check;
    b.save = transpose_save;
    int rc = bench_run(&o, &env, &b, versions, selected, VERSION_COUNT);

    CHECK(cudaFree((void *)p.in));
    CHECK(cudaFree(p.out));
    free(p.host_in), free(p.host_out), free(p.want);
    return rc;
}
