// ---- v9 async -----------------------------------------------------------------------------------
// v8 stages every tile through registers (load, wait, store to shared memory) and needs two
// barriers a tile. v9 copies the tiles with cp.async straight into a ring of shared buffers: no
// registers in between, the next tiles' copies in flight while one is used, one barrier a tile.
// The copies, the ring and the kernel are in async.cuh, which the versions after v9 share; this
// file is v9's tile shape.

// v8's tile (128 x 128 x 8, warps of 64 x 32, two blocks an SM), now in a ring of 3 stages:
// two tiles in flight while one is used; 25 KiB of shared memory (floats).
#ifdef MATMUL_FP64  // 512 threads would cap a thread at 128 registers: half the tile instead
typedef shape<64, 128, 8, 64, 16, 3, 1> async_shape;
#else
typedef shape<128, 128, 8, 64, 32, 3, 2> async_shape;
#endif

static void launch_v9(void *problem) { launch_async<async_shape>((matmul_problem *)problem); }
