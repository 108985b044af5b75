// Chapter 07: all-reduce across GPUs. Every GPU holds n floats; afterwards every GPU holds the
// element-wise sum of all of them. We build what NCCL does, one idea at a time, and run NCCL
// itself first, in the same process, on the same buffers.
//
//   nccl          (baseline) ncclAllReduce over every GPU, NVLink multicast (NVLS) off
//   v0 host        copy every buffer to the host, add them on the CPU, copy the sum back
//   v1 naive       each GPU copies every other GPU's whole buffer (cudaMemcpyPeerAsync) and adds
//                  it into its result: G - 1 whole buffers cross into every GPU, one after another
//   v2 shards      reduce-scatter + all-gather: GPU g owns shard g, receives only that shard of
//                  the others' buffers, sums it, and the others copy the finished shard back
//   v3 pipelined   v2 cut into chunks over three streams a GPU: chunk c+1 arrives while chunk c
//                  is summed and chunk c-1 is copied back, so copies and sums overlap
//   v3a loads      v3 with kernels that load the other GPUs' memory over NVLink (peer access)
//                  in place of the copies; chunks and events as v3
//   v4 direct      v3a's kernels over whole shards, no chunks, and no events: a one-warp kernel
//                  is the barrier between GPUs (flags at system scope) between the kernel that
//                  sums the shard and the one that gathers the finished shards
//   v4a fused      v4's three kernels as one: block b sums slice b of its shard, meets block b
//                  of every other GPU (a flag a block and a peer), then gathers slice b of theirs
//   v5 ring        one kernel a GPU: channels (blocks) each run a ring over every GPU, step by
//                  step, chunk by chunk, each step waiting only for the left neighbour's flag
//   v5a push       v5 with each step stored into the right neighbour's memory instead of loaded
//                  from the left's: a store goes out and is done, a load waits for its data
//   v6 oneshot     for small buffers: one kernel a GPU whose blocks meet the other GPUs' blocks
//                  (flags counted by the kernel: no host work between calls) and then load and
//                  add every GPU's whole input, one step
//   v6a staged     v6 with one meeting a call, not two: each GPU copies its input into one of
//                  two staging buffers (by the call's parity), meets, then loads and adds those
//   v6b fewblocks  v6a's kernel on fewer blocks from 16 KiB to 256 KiB: fewer pairs that meet
//   v6c ll         no meeting: each GPU stores its input, each float beside the call's number in
//                  one 8-byte word, into a buffer on every other GPU, and waits on its own memory
//                  until every word carries the number (NCCL's LL); up to 1 MiB a GPU
//   v7 twoshot     v4's reduce-scatter + all-gather in one kernel, the blocks meeting in between
//   v7a rotated    v7 with each GPU gathering from the next GPU on, so that no GPU is loaded by
//                  every other at once
//   v8 auto        picks v6c, v6a, v6, v7a or v5a by the size of the call and the GPU count (its
//                  rule printed): on two GPUs v6c, then a one-shot at every size
//   v4-rotated     experiment: v4 with every GPU visiting its peers from the next GPU on (v7a's
//                  idea, on v4's kernels)
//
// Build and run:   make build/allreduce && build/allreduce       (n = 2^28 floats, 1 GiB a GPU)
//                  build/allreduce -n 1000003 -v v3,v5 --reps 50
//                  build/allreduce -n 1024 --batch 200           (a batch of calls between one
//                  build/allreduce -n 1024 --batch 200 --graph    pair of events; in a CUDA graph)
//                  build/allreduce --input int | --list | --help | --check-only | --self-test
// It needs two or more GPUs; with one it says so and exits 0, with none it exits 3.
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda/atomic>
#include <nccl.h>

#include "gpu.h"
#include "npy.h"
#include "rng.h"

// 2^28 floats: 1 GiB a GPU, about seventeen times the 60 MiB L2 of an H200, and the largest size
// of the bench sweep. Large messages are where an all-reduce is bound by the links, which is the
// lesson; the bench sweep goes down to 4 KiB.
#define DEFAULT_N 268435456
// 20 timed launches give a stable median; 3 warm-up launches take NCCL's first-call set-up,
// module loading and first-touch effects out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42

// The most GPUs we drive: an NVSwitch node has 8, and every array below is sized by it.
#define MAX_GPUS 8
// Every shard, channel slice and chunk begins at a multiple of ALIGN floats (128 bytes): float4
// loads are aligned, and a warp's 32 loads of 16 bytes are four whole 128-byte lines.
#define ALIGN 32
// Streams a GPU: [0] sums (and everything of the versions that need one stream), [1] copies in,
// [2] copies out (v3 overlaps all three).
#define STREAMS 3
// Events a GPU for ordering work between streams and GPUs: v2 uses one, v3 two a chunk.
#define EVENTS 64
// Flag words a GPU, written by the other GPUs (v4: one per peer; v4a: one per channel and peer,
// 32 x MAX_GPUS; v5: one per channel).
#define FLAG_WORDS 256
// The most blocks in a grid of v6 on, whose blocks meet the other GPUs' blocks (meet.cuh): all
// of a grid's blocks must be on the GPU at once, and 64 is far below the SMs of any GPU this
// chapter runs on. Their flags: one word for each of three meetings (start, middle, end), each
// block and each peer, in the memory of every GPU.
#define MEET_BLOCKS 64
#define MEET_WORDS (3 * MEET_BLOCKS * MAX_GPUS)
// v6c's largest buffer: 2^18 floats, 1 MiB a GPU. It sends 8 bytes for every 4 of data, so
// each GPU sends 4n bytes more to every peer than v6a loads, and at 1 MiB those take the links
// about as long as the meeting that v6c saves (README, "v6c ll"): above it v6c cannot win, and
// it is skipped. Its receive buffers, 2 (G - 1) x 8n bytes a GPU, exist only up to it.
#define LL_MAX_N 262144

// --input: what the floats are.
//   random  uniform in [-1, 1): GPU 0 takes the generator's first n values, GPU 1 the next n...
//   int     whole numbers -8 to 8: every sum of up to 8 of them is exact in a float whatever
//           the order of the adds, so every version must match the reference bit for bit
static const char *const inputs[] = {"random", "int", NULL};

