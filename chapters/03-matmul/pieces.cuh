// ---- pieces of tiles, and the kernel that runs them (v13 on) ------------------------------------
// v13, v15 and v18's strip hand out the work as whole tiles and pieces of tiles, each piece one
// block that runs part of a tile's k steps (a plan on the device says which).
//
// A tile cut into pieces is finished by the last of its blocks to arrive: piece q writes its
// partial sums into plane q of a scratch buffer laid out like C and counts itself in; the last one
// adds the planes in the order of k, so the sums do not depend on who came last, and writes C.
// Two choices are about the compiler, not the idea: the main loop is a copy of v12's rather than
// a function both call (moved into one, v12's own registers came out differently), and the
// planes have C's row length, so that storing a piece's sums is the same code as storing a tile
// (with a layout of their own, the main loop was scheduled differently and ran slower).

struct streamk_piece {
    unsigned tile;         // the tile, numbered as in block_tile
    unsigned kt0, steps;   // k steps kt0 .. kt0 + steps - 1 of it
    unsigned part, parts;  // piece `part` (in the order of k) of the tile's `parts`
};

// Where the shared tiles meet: planes of partial sums, each holding C's rows from row0 on,
// one after the other, and for shared tile whole + i the count of its pieces done so far.
struct streamk_scratch {
    real *sums;
    size_t row0;
    unsigned *arrived;
};

template <class S, bool VB, bool VC>
__global__ void __launch_bounds__(S::threads, S::min_blocks)
matmul_v13_streamk(const real *__restrict__ a, const real *__restrict__ b, real *__restrict__ c,
                   size_t m, size_t n, size_t k, size_t ldb, size_t ldc, unsigned whole,
                   const streamk_piece *__restrict__ pieces, streamk_scratch scratch) {
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    real *ring = (real *)smem_bytes;  // stages x (A tile bk x (bm + pad), B tile bk x bn)
    constexpr int LANES_M = S::lanes_m, LANES_N = S::lanes_n, PIECE = S::piece;
    // Blocks 0 .. whole - 1 take whole tiles, as in v12; the others take pieces.
    size_t tile = blockIdx.x, kt0 = 0, k_tiles = (k + S::bk - 1) / S::bk;
    if (blockIdx.x >= whole) {
        streamk_piece piece = pieces[blockIdx.x - whole];
        tile = piece.tile, kt0 = piece.kt0, k_tiles = piece.steps;
    }
    tile_origin t = tile_at(tile, n, S::bm, S::bn);
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int row0 = warp / (S::bn / S::wn) * S::wm + lane / LANES_N * PIECE;
    int col0 = warp % (S::bn / S::wn) * S::wn + lane % LANES_N * PIECE;
    // From here to the end of the main loop: v12, with k steps kt0 .. kt0 + k_tiles - 1.
#pragma unroll
    for (int s = 0; s < S::stages - 1; s++) {
        if ((size_t)s < k_tiles)
            copy_tile<S, VB>(ring + s * S::stage_elems, a, b, t, (kt0 + s) * S::bk, m, n, k, ldb);
        copy_commit();
    }
    real acc[S::tm][S::tn] = {};
    for (size_t kt = 0; kt < k_tiles; kt++) {
        copy_wait<S::stages - 2>();
        __syncthreads();
        size_t next = kt + S::stages - 1;
        if (next < k_tiles)
            copy_tile<S, VB>(ring + next % S::stages * S::stage_elems, a, b, t,
                             (kt0 + next) * S::bk, m, n, k, ldb);
        copy_commit();
        const real *as = ring + kt % S::stages * S::stage_elems;
        const real *bs = as + S::bk * S::a_stride;
#pragma unroll
        for (int kk = 0; kk < S::bk; kk++) {
            real af[S::tm], bf[S::tn];
#pragma unroll
            for (int p = 0; p < S::tm / PIECE; p++)
                load_frag<PIECE>(&af[p * PIECE], &as[kk * S::a_stride + row0 + p * LANES_M * PIECE]);
#pragma unroll
            for (int p = 0; p < S::tn / PIECE; p++)
                load_frag<PIECE>(&bf[p * PIECE], &bs[kk * S::bn + col0 + p * LANES_N * PIECE]);
#pragma unroll
            for (int i = 0; i < S::tm; i++)
#pragma unroll
                for (int jj = 0; jj < S::tn; jj++) {
                    int j = S::order::column(i, jj, S::tn);
                    acc[i][j] += af[i] * bf[j];
                }
        }
    }
    // A whole tile goes to C; a piece of a shared tile to its plane, at the same place.
    bool shared = blockIdx.x >= whole && pieces[blockIdx.x - whole].parts > 1;
    real *dst = c;
    size_t rows = m, ld = ldc;
    if (shared) {  // the planes' rows are n long
        rows = m - scratch.row0, ld = n;
        dst = scratch.sums + pieces[blockIdx.x - whole].part * (rows * n);
        t.r0 -= scratch.row0;
    }
#pragma unroll
    for (int i = 0; i < S::tm; i++) {
        size_t r = t.r0 + row0 + i / PIECE * (LANES_M * PIECE) + i % PIECE;
#pragma unroll
        for (int p = 0; p < S::tn / PIECE; p++)
            store_row<VC, PIECE>(dst, &acc[i][p * PIECE], r, t.c0 + col0 + p * (LANES_N * PIECE),
                                 rows, n, ld);
    }
    if (!shared) return;
    streamk_piece piece = pieces[blockIdx.x - whole];
    __threadfence();  // our sums are visible to the whole GPU...
    __syncthreads();  // ...all of them, before thread 0 counts the block in
    unsigned *count = &scratch.arrived[piece.tile - whole];
    if (!__syncthreads_or(tid == 0 && atomicAdd(count, 1u) == piece.parts - 1)) return;
    __threadfence();  // we are the last to arrive: the others' sums are visible to us too
    if (tid == 0) *count = 0;  // ready for the next launch
    // Add the planes in the order of k, ours included, so that the sums are the same whoever
    // is last, and write them to C: FIX_ROWS rows of our results at a time, the loads from a
    // plane all in flight together (half as many rows where the threads have no registers to
    // spare: blocks that share an SM, and rows of C that are not 16-byte aligned).
    constexpr int FIX_ROWS = S::min_blocks > 1 || !VC ? PIECE : 2 * PIECE;
#pragma unroll 1
    for (int i0 = 0; i0 < S::tm; i0 += FIX_ROWS) {
        real sum[FIX_ROWS][S::tn];
        for (unsigned q = 0; q < piece.parts; q++) {
            const real *plane = scratch.sums + q * (rows * n);
#pragma unroll
            for (int ii = 0; ii < FIX_ROWS; ii++) {
                int i = i0 + ii;
                size_t r = t.r0 + row0 + i / PIECE * (LANES_M * PIECE) + i % PIECE;
#pragma unroll
                for (int p = 0; p < S::tn / PIECE; p++) {
                    real v[PIECE];
                    load_row<VC, PIECE>(v, plane, r, t.c0 + col0 + p * (LANES_N * PIECE), rows, n);
#pragma unroll
                    for (int x = 0; x < PIECE; x++)
                        sum[ii][p * PIECE + x] = q == 0 ? v[x] : sum[ii][p * PIECE + x] + v[x];
                }
            }
        }
#pragma unroll
        for (int ii = 0; ii < FIX_ROWS; ii++) {
            int i = i0 + ii;
            size_t r = scratch.row0 + t.r0 + row0 + i / PIECE * (LANES_M * PIECE) + i % PIECE;
#pragma unroll
            for (int p = 0; p < S::tn / PIECE; p++)
                store_row<VC, PIECE>(c, &sum[ii][p * PIECE], r, t.c0 + col0 + p * (LANES_N * PIECE),
                                     m, n, ldc);
        }
    }
}

