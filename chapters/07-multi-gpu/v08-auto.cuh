// ---- v8 auto ------------------------------------------------------------------------------------
// No one version is best at every size: v6c has no meeting and sends twice the bytes; the
// one-shots (v6, v6a) have few fixed costs and, on more than two GPUs, the most traffic; v7a
// fewer bytes and more meetings; v5a pipelines large buffers through its ring. v8 picks one by
// the size of the call and the number of GPUs, as a library's tuner does, with the rule below
// (the program prints it).
enum { PICK_LL, PICK_STAGED, PICK_ONESHOT, PICK_TWOSHOT, PICK_RING };

// The rule, from what each version costs. A meeting is a flag's round trip over NVLink, a few
// microseconds; a GPU loads (G - 1) x 4n bytes in a one-shot, 2(G - 1)/G x 4n in the others,
// and v6c stores (G - 1) x 8n (a flag beside every float).
//   v6c while (G - 1) x 8n <= LL_SENDS (512 KiB): 256 KiB buffers on two GPUs, 85 KiB on four.
//            On two H100s v6c led v6a in graphs at every size up to 256 KiB and in batches at
//            16 KiB and 256 KiB, and lost at 1 MiB; on four, in batches, the two were level up to
//            256 KiB and v6c lost at 1 MiB (README, "v6c ll").
//   Then which one-shot: v6a (one meeting, and a copy of 4n bytes into staging) while 4n <=
//            STAGED_BYTES (4 MiB), v6 (two meetings, no copy) above. Measured on two H100s in
//            batches (the committed run, and the one before it at e35de96, in git's history), v6a
//            led v6 from 4 KiB to 4 MiB and v6 led from 16 MiB: the copy costs more than the
//            meeting it saves. v6b (v6a on fewer blocks) was never ahead of v6a, so v8 does not
//            use it.
//   On two GPUs, a one-shot at every size: it loads 4n bytes a GPU, exactly what two-shot and
//            the ring load there (2(G - 1)/G = 1), with fewer meetings than either (v7: three,
//            v5: a flag a step and a chunk). On two H100s in batches v6 was ahead of v7 and of v5
//            from 4 KiB to 256 MiB; at 1 GiB all three were within 1% of each other, and v7a,
//            2% ahead of NCCL, led them (README).
//   On more GPUs, where a one-shot loads G/2 times the bytes of the others:
//            one-shot while each GPU loads no more than ONESHOT_LOADS: (G - 1) x 4n <= 1 MiB
//            (341 KiB a buffer on four GPUs). On four H100s in batches v6a led v7a by almost half
//            at 256 KiB (768 KiB loaded), and still led at 1 MiB (3 MiB loaded): the limit is
//            cautious (README);
//            two-shot (v7a) while 4n <= TWOSHOT_BYTES (8 MiB): below it a call is too short for
//            the ring's pipeline to fill (its chunks are 1 MiB a channel);
//            the ring (v5a) above: on four H100s, each call launched on its own, it was ahead of
//            v7a from 16 MiB to 1 GiB; in batches the two were within 3% from 64 MiB up.
static int v8_pick(size_t n, int gpus) {
    constexpr size_t LL_SENDS = (size_t)512 << 10;
    constexpr size_t STAGED_BYTES = (size_t)4 << 20;
    constexpr size_t ONESHOT_LOADS = (size_t)1 << 20;
    constexpr size_t TWOSHOT_BYTES = (size_t)8 << 20;
    size_t bytes = n * sizeof(float);
    if ((size_t)(gpus - 1) * 2 * bytes <= LL_SENDS) return PICK_LL;
    int oneshot = bytes <= STAGED_BYTES ? PICK_STAGED : PICK_ONESHOT;
    if (gpus == 2 || (size_t)(gpus - 1) * bytes <= ONESHOT_LOADS) return oneshot;
    if (bytes <= TWOSHOT_BYTES) return PICK_TWOSHOT;
    return PICK_RING;
}

// Why --graph skips v8 at the sizes where it picks the ring (never on two GPUs).
static const char *const v8_ring_why = "at this size it picks v5a, which cannot be captured";

// The rule, with the pick for this size: printed before v8's first call of the run.
static void print_v8_rule(int pick) {
    static const char *const picks[] = {"v6c ll", "v6a staged", "v6 oneshot", "v7a rotated",
                                        "v5a push"};
    printf("    v8: v6c while (G - 1) x 8n <= 512 KiB; then a one-shot, v6a while 4n <= 4 MiB and "
           "v6 above, at every size on 2 GPUs and while (G - 1) x 4n <= 1 MiB on more; there "
           "two-shot (v7a) while 4n <= 8 MiB, the ring (v5a) above: here %s\n", picks[pick]);
}

static void launch_v8(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    int pick = v8_pick(p->n, p->gpus);
    static bool said = false;  // one line a run, before the first call (the check's)
    if (!said) print_v8_rule(pick), said = true;
    if (pick == PICK_LL) launch_v6c(p);
    else if (pick == PICK_STAGED) launch_v6a(p);
    else if (pick == PICK_ONESHOT) launch_v6(p);
    else if (pick == PICK_TWOSHOT) launch_v7a(p);
    else launch_v5a(p);
}