// Version flags of this chapter, beside the harness's KL_BASELINE and KL_UNCHECKED: what a version
// needs of the machine. main skips it, with a line that says why, where the GPUs lack it.
enum {
    NEEDS_ALL_PEERS = 4u,   // every GPU loads from and stores to every other GPU's memory
    NEEDS_RING_PEERS = 8u,  // GPU g reaches GPU g - 1 (it loads) and GPU g + 1 (it sets a flag)
    // Whether a CUDA graph can capture its calls (--graph); the others are skipped there, with
    // the reason (no_graph_why)
    CAPTURES = 16u,         // it can
    HOST_WAITS = 32u,       // it cannot: its launch waits on the host
    PEER_COPIES = 64u,      // it cannot: cudaMemcpyPeerAsync cannot be captured
    HOST_COUNTS = 128u,     // it cannot: its kernels take a count kept on the host, which a
                            // graph would replay unchanged
};

// The problem every version sees. Pointers are per GPU: x[g] lives on GPU g.
typedef struct {
    int gpus;                    // G: the GPUs taking part, 0 .. G - 1
    size_t n;                    // floats in each GPU's buffer
    int sms, sm_threads;         // of GPU 0; every GPU is taken to be of the same kind
    float *x[MAX_GPUS];          // the inputs: n floats on each GPU, never written by a version
    float *out[MAX_GPUS];        // the results: n floats on each GPU
    float *scratch[MAX_GPUS];    // where a version puts what it received: scratch_count floats
    size_t scratch_count;
    size_t slot;                 // floats from one peer's piece to the next in scratch (v2, v3)
    unsigned long long *barrier_flags[MAX_GPUS], *ring_flags[MAX_GPUS];  // FLAG_WORDS each
    unsigned long long barrier_epoch, ring_seq;  // how far those flags have counted (v4, v5)
    unsigned long long *meet_flags[MAX_GPUS];    // v6 on: MEET_WORDS each (meet.cuh)
    unsigned long long *meet_count[MAX_GPUS];    // v6 on: each block's calls, MEET_BLOCKS each
    float *stage[MAX_GPUS][2];   // v6a on: two staging buffers of n floats a GPU, [GPU][parity]
    unsigned long long *ll_recv[MAX_GPUS];   // v6c: 2 x (G - 1) x ll_stride words a GPU, or NULL
    size_t ll_stride;                        // (n > LL_MAX_N): [parity][slot][word]
    unsigned long long *ll_count[MAX_GPUS];  // v6c: each block's calls, MEET_BLOCKS each
    unsigned long long *failure[MAX_GPUS];       // 4 words: a wait that timed out says so here
    cudaStream_t stream[MAX_GPUS][STREAMS];
    cudaEvent_t go;                                // recorded on GPU 0 when a launch begins
    cudaStream_t origin;           // on GPU 0: where a batch's events go (--batch, --graph)
    bool in_batch;                 // launches are being enqueued back to back (a batch)
    int calls;                     // of the batch, those that ended with join_streams
    bool graph;                    // --graph: versions that cannot be captured are skipped
    cudaEvent_t done[MAX_GPUS][STREAMS];           // each stream's end of a launch
    cudaEvent_t ev[MAX_GPUS][EVENTS];
    ncclComm_t comm[MAX_GPUS];
    bool peer[MAX_GPUS][MAX_GPUS];  // GPU g may load from and store to GPU h's memory
    float *host_in[MAX_GPUS];    // pinned: the inputs as made, then v0's staging
    float *host_sum;             // pinned: v0's sum
    float *want;                 // the reference: n floats
    float *host_got;             // pinned: one GPU's result, copied back to be checked
    double abs_max, atol;        // the largest sum of |x| over the GPUs, and the tolerance
    float *gathered;             // on GPU 0: G x n floats, every GPU's result (the harness's out)
    unsigned long long *same;    // on GPU 0: words of a GPU's result equal to GPU 0's (the check)
    bool verifying;              // --verify: gathered holds a dumped output; leave it be
} allreduce_problem;

#include "spans.cuh"

// ---- the CPU reference --------------------------------------------------------------------------

// want[i] = x[0][i] + ... + x[G-1][i], added in double (exact: at most 8 floats of 24 bits) and
// rounded once to float. abs_max: the largest sum over the GPUs of |x[g][i]|, for the tolerance.
static void allreduce_cpu(float *const *x, int gpus, size_t n, float *want, double *abs_max) {
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double s = 0.0, a = 0.0;
        for (int g = 0; g < gpus; g++) s += x[g][i], a += fabs((double)x[g][i]);
        want[i] = (float)s;
        if (a > worst) worst = a;
    }
    *abs_max = worst;
}

// A float sum of G terms makes G - 1 adds, each rounding by at most half an ulp, u = 2^-24, of a
// partial sum no larger than A = sum |x|; the reference adds one more rounding of at most u |want|.
// So |got - want| <= G u A, whatever the order of the adds (every version and NCCL add in some
// order). We allow twice that: FLT_EPSILON = 2u times G A. Whole numbers: exact.
static double allreduce_tolerance(int gpus, double abs_max, int exact) {
    return exact ? 0.0 : FLT_EPSILON * gpus * abs_max;
}

// nccl-tests' bus bandwidth: algbw x 2(G - 1)/G, the rate each GPU's links carry in a ring
// all-reduce, which makes the figure comparable across GPU counts (README).
static double busbw_factor(int gpus) { return 2.0 * (gpus - 1) / gpus; }

// ---- every launch begins and ends the same way -------------------------------------------------

// The harness times a launch with events on GPU 0's default stream. So a launch begins by
// recording `go` there and making every stream of every GPU wait for it: no GPU starts before the
// start event. It ends with each GPU's side streams joined into its stream 0, each stream 0
// recording `done`, and GPU 0's default stream waiting for every `done`: the stop event, recorded
// next by the harness, comes after the last GPU's last operation. This also orders launches: the
// next one cannot begin on any GPU before this one has ended on all of them, which v1 to v5 rely
// on: v2 to v5 write memory that another GPU may still be reading for the call before, and v1
// reads other GPUs' inputs, which a caller may change once the call has ended on their GPU.
//
// A batch (--batch N, time_batch below) is timed with one pair of events around N launches on
// the stream `origin`: it forks every stream from there once, before the first launch, and joins
// them there once, after the last. Inside a batch, fork_streams orders a launch after the one
// before on every GPU (every stream of every GPU waits for every GPU's `done` of that launch) and
// join_streams joins each GPU's side streams into its stream 0: the host still orders the calls
// of v1 to v5, with about as many calls into CUDA as a fork and a join. NCCL and v6 on order
// their calls on the GPUs themselves and use fork_unless_batched and join_unless_batched: in a
// batch the host does nothing between their calls.
static void fork_from(allreduce_problem *p, cudaStream_t origin) {
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventRecord(p->go, origin));
    for (int g = 0; g < p->gpus; g++) {
        CHECK(cudaSetDevice(g));
        for (int s = 0; s < STREAMS; s++) CHECK(cudaStreamWaitEvent(p->stream[g][s], p->go, 0));
    }
}

