// ---- v7 wide ------------------------------------------------------------------------------------
// The registers setmaxnreg freed pay for a wider tile: 128 x 256, each consumer a 64 x 256
// wgmma with 128 accumulators a thread. A stage of B now covers 256 columns of C, and a stage of
// A serves twice as many columns as before: 48 KB a stage instead of 32 feed twice the
// multiplies, a third more for each byte loaded (still four stages: 192 KB, one block an SM).

static void launch_v7(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 256;  // two consumer warpgroups, each 64 rows by a 64 x 256 wgmma
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int STAGES = 4;          // four stages of 48 KB: 192 KB, one block an SM
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    auto kernel = tc_v6_specialized<BM, BN, BK, STAGES>;  // v6's kernel, 128 x 256
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps(p, BM, BK);
    kernel<<<tiles(p->m, p->n, BM, BN), 3 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b256, p->c,
                                                                       p->m, p->n, p->k);
}
