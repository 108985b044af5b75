// ---- f6 unpaired --------------------------------------------------------------------------------
// f5's tile without f3's clusters: f2's kernel, each block on its own tile, copying all of its B.
// The pairs halve the B each block copies (f5 reads 29 KB from L2 a stage, f6 42), but they tie
// each stage to two blocks: it is refilled only when the consumers of both are done with it, so
// a stall in either block holds up the other. At 4096^3 the pairs bought f3 no time over f2
// (README), so f6 takes them away again, on f5's tile. The launcher is f2's with 208 for 192.

static void launch_f6(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    constexpr int BM = 128, BN = 208;  // f5's tile: 104 accumulators and 104 sums a thread
    constexpr int STAGES = 4;          // four stages of 42 KB: 168 KB, one block an SM
    typedef fp8_ring<BM, BN, STAGES> ring;
    auto kernel = tc_f2_wide<BM, BN, STAGES>;
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps_fp8(p);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b208, p->c, p->m, p->n, p->k,
                                                 p->scale);
}