// Puts a plan's `count` pieces on the device, with `planes` planes of scratch for partial sums
// (C's rows from the first cut tile's on) and a counter for each of the `cut` tiles from
// plan->whole on.
template <class S>
static void plan_upload(piece_plan *plan, const matmul_problem *p, const streamk_piece *piece,
                        unsigned count, unsigned planes, unsigned cut) {
    plan->pieces = count;
    if (count == 0) return;
    plan->row0 = plan->whole / ceil_div(p->n, S::bn) * S::bm;
    size_t plane_bytes = size_mul(size_mul(p->m - plan->row0, p->n), sizeof(real));
    plan->piece = (streamk_piece *)gpu_alloc(count * sizeof *piece, "the plan's pieces");
    CHECK(cudaMemcpy(plan->piece, piece, count * sizeof *piece, cudaMemcpyHostToDevice));
    plan->sums = (real *)gpu_alloc(size_mul(planes, plane_bytes), "the plan's partial sums");
    plan->arrived = (unsigned *)gpu_alloc(cut * sizeof(unsigned), "the plan's counters");
    CHECK(cudaMemset(plan->arrived, 0, cut * sizeof(unsigned)));
}

template <class S, bool VB, bool VC>
static void launch_pieces_kernel(const matmul_problem *p, const piece_plan *plan) {
    static bool ready = false;  // shared memory beyond 48 KiB must be asked for, once
    if (!ready) {
        CHECK(cudaFuncSetAttribute(matmul_v13_streamk<S, VB, VC>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::smem));
        ready = true;
    }
    matmul_v13_streamk<S, VB, VC><<<plan->whole + plan->pieces, S::threads, S::smem>>>(
        p->a, p->b, p->c, p->m, p->n, p->k, p->ldb, p->ldc, plan->whole, plan->piece,
        streamk_scratch{plan->sums, plan->row0, plan->arrived});
}

// How many blocks of `kernel`, with shape S's threads and shared memory, the whole GPU runs at
// once: blocks an SM (from the registers the compiler took) times the SMs.
template <class S, class Kernel>
static unsigned blocks_at_once(Kernel kernel) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::smem));
    int per_sm = 0, device = 0, sms = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::threads, S::smem));
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return (unsigned)(per_sm * sms);
}

// The same for the pieces kernel, asked once.
template <class S>
static unsigned pieces_wave() {
    static unsigned wave = 0;
    if (wave == 0) wave = blocks_at_once<S>(matmul_v13_streamk<S, true, true>);
    return wave;
}

template <class S>
static void launch_pieces(const matmul_problem *p, const piece_plan *plan) {
    if (p->ldb % VEC == 0 && p->ldc % VEC == 0) launch_pieces_kernel<S, true, true>(p, plan);
    else if (p->ldb % VEC == 0) launch_pieces_kernel<S, true, false>(p, plan);
    else launch_pieces_kernel<S, false, false>(p, plan);
    CHECK_LAUNCH();
}
