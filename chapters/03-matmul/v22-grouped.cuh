// ---- v22 grouped --------------------------------------------------------------------------------
// v21's kernel with the tiles handed out in groups of GROUP_ROWS (16) rows, column by column inside
// a group (grouped_tile, in dmma.cuh), where every earlier version goes row by row. The blocks
// in flight at 8192^3 then read about 0.5 MiB of A and 0.3 MiB of B per k step, 0.8 MiB where
// v21's read 2.1 MiB (all of B each k step): fewer distinct bytes for L2 to hold and DRAM to send.
#ifdef MATMUL_FP64
static void launch_v22(void *problem) {
    launch_dmma<dmma_m16n8k16, true>((matmul_problem *)problem);
}
#endif
