// ---- c0 racy ------------------------------------------------------------------------------------

// A block takes SPAN consecutive updates and counts them in shared memory with a plain ++:
// load the word, add one, store it. Two threads that load the same word before either stores
// both write old + 1, and one update is gone. The block then adds its tallies to the global
// counters with atomics, so every lost update was lost in the ++.
//
// We race in shared memory because that is where compute-sanitizer's racecheck can watch; the
// same ++ on a global word loses updates the same way (c0a, the next step, does it).
template <int SPAN>
__global__ void counters_c0_racy(unsigned *count, size_t n, unsigned m) {
    __shared__ unsigned tally[SPAN];
    size_t first = (size_t)blockIdx.x * SPAN;  // this block: updates [first, first + span)
    unsigned span = (unsigned)min((size_t)SPAN, n - first);
    unsigned slots = min(span, m);  // update first + j goes to slot j % m: one slot per counter
    for (unsigned s = threadIdx.x; s < slots; s += blockDim.x) tally[s] = 0;
    __syncthreads();  // the tally is clear before anyone counts
    for (unsigned j = threadIdx.x; j < span; j += blockDim.x) tally[j % m]++;  // the race
    __syncthreads();  // every ++ is done before the tally is read
    for (unsigned s = threadIdx.x; s < slots; s += blockDim.x)
        if (tally[s]) atomicAdd(&count[(first + s) % m], tally[s]);
}

static void launch_c0(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    constexpr int SPAN = 2048;  // updates a block: 256 threads x 8; also the shared tally's size
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c0_racy<SPAN><<<(unsigned)ceil_div(p->n, SPAN), COUNTER_THREADS>>>(p->count, p->n,
                                                                               p->m);
    CHECK_LAUNCH();
}
