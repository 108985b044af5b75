// 06-tensor-cores/grouped
// Bands of 16 rows of tiles, the last one too: where the rows of tiles are not a multiple of 16,
// the last band's places point past the last row of C and some of its tiles are never computed.
// Right only where the rows are whole bands or there is one column of tiles.
        constexpr int GROUP = 16;
        size_t cols = (n + tile_n - 1) / tile_n;
        size_t band = tile / (GROUP * cols), q = tile % (GROUP * cols);  // planted: no short band
        return {(band * GROUP + q % GROUP) * tile_m, q / GROUP * tile_n};