// Each GPU's side streams into its stream 0, which records done[g][0].
static void join_each_gpu(allreduce_problem *p) {
    for (int g = 0; g < p->gpus; g++) {
        CHECK(cudaSetDevice(g));
        for (int s = 1; s < STREAMS; s++) {
            CHECK(cudaEventRecord(p->done[g][s], p->stream[g][s]));
            CHECK(cudaStreamWaitEvent(p->stream[g][0], p->done[g][s], 0));
        }
        CHECK(cudaEventRecord(p->done[g][0], p->stream[g][0]));
    }
}

static void join_into(allreduce_problem *p, cudaStream_t origin) {
    CHECK(cudaSetDevice(0));  // the harness works on GPU 0
    for (int g = 0; g < p->gpus; g++) CHECK(cudaStreamWaitEvent(origin, p->done[g][0], 0));
}

static void fork_streams(allreduce_problem *p) {
    if (!p->in_batch) {
        fork_from(p, 0);
        return;
    }
    if (p->calls == 0) return;  // the first of a batch: the batch's fork has ordered it
    for (int g = 0; g < p->gpus; g++) {  // after every GPU's end of the launch before
        CHECK(cudaSetDevice(g));
        for (int s = 0; s < STREAMS; s++)
            for (int h = 0; h < p->gpus; h++)
                if (h != g || s != 0) CHECK(cudaStreamWaitEvent(p->stream[g][s], p->done[h][0], 0));
    }
}

static void join_streams(allreduce_problem *p) {
    join_each_gpu(p);
    if (p->in_batch) p->calls++;
    else join_into(p, 0);
}

static void fork_unless_batched(allreduce_problem *p) {
    if (!p->in_batch) fork_streams(p);
}

static void join_unless_batched(allreduce_problem *p) {
    if (!p->in_batch) join_streams(p);
}

// Blocks of `threads` for a grid-stride loop over `count` items: enough to fill GPU 0 once, at
// least one.
static unsigned grid_for(const allreduce_problem *p, size_t count, int threads) {
    size_t full = (size_t)p->sms * (p->sm_threads / threads);
    size_t want = (count + threads - 1) / threads;
    return (unsigned)(want < 1 ? 1 : want < full ? want : full);
}

// ---- baseline -----------------------------------------------------------------------------------

// nccl: one ncclAllReduce per GPU inside a group, so NCCL launches them together. NVLink
// multicast is off for the whole program (main sets NCCL_NVLS_ENABLE=0 before NCCL starts).
#define CHECK_NCCL(call) nccl_check((call), #call, __FILE__, __LINE__)

static void nccl_check(ncclResult_t r, const char *call, const char *file, int line) {
    if (r == ncclSuccess) return;
    fprintf(stderr, "NCCL error: %s at %s:%d: %s\n", call, file, line, ncclGetErrorString(r));
    exit(KL_EXIT_GPU);
}

static void launch_nccl(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    fork_unless_batched(p);  // NCCL orders its calls on the GPUs
    CHECK_NCCL(ncclGroupStart());
    for (int g = 0; g < p->gpus; g++)
        CHECK_NCCL(ncclAllReduce(p->x[g], p->out[g], p->n, ncclFloat, ncclSum, p->comm[g],
                                 p->stream[g][0]));
    CHECK_NCCL(ncclGroupEnd());
    join_unless_batched(p);
}

#include "v00-host.cuh"
#include "v01-naive.cuh"
#include "shard-sum.cuh"
#include "v02-shards.cuh"
#include "v03-pipelined.cuh"
#include "nvlink.cuh"
#include "v03a-loads.cuh"
#include "v04-direct.cuh"
#include "v04a-fused.cuh"
#include "v04x-rotated.cuh"
#include "v05-ring.cuh"
#include "v05a-push.cuh"
#include "meet.cuh"
#include "peer-sum.cuh"
#include "v06-oneshot.cuh"
#include "staged-sum.cuh"
#include "v06a-staged.cuh"
#include "v06b-fewblocks.cuh"
#include "v06c-ll.cuh"
#include "v07-twoshot.cuh"
#include "v07a-rotated.cuh"
#include "v08-auto.cuh"
#include "self-test-ll.cuh"
#include "self-test-auto.cuh"

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"nccl", "AllReduce", launch_nccl, KL_BASELINE | CAPTURES},
    {"v0", "host", launch_v0, HOST_WAITS},
    {"v1", "naive", launch_v1, PEER_COPIES},
    {"v2", "shards", launch_v2, PEER_COPIES},
    {"v3", "pipelined", launch_v3, PEER_COPIES},
    {"v3a", "loads", launch_v3a, NEEDS_ALL_PEERS | CAPTURES},
    {"v4", "direct", launch_v4, NEEDS_ALL_PEERS | HOST_COUNTS},
    {"v4a", "fused", launch_v4a, NEEDS_ALL_PEERS | HOST_COUNTS},
    {"v5", "ring", launch_v5, NEEDS_RING_PEERS | HOST_COUNTS},
    {"v5a", "push", launch_v5a, NEEDS_RING_PEERS | HOST_COUNTS},
    {"v6", "oneshot", launch_v6, NEEDS_ALL_PEERS | CAPTURES},
    {"v6a", "staged", launch_v6a, NEEDS_ALL_PEERS | CAPTURES},
    {"v6b", "fewblocks", launch_v6b, NEEDS_ALL_PEERS | CAPTURES},
    {"v6c", "ll", launch_v6c, NEEDS_ALL_PEERS | CAPTURES},  // (up to LL_MAX_N: see below)
    {"v7", "twoshot", launch_v7, NEEDS_ALL_PEERS | CAPTURES},
    {"v7a", "rotated", launch_v7a, NEEDS_ALL_PEERS | CAPTURES},
    {"v8", "auto", launch_v8, NEEDS_ALL_PEERS | CAPTURES},  // (not where it picks v5a: see below)
    // experiments, each on the version it varies
    {"v4-rotated", "rotated", launch_v4_rotated, NEEDS_ALL_PEERS | HOST_COUNTS},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// ---- checking and saving ------------------------------------------------------------------------

