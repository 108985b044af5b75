// ---- v10 tuned ----------------------------------------------------------------------------------
// The only change: a ring of 4 stages instead of 3 (97 KiB of shared memory). With one block an
// SM (v9a) no other block runs while this one waits at its barrier for a tile, so only the
// copies already in flight hide that wait: a fourth stage keeps three tiles on their way while
// one is used. (The doubles' tile keeps 3 stages: in the FP64 build v10 is v9a.)
#ifdef MATMUL_FP64  // doubles need twice the registers: 4 x 8 results a thread
typedef shape<64, 64, 16, 32, 32, 3, 1> tuned_shape;
#else
typedef shape<128, 256, 16, 64, 64, 4, 1> tuned_shape;
#endif

static void launch_v10(void *problem) { launch_async<tuned_shape>((matmul_problem *)problem); }
