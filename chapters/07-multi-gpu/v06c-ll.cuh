// ---- v6c ll (from v6a) --------------------------------------------------------------------------
// v6a's one meeting is a flag's round trip over NVLink before any data moves. LL (NCCL's "low
// latency" protocol) sends the flag with the data: each GPU pushes every float of its input, as
// one 8-byte word (the float, and the call's number beside it) written with one 64-bit store,
// into a receive buffer on every other GPU, then waits on its own memory until every word it
// needs carries this call's number, and adds. The data's arrival is the signal: one one-way trip
// over the links, no round trip. The price: 8 bytes cross for every 4 of data (LL_MAX_N).

// Why it is right, for the floats of block b (every GPU gives float i to the same block, below).
// Call e of block b (its count, as in v6, meet.cuh, but counted in count words of v6c's own)
// uses parity p = e mod 2: block b of GPU g stores the word (x[i], e) into slot g of GPU h's
// receive buffer p for each of its floats i and each other GPU h, then loads its own buffer p,
// slot h, until word i carries e.
//  - No fence per word. A word is one aligned 8-byte location, stored and loaded with relaxed
//    atomics at system scope: two such (morally strong) accesses to the same 8 bytes are
//    single-copy atomic (PTX ISA, memory consistency model), so a load returns the whole of one
//    store, and the load that sees e sees the float stored with it. We use no other location's
//    data on the strength of it, so nothing need be ordered between words (v6a's fence orders
//    its staging before a separate flag; here there is no separate flag).
//  - Two parities are enough. When block b of GPU g starts pushing call e + 2 into buffer p of
//    GPU h, what does it know? At call e + 1 it waited until GPU h's words of call e + 1 came:
//    GPU h's block b stores them only from its kernel of call e + 1, which its stream starts only
//    after its kernel of call e has ended, with every load of buffer p of call e. So GPU h has
//    read all of call e, and may still be reading call e + 1 (buffer 1 - p, which we leave
//    alone). Nor can GPU h be further ahead: it ends call e + 1 only when our words of call e + 1
//    have come, and we push those only after our call e has ended. So no store of call e + 2
//    reaches a word before its load of call e, and a third buffer is never needed.
//  - Where a fence is still needed: that chain crosses kernel boundaries (GPU h's loads of call
//    e, its stores of call e + 1, our loads of those, our stores of call e + 2). A stream orders
//    its kernels on its own GPU; a fence at system scope at the start of every call, before its
//    first store to another GPU, makes the order hold as other GPUs see it: it orders the
//    previous calls' loads before this call's stores (GPU h's side, the release) and what the
//    previous call saw before this call's stores (our side, the acquire). One thread a block,
//    then __syncthreads (meet.cuh's order turned around), with nothing yet outstanding to wait
//    for.
//  - The flag is the count's low 32 bits, and a word counts when its flag equals the call's:
//    what a word held before (0 from cudaMemset, all ones from the check's poison, e - 2's flag,
//    or an older call's where sizes mix) passes only 2^32 calls of block b later, hours at
//    microseconds a call. Flags are never reset: they grow with the count, so batches, graphs
//    and warm-up and timed launches follow each other.
//  - Block b owns the same floats at every size: float i goes to block (i / 2048) mod 32, as in
//    v6a (float4 i / 4 to block ((i / 4) mod 16384) / 512), the grid counting every 2048 floats
//    up to 32 blocks (ll_blocks). Inside the block thread t takes floats t, t + 512, t + 1024 and
//    t + 1536 of each 2048, so a warp's 32 stores of 8 bytes are 256 bytes in a row.
//  - The input: no other GPU reads it, so the caller may change it once our kernel has ended.
// Every wait is bounded, as wait_flag's: a failed wait ends the thread, and the check reports it.
typedef struct {
    const float *x;                      // ours: the input, n floats
    float *out;                          // ours: the result, n floats
    unsigned long long *recv[MAX_GPUS];  // every GPU's receive buffers: [parity][slot][stride]
    size_t stride;                       // words a slot: n, rounded up to ALIGN
    unsigned long long *count;           // ours: MEET_BLOCKS words, block b's calls of v6c
    unsigned long long *failure;         // ours: a wait that timed out says so here (4 words)
} ll_args;

// The word of float i: its bits below, the flag (the call's number, low 32 bits) above.
__host__ __device__ inline unsigned long long ll_word(unsigned bits, unsigned flag) {
    return (unsigned long long)flag << 32 | bits;
}

// Blocks of v6c's grid for n floats: one for every 2048 (512 threads, 4 floats a thread),
// at least one, 32 at most (MEET_BLOCKS words of counts; v6a's grid and bytes in flight).
__host__ __device__ inline unsigned ll_blocks(size_t n) {
    size_t want = (n + 2047) / 2048;
    return want < 1 ? 1u : want < 32 ? (unsigned)want : 32u;
}

