// ---- stream-K: the last round's pairs split along k among all the clusters (v13) ----------------

// The units of work a cluster goes through: a pair of tiles (as v11's pairs) and the k steps
// [k0, k1) of it that this cluster multiplies; k0 = 0 and k1 = steps is the whole pair.
struct work_unit {
    size_t pair;
    int k0, k1;
};

// v12 deals out whole pairs, pair p to cluster p % clusters: 576 pairs on 66 clusters (6144^3 on
// 132 SMs) are eight full rounds and a ninth in which 18 clusters have nothing to do. Here the
// pairs of the full rounds go out as before, and the k steps of the pairs left over (48 x 96 =
// 4,608 at 6144^3) are laid end to end, pair after pair, and cut into as many runs as there are
// clusters, equal to within a step (69 or 70 each; one a step where there are fewer steps than
// clusters). A run may start or end inside a pair, so a pair of the last round is shared by two
// or more clusters, each holding a partial sum of it.
// Where the problem has fewer pairs than the GPU has clusters, its one round is split the same
// way among all of them. Producer and consumers walk the same units in the same order, each
// with a streamk_work.
//
// The split is not free: each block of a sharer writes a partial sum of 128 KB (its 128 x 256
// results in FP32) that the pair's adder reads back, and the more clusters share a pair, the
// more sums its adder reads. So we split only where the split shortens the last round by
// `min_idle` k steps or more: unsplit it takes a pair's steps, split about left / clusters of
// them, a saving of (clusters - left) / clusters of a pair's steps (v13 takes 16; its
// experiment v13-always, 0: every partial round is split). The README measures where the split
// gains and where it loses.
__host__ __device__ inline bool streamk_splits(size_t pairs, size_t clusters, int steps,
                                               int min_idle) {
    size_t left = pairs % clusters;  // the pairs of the last round
    return left != 0 && (clusters - left) * (size_t)steps >= (size_t)min_idle * clusters;
}

// The grid of a stream-K launch, in clusters: a cluster a pair, up to all of them
// (launch_clusters caps it); all of them where the last round is split. The kernel decides the
// split again from the grid, and the two agree: a grid of a cluster a pair leaves no partial
// round to split.
static unsigned streamk_grid(unsigned pairs, unsigned clusters, int steps, int min_idle) {
    return streamk_splits(pairs, clusters, steps, min_idle) ? clusters : pairs;
}

struct streamk_work {
    size_t clusters, whole;  // pairs [0, whole) go whole, round by round: all of them, unsplit
    size_t next;             // this cluster's next whole pair
    unsigned long long split, runs;  // steps of the shared pairs in all, and runs they are cut in
    unsigned long long at, end;      // this cluster's run: [at, end)
    int steps;

    __host__ __device__ streamk_work(size_t pairs, int steps, size_t cluster, size_t clusters,
                                     int min_idle)
        : clusters(clusters), next(cluster), steps(steps) {
        bool split_last = streamk_splits(pairs, clusters, steps, min_idle);
        whole = split_last ? pairs / clusters * clusters : pairs;
        split = (unsigned long long)(pairs - whole) * steps;
        runs = split < clusters ? split : clusters;  // no empty run: a step or more each
        at = cluster < runs ? run_start(cluster) : 0;  // fewer steps than clusters: some have none
        end = cluster < runs ? run_start(cluster + 1) : 0;
    }
    // where run q starts: run q is steps [q split / runs, (q + 1) split / runs) of the shared pairs
    __host__ __device__ unsigned long long run_start(size_t q) const { return split * q / runs; }

    // The next unit, false when the cluster is done: its whole pairs first, then its run.
    __host__ __device__ bool next_unit(work_unit &u) {
        if (next < whole) {
            u = {next, 0, steps};
            next += clusters;
            return true;
        }
        if (at >= end) return false;
        unsigned long long j = at / steps, stop = min(end, (j + 1) * steps);  // in shared pair j
        u = {whole + (size_t)j, (int)(at - j * steps), (int)(stop - j * steps)};
        at = stop;
        return true;
    }
    // The clusters after `q` whose runs hold steps of `pair` (a shared pair whose first step is
    // in q's run): [q + 1, last). Each of them has one unit of it, the first of its run.
    __host__ __device__ size_t sharers_end(size_t pair, size_t q) const {
        unsigned long long stop = (unsigned long long)(pair - whole + 1) * steps;
        size_t last = q + 1;
        while (last < runs && run_start(last) < stop) last++;
        return last;
    }
};

