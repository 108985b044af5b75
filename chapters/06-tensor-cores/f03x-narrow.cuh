// ---- f3-narrow (an experiment on f3): its kernel on f1's 128 x 128 tile -------------------------
// f2's wider tile gains at 8192^3 and not at 4096^3, where its 704 tiles make 5 1/3 rounds of 132
// (README). 128 x 128 tiles make 1,024 there, 7.8 rounds: the last round nearly full. In f3's
// clusters the narrow tile also reads less from L2 than f1 did: 24 KB a stage instead of 32
// (its 128 rows of A and half of 128 rows of B). The kernel is f3's, launched on f1's tile.

static void launch_f3_narrow(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    make_maps_fp8(p);
    // f1's tile, 128 x 128, in four stages of 32 KB (128 KB); each block copies 64 rows of B
    launch_pairs_fp8<128, 128, 4>(p, p->map_b64);
}
