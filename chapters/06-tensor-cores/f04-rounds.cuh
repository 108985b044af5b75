// ---- f4 rounds ----------------------------------------------------------------------------------
// f3's kernel on a tile chosen for whole rounds. f3 launches one cluster of two blocks for every
// two SMs, and a cluster takes every 66th pair of tiles: a run lasts as many rounds as the busiest
// cluster has pairs. At 4096^3 f3's 128 x 192 tiles make 352 pairs, 5 1/3 rounds of 66 clusters, so
// the last round keeps a third of the SMs busy and two thirds idle. A tile of 128 x 176 makes 16 x
// 24 = 384 pairs there, 5.8 rounds: one round more than 5, as before, but each round does 11/12 of
// the work, so the run takes 11/12 of f3's time by the rounds alone. At 8192^3 the two tiles fill
// their rounds about equally (1,376 pairs, 20.8 rounds, against 1,504, 22.8). The kernel is f3's;
// each thread holds 88 accumulators and 88 sums (a 64 x 176 wgmma), and a stage is 38 KB.

static void launch_f4(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    make_maps_fp8(p);
    // a 128 x 176 tile in four stages of 38 KB (152 KB); each block copies 88 rows of B
    launch_pairs_fp8<128, 176, 4>(p, p->map_b88);
}