// How many of the n words of slot b equal slot a's, bit for bit (NaN's bits too), on GPU 0.
__global__ void count_same(const unsigned *a, const unsigned *b, size_t n,
                           unsigned long long *same) {
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        mine += a[i] == b[i];
    for (int d = 16; d > 0; d /= 2) mine += __shfl_down_sync(~0u, mine, d);
    if (threadIdx.x % 32 == 0) atomicAdd(same, mine);
}

// Whether GPU g's gathered result is GPU 0's bit for bit: then its check finds what GPU 0's
// found, against the same reference. On more than two GPUs that saves the CPU its slowest work:
// there a float sum of G terms now and then rounds otherwise than the reference, so memcmp fails
// and the element-wise check takes seconds a GiB, a GPU at a time. Only a count of all n words
// says "the same"; a count that falls short (or a kernel that did not run) leaves the full check.
static bool same_as_gpu0(allreduce_problem *p, int g) {
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemset(p->same, 0, sizeof *p->same));
    const unsigned *a = (const unsigned *)p->gathered, *b = a + (size_t)g * p->n;
    count_same<<<4 * p->sms, 256>>>(a, b, p->n, p->same);
    CHECK(cudaGetLastError());
    unsigned long long same = 0;
    CHECK(cudaMemcpy(&same, p->same, sizeof same, cudaMemcpyDeviceToHost));
    return same == p->n;
}

// Every GPU's result against the reference, GPU g as "row" g of the printed mismatches. The
// results are gathered into GPU 0's `gathered` first (the harness poisons it, dumps it for the
// grader and, with --verify, loads a dump of one of our versions into it instead: then it is
// checked as it is; baselines run as usual). Then every GPU's result, scratch and staging
// buffers are poisoned: the harness poisons only `gathered`, and the next version must find NaN, not
// this version's sums, on every GPU. A wait that timed out on any GPU fails the version too.
static void allreduce_check(void *problem, const version *v, check_result *r) {
    allreduce_problem *p = (allreduce_problem *)problem;
    size_t bytes = p->n * sizeof(float);
    size_t bad_of_gpu0 = 0;
    for (int g = 0; g < p->gpus; g++) {
        float *slot = p->gathered + (size_t)g * p->n;
        if (!p->verifying || (v->flags & KL_BASELINE))
            CHECK(cudaMemcpyPeer(slot, 0, p->out[g], g, bytes));
        if (g > 0 && same_as_gpu0(p, g)) {  // GPU 0's verdict, its mismatches counted again
            r->count += p->n;
            r->bad += bad_of_gpu0;
            if (bad_of_gpu0 > 0)
                printf("    GPU %d: GPU 0's result, bit for bit: the same %zu wrong element%s\n", g,
                       bad_of_gpu0, bad_of_gpu0 == 1 ? "" : "s");
            continue;
        }
        size_t bad_before = r->bad;
        CHECK(cudaMemcpy(p->host_got, slot, bytes, cudaMemcpyDeviceToHost));
        // Bit for bit the reference (as nearly every result is on two GPUs, where a float sum of
        // two terms is the same rounding whatever the order, and every result of --input int):
        // every element passes with no error, which is what check_f32 would find, from a
        // memcmp some twenty times faster than its comparison a float (seconds a GiB). Otherwise
        // the element-wise check, which says where and by how much.
        if (memcmp(p->host_got, p->want, bytes) == 0) r->count += p->n;
        else check_f32(r, p->host_got, p->want, 1, p->n, (size_t)g, p->atol, 0.0);
        if (g == 0) bad_of_gpu0 = r->bad - bad_before;
    }
    for (int g = 0; g < p->gpus; g++) {
        unsigned long long f[4];
        CHECK(cudaSetDevice(g));
        CHECK(cudaMemcpy(f, p->failure[g], sizeof f, cudaMemcpyDeviceToHost));
        if (f[0] != 0) {
            printf("    %s: GPU %d gave up waiting for GPU %llu (its flag at %llu, wanted %llu): "
                   "a GPU stopped, or the GPUs did not run at the same time\n",
                   v->tag, g, f[1], f[3], f[2]);
            r->bad++;
            CHECK(cudaMemset(p->failure[g], 0, sizeof f));
        }
        gpu_poison(p->out[g], bytes);
        gpu_poison(p->scratch[g], p->scratch_count * sizeof(float));
        gpu_poison(p->stage[g][0], 2 * (p->stage[g][1] - p->stage[g][0]) * sizeof(float));
        // v6c's words: NaN with the flag 2^32 - 1, which no call of a run carries, so a wait
        // that let a word through early would add NaN
        if (p->ll_recv[g])
            gpu_poison(p->ll_recv[g], 2 * (p->gpus - 1) * p->ll_stride * sizeof(unsigned long long));
        // the poison runs on GPU g's default stream, which the versions' streams do not wait
        // for: it must be done before the next launch begins
        CHECK(cudaDeviceSynchronize());
    }
    CHECK(cudaSetDevice(0));
}

// --save: every GPU's result, G rows of n floats (gathered by the check just before).
static void allreduce_save(void *problem, const char *dir, const char *tag) {
    allreduce_problem *p = (allreduce_problem *)problem;
    size_t count = size_mul((size_t)p->gpus, p->n), shape[2] = {(size_t)p->gpus, p->n};
    float *host = (float *)host_alloc(count * sizeof(float), "the results to save");
    CHECK(cudaMemcpy(host, p->gathered, count * sizeof(float), cudaMemcpyDeviceToHost));
    int rc = npy_save(dir, tag, "<f4", shape, 2, host);
    free(host);
    if (rc != 0) exit(KL_EXIT_USAGE);
}

// busbw for the row: the harness's GB/s column is algbw (n floats of one GPU over the time).
static double allreduce_busbw(void *problem, double ms) {
    allreduce_problem *p = (allreduce_problem *)problem;
    return p->n * sizeof(float) / (ms * 1e-3) / 1e9 * busbw_factor(p->gpus);
}

// ---- timing a batch of calls (--batch N, --graph) -----------------------------------------------

