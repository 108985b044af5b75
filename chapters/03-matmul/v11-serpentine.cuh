// ---- v11 serpentine -----------------------------------------------------------------------------
// v10 with one change, the order of the 128 FMAs of a step: the odd rows run right to left, so
// a new row starts with the bf[j] the last FMA read, an operand the register file's small reuse
// cache can supply (.reuse in the SASS) instead of its few read ports. The compiler also
// allocates and schedules the registers differently for the new order: the measurement, not the
// count of reuses, is the lesson. The order is the tile shape's ORDER_ (async.cuh).

// v11's order: row i of a thread's results left to right for even i, right to left for odd i.
struct rows_serpentine {
    __device__ static constexpr int column(int i, int jj, int tn) {
        return i % 2 ? tn - 1 - jj : jj;
    }
};
#ifdef MATMUL_FP64  // doubles need twice the registers: 4 x 8 results a thread
typedef shape<64, 64, 16, 32, 32, 3, 1, rows_serpentine> serpentine_shape;
#else
typedef shape<128, 256, 16, 64, 64, 4, 1, rows_serpentine> serpentine_shape;
#endif

static void launch_v11(void *problem) { launch_async<serpentine_shape>((matmul_problem *)problem); }
