// ---- v8's self-test: the rule at its edges (v8 on) ----------------------------------------------
// The self-test of the rule at its edges: the number of failures (0 or 1).
static int v8_self_test(void) {
    bool ok = v8_pick(1, 2) == PICK_LL && v8_pick(65536, 2) == PICK_LL &&
              v8_pick(65537, 2) == PICK_STAGED && v8_pick(1048576, 2) == PICK_STAGED &&
              v8_pick(1048577, 2) == PICK_ONESHOT && v8_pick(268435456, 2) == PICK_ONESHOT &&
              v8_pick(2147483647, 2) == PICK_ONESHOT && v8_pick(21845, 4) == PICK_LL &&
              v8_pick(21846, 4) == PICK_STAGED && v8_pick(87381, 4) == PICK_STAGED &&
              v8_pick(87382, 4) == PICK_TWOSHOT && v8_pick(2097152, 4) == PICK_TWOSHOT &&
              v8_pick(2097153, 4) == PICK_RING && v8_pick(131072, 3) == PICK_STAGED &&
              v8_pick(131073, 3) == PICK_TWOSHOT && v8_pick(1, 8) == PICK_LL &&
              v8_pick(LL_MAX_N, 2) != PICK_LL;
    printf("%s v8_pick: on 2 GPUs v6c up to 64 Ki floats, then a one-shot at every n (v6a up to "
           "1 Mi floats, v6 above); on 4, v6c up to 21,845 floats, v6a up to 87,381, two-shot up "
           "to 2 Mi, the ring above\n",
           ok ? "PASS" : "FAIL");
    return !ok;
}
