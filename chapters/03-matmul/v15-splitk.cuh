// ---- v15 splitk ---------------------------------------------------------------------------------

// Even v14's tiles are too few when m and n are small: 512^3 makes 32 of them for the 396 block
// slots of an H200 (three an SM). But each result is a sum over k, and a sum can be cut: v15 splits
// every tile's k steps into s equal runs, one block each, so tiles x s blocks share the work
// ("split-K"). It is v13's kernel on v14's tile, with a plan in which (for s above 1) every tile is
// cut and none is whole: each run leaves its partial sums in a plane of scratch memory, and the
// last of a tile's blocks to arrive adds the planes in the order of k and writes C. We add them
// there, in the same launch, rather than in a second kernel (no second launch; the planes are still
// in L2), and not with atomicAdd into C: the order of the additions, and so the rounding, would
// change from run to run, and C would have to be zeroed first, one more pass over it.
// s is the largest that keeps all the blocks in one wave (tiles x s <= the blocks the GPU runs
// at once) with runs of at least SPLITK_MIN_STEPS k steps, so that what a cut costs (partial
// sums through memory, the last block's additions) stays small next to the run's work. When
// the tiles alone fill the GPU, s = 1 and v15 runs every tile whole, on v14's tile but in
// v13's kernel: not v14's compiled code, and not always at v14's speed (where n is not a
// multiple of 4 it is faster; the README's sweep).
#define SPLITK_MIN_STEPS 8

static size_t split_factor(unsigned tile_count, unsigned wave, size_t k_tiles,
                           unsigned min_steps) {
    size_t s = tile_count >= wave ? 1 : wave / tile_count;
    return min(s, max(k_tiles / min_steps, (size_t)1));
}

template <class S>
static void splitk_plan(piece_plan *plan, const matmul_problem *p, unsigned wave,
                        unsigned min_steps) {
    unsigned tile_count = tiles(p->m, p->n, S::bm, S::bn);
    size_t k_tiles = ceil_div(p->k, S::bk);
    size_t s = split_factor(tile_count, wave, k_tiles, min_steps);
    plan->whole = s == 1 ? tile_count : 0;
    if (s == 1) return;
    streamk_piece *piece = (streamk_piece *)host_alloc(tile_count * s * sizeof *piece,
                                                       "v15's plan");
    unsigned count = 0;
    for (unsigned t = 0; t < tile_count; t++)
        for (size_t q = 0; q < s; q++) {
            size_t begin = q * k_tiles / s, end = (q + 1) * k_tiles / s;
            piece[count++] = {t, (unsigned)begin, (unsigned)(end - begin), (unsigned)q, (unsigned)s};
        }
    plan_upload<S>(plan, p, piece, count, (unsigned)s, tile_count);
    free(piece);
}

static void launch_v15(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    if (!p->splitk.made) {
        splitk_plan<smalltile_shape>(&p->splitk, p, pieces_wave<smalltile_shape>(),
                                     SPLITK_MIN_STEPS);
        p->splitk.made = true;
    }
    launch_pieces<smalltile_shape>(p, &p->splitk);
}
