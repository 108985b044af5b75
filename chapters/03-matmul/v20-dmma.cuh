// ---- v20 dmma (from v9) -------------------------------------------------------------------------
// The multiply-adds move from the CUDA cores to the FP64 tensor cores, which cuBLAS DGEMM uses
// to run at twice the CUDA cores' peak: mma.sync (8.0 and later), where the 32 lanes of a warp
// hold three small matrices in registers and one instruction computes D = A B + D, here m8n8k4
// (256 FMAs). Around it stays v9's ring of cp.async copies, one barrier a tile; the tile, the
// layout of A and the schedule change with it (the README lists the four changes).
// The kernel is in dmma.cuh, which v21 and v22 share; this file is v20's launcher.
#ifdef MATMUL_FP64  // v20 to v22 are in the FP64 build only
static void launch_v20(void *problem) { launch_dmma<dmma_m8n8k4>((matmul_problem *)problem); }
#endif
