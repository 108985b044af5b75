// ---- v5 granular --------------------------------------------------------------------------------

// Each thread now computes TM results down one column instead of one. Per kk it loads one B
// value and reuses it for TM FMAs, and the A values are broadcasts shared by the warp: as
// written, shared loads per FMA drop from 2 to 1 + 1/TM (the compiler merges A's loads into
// 16-byte ones, in v4 too: the SASS counts are in plots/evidence/sm_90/03-matmul-sass.csv).
// The tile changes with it, and that is a second change: 64 x 64 results, GRAN_BK deep, for
// 512 threads (v4: 32 x 32, 32 deep, 1024 threads), sized so that each thread still copies
// one element of A and one of B a tile. The larger tile halves the global loads per FMA. The
// cost: TM accumulators and a 64 x 64 tile take more registers and shared memory per block,
// so fewer blocks fit an SM.
#define GRAN_BM 64   // tile rows
#define GRAN_BN 64   // tile columns: two warps across
#define GRAN_BK 8    // tile depth: a 64 x 8 tile of A is one element per thread
#define TM 8         // results per thread, down a column
#define GRAN_THREADS (GRAN_BM * GRAN_BN / TM)  // 512
static_assert(GRAN_BM * GRAN_BK == GRAN_THREADS, "one element of the A tile per thread");
static_assert(GRAN_BK * GRAN_BN == GRAN_THREADS, "one element of the B tile per thread");

__global__ void __launch_bounds__(GRAN_THREADS, 1)
matmul_v5_granular(const real *a, const real *b, real *c, size_t m, size_t n, size_t k) {
    __shared__ real as[GRAN_BM][GRAN_BK];  // as[row][kk]
    __shared__ real bs[GRAN_BK][GRAN_BN];  // bs[kk][col]
    tile_origin t = block_tile(n, GRAN_BM, GRAN_BN);
    int tid = threadIdx.x;
    int col = tid % GRAN_BN, row0 = tid / GRAN_BN * TM;  // a warp: 32 columns, the same rows
    // Loading: a warp reads 4 rows x 32 bytes of A and 128 contiguous bytes of B.
    int a_r = tid / GRAN_BK, a_c = tid % GRAN_BK, b_r = tid / GRAN_BN, b_c = tid % GRAN_BN;
    real a_next = load_or_zero(a, t.r0 + a_r, a_c, m, k);
    real b_next = load_or_zero(b, b_r, t.c0 + b_c, k, n);
    real acc[TM] = {};
    for (size_t k0 = 0; k0 < k; k0 += GRAN_BK) {
        as[a_r][a_c] = a_next;
        bs[b_r][b_c] = b_next;
        __syncthreads();  // both tiles are complete before anyone reads them
        a_next = load_or_zero(a, t.r0 + a_r, k0 + GRAN_BK + a_c, m, k);
        b_next = load_or_zero(b, k0 + GRAN_BK + b_r, t.c0 + b_c, k, n);
#pragma unroll
        for (int kk = 0; kk < GRAN_BK; kk++) {
            real bv = bs[kk][col];  // one load, TM uses
#pragma unroll
            for (int i = 0; i < TM; i++) acc[i] += as[row0 + i][kk] * bv;
        }
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
    size_t cc = t.c0 + col;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        size_t r = t.r0 + row0 + i;
        if (r < m && cc < n) c[r * n + cc] = acc[i];
    }
}

static void launch_v5(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    matmul_v5_granular<<<tiles(p->m, p->n, GRAN_BM, GRAN_BN), GRAN_THREADS>>>(p->a, p->b, p->c,
                                                                             p->m, p->n, p->k);
    CHECK_LAUNCH();
}
