// ---- v20-copyfirst (what v20's schedule adds: the next tile's copies before the instructions) ---
// Of v20's four changes to v9 (the instruction, A untransposed, the tile, the schedule), the
// schedule can be taken back alone: v20 issues the next tile's copies halfway through a tile's
// instructions, while the first half runs on the tensor cores; this row issues them before the
// instructions, as v9 does, and changes nothing else. In the FP64 build only.
#ifdef MATMUL_FP64
struct dmma_m8n8k4_copyfirst : dmma_m8n8k4 {
    static constexpr bool copies_first = true;
};

static void launch_v20_copyfirst(void *problem) {
    launch_dmma<dmma_m8n8k4_copyfirst>((matmul_problem *)problem);
}
#endif