// Waits until *word carries `flag`, and gives its float. False when a wait on this GPU has
// given up, or this one does after wait_flag's 10 s (it then writes failure[0..3]: 1, the peer,
// the flag we waited for, the flag the word held).
__device__ __forceinline__ bool wait_word(unsigned long long *word, unsigned flag, float *value,
                                          unsigned long long *failure, int peer) {
    constexpr unsigned long long WAIT_TIMEOUT_NS = 10000000000ull;  // wait_flag's
    // looks at the word between two looks at the clock and the failure record: the word is in
    // our own memory (an L2 hit), and the data is a microsecond or two away, so we do not sleep
    constexpr unsigned LOOKS = 32;
    system_flag w(*word);  // relaxed loads at system scope: the L2, past the L1
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> failed(failure[0]);
    unsigned long long start = now_ns(), seen;
    for (unsigned looks = 1;; looks++) {
        seen = w.load(cuda::memory_order_relaxed);
        if ((unsigned)(seen >> 32) == flag) break;
        if (looks % LOOKS != 0) continue;
        if (failed.load(cuda::memory_order_relaxed) != 0) return false;
        if (now_ns() - start > WAIT_TIMEOUT_NS) {
            unsigned long long none = 0;
            if (failed.compare_exchange_strong(none, 1ull)) {  // the first to give up reports
                failure[1] = (unsigned long long)peer;
                failure[2] = flag;
                failure[3] = seen >> 32;
            }
            return false;
        }
    }
    *value = __uint_as_float((unsigned)seen);
    return true;
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS)
allreduce_v6c_ll(const __grid_constant__ ll_args a, int me, int gpus, size_t n) {
    constexpr int PER_THREAD = 4;  // floats a thread in each CHUNK: v6a's float4, as four words
    constexpr size_t CHUNK = (size_t)THREADS * PER_THREAD;  // 2048 floats, ll_blocks' unit
    unsigned long long e = begin_call(a.count);
    int parity = (int)(e & 1);
    unsigned flag = (unsigned)e;  // the low 32 bits (above)
    // the previous calls' loads, and what they saw, before our stores reach another GPU (above)
    if (threadIdx.x == 0) __threadfence_system();
    __syncthreads();  // every thread's stores come after thread 0's fence
    size_t step = (size_t)gridDim.x * CHUNK;
    // push: word i into our slot of buffer `parity` on every other GPU, one GPU after another
    for (int h = 0; h < gpus; h++) {
        if (h == me) continue;
        unsigned long long *slot =
            a.recv[h] + ((size_t)parity * (gpus - 1) + peer_slot(me, h)) * a.stride;
        for (size_t lo = blockIdx.x * CHUNK; lo < n; lo += step)
#pragma unroll
            for (int u = 0; u < PER_THREAD; u++) {
                size_t i = lo + u * THREADS + threadIdx.x;  // a warp: 32 floats in a row
                if (i < n)  // one 64-bit store (relaxed, system scope) of float and flag
                    system_flag(slot[i]).store(ll_word(__float_as_uint(a.x[i]), flag),
                                               cuda::memory_order_relaxed);
            }
    }
    // wait on our own buffer `parity`, and add in sum_range's order (0 + GPU 0 + GPU 1 + ...):
    // the same bits as v6 and v6a, on every GPU
    unsigned long long *mine = a.recv[me] + (size_t)parity * (gpus - 1) * a.stride;
    for (size_t lo = blockIdx.x * CHUNK; lo < n; lo += step)
        for (int u = 0; u < PER_THREAD; u++) {
            size_t i = lo + u * THREADS + threadIdx.x;
            if (i >= n) continue;
            float s = 0.0f, own = a.x[i];
            for (int h = 0; h < gpus; h++) {
                float v = own;
                if (h != me &&
                    !wait_word(&mine[peer_slot(h, me) * a.stride + i], flag, &v, a.failure, h))
                    return;  // a wait gave up (no barrier follows, so a thread may leave)
                s += v;
            }
            a.out[i] = s;
        }
}

// Why the program skips v6c above LL_MAX_N (allreduce_skip).
static const char *const ll_large_why =
    "above 1 MiB a GPU (262,144 floats): it sends 8 bytes for every 4 of data, which there costs "
    "more than the meeting it saves (v6a and v6 take larger buffers)";

static void launch_v6c(void *problem) {
    allreduce_problem *p = (allreduce_problem *)problem;
    constexpr int THREADS = 512;  // ll_blocks' 2048 floats a block: 4 a thread
    static_assert(32 <= MEET_BLOCKS && THREADS * 4 == 2048, "ll_blocks: 32 blocks of 2048 floats");
    if (p->n > LL_MAX_N || !p->ll_recv[0]) {  // allreduce_skip skips v6c there: never reached
        fprintf(stderr, "allreduce: v6c launched with n = %zu > %d, where it has no receive "
                "buffers\n", p->n, LL_MAX_N);
        exit(KL_EXIT_USAGE);
    }
    int G = p->gpus;
    unsigned blocks = ll_blocks(p->n);  // the same grid on every GPU
    ll_args a;
    a.stride = p->ll_stride;
    for (int g = 0; g < G; g++) a.recv[g] = p->ll_recv[g];
    fork_unless_batched(p);
    for (int g = 0; g < G; g++) {
        a.x = p->x[g], a.out = p->out[g], a.count = p->ll_count[g], a.failure = p->failure[g];
        CHECK(cudaSetDevice(g));
        allreduce_v6c_ll<THREADS><<<blocks, THREADS, 0, p->stream[g][0]>>>(a, g, G, p->n);
        CHECK_LAUNCH();
    }
    join_unless_batched(p);
}
