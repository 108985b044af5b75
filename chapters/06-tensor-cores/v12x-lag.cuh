// ---- v12-lag1 and v12-lag3: v12 one and three stages apart, an experiment -----------------------
// How far apart v12's consumer warpgroups should run: one stage hides less of a warpgroup's
// store behind the other's multiplies, three leave the leading warpgroup one stage of loads ahead.

static void launch_v12_lag1(void *problem) { launch_staggered<1>((tc_problem *)problem); }
static void launch_v12_lag3(void *problem) { launch_staggered<3>((tc_problem *)problem); }
