// ---- v10 tuned ----------------------------------------------------------------------------------
// The same kernel, the tile chosen for this GPU by measurement: 128 x 256 results a block,
// 16 deep, a ring of 4 stages (97 KiB of shared memory), warps of 64 x 64 so that each
// thread computes 8 x 16 results. Per kk a thread now does 128 FMAs for 6 shared loads
// (v9: 64 for 4), and each copied element serves more FMAs. It needs about 250 registers,
// so one block of 8 warps runs per SM; the 4 stages keep enough copies in flight anyway.
#ifdef MATMUL_FP64  // doubles need twice the registers: 4 x 8 results a thread
typedef shape<64, 64, 16, 32, 32, 3, 1> tuned_shape;
#else
typedef shape<128, 256, 16, 64, 64, 4, 1> tuned_shape;
#endif

static void launch_v10(void *problem) { launch_async<tuned_shape>((matmul_problem *)problem); }
