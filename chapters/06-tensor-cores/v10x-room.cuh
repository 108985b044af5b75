// ---- v10-onebuffer and v10-3stages, v10-2stages: room for C against the ring's stages ----------
// v10's shared memory is four stages of 48 KB and 32 KB of buffers for C, and a warpgroup that
// ends a tile waits for the copy engine to empty a buffer before it can fill it again. Each of
// these is v10's kernel with other numbers of each (the kernel takes them as template
// arguments), asking what the room for C is worth against the ring's stages:
//   v10-onebuffer  4 stages, 1 buffer a warpgroup: 16 KB of C, half of v10's.
//   v10-3stages    3 stages, 5 buffers a warpgroup: 80 KB, five eighths of a tile's C.
//   v10-2stages    2 stages, 8 buffers a warpgroup: 128 KB, the whole tile, so the consumers
//                  never wait for the copy engine.

static void launch_v10_onebuffer(void *problem) { launch_tmastore<4, 1>((tc_problem *)problem); }
static void launch_v10_3stages(void *problem) { launch_tmastore<3, 5>((tc_problem *)problem); }
static void launch_v10_2stages(void *problem) { launch_tmastore<2, 8>((tc_problem *)problem); }