// Where the partial sums wait: a slot for each block and consumer warpgroup (a block shares at
// most one unit: only the first unit of its run can start inside a pair), R floats a thread,
// stored as float4 so that a warpgroup's stores of one float4 each are 2 KB in a row. And a
// counter for each shared pair, block of the cluster and warpgroup: how many partial sums of its
// part of the pair are in their slots. Fewer pairs are shared than there are clusters, so the
// counters number under 2 x 2 x clusters <= 2 x SMs. The counters start at 0 (cudaMemset, once)
// and the warpgroup that adds the partial sums sets its counter back to 0, ready for the next
// launch.
constexpr size_t STREAMK_SLOT_FLOATS = 64 * 256;  // a warpgroup's 64 x 256 results
static size_t streamk_partial_bytes(int sms) {
    return (size_t)sms * 2 * STREAMK_SLOT_FLOATS * sizeof(float);
}
static size_t streamk_counter_bytes(int sms) { return (size_t)sms * 2 * sizeof(unsigned); }

// The slot of block `block`'s consumer warpgroup `wg` (1 or 2).
__device__ inline float4 *partial_slot(float4 *partials, size_t block, int wg) {
    return partials + (block * 2 + (wg - 1)) * (STREAMK_SLOT_FLOATS / 4);
}

#ifdef KL_SM90A
// The release and acquire that pass a partial sum from one SM to another: the sharer's stores,
// then its release-add on the counter; the adder's acquire-load that sees the count, then its
// loads of the sums. Both at the scope of the GPU. The sums are stored and loaded with .cg
// (in L2, not this SM's L1): no SM reads its own, so L1 would only hold them in vain.
__device__ inline void add_release(unsigned *counter, unsigned x) {
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;\n" ::"l"(counter), "r"(x) : "memory");
}
__device__ inline unsigned load_acquire(const unsigned *counter) {
    unsigned x;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(x) : "l"(counter) : "memory");
    return x;
}
__device__ inline unsigned long long nanoseconds() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
    return t;
}

// A warpgroup's partial sum into its slot, then one count on the pair's counter once all 128
// threads have stored (named barrier `id`: the warpgroup's).
template <int R>
__device__ void share_partial(const float (&acc)[R], float4 *slot, unsigned *counter, int id) {
    int t = threadIdx.x % WG;
#pragma unroll
    for (int i = 0; i < R / 4; i++)
        __stcg(slot + i * WG + t,
               make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]));
    named_barrier(id, WG);  // every thread's stores are made...
    if (t == 0) add_release(counter, 1);  // ...and released with the count
}

// Thread 0 of the warpgroup waits until `count` partial sums are in; the rest wait for it at
// named barrier `id`. A count that never comes is a bug in the plan: after 10 s we stop the
// kernel (a launch error) rather than hang.
__device__ inline void wait_partials(unsigned *counter, unsigned count, int id) {
    if (threadIdx.x % WG == 0) {
        unsigned long long start = nanoseconds();
        while (load_acquire(counter) < count)
            if (nanoseconds() - start > 10000000000ull) __trap();
        *counter = 0;  // ready for the next launch: every sharer of this launch has counted
    }
    named_barrier(id, WG);
}

// One sharer's partial sum, added to ours.
template <int R>
__device__ void add_partial(float (&acc)[R], const float4 *slot) {
    int t = threadIdx.x % WG;
#pragma unroll
    for (int i = 0; i < R / 4; i++) {
        float4 x = __ldcg(slot + i * WG + t);
        acc[4 * i] += x.x, acc[4 * i + 1] += x.y, acc[4 * i + 2] += x.z, acc[4 * i + 3] += x.w;
    }
}
#endif
