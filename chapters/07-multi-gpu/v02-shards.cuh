// ---- v2 shards ----------------------------------------------------------------------------------
// Split the work: GPU g owns shard g, about n / G floats. Reduce-scatter: every other GPU's
// shard g lands in GPU g's scratch (one slot a peer) and GPU g sums shard g alone. All-gather:
// once GPU h has summed shard h (its event), GPU g copies it into its own result. Each GPU now
// receives 2(G - 1)/G n floats instead of (G - 1) n, and does 1/G of the adds. The sum of each
// element is made once, on its owner, so every GPU gets the same bits. (The kernel that sums a
// shard, which v3 runs too, is in shard-sum.cuh.)
static void launch_v2(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    constexpr int THREADS = 256;  // a grid-stride block: eight warps
    int G = p->gpus;
    fork_streams(p);
    for (int g = 0; g < G; g++) {  // reduce-scatter
        CHECK(cudaSetDevice(g));
        cudaStream_t s = p->stream[g][0];
        span mine = shard(p->n, G, g);
        for (int h = 0; h < G; h++)
            if (h != g)
                CHECK(cudaMemcpyPeerAsync(p->scratch[g] + peer_slot(h, g) * p->slot, g,
                                          p->x[h] + mine.lo, h, mine.count * sizeof(float), s));
        allreduce_v2_shards<<<grid_for(p, mine.count, THREADS), THREADS, 0, s>>>(
            p->out[g] + mine.lo, p->x[g] + mine.lo, p->scratch[g], p->slot, g, G, mine.count);
        CHECK_LAUNCH();
        CHECK(cudaEventRecord(p->ev[g][0], s));  // shard g is summed
    }
    for (int g = 0; g < G; g++) {  // all-gather
        CHECK(cudaSetDevice(g));
        for (int h = 0; h < G; h++) {
            if (h == g) continue;
            span theirs = shard(p->n, G, h);
            CHECK(cudaStreamWaitEvent(p->stream[g][0], p->ev[h][0], 0));
            CHECK(cudaMemcpyPeerAsync(p->out[g] + theirs.lo, g, p->out[h] + theirs.lo, h,
                                      theirs.count * sizeof(float), p->stream[g][0]));
        }
    }
    join_streams(p);
}
