// ---- v11 serpentine -----------------------------------------------------------------------------

// v10 exactly, with one change in the order of the 128 FMAs of a step. v10 goes row by row,
// each row left to right: acc[i][0..15] += af[i] * bf[0..15]. An FMA reads three registers,
// and the register file has few read ports; an operand that the previous FMA read from the
// same slot can come from a small "reuse" cache instead (the compiler marks it .reuse in the
// SASS). Row by row, af[i] is reused 15 times out of 16, but at every new row all three
// operands are new. In serpentine order the odd rows run right to left, so a new row starts
// with the bf[j] the last FMA used. The compiler also allocates and schedules the registers
// differently for the new order; the measurement, not the count of reuses, is the lesson.
#ifdef MATMUL_FP64
typedef shape<TUNED_DEFAULTS, true> serpentine_shape;
#else
typedef shape<TUNED_BM, TUNED_BN, TUNED_BK, TUNED_WM, TUNED_WN, TUNED_STAGES, TUNED_MIN_BLOCKS,
              true>
    serpentine_shape;
#endif

static void launch_v11(void *problem) { launch_async<serpentine_shape>((matmul_problem *)problem); }
