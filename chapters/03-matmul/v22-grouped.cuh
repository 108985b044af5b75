// ---- v22 grouped --------------------------------------------------------------------------------
#ifdef MATMUL_FP64
// Every version so far numbers its tiles row by row, so the blocks in flight at once (two an SM,
// 264 on an H200) cover two rows of tiles across all of C's columns: together they read all of
// B for each k step, and at 8192^3 that is a 2 MiB slice of B per k step against 64 KiB of A.
// v22 hands the tiles out in groups of GROUP_ROWS rows, column by column inside a group: the
// blocks in flight then cover 16 rows x 16 or 17 columns of tiles, and read about 0.5 MiB of A
// and 0.3 MiB of B per k step, 0.8 MiB where v21's read 2.1 MiB: fewer distinct bytes for L2 to
// hold and for DRAM to deliver while they are in use. Same kernel as v21, another tile order.
static void launch_v22(void *problem) {
    launch_dmma<dmma_m16n8k16, true>((matmul_problem *)problem);
}
#endif
