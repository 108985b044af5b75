// ---- v13 streamk --------------------------------------------------------------------------------
// v12's tile and main loop; what changes is how the work is handed out. Full waves of tiles run
// whole, as before, and the k steps of the last, partial wave's tiles are cut into equal runs,
// one for each block of a wave ("Stream-K", Osama et al., 2023), so that no SM idles through that
// wave. A run that crosses from one tile into the next is two pieces, each one block; the pieces
// are launched after the whole tiles, longest first. The pieces kernel is in pieces.cuh, which
// v15 and v18 share; this file is v13's plan.

// Longest piece first; equal ones in the order of the tiles and of k.
static int longer_piece_first(const void *x, const void *y) {
    const streamk_piece *p = (const streamk_piece *)x, *q = (const streamk_piece *)y;
    if (p->steps != q->steps) return p->steps > q->steps ? -1 : 1;
    if (p->tile != q->tile) return p->tile < q->tile ? -1 : 1;
    return p->part < q->part ? -1 : p->part > q->part;
}

// Whether v13 cuts the last wave, `last` tiles of k_tiles k steps for `wave` blocks at once.
// Cutting has a cost of its own, paid in k steps' worth of time on each SM: pieces start and end
// twice, and partial sums go through memory. The last wave is cut only when the SMs it leaves
// idle would otherwise waste more: at least MIN_GAIN k steps on average over all the SMs.
static bool streamk_cuts(size_t wave, size_t last, size_t k_tiles) {
    constexpr int MIN_GAIN = 16;  // above that cost in scratch runs at 2048^3 (not committed)
    return (wave - last) * k_tiles / wave >= MIN_GAIN;
}

// Into how many runs v13 cuts the k steps of the last wave's tiles: one a block of the wave,
// and a tile's k steps into MAX_SHARE runs at most.
static size_t streamk_runs(size_t wave, size_t last) {
    constexpr int MAX_SHARE = 4;  // a tile's k steps are cut into at most this many runs
    return min(wave, last * MAX_SHARE);
}

// v13's plan, for `wave` blocks at once: the last tile_count % wave tiles are cut into pieces.
template <class S>
static void streamk_plan(piece_plan *plan, const matmul_problem *p, unsigned wave) {
    unsigned tile_count = tiles(p->m, p->n, S::bm, S::bn);
    size_t k_tiles = ceil_div(p->k, S::bk);
    size_t last = tile_count % wave;  // R
    if (!streamk_cuts(wave, last, k_tiles)) last = 0;  // not worth cutting
    plan->whole = tile_count - (unsigned)last;
    size_t steps = last * k_tiles;
    size_t runs = min(streamk_runs(wave, last), steps);  // G
    // Every run is one piece, or two where it crosses into the next tile: at most G + R.
    streamk_piece *piece = (streamk_piece *)host_alloc((runs + last + 1) * sizeof *piece,
                                                       "v13's plan");
    unsigned count = 0, planes = 1;
    for (size_t g = 0; g < runs; g++) {
        size_t begin = g * steps / runs, end = (g + 1) * steps / runs;
        for (size_t x = begin; x < end;) {
            size_t tile = x / k_tiles, stop = min(end, (tile + 1) * k_tiles);
            bool same_tile = count > 0 && piece[count - 1].tile == plan->whole + tile;
            streamk_piece q = {plan->whole + (unsigned)tile, (unsigned)(x - tile * k_tiles),
                               (unsigned)(stop - x), same_tile ? piece[count - 1].part + 1 : 0, 0};
            piece[count++] = q;
            x = stop;
        }
    }
    // The pieces of a tile are neighbours in this list: count them.
    for (unsigned i = 0, j; i < count; i = j) {
        for (j = i; j < count && piece[j].tile == piece[i].tile; j++) {}
        for (unsigned q = i; q < j; q++) piece[q].parts = j - i;
        planes = max(planes, j - i);
    }
    qsort(piece, count, sizeof *piece, longer_piece_first);
    plan_upload<S>(plan, p, piece, count, planes, (unsigned)last);
    free(piece);
}

// v12's tile (tallwarp_shape), its whole tiles and pieces in one launch of the pieces kernel.
static void launch_v13(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    if (!p->streamk.made) {
        streamk_plan<tallwarp_shape>(&p->streamk, p, pieces_wave<tallwarp_shape>());
        p->streamk.made = true;
    }
    launch_pieces<tallwarp_shape>(p, &p->streamk);
}
