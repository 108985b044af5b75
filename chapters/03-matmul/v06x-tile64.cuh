// ---- v6-tile64 (what v6's larger tile adds to its register blocking) ----------------------------
// v6 makes two changes to v5 that only go together at full size: each thread an 8 x 8 block of
// results, and the 128 x 128 tile (v5's one result column a thread on that tile would need 2048
// threads a block, twice the limit). This row runs v6's kernel on v5's 64 x 64 tile, so that the
// register blocking is measured alone: 64 threads a block, each copying 8 elements of A and 8 of
// B a tile, and a value copied into shared memory serving 64 FMAs, as in v5 (v6: 128).
static void launch_v6_tile64(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int BM = 64;  // v5's tile
    constexpr int BN = 64;
    constexpr int BK = 8;   // v5's and v6's depth
    constexpr int TM = 8;   // v6's block of results a thread
#ifdef MATMUL_FP64  // as v6: 8 x 4 doubles a thread, and the kk steps one at a time
    constexpr int TN = 4, UNROLL = 1;
#else
    constexpr int TN = 8, UNROLL = BK;
#endif
    constexpr int THREADS = BM / TM * BN / TN;  // 64 (FP64: 128)
    static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0, "tiles split evenly");
    matmul_v6_regblock<BM, BN, BK, TM, TN, UNROLL><<<tiles(p->m, p->n, BM, BN), THREADS>>>(
        p->a, p->b, p->c, p->m, p->n, p->k);
    CHECK_LAUNCH();
}
