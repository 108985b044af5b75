// 05-reduction/atomic (the second region: launch_v8)
// A launcher that copies the CPU's answer in and leaves: it names p->want and exit, which no
// launcher region may use.
    reduction_problem *p = (reduction_problem *)problem;
    float answer = (float)p->want;
    CHECK(cudaMemcpy(p->out, &answer, sizeof(float), cudaMemcpyHostToDevice));
    exit(0);