// Under --graph, why version v cannot be captured in a CUDA graph; NULL when it can, or without
// --graph.
static const char *no_graph_why(const allreduce_problem *p, const version *v) {
    if (!p->graph) return NULL;
    if (v->launch == launch_v8 && v8_pick(p->n, p->gpus) == PICK_RING) return v8_ring_why;
    if (v->flags & HOST_WAITS) return "its launch waits on the host for the copies down";
    if (v->flags & PEER_COPIES) return "cudaMemcpyPeerAsync cannot be captured";
    if (v->flags & HOST_COUNTS)
        return "its kernels take a count kept on the host (v4's epoch, v5's base), which a "
               "graph would replay unchanged";
    return NULL;
}

static const char *allreduce_skip(void *problem, const version *v) {
    allreduce_problem *p = (allreduce_problem *)problem;
    if (v->launch == launch_v6c && p->n > LL_MAX_N) return ll_large_why;
    return no_graph_why(p, v);
}

// `count` launches of v back to back, forked from `origin` once and joined into it once.
static void enqueue_batch(allreduce_problem *p, const version *v, int count) {
    fork_from(p, p->origin);
    p->in_batch = true, p->calls = 0;
    for (int i = 0; i < count; i++) {
        v->launch(p);
        CHECK_LAUNCH();
    }
    p->in_batch = false;
    join_each_gpu(p);
    join_into(p, p->origin);
}

