// ---- v9 grouped ---------------------------------------------------------------------------------
// v8's kernel with its tiles walked in another order: down bands of 16 rows of tiles, column
// after column, instead of row by row. The tiles at work at one time then span 16 bands of A and
// about 8 of B (32 + 33 MiB), and each band serves 8 to 16 blocks while it is in L2, where row by
// row makes every wave of tiles read all of B from DRAM again. Nothing else changes.

// The 132 blocks of v8 work on 132 neighbouring tiles of one order. Row by row, at 8192 x 8192
// (32 tiles of 256 columns a row) that is 4 rows of tiles and 4 tiles of a fifth: 5 bands of A
// (2 MiB each at k = 8192) but all 32 bands of B (4 MiB each): 138 MiB, which the 60 MiB L2
// cannot keep.

struct grouped_order {
    __device__ static tile_origin at(size_t tile, size_t m, size_t n, int tile_m, int tile_n) {
        // EXERCISE: grouped begin
        constexpr int GROUP = 16;  // rows of tiles in a band: 16 bands of A, about 8 of B in L2
        size_t rows = (m + tile_m - 1) / tile_m, cols = (n + tile_n - 1) / tile_n;
        size_t band = tile / (GROUP * cols), first = band * GROUP;    // the band's first row
        size_t high = rows - first < GROUP ? rows - first : GROUP;     // the last may be shorter
        size_t q = tile - band * GROUP * cols;                          // the place in the band
        return {(first + q % high) * tile_m, q / high * tile_n};
        // EXERCISE: grouped end
    }
};

static void launch_v9(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    constexpr int BM = 128, BN = 256;  // two consumer warpgroups, each 64 rows by a 64 x 256 wgmma
    constexpr int BK = 64;             // a k step: 64 BF16, one 128-byte row of the swizzle
    constexpr int STAGES = 4;          // four stages of 48 KB: 192 KB, one block an SM
    typedef stage_ring<BM, BN, BK, STAGES> ring;
    auto kernel = tc_v8_persistent<BM, BN, BK, STAGES, grouped_order>;  // v8's, another order
    static bool ready = false;
    if (!ready) allow_smem(kernel, ring_bytes<ring>()), ready = true;
    make_maps(p, BM, BK);
    unsigned grid = min(tiles(p->m, p->n, BM, BN), (unsigned)p->sms);  // one block an SM
    kernel<<<grid, 3 * WG, ring_bytes<ring>()>>>(p->map_a, p->map_b256, p->c, p->m, p->n, p->k);
}
