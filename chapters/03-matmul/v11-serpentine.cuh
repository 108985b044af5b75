// ---- v11 serpentine -----------------------------------------------------------------------------
// v10 with one change, the order of the 128 FMAs of a step: the odd rows run right to left, so
// a new row starts with the bf[j] the last FMA read, an operand the register file's small reuse
// cache can supply (.reuse in the SASS) instead of its few read ports. The compiler also
// allocates and schedules the registers differently for the new order: the measurement, not the
// count of reuses, is the lesson. The order is the kernel's S::serpentine (async.cuh).
#ifdef MATMUL_FP64  // doubles need twice the registers: 4 x 8 results a thread
typedef shape<64, 64, 16, 32, 32, 3, 1, true> serpentine_shape;
#else
typedef shape<128, 256, 16, 64, 64, 4, 1, true> serpentine_shape;
#endif

static void launch_v11(void *problem) { launch_async<serpentine_shape>((matmul_problem *)problem); }