// The harness's time_batch: a batch between one pair of events on `origin`, as nccl-tests
// times (the per-call time is the batch's / batch). With graph, the batch is captured once into
// a CUDA graph and each timed batch is one launch of it: no host work at all between calls.
// Warm-up: `warmup` calls as a batch (with graph: one launch of the graph).
static timing allreduce_time_batch(void *problem, const version *v, int warmup, int reps,
                                   int batch, bool graph) {
    allreduce_problem *p = (allreduce_problem *)problem;
    cudaGraphExec_t exec = NULL;
    if (graph) {
        cudaGraph_t captured;
        CHECK(cudaSetDevice(0));
        CHECK(cudaStreamBeginCapture(p->origin, cudaStreamCaptureModeThreadLocal));
        enqueue_batch(p, v, batch);
        CHECK(cudaStreamEndCapture(p->origin, &captured));
        CHECK(cudaGraphInstantiate(&exec, captured, 0));
        CHECK(cudaGraphDestroy(captured));
        CHECK(cudaGraphLaunch(exec, p->origin));
    } else if (warmup > 0) {
        enqueue_batch(p, v, warmup);
    }
    CHECK(cudaSetDevice(0));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    double *ms = (double *)host_alloc(sizeof(double) * reps, "timings");
    for (int i = 0; i < reps; i++) {
        CHECK(cudaEventRecord(start, p->origin));
        if (graph) CHECK(cudaGraphLaunch(exec, p->origin));
        else enqueue_batch(p, v, batch);
        CHECK(cudaSetDevice(0));
        CHECK(cudaEventRecord(stop, p->origin));
        CHECK(cudaEventSynchronize(stop));
        float t = 0.0f;
        CHECK(cudaEventElapsedTime(&t, start, stop));
        ms[i] = (double)t / batch;
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    if (exec) CHECK(cudaGraphExecDestroy(exec));
    timing t = timing_summary(ms, (size_t)reps);
    free(ms);
    return t;
}

// ---- the self-test of the CPU side (no GPU) -----------------------------------------------------

// The rings' schedules, played on the CPU for G GPUs with sets of contributions (bit g: GPU g's
// input is in the sum), with the kernels' rules for where each step reads and writes: v5's
// (ring_segment; GPU g loads what its left neighbour wrote in the left's memory) or, with push,
// v5a's (push_segment; the left stored it in g's memory, and g stores into its right
// neighbour's). True when every step reads only what the left neighbour wrote the step before,
// no input is added twice, and after 2(G - 1) steps every GPU holds every segment's full sum.
static bool schedule_ok(int G, bool push) {
    unsigned acc[MAX_GPUS][MAX_GPUS] = {}, out[MAX_GPUS][MAX_GPUS] = {};
    for (int j = 0; j < 2 * (G - 1); j++) {
        unsigned pacc[MAX_GPUS][MAX_GPUS], pout[MAX_GPUS][MAX_GPUS];  // as the step found them
        memcpy(pacc, acc, sizeof acc);
        memcpy(pout, out, sizeof out);
        for (int g = 0; g < G; g++) {
            int left = (g + G - 1) % G, right = (g + 1) % G;
            int seg = push ? push_segment(g, G, j) : ring_segment(g, G, j);
            // the segment the left neighbour worked on the step before: it must be ours
            int was = push ? push_segment(left, G, j - 1) : ring_segment(left, G, j - 1);
            if (j > 0 && was != seg) return false;
            if (!push && j < G - 1) {  // v5's reduce-scatter: the left's partial sum plus ours
                unsigned from = j == 0 ? 1u << left : pacc[left][seg];
                if (from & (1u << g)) return false;
                (j == G - 2 ? out : acc)[g][seg] = from | (1u << g);
            } else if (!push) {  // v5's all-gather: the left's finished segment
                out[g][seg] = pout[left][seg];
            } else if (j < G) {  // v5a's reduce-scatter: ours onto what the left stored here
                unsigned from = j == 0 ? 0u : pacc[g][seg];
                if (from & (1u << g)) return false;
                if (j < G - 1) acc[right][seg] = from | (1u << g);
                else out[g][seg] = out[right][seg] = from | (1u << g);  // the whole sum
            } else {  // v5a's all-gather: the finished segment the left stored in our out
                out[right][seg] = pout[g][seg];
            }
        }
    }
    for (int g = 0; g < G; g++)
        for (int s = 0; s < G; s++)
            if (out[g][s] != (1u << G) - 1) return false;
    return true;
}

// Every float of [0, n) in exactly one chunk of one channel slice of one segment, every chunk
// beginning at a multiple of ALIGN.
static bool cut_covers(size_t n, int gpus, unsigned channels, size_t chunks) {
    unsigned char *seen = (unsigned char *)calloc(n, 1);
    bool ok = seen != NULL;
    for (int s = 0; ok && s < gpus; s++)
        for (unsigned b = 0; ok && b < channels; b++)
            for (size_t c = 0; ok && c < chunks; c++) {
                span k = chunk_of(n, gpus, s, b, channels, c, chunks);
                ok = k.lo + k.count <= n && (k.count == 0 || k.lo % ALIGN == 0);
                for (size_t i = k.lo; ok && i < k.lo + k.count; i++) ok = seen[i]++ == 0;
            }
    for (size_t i = 0; ok && i < n; i++) ok = seen[i] == 1;
    free(seen);
    return ok;
}

static int allreduce_self_test(void) {
    int failed = 0, ok;
    // three floats on two GPUs, worked by hand
    float a[3] = {1.0f, 2.5f, -3.0f}, b[3] = {4.0f, -0.5f, 3.0f}, want[3];
    float *two[2] = {a, b};
    double abs_max = 0.0;
    allreduce_cpu(two, 2, 3, want, &abs_max);
    ok = want[0] == 5.0f && want[1] == 2.0f && want[2] == 0.0f && abs_max == 6.0;
    printf("%s allreduce_cpu: (1, 2.5, -3) + (4, -0.5, 3) = (5, 2, 0), largest sum |x| 6\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    // whole numbers -8 to 8 on 2, 3 and 8 GPUs, against sums in integers
    const int counts[] = {2, 3, 8};
    const size_t sizes[] = {1, 33, 4097};
    ok = 1;
    for (int gi = 0; gi < 3; gi++)
        for (int si = 0; si < 3; si++) {
            int G = counts[gi];
            size_t n = sizes[si];
            float *x[MAX_GPUS], *got = (float *)host_alloc(n * sizeof(float), "self-test");
            rng r;
            rng_init(&r, 7 + gi * 3 + si);
            for (int g = 0; g < G; g++) {
                x[g] = (float *)host_alloc(n * sizeof(float), "self-test");
                for (size_t i = 0; i < n; i++) x[g][i] = (float)((int)rng_below(&r, 17) - 8);
            }
            allreduce_cpu(x, G, n, got, &abs_max);
            for (size_t i = 0; i < n; i++) {
                long long s = 0;
                for (int g = 0; g < G; g++) s += (long long)x[g][i];
                ok &= got[i] == (float)s;
            }
            for (int g = 0; g < G; g++) free(x[g]);
            free(got);
        }
    printf("%s allreduce_cpu: whole numbers -8 to 8 on 2, 3, 8 GPUs sum exactly\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    // the cuts: odd sizes, GPU counts, channels and chunks
    const size_t odd[] = {1, 2, 3, 31, 32, 33, 127, 1023, 4097, 65537, 1000003};
    const unsigned channels[] = {1, 5, 32};
    const size_t chunks[] = {1, 3, 16};
    ok = 1;
    for (size_t si = 0; si < sizeof odd / sizeof odd[0]; si++)
        for (int G = 2; G <= MAX_GPUS; G++)
            for (int ci = 0; ci < 3; ci++)
                for (int ki = 0; ki < 3; ki++)
                    if (odd[si] < 100000 || (ci == 2 && ki == 2))
                        ok &= cut_covers(odd[si], G, channels[ci], chunks[ki]);
    printf("%s chunk_of: every float in one chunk, chunks aligned (n = 1 .. 1000003, G = 2 .. 8, "
           "1 to 32 channels, 1 to 16 chunks)\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    ok = shard(1, 2, 0).count == 0 && shard(1, 2, 1).count == 1 && shard(64, 2, 1).lo == 32 &&
         shard(65, 2, 1).lo == 32 && shard(65, 2, 1).count == 33 && shard(100, 3, 1).lo == 32;
    printf("%s shard: n = 1 on 2 GPUs leaves shard 0 empty; 65 floats split 32 + 33\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    // the ring's schedule
    ok = 1;
    for (int G = 2; G <= MAX_GPUS; G++) ok &= schedule_ok(G, false);
    printf("%s ring_segment: on 2 to %d GPUs each step reads what the left neighbour wrote the "
           "step before, and every GPU ends with every full sum\n", ok ? "PASS" : "FAIL", MAX_GPUS);
    failed += !ok;
    ok = 1;
    for (int G = 2; G <= MAX_GPUS; G++) ok &= schedule_ok(G, true);
    printf("%s push_segment: on 2 to %d GPUs each step reads what the left neighbour stored the "
           "step before, and every GPU ends with every full sum\n", ok ? "PASS" : "FAIL", MAX_GPUS);
    failed += !ok;
    // the slots of the other GPUs: 0 .. G - 2, each GPU's own left out
    ok = 1;
    for (int G = 2; G <= MAX_GPUS; G++)
        for (int me = 0; me < G; me++) {
            unsigned used = 0;
            for (int h = 0; h < G; h++)
                if (h != me) used |= 1u << peer_slot(h, me);
            ok &= used == (1u << (G - 1)) - 1;
        }
    printf("%s peer_slot: the other GPUs take slots 0 .. G - 2, one each, on 2 to %d GPUs\n",
           ok ? "PASS" : "FAIL", MAX_GPUS);
    failed += !ok;
    failed += v6c_self_test();  // what launch_v6c's kernel computes (a kit without v6c leaves this out)
    failed += v8_self_test();  // the rule launch_v8 follows (a kit without v8 leaves this out)
    // the tolerance and the bus bandwidth
    ok = allreduce_tolerance(2, 6.0, 1) == 0.0 &&
         allreduce_tolerance(2, 1.5, 0) == FLT_EPSILON * 3.0 && busbw_factor(2) == 1.0 &&
         busbw_factor(4) == 1.5 && busbw_factor(8) == 1.75;
    printf("%s allreduce_tolerance and busbw_factor: exact for whole numbers, FLT_EPSILON G "
           "sum|x| otherwise; busbw = algbw x 1, 1.5, 1.75 on 2, 4, 8 GPUs\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ---- setting up the GPUs ------------------------------------------------------------------------

// Every GPU that CUDA shows, up to MAX_GPUS, with peer access enabled wherever the hardware has
// it (NVLink, or PCIe where the platform allows): then a kernel on one GPU may load from and
// store to another's memory. Copies between GPUs (v1 to v3) work either way.
static void open_gpus(allreduce_problem *p) {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count > MAX_GPUS)
        printf("using the first %d of %d GPUs (the most this chapter drives)\n", MAX_GPUS, count);
    p->gpus = count < MAX_GPUS ? count : MAX_GPUS;
    for (int g = 0; g < p->gpus; g++) {
        CHECK(cudaSetDevice(g));
        for (int h = 0; h < p->gpus; h++) {
            int can = 0;
            if (h != g) CHECK(cudaDeviceCanAccessPeer(&can, g, h));
            p->peer[g][h] = can != 0;
            if (!can) continue;
            cudaError_t err = cudaDeviceEnablePeerAccess(h, 0);
            if (err == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();  // fine
            else CHECK(err);
        }
    }
    CHECK(cudaSetDevice(0));
}

// Deselects, with a line that says why, the versions whose GPUs cannot reach each other.
static void skip_unreachable(const allreduce_problem *p, bool *selected) {
    int G = p->gpus;
    for (int i = 0; i < VERSION_COUNT; i++) {
        if (!selected[i]) continue;
        for (int g = 0; g < G && selected[i]; g++)
            for (int h = 0; h < G && selected[i]; h++) {
                bool ring = h == (g + 1) % G || h == (g + G - 1) % G;
                bool need = h != g && ((versions[i].flags & NEEDS_ALL_PEERS) ||
                                       ((versions[i].flags & NEEDS_RING_PEERS) && ring));
                if (need && !p->peer[g][h]) {
                    printf("%s %s: skipped: GPU %d cannot load from GPU %d's memory (no peer "
                           "access between them), and this version needs %s\n", versions[i].tag,
                           versions[i].idea, g, h,
                           (versions[i].flags & NEEDS_ALL_PEERS) ? "every pair"
                                                                 : "ring neighbours");
                    selected[i] = false;
                }
            }
    }
}

// Streams, events, NCCL and every buffer. NCCL starts first, so that its own buffers are in place
// before we ask whether ours fit.
static void allocate(allreduce_problem *p) {
    int G = p->gpus;
    size_t bytes = size_mul(p->n, sizeof(float));
    p->slot = (shard(p->n, G, G - 1).count + ALIGN - 1) / ALIGN * ALIGN;  // the largest shard
    p->scratch_count = p->n > (G - 1) * p->slot ? p->n : (G - 1) * p->slot;
    size_t stage_stride = (p->n + ALIGN - 1) / ALIGN * ALIGN;  // floats a staging buffer
    p->ll_stride = p->n <= LL_MAX_N ? stage_stride : 0;  // v6c's words a slot
    size_t ll_words = 2 * (size_t)(G - 1) * p->ll_stride;  // v6c's receive buffers a GPU
    int devs[MAX_GPUS];
    for (int g = 0; g < G; g++) devs[g] = g;
    CHECK_NCCL(ncclCommInitAll(p->comm, G, devs));
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        size_t need = 2 * bytes + size_mul(p->scratch_count, sizeof(float)) +
                      size_mul(2 * stage_stride, sizeof(float)) +
                      ll_words * sizeof(unsigned long long) +
                      (g == 0 ? size_mul((size_t)G, bytes) : 0);
        gpu_require(need, g == 0 ? "GPU 0's input, result, scratch, staging, receive buffers and "
                                   "every GPU's result"
                                 : "each GPU's input, result, scratch, staging and receive buffers");
        p->x[g] = (float *)gpu_alloc(bytes, "an input");
        p->out[g] = (float *)gpu_alloc(bytes, "a result");
        p->scratch[g] = (float *)gpu_alloc(p->scratch_count * sizeof(float), "a scratch buffer");
        // v6a's two staging buffers in one allocation, the second at a multiple of ALIGN floats
        // (its float4 stores are aligned whatever n is)
        p->stage[g][0] = (float *)gpu_alloc(2 * stage_stride * sizeof(float), "staging buffers");
        p->stage[g][1] = p->stage[g][0] + stage_stride;
        for (unsigned long long **f : {&p->barrier_flags[g], &p->ring_flags[g], &p->failure[g]}) {
            *f = (unsigned long long *)gpu_alloc(FLAG_WORDS * sizeof(unsigned long long), "flags");
            CHECK(cudaMemset(*f, 0, FLAG_WORDS * sizeof(unsigned long long)));
        }
        size_t meet_bytes = MEET_WORDS * sizeof(unsigned long long);
        p->meet_flags[g] = (unsigned long long *)gpu_alloc(meet_bytes, "meeting flags");
        CHECK(cudaMemset(p->meet_flags[g], 0, meet_bytes));
        p->meet_count[g] = (unsigned long long *)gpu_alloc(MEET_BLOCKS * sizeof(unsigned long long),
                                                           "call counts");
        CHECK(cudaMemset(p->meet_count[g], 0, MEET_BLOCKS * sizeof(unsigned long long)));
        // v6c's receive buffers (flags 0: below every call's number) and counts
        p->ll_recv[g] = NULL;
        if (ll_words > 0) {
            p->ll_recv[g] = (unsigned long long *)gpu_alloc(ll_words * sizeof(unsigned long long),
                                                            "receive buffers");
            CHECK(cudaMemset(p->ll_recv[g], 0, ll_words * sizeof(unsigned long long)));
        }
        p->ll_count[g] = (unsigned long long *)gpu_alloc(MEET_BLOCKS * sizeof(unsigned long long),
                                                         "call counts");
        CHECK(cudaMemset(p->ll_count[g], 0, MEET_BLOCKS * sizeof(unsigned long long)));
        gpu_poison(p->out[g], bytes);
        gpu_poison(p->scratch[g], p->scratch_count * sizeof(float));
        for (int s = 0; s < STREAMS; s++) {
            CHECK(cudaStreamCreateWithFlags(&p->stream[g][s], cudaStreamNonBlocking));
            CHECK(cudaEventCreateWithFlags(&p->done[g][s], cudaEventDisableTiming));
        }
        for (int e = 0; e < EVENTS; e++)
            CHECK(cudaEventCreateWithFlags(&p->ev[g][e], cudaEventDisableTiming));
        CHECK(cudaHostAlloc(&p->host_in[g], bytes, cudaHostAllocPortable));
        CHECK(cudaDeviceSynchronize());
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreateWithFlags(&p->go, cudaEventDisableTiming));
    CHECK(cudaStreamCreateWithFlags(&p->origin, cudaStreamNonBlocking));
    p->gathered = (float *)gpu_alloc(size_mul((size_t)G, bytes), "every GPU's result");
    p->same = (unsigned long long *)gpu_alloc(sizeof *p->same, "a count");
    CHECK(cudaHostAlloc(&p->host_sum, bytes, cudaHostAllocPortable));
    p->want = (float *)host_alloc(bytes, "the reference");
    // pinned: the check copies every GPU's result into it twice a version
    CHECK(cudaHostAlloc(&p->host_got, bytes, cudaHostAllocPortable));
}

// GPU g's input: the next n values of one generator started from the seed, GPU after GPU.
static void put_int(void *ctx, size_t i, uint64_t bits) {
    ((float *)ctx)[i] = (float)((int)rng_bits_below(bits, 17) - 8);
}

static void make_inputs(allreduce_problem *p, const options *o) {
    rng r;
    rng_init(&r, o->seed);
    int exact = strcmp(o->input, "int") == 0;
    for (int g = 0; g < p->gpus; g++) {
        if (exact) rng_fill(&r, p->n, put_int, p->host_in[g]);
        else rng_fill_f32(&r, p->host_in[g], p->n, -1.0f, 1.0f);
        CHECK(cudaMemcpy(p->x[g], p->host_in[g], p->n * sizeof(float), cudaMemcpyHostToDevice));
    }
    allreduce_cpu(p->host_in, p->gpus, p->n, p->want, &p->abs_max);
    p->atol = allreduce_tolerance(p->gpus, p->abs_max, exact);
}

static void release(allreduce_problem *p) {
    for (int g = 0; g < p->gpus; g++) {
        CHECK(cudaSetDevice(g));
        CHECK_NCCL(ncclCommDestroy(p->comm[g]));
        CHECK(cudaFree(p->x[g]));
        CHECK(cudaFree(p->out[g]));
        CHECK(cudaFree(p->scratch[g]));
        CHECK(cudaFree(p->stage[g][0]));  // both staging buffers
        CHECK(cudaFree(p->barrier_flags[g]));
        CHECK(cudaFree(p->ring_flags[g]));
        CHECK(cudaFree(p->failure[g]));
        CHECK(cudaFree(p->meet_flags[g]));
        CHECK(cudaFree(p->meet_count[g]));
        CHECK(cudaFree(p->ll_recv[g]));  // NULL above LL_MAX_N: nothing to free
        CHECK(cudaFree(p->ll_count[g]));
        for (int s = 0; s < STREAMS; s++) {
            CHECK(cudaStreamDestroy(p->stream[g][s]));
            CHECK(cudaEventDestroy(p->done[g][s]));
        }
        for (int e = 0; e < EVENTS; e++) CHECK(cudaEventDestroy(p->ev[g][e]));
        CHECK(cudaFreeHost(p->host_in[g]));
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(p->go));
    CHECK(cudaStreamDestroy(p->origin));
    CHECK(cudaFree(p->gathered));
    CHECK(cudaFree(p->same));
    CHECK(cudaFreeHost(p->host_sum));
    free(p->want);
    CHECK(cudaFreeHost(p->host_got));
}

// ---- main ---------------------------------------------------------------------------------------

int main(int argc, char **argv) {
    // NVLink multicast (NVLS) stays off, whatever the environment says: on shared hosts a program
    // that uses multicast objects can take the GPUs out of service. NCCL reads its settings when
    // it starts, long after this line.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    options o = {};
    o.program = "allreduce";
    o.chapter = "07-multi-gpu";
    o.sizes = "n";
    o.n_means = "floats in each GPU's buffer";
    o.inputs = inputs;
    o.input = inputs[0];
    o.m = 1, o.n = DEFAULT_N, o.k = 1;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return allreduce_self_test();

    env_info env;
    gpu_open(&env);
    {  // the baseline's library, for the .env.csv (version: 10000 major + 100 minor + patch)
        int v = 0;
        CHECK_NCCL(ncclGetVersion(&v));
        snprintf(env.library, sizeof env.library, "NCCL %d.%d.%d", v / 10000, v / 100 % 100,
                 v % 100);
    }
    allreduce_problem p = {};
    open_gpus(&p);
    if (p.gpus < 2) {
        printf("allreduce: chapter 07-multi-gpu needs two or more GPUs; this machine has one "
               "(%s): nothing to run\n", env.gpu);
        if (!o.dump && !o.verify) return KL_EXIT_OK;
        fprintf(stderr, "allreduce: --dump and --verify need two or more GPUs\n");
        return KL_EXIT_GPU;  // a grader must not take "nothing ran" for a result
    }
    char one[sizeof env.gpu];
    snprintf(one, sizeof one, "%s", env.gpu);
    snprintf(env.gpu, sizeof env.gpu, "%d x %.200s", p.gpus, one);  // the header, the .env.csv
    p.n = o.n;
    p.sms = env.sms, p.sm_threads = env.sm_threads;
    p.verifying = o.verify != NULL;
    p.graph = o.graph;
    bench_header(&o, &env);
    int version_major = 0;
    CHECK_NCCL(ncclGetVersion(&version_major));
    int pairs = 0;
    for (int g = 0; g < p.gpus; g++)
        for (int h = 0; h < p.gpus; h++) pairs += p.peer[g][h];
    printf("peer access: %d of %d GPU pairs | NCCL %d.%d.%d, NVLink multicast off "
           "(NCCL_NVLS_ENABLE=0) | GB/s is algbw; busbw = algbw x %.3g\n", pairs / 2,
           p.gpus * (p.gpus - 1) / 2, version_major / 10000, version_major / 100 % 100,
           version_major % 100, busbw_factor(p.gpus));
    skip_unreachable(&p, selected);
    allocate(&p);
    make_inputs(&p, &o);
    printf("reference: the sum of %d inputs in double, rounded once; tolerance %.3g%s\n\n", p.gpus,
           p.atol, p.atol == 0.0 ? " (exact)" : "");
    if (o.save) {
        for (int g = 0; g < p.gpus; g++) {
            char name[16];
            size_t shape[1] = {p.n};
            snprintf(name, sizeof name, "x%d", g);
            if (npy_save(o.save, name, "<f4", shape, 1, p.host_in[g]) != 0) return KL_EXIT_USAGE;
        }
    }

    bench b = {};
    b.problem = &p;
    b.out = p.gathered;
    b.out_bytes = size_mul((size_t)p.gpus, p.n * sizeof(float));
    b.bytes = (double)p.n * sizeof(float);  // algbw: one GPU's buffer over the time (README)
    b.check = allreduce_check;
    b.save = allreduce_save;
    b.extra_name = "busbw_gbps";
    b.extra = allreduce_busbw;
    b.skip = allreduce_skip;
    b.time_batch = allreduce_time_batch;
    int rc = bench_run(&o, &env, &b, versions, selected, VERSION_COUNT);
    release(&p);
    return rc;
}
