// ---- v14 smalltile (from v12) -------------------------------------------------------------------
// v12's kernel with a quarter of its tile: 64 x 128 results a block, 4 warps of 64 x 32 (each
// thread 8 x 8 as in v8: v12's warps, 128 rows tall, do not fit), three blocks an SM. Where the
// tiles are few, four times as many SMs get work; where they are many, a last, partial round
// wastes less. The price: fewer FMAs per value copied and per shared load. v14 starts from v12,
// not v13: smaller tiles are another answer to Stream-K's idle SMs, and v16 chooses between them.
#ifdef MATMUL_FP64  // half of the doubles' 64 x 64 tile: warps of 64 x 16, 8 x 4 a thread
typedef shape<64, 32, 16, 64, 16, 3, 2, rows_serpentine> smalltile_shape;
#else
typedef shape<64, 128, 16, 64, 32, 4, 3, rows_serpentine> smalltile_shape;
#endif

static void launch_v14(void *problem) { launch_async<smalltile_shape>((matmul_problem *)problem); }
