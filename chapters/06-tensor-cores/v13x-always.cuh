// ---- v13-always (an experiment on v13): every partial last round split --------------------------
// v13 splits the last round only where it would leave the clusters idle for 16 k steps or more
// on average. Here it splits wherever the pairs are not a whole number of rounds, a problem of
// fewer pairs than clusters included: the measurements that say where the split costs more
// than it saves, and so where v13 draws its line. The kernel is v13's.

static void launch_v13_always(void *problem) { launch_streamk((tc_problem *)problem, 0); }
