// ---- f5 fit -------------------------------------------------------------------------------------
// f3's kernel, which f4 launches too, on a wider tile: 128 x 208. Each thread now holds 104
// accumulators and 104 sums (a 64 x 208 wgmma), which still fit the 232 registers a consumer has,
// and a stage is 42 KB. Two things follow from the width. A stage of 128 values of k feeds 208
// columns where f4's fed 176 for nearly the same bytes from L2 (A's 128 rows, 16 KB, are the same;
// half of B grows from 11 to 13 KB): fewer bytes from L2 for each product. And the tiles fit 4096
// better: 4096 = 19 x 208 + 144, so the twentieth column of tiles does 144/208 of a tile's work
// where f4's twenty-fourth did 48/176, and 16 x 20 = 320 pairs make 4.85 rounds of 66 clusters, the
// last round nearly full. At 8192^3: 40 columns (the last 80/208 full), 19.4 rounds.

static void launch_f5(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    make_maps_fp8(p);
    // a 128 x 208 tile in four stages of 42 KB (168 KB); each block copies 104 rows of B
    launch_pairs_fp8<128, 208, 4>(p, p->map_b104);
}
