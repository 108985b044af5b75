// ---- v15 splitk ---------------------------------------------------------------------------------
// Even v14's tiles are too few when m and n are small (512^3: 32 of them for 396 block slots), but
// each result is a sum over k, and a sum can be cut: v15 splits every tile's k steps into s equal
// runs, one block each ("split-K"). It is v13's kernel on v14's tile, with a plan in which every
// tile is cut; the last of a tile's blocks adds the planes of partial sums in the order of k and
// writes C, in the same launch (no second kernel; no atomicAdd, whose rounding would vary).

// v15's s for tile_count tiles of k_tiles k steps, `wave` blocks at once: the largest that keeps
// all the blocks in one wave (tiles x s <= wave) with runs of at least MIN_STEPS k steps, so that
// what a cut costs (partial sums through memory, the last block's additions) stays small next to
// a run's work. When the tiles alone fill the GPU, s = 1: every tile whole, in v13's kernel.
static size_t split_factor(unsigned tile_count, unsigned wave, size_t k_tiles) {
    constexpr unsigned MIN_STEPS = 8;
    size_t s = tile_count >= wave ? 1 : wave / tile_count;
    return min(s, max(k_tiles / MIN_STEPS, (size_t)1));
}

template <class S>
static void splitk_plan(piece_plan *plan, const matmul_problem *p, unsigned wave) {
    unsigned tile_count = tiles(p->m, p->n, S::bm, S::bn);
    size_t k_tiles = ceil_div(p->k, S::bk);
    size_t s = split_factor(tile_count, wave, k_tiles);
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

// v14's tile (smalltile_shape) in v13's pieces kernel.
static void launch_v15(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    if (!p->splitk.made) {
        splitk_plan<smalltile_shape>(&p->splitk, p, pieces_wave<smalltile_shape>());
        p->splitk.made = true;
    }
    launch_pieces<smalltile_shape>(p, &p->splitk);
}
