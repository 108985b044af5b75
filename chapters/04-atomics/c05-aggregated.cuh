// ---- c5 aggregated (from c1) --------------------------------------------------------------------

// c1 again, but before the atomic each lane asks the warp which lanes hold the same counter
// (__match_any_sync returns that set as a bit mask). The lowest lane of each set adds the set's
// size; the others do nothing. With m = 1 a warp makes one atomic instead of 32; with m >= 32
// every set has one lane and the match is pure overhead. The warp loops as one (the loop test
// uses the warp's first update), so every lane is present at the match.
__global__ void counters_c5_aggregated(unsigned *count, size_t n, unsigned m, unsigned step) {
    constexpr unsigned FULL_MASK = 0xFFFFFFFFu;  // all 32 lanes of the warp
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned lane = threadIdx.x % 32;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i - lane < n; i += stride) {  // i - lane: the warp's first update, the same in all lanes
        unsigned live = __ballot_sync(FULL_MASK, i < n);  // lanes with an update this round
        if (i < n) {
            unsigned peers = __match_any_sync(live, a);  // live lanes with our counter, us included
            if (lane == (unsigned)__ffs(peers) - 1) atomicAdd(&count[a], (unsigned)__popc(peers));
        }
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c5(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c5_aggregated<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                    counter_step(p));
    CHECK_LAUNCH();
}
