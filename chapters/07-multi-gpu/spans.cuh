// ---- how the data is cut ------------------------------------------------------------------------

// [0, n) cut into `parts` pieces whose boundaries are multiples of ALIGN: piece i begins here.
// Pieces may be empty (n = 1 on two GPUs: shard 0 is empty), and the last one takes the tail, so
// no size has to be a multiple of anything. Plain arithmetic, the same on the host and the GPU.
__host__ __device__ inline size_t part_begin(size_t n, size_t parts, size_t i) {
    size_t units = (n + ALIGN - 1) / ALIGN;  // n < 2^31, so units * i stays far below 2^64
    size_t b = units * i / parts * ALIGN;
    return b < n ? b : n;
}

typedef struct {
    size_t lo, count;  // the floats [lo, lo + count) of a buffer
} span;

__host__ __device__ inline span part(size_t lo, size_t n, size_t parts, size_t i) {
    size_t b = part_begin(n, parts, i), e = part_begin(n, parts, i + 1);
    return span{lo + b, e - b};
}

// Shard s of G: the part of every buffer that GPU s owns (v2 to v4 and v4-rotated; through
// chunk_of and ring_chunks, v4a to v5a, v7 and v7a).
__host__ __device__ inline span shard(size_t n, int gpus, int s) { return part(0, n, gpus, s); }

// Chunk c of channel b of segment s (v4a, v5, v5a, v7 and v7a): the segment cut into channel
// slices, each slice into chunks. Every GPU computes the same spans, so "chunk c of slice b of
// segment s" names the same floats on every GPU.
__host__ __device__ inline span chunk_of(size_t n, int gpus, int s, unsigned b, unsigned channels,
                                         size_t c, size_t chunks) {
    span seg = shard(n, gpus, s);
    span slice = part(seg.lo, seg.count, channels, b);
    return part(slice.lo, slice.count, chunks, c);
}

// The ring's schedule (v5). Step j of 2(G - 1): during the reduce-scatter, steps j < G - 1, GPU
// me adds its input into segment (me - 1 - j) mod G, which its left neighbour summed at step
// j - 1; after G - 1 steps it holds the whole sum of segment me + 1. During the all-gather it
// copies segment (me - (j - (G - 1))) mod G, which the left neighbour finished at step j - 1.
__host__ __device__ inline int ring_segment(int me, int gpus, int j) {
    int k = j < gpus - 1 ? me - 1 - j : me - (j - (gpus - 1));
    return ((k % gpus) + gpus) % gpus;
}

// The pushing ring's schedule (v5a). At step j GPU me works on segment (me - j) mod G, which its
// left neighbour stored into our memory at step j - 1 (there, segment (me - 1 - (j - 1)) mod G:
// the same one), and stores its result into the right neighbour's. After G - 1 steps it holds
// the whole sum of segment me + 1, as in v5; then the all-gather passes the finished segments on.
__host__ __device__ inline int push_segment(int me, int gpus, int j) {
    return (((me - j) % gpus) + gpus) % gpus;
}

// Chunks a channel slice for the rings (v5, v5a): the same number in every slice of every segment,
// enough that the largest slice's chunks hold at most `chunk` floats.
static inline size_t ring_chunks(size_t n, int gpus, unsigned channels, size_t chunk) {
    size_t most = 0;
    for (int s = 0; s < gpus; s++)
        for (unsigned b = 0; b < channels; b++) {
            span seg = shard(n, gpus, s), slice = part(seg.lo, seg.count, channels, b);
            if (slice.count > most) most = slice.count;
        }
    size_t chunks = (most + chunk - 1) / chunk;
    return chunks < 1 ? 1 : chunks;
}

// Where GPU h's piece goes in GPU me's buffers, one slot for each other GPU: the slots skip me
// (v2's and v3's scratch, v6c's receive buffers).
__host__ __device__ inline int peer_slot(int h, int me) { return h < me ? h : h - 1; }
