// ---- v12 tallwarps ------------------------------------------------------------------------------

// v11 with warps of 128 x 32 instead of 64 x 64: the same 128 x 256 block tile, the same
// 8 warps, but now they stand side by side, each over all 128 rows and 32 columns, and a
// thread computes a 16 x 8 block (four 4-row pieces by two 4-column pieces) instead of 8 x 16.
// Per step a thread still loads 24 values with 6 LDS.128 for 128 FMAs; what changes is which
// values: each row value af[i] now serves 8 FMAs in a row instead of 16, and the 16 rows of
// the serpentine turn 15 times instead of 7. Why this helps is again a question of the
// schedule the compiler finds (see the README); we chose it by measuring the warp shapes.
#ifdef MATMUL_FP64  // doubles: warps of 64 x 16 in v11's 64 x 64 tile, 8 x 4 a thread
typedef shape<64, 64, 16, 64, 16, 3, 1, true> tallwarp_shape;
#else
typedef shape<128, 256, 16, 128, 32, 4, 1, true> tallwarp_shape;
#endif

static void launch_v12(void *problem) { launch_async<tallwarp_shape>((matmul_problem *)problem); }
