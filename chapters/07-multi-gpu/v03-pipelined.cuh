// ---- v3 pipelined -------------------------------------------------------------------------------
// In v2 each GPU's copy engines and SMs take turns: copy in, then sum, then copy out. Cut every
// shard into chunks and give each kind of work its own stream: stream 1 copies chunk c + 1 in
// while stream 0 sums chunk c (v2's kernel) and stream 2 copies chunk c - 1 out, each waiting
// only for the events of the chunk it needs. Only the first chunk's copy in and the last chunk's
// copy out are left outside the overlap.
static void launch_v3(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    constexpr int THREADS = 256;  // a grid-stride block: eight warps
    // LARGEST_CHUNK: 1 Mi floats (4 MiB), the largest chunk until MAX_CHUNKS caps the count. A
    // shard of up to this size is not cut at all; a larger one gets as many chunks as keep each
    // chunk no larger than this (so chunks are 2 to 4 MiB until the cap, and larger after it).
    // Each copy and each kernel costs some microseconds to start; 4 MiB takes about 9 of them to
    // cross NVLink even at the datasheet's 450 GB/s each way, so the overlap still pays.
    constexpr size_t LARGEST_CHUNK = (size_t)1 << 20;
    constexpr size_t MAX_CHUNKS = 16;  // leaves about 1/16 of the copies outside the overlap
    static_assert(2 * MAX_CHUNKS <= EVENTS, "v3 needs two events a chunk");
    int G = p->gpus;
    // The same number of chunks in every shard, so chunk c names the same floats everywhere
    size_t chunks = (shard(p->n, G, G - 1).count + LARGEST_CHUNK - 1) / LARGEST_CHUNK;
    chunks = chunks < 1 ? 1 : chunks > MAX_CHUNKS ? MAX_CHUNKS : chunks;
    fork_streams(p);
    for (int g = 0; g < G; g++) {  // reduce-scatter, chunk by chunk
        CHECK(cudaSetDevice(g));
        cudaStream_t in = p->stream[g][1], sum = p->stream[g][0];
        span mine = shard(p->n, G, g);
        for (size_t c = 0; c < chunks; c++) {
            span k = part(mine.lo, mine.count, chunks, c);
            float *recv = p->scratch[g] + (k.lo - mine.lo);  // slot r of this chunk: + r * slot
            for (int h = 0; h < G; h++)
                if (h != g)
                    CHECK(cudaMemcpyPeerAsync(recv + peer_slot(h, g) * p->slot, g, p->x[h] + k.lo,
                                              h, k.count * sizeof(float), in));
            CHECK(cudaEventRecord(p->ev[g][c], in));  // chunk c has arrived
            CHECK(cudaStreamWaitEvent(sum, p->ev[g][c], 0));
            allreduce_v2_shards<<<grid_for(p, k.count, THREADS), THREADS, 0, sum>>>(
                p->out[g] + k.lo, p->x[g] + k.lo, recv, p->slot, g, G, k.count);
            CHECK_LAUNCH();
            CHECK(cudaEventRecord(p->ev[g][MAX_CHUNKS + c], sum));  // chunk c is summed
        }
    }
    for (int g = 0; g < G; g++) {  // all-gather, chunk by chunk, as each is summed
        CHECK(cudaSetDevice(g));
        cudaStream_t outs = p->stream[g][2];
        for (size_t c = 0; c < chunks; c++) {
            for (int h = 0; h < G; h++) {
                if (h == g) continue;
                span theirs = shard(p->n, G, h), k = part(theirs.lo, theirs.count, chunks, c);
                CHECK(cudaStreamWaitEvent(outs, p->ev[h][MAX_CHUNKS + c], 0));
                CHECK(cudaMemcpyPeerAsync(p->out[g] + k.lo, g, p->out[h] + k.lo, h,
                                          k.count * sizeof(float), outs));
            }
        }
    }
    join_streams(p);
}
