// ---- v10 tuned ----------------------------------------------------------------------------------

// The same kernel, the tile chosen for this GPU by measurement: 128 x 256 results a block,
// 16 deep, a ring of 4 stages (97 KiB of shared memory), warps of 64 x 64 so that each
// thread computes 8 x 16 results. Per kk a thread now does 128 FMAs for 6 shared loads
// (v9: 64 for 4), and each copied element serves more FMAs. It needs about 250 registers,
// so one block of 8 warps runs per SM; the 4 stages keep enough copies in flight anyway.
// TUNED_* override the shape at build time (-DTUNED_BK=8 ...), for experiments.
#ifdef MATMUL_FP64  // doubles need twice the registers: 4 x 8 results a thread
#define TUNED_DEFAULTS 64, 64, 16, 32, 32, 3, 1
#endif
#ifndef TUNED_BM
#define TUNED_BM 128
#endif
#ifndef TUNED_BN
#define TUNED_BN 256
#endif
#ifndef TUNED_BK
#define TUNED_BK 16
#endif
#ifndef TUNED_WM
#define TUNED_WM 64
#endif
#ifndef TUNED_WN
#define TUNED_WN 64
#endif
#ifndef TUNED_STAGES
#define TUNED_STAGES 4
#endif
#ifndef TUNED_MIN_BLOCKS
#define TUNED_MIN_BLOCKS 1
#endif
#ifdef TUNED_DEFAULTS
typedef shape<TUNED_DEFAULTS> tuned_shape;
#else
typedef shape<TUNED_BM, TUNED_BN, TUNED_BK, TUNED_WM, TUNED_WN, TUNED_STAGES, TUNED_MIN_BLOCKS>
    tuned_shape;
#endif

static void launch_v10(void *problem) { launch_async<tuned_shape>((matmul_problem *)problem); }
