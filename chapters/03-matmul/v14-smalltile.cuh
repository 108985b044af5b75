// ---- v14 smalltile ------------------------------------------------------------------------------

// The same kernel with a quarter of v12's tile: 64 x 128 results a block, 4 warps of 64 x 32
// (each thread an 8 x 8 block, v8's), and three blocks an SM. The GPU now holds 396 tiles at
// once on an H200 instead of 132, each a quarter of the work. Where the tiles are few (1024^3
// makes 32 of 128 x 256 for 132 SMs, and 128 of 64 x 128) that puts four times as many SMs to
// work, and where they are many, a round is smaller, so a last partial one wastes less; with
// three blocks an SM, one block's start and end overlap the others' work. The price is
// traffic and issue slots: a k step copies (64 + 128) x 16 values for 64 x 128 x 16 FMAs where
// v12 copies (128 + 256) x 16 for four times the FMAs (43 FMAs a value instead of 85), and a
// thread issues 4 shared loads (LDS.128) for 64 FMAs a step instead of 6 for 128. v12's warps,
// 128 rows tall, do not fit the 64-row tile: warps of 64 x 32, each thread 8 x 8 as in v8.
// v14 starts from v12's kernel, not v13's: more, smaller tiles are another answer to the idle
// SMs that Stream-K shares work among, and v16 chooses between the two.
#ifdef MATMUL_FP64  // half of the doubles' 64 x 64 tile: warps of 64 x 16, 8 x 4 a thread
typedef shape<64, 32, 16, 64, 16, 3, 2, true> smalltile_shape;
#else
typedef shape<64, 128, 16, 64, 32, 4, 3, true> smalltile_shape;
#endif

static void launch_v14(void *problem) { launch_async<smalltile_shape>((matmul_problem *)problem); }
