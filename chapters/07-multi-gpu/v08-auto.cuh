// ---- v8 auto ------------------------------------------------------------------------------------
// No one version is best at every size: v6 has the fewest fixed costs and the most traffic, v7
// fewer bytes and one meeting more, v5 pipelines large buffers through its ring. v8 picks one by
// the size of the call, as a library's tuner does, with the rule below (the program prints it).
enum { PICK_ONESHOT, PICK_TWOSHOT, PICK_RING };

// The rule, from what each version costs: a meeting is a flag's trip over NVLink (about a
// microsecond), in which the links carry a few hundred KB.
//   one-shot while each GPU loads no more than ONESHOT_LOADS bytes: (G - 1) x 4n <= 512 KiB
//            (512 KiB on two GPUs, where one-shot loads no more than two-shot does; 170 KiB on
//            four), a microsecond or two on the links, no more than the meeting v7 adds
//   two-shot while 4n <= TWOSHOT_BYTES (8 MiB): below it a call is too short for the ring's
//            pipeline to fill (its chunks are 1 MiB a channel)
//   the ring above
// Both limits are first estimates, to be set from the measured crossovers (README).
static int v8_pick(size_t n, int gpus) {
    constexpr size_t ONESHOT_LOADS = (size_t)512 << 10;
    constexpr size_t TWOSHOT_BYTES = (size_t)8 << 20;
    size_t bytes = n * sizeof(float);
    if ((size_t)(gpus - 1) * bytes <= ONESHOT_LOADS) return PICK_ONESHOT;
    if (bytes <= TWOSHOT_BYTES) return PICK_TWOSHOT;
    return PICK_RING;
}

// Why --graph skips v8 at the sizes where it picks the ring.
static const char *const v8_ring_why = "at this size it picks v5, which cannot be captured";

// The rule, with the pick for this size: printed before v8's first call of the run.
static void print_v8_rule(int pick) {
    static const char *const picks[] = {"v6 oneshot", "v7 twoshot", "v5 ring"};
    printf("    v8: one-shot while each GPU loads (G - 1) x 4n <= 512 KiB, two-shot while "
           "4n <= 8 MiB, the ring above: here %s\n", picks[pick]);
}

// The self-test of the rule at its edges: the number of failures (0 or 1).
static int v8_self_test(void) {
    bool ok = v8_pick(131072, 2) == PICK_ONESHOT && v8_pick(131073, 2) == PICK_TWOSHOT &&
              v8_pick(43690, 4) == PICK_ONESHOT && v8_pick(43691, 4) == PICK_TWOSHOT &&
              v8_pick(2097152, 2) == PICK_TWOSHOT && v8_pick(2097153, 2) == PICK_RING &&
              v8_pick(1, 8) == PICK_ONESHOT;
    printf("%s v8_pick: one-shot up to 128 Ki floats on 2 GPUs (43,690 on 4), two-shot up to "
           "2 Mi floats, the ring above\n", ok ? "PASS" : "FAIL");
    return !ok;
}

static void launch_v8(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    int pick = v8_pick(p->n, p->gpus);
    static bool said = false;  // one line a run, before the first call (the check's)
    if (!said) print_v8_rule(pick), said = true;
    if (pick == PICK_ONESHOT) launch_v6(p);
    else if (pick == PICK_TWOSHOT) launch_v7(p);
    else launch_v5(p);
}
