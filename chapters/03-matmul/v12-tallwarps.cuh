// ---- v12 tallwarps ------------------------------------------------------------------------------
// v11 with warps of 128 x 32 instead of 64 x 64: the same 128 x 256 block tile and 8 warps, now
// side by side, and each thread a 16 x 8 block (v11: 8 x 16). A step still loads 24 values with
// 6 LDS.128 for 128 FMAs, but each af[i] serves 8 FMAs in a row instead of 16. Why this helps is
// a question of the schedule the compiler finds (see the README); we chose it by measuring the
// warp shapes.
#ifdef MATMUL_FP64  // doubles: warps of 64 x 16 in v11's 64 x 64 tile, 8 x 4 a thread
typedef shape<64, 64, 16, 64, 16, 3, 1, rows_serpentine> tallwarp_shape;
#else
typedef shape<128, 256, 16, 128, 32, 4, 1, rows_serpentine> tallwarp_shape;
#endif

static void launch_v12(void *problem) { launch_async<tallwarp_shape>((matmul_problem *)problem); }
