// ---- v21 dmma16 ---------------------------------------------------------------------------------
// Chapter 00 measures what v20 runs into: on Hopper, m8n8k4 runs the FP64 tensor cores at half
// their rate (the dmma row against dmma16). The shape Hopper added, m16n8k16, does 2048 FMAs an
// instruction, eight times m8n8k4's, at the full rate. Same kernel, same tiles: a warp now
// issues 16 instructions for 32 of k instead of 128, a lane holding 8 values of A (rows g and
// g + 8, columns t, t + 4, t + 8, t + 12), 4 of B and 4 of D. Compute capability 9.0 only.
#ifdef MATMUL_FP64
static void launch_v21(void *problem) { launch_dmma<dmma_m16n8k16>((matmul_problem *)problem); }
#endif
