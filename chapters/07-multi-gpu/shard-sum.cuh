// ---- the sum of a shard, from the peers' slots (v2 on) ------------------------------------------
// GPU `me` sums its shard (count floats): its own input `mine`, and each peer's piece, which
// the copies of the reduce-scatter put in recv, one slot a peer. v2 runs it on a whole shard, v3
// on each chunk of one.
__global__ void allreduce_v2_shards(float *__restrict__ out, const float *__restrict__ mine,
                                    const float *__restrict__ recv, size_t slot, int me, int gpus,
                                    size_t count) {
    // EXERCISE: shards begin
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        float s = 0.0f;
        // GPUs 0 .. G-1 in order: ours from our input, peer h's from its slot in recv
        for (int h = 0, r = 0; h < gpus; h++) s += h == me ? mine[i] : recv[(size_t)r++ * slot + i];
        out[i] = s;
    }
    // EXERCISE: shards end
}
