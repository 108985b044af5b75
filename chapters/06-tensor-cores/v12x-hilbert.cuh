// ---- v12-hilbert (an experiment on v12): its pairs of tiles along a Hilbert curve ---------------
// v9's bands walk the tiles down 8 rows of pairs, column after column: the 66 clusters at work
// at one time hold a compact block of C, but each new column of the band brings a new band of
// B, and the next band starts far from where the last one ended. A Hilbert curve visits a square
// of 2^p x 2^p cells so that any run of consecutive cells is a compact shape, at every scale:
// the clusters at work, and those that follow them, read neighbouring bands of A and B. Pairs
// are 256 x 256, so a grid of pairs is as tall as it is wide where m = n. The curve is made on
// the host for the square that covers the grid; the cells outside the grid are dropped, and the
// table of those left, one word a pair (its row of pairs above, its column below), goes to the
// GPU before the first launch at that grid. The kernel is v12's: only the order changes.

constexpr unsigned HILBERT_CAP = 1u << 18;      // pairs the table holds: 1 MB of device memory
__device__ unsigned hilbert_cells[HILBERT_CAP];  // row << 16 | column, in the curve's order
__device__ unsigned hilbert_count;               // the table's length; 0: use v9's bands

struct hilbert_pairs_order {
    __device__ static tile_origin at(size_t pair, size_t m, size_t n, int pair_m, int tile_n) {
        if (pair >= hilbert_count) return grouped_pairs_order::at(pair, m, n, pair_m, tile_n);
        unsigned cell = hilbert_cells[pair];
        return {(size_t)(cell >> 16) * pair_m, (size_t)(cell & 0xffff) * tile_n};
    }
};

// The cell (x, y) at distance d along the Hilbert curve of a side x side square, side a power
// of 2. Two bits of d at a time, from the smallest quadrants up, say which quadrant of the next
// larger square the cell lies in (lower left, upper left, upper right, lower right, in the
// curve's order); the lower two quadrants hold the curve turned, so the cell found so far is
// reflected before it is moved into its quadrant.
static void hilbert_cell(unsigned side, unsigned d, unsigned *x, unsigned *y) {
    unsigned cx = 0, cy = 0;
    for (unsigned s = 1; s < side; s *= 2, d /= 4) {
        unsigned right = d / 2 & 1, up = (d ^ right) & 1;
        if (!up) {
            if (right) cx = s - 1 - cx, cy = s - 1 - cy;
            unsigned swap = cx;
            cx = cy, cy = swap;
        }
        cx += s * right, cy += s * up;
    }
    *x = cx, *y = cy;
}

// The table for a grid of rows x cols pairs, sent to the GPU when the grid differs from the
// last one's (a launch at a new size, in the warm-up: host work and a copy that no timed launch
// sees). A grid past the table, or with more than 65536 rows or columns, runs v9's bands.
static void hilbert_prepare(size_t rows, size_t cols) {
    static size_t made_rows = 0, made_cols = 0;
    if (rows == made_rows && cols == made_cols) return;
    unsigned count = 0;
    if (rows * cols <= HILBERT_CAP && rows <= 65536 && cols <= 65536) {
        static unsigned cells[HILBERT_CAP];
        unsigned side = 1;
        while (side < rows || side < cols) side *= 2;
        for (size_t d = 0; d < (size_t)side * side; d++) {
            unsigned x, y;
            hilbert_cell(side, (unsigned)d, &x, &y);
            if (y < rows && x < cols) cells[count++] = y << 16 | x;
        }
        if (count != rows * cols) {  // the curve visits every cell of the square once
            fprintf(stderr, "hilbert_prepare: %u cells for a grid of %zu x %zu\n", count, rows, cols);
            exit(KL_EXIT_GPU);
        }
        CHECK(cudaMemcpyToSymbol(hilbert_cells, cells, count * sizeof(unsigned)));
    }
    CHECK(cudaMemcpyToSymbol(hilbert_count, &count, sizeof count));
    made_rows = rows, made_cols = cols;
}

static void launch_v12_hilbert(void *problem) {
    tc_problem *p = (tc_problem *)problem;
    hilbert_prepare((p->m + 255) / 256, (p->n + 255) / 256);  // v12's pairs: 256 x 256
    launch_staggered<2, hilbert_pairs_order>(p);
}
