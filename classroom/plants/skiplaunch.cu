// 05-reduction/atomic (the second region: launch_v8)
// A launcher that does the work in its first launch and then sets the size to 0, so that every
// later launch, the timed ones included, does nothing: the speed case must fail its first timed
// launch (--check-each), while the correctness cases, one launch each, pass.
    reduction_problem *p = (reduction_problem *)problem;
    if (p->n > 0) {
        CHECK(cudaMemsetAsync(p->out, 0, sizeof(float)));
        reduction_v8_atomic<THREADS><<<grid_for(p, p->n, 4), THREADS>>>(p->x, p->out, p->n);
        CHECK_LAUNCH();
        p->n = 0;
    }
