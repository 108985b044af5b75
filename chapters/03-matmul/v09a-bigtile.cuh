// ---- v9a bigtile --------------------------------------------------------------------------------
// The same kernel with the tile shape chosen for this GPU by measurement, and v9's ring of 3
// stages (73 KiB of shared memory): 128 x 256 results a block, 16 deep, warps of 64 x 64 so that
// each thread computes 8 x 16 results. Per kk a thread now does 128 FMAs for 6 shared loads (v9:
// 64 for 4), and each copied element serves more FMAs. It needs about 250 registers, so one block
// of 8 warps runs per SM (min_blocks 1), where v9 ran two.
#ifdef MATMUL_FP64  // doubles need twice the registers: 4 x 8 results a thread
typedef shape<64, 64, 16, 32, 32, 3, 1> bigtile_shape;
#else
typedef shape<128, 256, 16, 64, 64, 3, 1> bigtile_shape;
#endif

static void launch_v9a(void *problem) { launch_async<bigtile_shape>((matmul_problem *)problem); }
