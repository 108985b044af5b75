// ---- preprocessing: pad with +inf and transpose (v1b on) ---------------------------------------

// dp = d and tp = d transposed, both np x np with +inf outside the n x n corner. +inf is the
// identity of min and absorbs any addition (inf + x = inf for x >= 0), so a padded i, j or k
// never wins a min: the blocked kernels then need no guard in their inner loops. (0 would win
// every min.) The transpose goes through a padded shared tile, chapter 01's v2, so both the
// reads and the writes of a warp are 128 contiguous bytes.
template <int TILE, int BLOCK_ROWS>
__global__ void shortcut_pad(const float *__restrict__ d, float *__restrict__ dp,
                             float *__restrict__ tp, size_t n, size_t np) {
    __shared__ float tile[TILE][TILE + 1];  // tile: 32 x 33 floats, no bank conflicts
    size_t r0 = (size_t)blockIdx.y * TILE, c0 = (size_t)blockIdx.x * TILE;
    for (int y = threadIdx.y; y < TILE; y += BLOCK_ROWS) {
        size_t row = r0 + y, col = c0 + threadIdx.x;  // col fastest across the warp
        float v = (row < n && col < n) ? d[row * n + col] : INFINITY;
        dp[row * np + col] = v;
        tile[y][threadIdx.x] = v;
    }
    __syncthreads();  // the whole tile is in shared memory before anyone reads a column of it
    for (int y = threadIdx.y; y < TILE; y += BLOCK_ROWS)
        tp[(c0 + y) * np + r0 + threadIdx.x] = tile[threadIdx.x][y];
}

// Pads to a multiple of MULTIPLE (a version's block of results) and returns np.
template <int MULTIPLE>
static size_t pad_inputs(shortcut_problem *p) {
    constexpr int TILE = 32;       // a warp across a tile row
    constexpr int BLOCK_ROWS = 8;  // 32 x 8 threads move the 32 x 32 tile, four elements each
    static_assert(PAD_MAX % MULTIPLE == 0, "the padded buffers hold a multiple of it");
    static_assert(MULTIPLE % TILE == 0, "the pad kernel's grid covers np x np");
    size_t np = round_up(p->n, MULTIPLE);
    unsigned tiles = (unsigned)(np / TILE);
    shortcut_pad<TILE, BLOCK_ROWS><<<dim3(tiles, tiles), dim3(TILE, BLOCK_ROWS)>>>(
        p->d, p->dp, p->tp, p->n, np);
    CHECK_LAUNCH();
    return np;
}
