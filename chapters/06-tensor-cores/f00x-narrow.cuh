// ---- f0-narrow (what f1's narrower tile costs f0) -----------------------------------------------
// An experiment: f0's kernel on f1's 128 x 128 tile, unpromoted. f1 needs that narrower tile to
// hold its second set of sums (see f01-promoted.cuh), so f0 -> f0-narrow measures what the tile
// costs and f0-narrow -> f1 what promotion costs.

static void launch_f0_narrow(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    constexpr int BM = 128, BN = 128;  // f1's tile: two consumer warpgroups of 64 x 128
    constexpr int STAGES = 4;          // four stages of 32 KB: 128 KB, one block an SM, as f1
    typedef fp8_ring<BM, BN, STAGES> ring;
    auto kernel = tc_f0_e4m3<BM, BN, STAGES>;  // f0's kernel, 128 x 128
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps_fp8(p);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b128, p->c, p->m, p->n, p->k,
                                                 p->scale);
}
