// Chapter 04: atomics. Many threads updating one memory word: what goes wrong without atomics,
// what an atomic costs when threads fight over one address, and how a histogram stops fighting.
//
// Part 1, counters: n updates spread over m counters (update i goes to counter i % m).
//   c0 racy       a plain ++ on a block's shared copy of the counters: updates vanish (the lesson,
//                 not a result; its lost updates are reported, and racecheck flags it)
//   c1 atomic     atomicAdd: the hardware's read-modify-write, nothing lost
//   c2 casint     atomicAdd built from atomicCAS: read, compute, swap if unchanged, else retry
//   c3 casfloat   the same loop adding floats (their bits go through the integer CAS)
//   c4 casmax     a float maximum from the same loop; it stops as soon as it cannot win
//   c5 aggregated the lanes of a warp that hit one counter add their count with one atomic
//   c6 sub        atomicSub: atomicAdd of the negated value, the same reduction at L2
//   c7 inc        atomicInc: counts up to a limit and starts again at 0 (a ring of slots)
//   c8 max        atomicMax on c4's values: the hardware's maximum, which always goes to L2
//   c9 bitwise    atomicAnd, atomicOr, atomicXor, a third each, on separate bit fields
//   c10 tickets   c1 keeping what atomicAdd returns: every update gets a different ticket
//   c11 exchange  atomicExch, keeping what it returns: the values handed on form one chain
// Part 2, a histogram of n bytes into 256 bins:
//   cub         (baseline) cub::DeviceHistogram::HistogramEven
//   v0 global     one global atomicAdd per byte
//   v1 privatized each block counts into its own shared-memory histogram, merged at the end
//   v2 warps      one sub-histogram per warp, and 16-byte loads of 16 bytes per thread
//   v3 banked     each lane owns one of the 32 banks: 32 copies of the bins, no bank conflicts
//   v4 unrolled   four 16-byte loads in flight per thread; kept because it does not help
//
// Build and run:   make build/atomics && build/atomics       (both parts, n = 2^30)
//                  build/atomics -v v0,v3 --input degenerate -n 100000007
//                  build/atomics -v c0,c1,c2 -m 1 -n 16384    (one hot counter)
//                  build/atomics -v c1,c10,c11 -m 1 -n 4194304
//                  build/atomics --list | --help | --check-only | --save out/
#include <cub/device/device_histogram.cuh>
#include <string.h>

#include "gpu.h"
#include "npy.h"
#include "rng.h"

// 2^30 bytes: 1 GiB of input, far beyond the 60 MB L2, so the histogram reads device memory.
// The same n is the number of updates in the counters part (c10 and c11 keep one returned
// value per update: 4 GiB more on the GPU at this n, and 8 GiB on the host to check them).
#define DEFAULT_N (1u << 30)
// 2^20 counters (4 MiB): the GPU's 270,000 threads spread out and rarely meet, so the default
// run measures atomics without contention. -m 1 is one hot address; there the CAS versions
// crawl (every success makes all the others retry), so keep -n small (2^14).
#define DEFAULT_M (1u << 20)
// 20 timed launches give a stable median; 3 warm-up launches take module loading and
// first-touch effects out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42

#define BINS 256          // one bin per byte value
#define FULL_MASK 0xFFFFFFFFu
static const char *const inputs[] = {"uniform", "degenerate", "skewed", NULL};

// ================================================================================================
// Part 1: counters
// ================================================================================================

// What a counter version computes, and so which reference it is checked against.
enum {
    KIND_COUNT,    // c0, c1, c2, c5: how many updates each counter received
    KIND_SUM,      // c3: a float sum
    KIND_MAX,      // c4: a float maximum
    KIND_DOWN,     // c6: the count subtracted from 0, modulo 2^32
    KIND_WRAP,     // c7: the count modulo INC_LIMIT + 1
    KIND_IMAX,     // c8: an integer maximum
    KIND_BITS,     // c9: what the and/or/xor updates leave in the word
    KIND_TICKETS,  // c10: the counts, and every returned value (a ticket)
    KIND_CHAIN,    // c11: the last value written, and every returned value (a chain)
};

typedef struct {
    size_t n;         // updates
    unsigned m;       // counters, m <= 2^31 - 1
    unsigned *count;  // device: m words, counts or the bits of what a version computes (KIND_),
                      // then n more when a version that keeps returned values runs
    unsigned *returned;    // device: count + m, the value update i's atomic returned; or NULL
    unsigned *host_out;    // m words, and n more for the returned values
    uint32_t *want_count;  // how many updates each counter receives
    float *want_sum;       // the float sum of that many 1.0f
    float *want_max;       // the largest update_value(i) over the counter's updates, or -inf
    int32_t *want_imax;    // the largest update_key(i) over the counter's updates, or INT_MIN
    uint32_t *want_bits;   // the word the counter's and/or/xor updates leave (c9)
    uint32_t *want_tmp;    // m words: references made at check time (c6, c7), the chain's walk
    uint32_t *scratch;     // n words for the checks of the returned values, or NULL
    int kind;              // what the last launch computed (for the lost-update count)
    unsigned blocks;       // grid of the counter kernels
} counters_problem;

// A scrambled update index: 64 well-mixed bits, the same on the CPU and the GPU.
__host__ __device__ static inline uint64_t update_hash(uint64_t i) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 29)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 32);
}

// The integer update i brings to c8's maximum: 17 bits of the hash, in [-65536, 65536).
__host__ __device__ static inline int update_key(uint64_t i) {
    return (int)(update_hash(i) & 0x1FFFF) - 65536;
}

// The value update i brings to the float maximum: its key / 64, a multiple of 1/64 in
// [-1024, 1024), so it is exact in a float and on both sides, and c4's maximum is c8's / 64.
__host__ __device__ static inline float update_value(uint64_t i) {
    return (float)update_key(i) / 64.0f;
}

// atomicInc's limit in c7: the counter runs 0, 1, ..., 999, 0, 1, ..., a ring of 1000 slots.
// Small, so that every test with more than 1000 updates on a counter wraps it.
#define INC_LIMIT 999u

// c9's word, three fields that never share a bit, one per operation. Operations on different
// bits commute, so the word's end does not depend on the order the updates arrive in.
#define AND_FIELD 0x000007FFu  // bits 0..10: start at 1; an AND clears one of them
#define OR_FIELD 0x003FF800u   // bits 11..21: start at 0; an OR sets one of them
#define XOR_FIELD 0xFFC00000u  // bits 22..31: an XOR flips a random subset of them
#define BITS_START AND_FIELD   // the word before any update
enum { OP_AND, OP_OR, OP_XOR };

// Update i's operation: by i / 32, so the 32 lanes of a warp (updates 32w .. 32w + 31, see
// the grid) all do the same one and the warp does not split. A third of the updates each.
__host__ __device__ static inline int bitwise_op(uint64_t i) { return (int)((i >> 5) % 3); }

// Update i's operand, for its operation: a one-bit hole in the AND field, one bit of the OR
// field, or ten random bits of the XOR field; every other bit leaves the word as it is.
__host__ __device__ static inline unsigned bitwise_operand(uint64_t i) {
    unsigned h = (unsigned)(update_hash(i) >> 32);
    int op = bitwise_op(i);
    if (op == OP_AND) return ~(1u << (h % 11));
    if (op == OP_OR) return 1u << (11 + h % 11);
    return h & XOR_FIELD;
}

// One update of c9 applied to a word: what the GPU's atomic does to it.
__host__ __device__ static inline unsigned bitwise_apply(unsigned word, uint64_t i) {
    unsigned x = bitwise_operand(i);
    int op = bitwise_op(i);
    return op == OP_AND ? word & x : op == OP_OR ? word | x : word ^ x;
}

// ---- the CPU reference ------------------------------------------------------------------------

// The plain loops: update i adds one to counter i % m, adds 1.0f to its float sum, offers
// update_value(i) to its maximum and update_key(i) to its integer maximum, and applies its
// bitwise operation. Sums of equal terms come out the same in any order, so the float sum is
// exact: it counts up to 2^24 and stays there (2^24 + 1 rounds back to 2^24).
static void counters_cpu(size_t n, unsigned m, uint32_t *count, float *sum, float *max,
                         int32_t *imax, uint32_t *bits) {
    for (unsigned a = 0; a < m; a++) {
        count[a] = 0, sum[a] = 0.0f, max[a] = -INFINITY;
        imax[a] = INT32_MIN, bits[a] = BITS_START;
    }
    unsigned a = 0;  // i % m, stepped instead of divided
    for (size_t i = 0; i < n; i++) {
        count[a] += 1;
        sum[a] += 1.0f;
        float v = update_value(i);
        if (v > max[a]) max[a] = v;
        int key = update_key(i);
        if (key > imax[a]) imax[a] = key;
        bits[a] = bitwise_apply(bits[a], i);
        if (++a == m) a = 0;
    }
}

// What atomicInc(address, limit) does to the word (CUDA's definition), for the self-test.
static uint32_t inc_wrap(uint32_t old, uint32_t limit) { return old >= limit ? 0 : old + 1; }

// How many updates counter a receives: n / m, and one more for the first n % m counters.
static size_t updates_of(size_t n, unsigned m, unsigned a) { return n / m + (a < n % m); }

// One broken property of the returned values: counted in r, printed while r allows. `who` is
// "update" or "counter", `i` its index.
static void returned_bad(check_result *r, const char *who, size_t i, const char *what, size_t x) {
    r->bad++;
    r->max_rel = INFINITY;  // no size of error here: the property holds or it does not
    if (r->printed < KL_MAX_PRINTED) {
        printf("    %s %zu: %s %zu\n", who, i, what, x);
        r->printed++;
    }
}

// c10's returned values. Update i received ticket t[i], the count its counter held just before
// its add. A counter that receives c updates hands out tickets 0, 1, ..., c - 1, each once:
// then every update saw a different value, and exactly one saw c - 1. Ticket t of counter a
// is marked at position a + t * m, which is < n exactly when t < c, so the n updates must mark
// the n positions [0, n) once each. seen: n words of scratch.
static void tickets_check_cpu(check_result *r, const uint32_t *t, size_t n, unsigned m,
                              uint32_t *seen) {
    size_t q = n / m, extra = n % m;  // counter a receives q + (a < extra) updates
    for (size_t i = 0; i < n; i++) seen[i] = 0;
    unsigned a = 0;  // i % m, stepped
    for (size_t i = 0; i < n; i++) {
        r->count++;
        if (t[i] >= q + (a < extra)) {
            returned_bad(r, "update", i, "got a ticket past its counter's count:", t[i]);
        } else {
            size_t pos = a + (size_t)t[i] * m;
            if (seen[pos]) returned_bad(r, "update", i, "got a ticket twice given out:", t[i]);
            seen[pos] = 1;
        }
        if (++a == m) a = 0;
    }
}

// c11's returned values. Update i wrote i + 1 into counter i % m, which starts at 0, and got
// back x[i], the value its exchange replaced. The exchanges on one counter happen one after
// another, so they form one chain: one update got the 0; the value each update wrote was got
// back by exactly one other, the next in line; the last value written stays in the counter
// (final). We link each update to the one that got its value (next: n words), then walk every
// counter's chain from the update that got 0 (at: m words). Each update has at most one link
// in and one out, so a walk never meets an update twice: a chain as long as its counter's
// count that ends at the final value went through every update of its counter exactly once.
#define NOBODY 0xFFFFFFFFu  // no update: update indices are < n <= 2^31 - 1
static void chain_check_cpu(check_result *r, const uint32_t *x, const uint32_t *final, size_t n,
                            unsigned m, uint32_t *next, uint32_t *at) {
    size_t q = n / m, extra = n % m;  // counter a receives q + (a < extra) updates
    for (unsigned a = 0; a < m; a++) at[a] = NOBODY;
    for (size_t j = 0; j < n; j++) next[j] = NOBODY;
    size_t bad_before = r->bad;
    unsigned a = 0;  // i % m, stepped
    for (size_t i = 0; i < n; i++) {
        r->count++;
        size_t j = (size_t)x[i] - 1;  // the update that wrote x[i], when x[i] > 0
        if (x[i] == 0) {
            if (at[a] == NOBODY) at[a] = (uint32_t)i;
            else returned_bad(r, "update", i, "got the initial 0, as did update", at[a]);
        } else if (j >= n || (uint32_t)j % m != a) {  // 32 bits: j < n <= 2^31 - 1
            returned_bad(r, "update", i, "got a value no update of its counter wrote:", x[i]);
        } else if (next[j] != NOBODY) {
            returned_bad(r, "update", i, "got the value that was got by update", next[j]);
        } else {
            next[j] = (uint32_t)i;
        }
        if (++a == m) a = 0;
    }
    if (r->bad > bad_before) return;  // links are missing: a walk would say nothing more
    // All the chains one step at a time, side by side: the k-th update of counter a is near
    // update a + k * m, so each step reads next[] from one end to the other.
    unsigned used = (unsigned)(n < m ? n : m);  // the counters that receive updates
    for (a = 0; a < used; a++)
        if (at[a] == NOBODY) returned_bad(r, "counter", a, "no update got the initial 0; updates:",
                                          q + (a < extra));
    for (size_t k = 1; k < q + (extra > 0); k++)  // k: the exchanges walked so far
        for (a = 0; a < used; a++) {
            if (k >= q + (a < extra) || at[a] == NOBODY) continue;
            uint32_t then = next[at[a]];
            if (then == NOBODY) returned_bad(r, "counter", a, "chain ends after exchanges:", k);
            at[a] = then;
        }
    for (a = 0; a < m; a++) {  // the end of each chain is the value left in the counter
        r->count++;
        if (a < used && at[a] == NOBODY) continue;  // broken, and already counted
        if (a < used && next[at[a]] != NOBODY)
            returned_bad(r, "counter", a, "chain goes on past its count at update", next[at[a]]);
        else if (final[a] != (a < used ? at[a] + 1 : 0))
            returned_bad(r, "counter", a, "holds a value that was not written last:", final[a]);
    }
}

// ---- the grid ---------------------------------------------------------------------------------

// Every counter kernel but c0 walks the updates with a grid-stride loop: thread g does updates
// g, g + stride, g + 2 stride... Consecutive lanes take consecutive updates, so with m >= 32 a
// warp touches 32 neighbouring counters, and with m = 1 all 32 lanes hit the same word.
// a = i % m is stepped by stride % m rather than divided: a 64-bit division costs dozens of
// instructions, as many as the update itself.
#define COUNTER_THREADS 256

// ---- c0 racy ------------------------------------------------------------------------------------

// A block takes RACY_SPAN consecutive updates and counts them in shared memory with a plain ++:
// load the word, add one, store it. Two threads that load the same word before either stores
// both write old + 1, and one update is gone. The block then adds its tallies to the global
// counters with atomics, so every lost update was lost in the ++. We race in shared memory
// because that is where compute-sanitizer's racecheck can watch; the same ++ on a global word
// loses updates the same way (TRY: make tally a global array).
#define RACY_SPAN 2048  // updates per block: 256 threads x 8; also the shared tally's size

__global__ void counters_c0_racy(unsigned *count, size_t n, unsigned m) {
    __shared__ unsigned tally[RACY_SPAN];
    size_t first = (size_t)blockIdx.x * RACY_SPAN;  // this block: updates [first, first + span)
    unsigned span = (unsigned)min((size_t)RACY_SPAN, n - first);
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
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c0_racy<<<(unsigned)ceil_div(p->n, RACY_SPAN), COUNTER_THREADS>>>(p->count, p->n, p->m);
    CHECK_LAUNCH();
}

// ---- c1 atomic ----------------------------------------------------------------------------------

// atomicAdd makes the load, the add and the store one indivisible operation, done where the
// word lives (the L2 cache for global memory): no other update can come in between, so none is
// lost. The order among threads is still anyone's: only the final sum is defined. Updates to
// one address are done one after another, which is what m = 1 measures.
__global__ void counters_c1_atomic(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);  // the counter of update i; step = stride % m
    for (; i < n; i += stride) {
        atomicAdd(&count[a], 1u);
        a += step;
        if (a >= m) a -= m;
    }
}

// The grid of every grid-stride counter kernel: enough blocks to fill the GPU, no more.
static unsigned counter_blocks(const counters_problem *p) {
    size_t want = ceil_div(p->n, COUNTER_THREADS);
    return (unsigned)(want < p->blocks ? want : p->blocks);
}

// stride % m for that grid: how far the counter index moves between a thread's updates.
static unsigned counter_step(const counters_problem *p) {
    return (unsigned)(((size_t)counter_blocks(p) * COUNTER_THREADS) % p->m);
}

static void launch_c1(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c1_atomic<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                counter_step(p));
    CHECK_LAUNCH();
}

// ---- c2 casint ----------------------------------------------------------------------------------

// atomicAdd built from the one primitive every GPU atomic can be made of: atomicCAS(addr,
// expected, desired) stores desired only if the word still holds expected, and returns what it
// held. We read, compute old + 1, and ask for the swap. If another thread changed the word in
// between, the swap fails, returns the newer value, and we retry from it. With many threads on
// one word nearly every attempt fails, so the work per update grows with the contention, and
// each attempt is a round trip to L2 that returns a value (atomicAdd need not return one).
__device__ unsigned atomic_add_cas(unsigned *address, unsigned value) {
    // EXERCISE: casint begin
    unsigned old = *address;  // a guess at the current value; the CAS tells us if it is stale
    unsigned seen;
    do {
        seen = old;
        old = atomicCAS(address, seen, seen + value);
    } while (old != seen);  // somebody else got in first: try again from what they left
    return old;
    // EXERCISE: casint end
}

__global__ void counters_c2_casint(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        atomic_add_cas(&count[a], 1u);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c2(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_COUNT;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c2_casint<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                counter_step(p));
    CHECK_LAUNCH();
}

// ---- c3 casfloat --------------------------------------------------------------------------------

// The same loop for a float: CAS compares bits, so we carry the float's bits in an unsigned and
// do the addition as a float. Any operation can be made atomic this way (this is how a double
// atomicAdd was written before GPUs had one); the cost under contention is the same as c2's.
__device__ float atomic_add_float_cas(float *address, float value) {
    unsigned *bits = (unsigned *)address;
    unsigned old = *bits, seen;
    do {
        seen = old;
        old = atomicCAS(bits, seen, __float_as_uint(__uint_as_float(seen) + value));
    } while (old != seen);
    return __uint_as_float(old);
}

__global__ void counters_c3_casfloat(float *sum, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        atomic_add_float_cas(&sum[a], 1.0f);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c3(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_SUM;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));  // all-zero bits are 0.0f
    counters_c3_casfloat<<<counter_blocks(p), COUNTER_THREADS>>>((float *)p->count, p->n, p->m,
                                                                  counter_step(p));
    CHECK_LAUNCH();
}

// ---- c4 casmax ----------------------------------------------------------------------------------

// A float maximum, which CUDA does not provide, from the same loop, with one difference that
// matters: a thread whose value is not larger than what the word holds has nothing to write and
// leaves. Once the maximum is large, most updates are one read and no CAS, so contention fades
// as the run goes on.
__device__ float atomic_max_float_cas(float *address, float value) {
    unsigned *bits = (unsigned *)address;
    unsigned old = *bits;
    while (value > __uint_as_float(old)) {  // only a larger value needs a swap
        unsigned seen = old;
        old = atomicCAS(bits, seen, __float_as_uint(value));
        if (old == seen) break;  // ours is in
    }
    return __uint_as_float(old);
}

__global__ void counters_c4_casmax(float *max, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        atomic_max_float_cas(&max[a], update_value(i));
        a += step;
        if (a >= m) a -= m;
    }
}

// The maximum starts at -inf, whose bits (0xFF800000) no byte-wise memset can write.
__global__ void fill_kernel(unsigned *x, size_t count, unsigned bits) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = bits;
}

// Sets every counter to `bits`: -inf for c4, and INT_MIN and c9's starting word later on.
static void fill_counters(const counters_problem *p, unsigned bits) {
    unsigned fill_blocks = (unsigned)(ceil_div(p->m, COUNTER_THREADS) < p->blocks
                                          ? ceil_div(p->m, COUNTER_THREADS) : p->blocks);
    fill_kernel<<<fill_blocks, COUNTER_THREADS>>>(p->count, p->m, bits);
    CHECK_LAUNCH();
}

static void launch_c4(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_MAX;
    fill_counters(p, 0xFF800000u);  // -inf
    counters_c4_casmax<<<counter_blocks(p), COUNTER_THREADS>>>((float *)p->count, p->n, p->m,
                                                                counter_step(p));
    CHECK_LAUNCH();
}

// ---- c5 aggregated ------------------------------------------------------------------------------

// c1 again, but before the atomic each lane asks the warp which lanes hold the same counter
// (__match_any_sync returns that set as a bit mask). The lowest lane of each set adds the set's
// size; the others do nothing. With m = 1 a warp makes one atomic instead of 32; with m >= 32
// every set has one lane and the match is pure overhead. The warp loops as one (the loop test
// uses the warp's first update), so every lane is present at the match.
__global__ void counters_c5_aggregated(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned lane = threadIdx.x % 32;
    unsigned a = (unsigned)(i % m);
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

// ---- c6 sub ------------------------------------------------------------------------------------

// c1 with the sign turned: atomicSub(&count[a], 1). The hardware has no subtracting atomic; the
// compiler negates the operand and emits the same reduction as c1 (REDG.E.ADD of -1), so it is
// the same operation at L2. The counters count down from 0 and wrap around: counter a ends at
// 2^32 - c (modulo 2^32), where c is its count.
__global__ void counters_c6_sub(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        atomicSub(&count[a], 1u);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c6(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_DOWN;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c6_sub<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                             counter_step(p));
    CHECK_LAUNCH();
}

// ---- c7 inc ------------------------------------------------------------------------------------

// atomicInc(&count[a], limit) stores old + 1, or 0 when old has reached the limit: a counter
// that goes round 0, 1, ..., limit, 0, ... Its returned value would be the next slot of a ring
// of limit + 1 slots, never past the end. Ignored here, so this is a reduction like c1's
// (REDG.E.INC), with the compare done at L2 too. Every update applies the same function, so
// their order cannot matter: counter a ends at c % (limit + 1).
__global__ void counters_c7_inc(unsigned *count, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        atomicInc(&count[a], INC_LIMIT);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c7(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_WRAP;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c7_inc<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                             counter_step(p));
    CHECK_LAUNCH();
}

// ---- c8 max ------------------------------------------------------------------------------------

// c4's maximum done by the hardware: atomicMax on the integer keys behind c4's values (its
// value is key / 64, so the orders agree). A reduction at L2 (REDG.E.MAX.S32): every update
// travels there and takes its turn at the word, whether it raises the maximum or not, where
// c4 reads the word and sends a CAS only when its value is larger. The counters start at
// INT_MIN, the integers' -inf.
__global__ void counters_c8_max(int *max, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        atomicMax(&max[a], update_key(i));
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c8(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_IMAX;
    fill_counters(p, 0x80000000u);  // INT_MIN
    counters_c8_max<<<counter_blocks(p), COUNTER_THREADS>>>((int *)p->count, p->n, p->m,
                                                             counter_step(p));
    CHECK_LAUNCH();
}

// ---- c9 bitwise --------------------------------------------------------------------------------

// atomicAnd, atomicOr and atomicXor: the same reduction at L2 as c1 with a logic function in
// place of the adder (REDG.E.AND, .OR, .XOR). Update i does the one bitwise_op(i) names, so
// the row measures the three in equal parts. Atomics on one word give a defined end only when
// their operations commute, and AND and OR on the same bit do not (set then clear is not clear
// then set), so each operation has its own bit field (AND_FIELD, OR_FIELD, XOR_FIELD). The
// XOR field is the one that tells a lost or doubled update: it holds the parity of them all.
__global__ void counters_c9_bitwise(unsigned *bits, size_t n, unsigned m, unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        unsigned x = bitwise_operand(i);
        int op = bitwise_op(i);  // the same in all 32 lanes: one branch taken by the warp
        if (op == OP_AND) atomicAnd(&bits[a], x);
        else if (op == OP_OR) atomicOr(&bits[a], x);
        else atomicXor(&bits[a], x);
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c9(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_BITS;
    fill_counters(p, BITS_START);
    counters_c9_bitwise<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->n, p->m,
                                                                 counter_step(p));
    CHECK_LAUNCH();
}

// ---- c10 tickets -------------------------------------------------------------------------------

// c1, keeping what atomicAdd returns: the value the counter held just before this update's
// add. The adds on one counter are done one after another at L2, so a counter that receives
// c updates returns 0, 1, ..., c - 1, each to exactly one of them, in an order nobody chose:
// a ticket. That is how threads claim slots in a shared array without two taking the same one
// (queue[atomicAdd(&tail, 1)] = item). A returned value must travel back from L2 before the
// thread can use it: ATOMG.E.ADD, where c1 sends a REDG and moves on. And we store every
// ticket, 4 bytes written per update, so that the CPU can check them all.
__global__ void counters_c10_tickets(unsigned *count, unsigned *ticket, size_t n, unsigned m,
                                     unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        ticket[i] = atomicAdd(&count[a], 1u);  // the useful result: nobody else got this value
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c10(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_TICKETS;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c10_tickets<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->returned, p->n,
                                                                  p->m, counter_step(p));
    CHECK_LAUNCH();
}

// ---- c11 exchange ------------------------------------------------------------------------------

// atomicExch(&count[a], i + 1) writes this update's own value and returns the one it replaced.
// Exchanges do not commute, so the word's end only says who came last; what they return says
// the whole order. The first exchange on a counter gets its initial 0, each later one gets the
// value of the one just before it, and the last value written stays: one chain, which the CPU
// walks (chain_check_cpu). There is no exchange that returns nothing (PTX's red has add, inc,
// dec, min, max, and, or, xor), so the hardware always sends the old value back: ATOMG.E.EXCH.
__global__ void counters_c11_exchange(unsigned *word, unsigned *replaced, size_t n, unsigned m,
                                      unsigned step) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned a = (unsigned)(i % m);
    for (; i < n; i += stride) {
        replaced[i] = atomicExch(&word[a], (unsigned)i + 1);  // i + 1 <= 2^31 - 1: never 0
        a += step;
        if (a >= m) a -= m;
    }
}

static void launch_c11(void *problem) {
    counters_problem *p = (counters_problem *)problem;
    p->kind = KIND_CHAIN;
    CHECK(cudaMemsetAsync(p->count, 0, p->m * sizeof(unsigned)));
    counters_c11_exchange<<<counter_blocks(p), COUNTER_THREADS>>>(p->count, p->returned, p->n,
                                                                   p->m, counter_step(p));
    CHECK_LAUNCH();
}

// ---- the counters' version table ----------------------------------------------------------------

static const version counter_versions[] = {
    {"c0", "racy", launch_c0, KL_UNCHECKED},
    {"c1", "atomic", launch_c1, 0},
    {"c2", "casint", launch_c2, 0},
    {"c3", "casfloat", launch_c3, 0},
    {"c4", "casmax", launch_c4, 0},
    {"c5", "aggregated", launch_c5, 0},
    {"c6", "sub", launch_c6, 0},
    {"c7", "inc", launch_c7, 0},
    {"c8", "max", launch_c8, 0},
    {"c9", "bitwise", launch_c9, 0},
    {"c10", "tickets", launch_c10, 0},
    {"c11", "exchange", launch_c11, 0},
};
#define COUNTER_COUNT (int)(sizeof counter_versions / sizeof counter_versions[0])
// What a counter version computes (the KIND_ list), told by the tag, not by the launch, so a
// check needs no launch (--verify).
static int counter_kind_of(const char *tag) {
    static const struct { const char *tag; int kind; } kinds[] = {
        {"c3", KIND_SUM},  {"c4", KIND_MAX},  {"c6", KIND_DOWN},     {"c7", KIND_WRAP},
        {"c8", KIND_IMAX}, {"c9", KIND_BITS}, {"c10", KIND_TICKETS}, {"c11", KIND_CHAIN},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(tag, kinds[k].tag) == 0) return kinds[k].kind;
    return KIND_COUNT;
}

// Whether a kind keeps one returned value per update after the counters.
static int keeps_returned(int kind) { return kind == KIND_TICKETS || kind == KIND_CHAIN; }

// ---- checking and saving the counters -----------------------------------------------------------

// Counts are exact integers and the float results are exact too (see counters_cpu), so every
// comparison has tolerance 0. c6's and c7's references follow from the counts; c10's and
// c11's returned values are checked for the property they must have, not against one order.
static void counters_check(void *problem, const version *v, check_result *r) {
    counters_problem *p = (counters_problem *)problem;
    int kind = counter_kind_of(v->tag);
    size_t words = p->m + (keeps_returned(kind) ? p->n : 0);
    CHECK(cudaMemcpy(p->host_out, p->count, words * sizeof(unsigned), cudaMemcpyDeviceToHost));
    const uint32_t *got = p->host_out, *returned = p->host_out + p->m;
    if (kind == KIND_COUNT || kind == KIND_TICKETS) check_u32(r, got, p->want_count, 1, p->m, 0);
    if (kind == KIND_SUM) check_f32(r, (const float *)got, p->want_sum, 1, p->m, 0, 0, 0);
    if (kind == KIND_MAX) check_f32(r, (const float *)got, p->want_max, 1, p->m, 0, 0, 0);
    if (kind == KIND_DOWN || kind == KIND_WRAP) {
        for (unsigned a = 0; a < p->m; a++)
            p->want_tmp[a] = kind == KIND_DOWN ? 0u - p->want_count[a]
                                               : p->want_count[a] % (INC_LIMIT + 1);
        check_u32(r, got, p->want_tmp, 1, p->m, 0);
    }
    if (kind == KIND_IMAX) check_u32(r, got, (const uint32_t *)p->want_imax, 1, p->m, 0);
    if (kind == KIND_BITS) check_u32(r, got, p->want_bits, 1, p->m, 0);
    if (kind == KIND_TICKETS) tickets_check_cpu(r, returned, p->n, p->m, p->scratch);
    if (kind == KIND_CHAIN) chain_check_cpu(r, returned, got, p->n, p->m, p->scratch, p->want_tmp);
}

// The extra column: updates lost by the last launch (n minus what the counters hold); always 0
// for a correct counting version, and not a count at all for the others but c6 (which counts
// down: its counters hold minus their counts).
static double counters_lost(void *problem, double ms_median) {
    (void)ms_median;
    counters_problem *p = (counters_problem *)problem;
    if (p->kind != KIND_COUNT && p->kind != KIND_TICKETS && p->kind != KIND_DOWN) return NAN;
    CHECK(cudaMemcpy(p->host_out, p->count, p->m * sizeof(unsigned), cudaMemcpyDeviceToHost));
    uint64_t held = 0;
    for (unsigned a = 0; a < p->m; a++)
        held += p->kind == KIND_DOWN ? 0u - p->host_out[a] : p->host_out[a];
    return (double)p->n - (double)held;
}

// DIR/<tag>.npy: the m counters; c10 and c11 also write DIR/<tag>-returned.npy, n values.
static void counters_save(void *problem, const char *dir, const char *tag) {
    counters_problem *p = (counters_problem *)problem;
    int kind = counter_kind_of(tag);
    size_t shape[1] = {p->m};
    const char *descr = kind == KIND_SUM || kind == KIND_MAX ? "<f4"
                        : kind == KIND_IMAX                  ? "<i4"
                                                             : "<u4";
    if (npy_save(dir, tag, descr, shape, 1, p->host_out) != 0) exit(KL_EXIT_USAGE);
    if (!keeps_returned(kind)) return;
    char name[64];
    snprintf(name, sizeof name, "%s-returned", tag);
    shape[0] = p->n;
    if (npy_save(dir, name, "<u4", shape, 1, p->host_out + p->m) != 0) exit(KL_EXIT_USAGE);
}

// ================================================================================================
// Part 2: the histogram
// ================================================================================================

typedef struct {
    size_t n;             // bytes
    const uint8_t *data;  // device: n bytes
    unsigned *bins;       // device: BINS counts
    uint8_t *host_data;
    uint32_t want[BINS], got[BINS];
    void *cub_temp;  // CUB's scratch space, allocated once before anything is timed
    size_t cub_temp_bytes;
    int sms;
} histogram_problem;

// ---- the CPU reference ------------------------------------------------------------------------

static void histogram_cpu(const uint8_t *data, size_t n, uint32_t *bins) {
    for (int b = 0; b < BINS; b++) bins[b] = 0;
    for (size_t i = 0; i < n; i++) bins[data[i]]++;
}

// ---- the inputs ---------------------------------------------------------------------------------

// uniform: every byte independent and uniform, the least contention there is.
// degenerate: every byte the same, so every update goes to one bin: the most contention.
// skewed: like the pixels of a photograph: runs of 64 neighbours share a level drawn from a bell
// curve around 128 (the sum of two uniform draws), each pixel within 4 of it. A warp's 32 lanes
// see a handful of bins, and the middle bins get most of the counts.
static void make_input(const char *input, uint64_t seed, uint8_t *x, size_t n) {
    rng g;
    rng_init(&g, seed);
    if (strcmp(input, "degenerate") == 0) {
        memset(x, 42, n);
        return;
    }
    if (strcmp(input, "uniform") == 0) {
        for (size_t i = 0; i < n; i += 8) {  // eight random bytes per draw
            uint64_t r = rng_next(&g);
            for (size_t j = 0; j < 8 && i + j < n; j++) x[i + j] = (uint8_t)(r >> (8 * j));
        }
        return;
    }
    for (size_t i = 0; i < n; i += 64) {  // skewed
        int level = (int)rng_below(&g, 128) + (int)rng_below(&g, 129);  // 0 .. 255, peak at 128
        uint64_t r = rng_next(&g);  // 3 bits of noise per pixel, 21 pixels per draw
        for (size_t j = 0; j < 64 && i + j < n; j++) {
            if (j % 21 == 0 && j > 0) r = rng_next(&g);
            int v = level + (int)((r >> (3 * (j % 21))) & 7) - 4;
            x[i + j] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

// ---- the grid ---------------------------------------------------------------------------------

// Every histogram kernel is persistent: as many blocks as fit on the GPU at once, each walking
// the input with a grid-stride loop. A block's private histogram then serves a large share of
// the input, and its set-up and merge (256 global atomics) are paid once per block, not once
// per few bytes.
#define HIST_THREADS 256
#define HIST_WARPS (HIST_THREADS / 32)

// How many blocks of `kernel` fit on one SM at once, from the occupancy API. Asked at a kernel's
// first launch, which is the untimed one that is checked, and remembered, so a timed launch
// only looks it up.
static int resident_blocks(const void *kernel) {
    enum { MAX_KERNELS = 8 };
    static const void *known[MAX_KERNELS];
    static int blocks[MAX_KERNELS];
    int i = 0;
    for (; i < MAX_KERNELS && known[i]; i++)
        if (known[i] == kernel) return blocks[i];
    if (i == MAX_KERNELS) {
        fprintf(stderr, "atomics: more than %d histogram kernels\n", MAX_KERNELS);
        exit(KL_EXIT_GPU);
    }
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks[i], kernel, HIST_THREADS, 0));
    known[i] = kernel;
    return blocks[i];
}

// Blocks for `kernel` when its threads each take `per_thread` bytes per step of the loop: enough
// to cover n, at most what fits on the GPU at once, at least one.
static unsigned hist_blocks(const histogram_problem *p, const void *kernel, size_t per_thread) {
    size_t want = ceil_div(p->n, (size_t)HIST_THREADS * per_thread);
    size_t most = (size_t)p->sms * resident_blocks(kernel);
    return (unsigned)(want < 1 ? 1 : want < most ? want : most);
}

// ---- baseline: CUB ------------------------------------------------------------------------------

// CUB's device-wide histogram, 257 levels 0, 1, ..., 256 so that bin b holds the value b. It
// clears the bins itself. Its scratch space was sized and allocated before any timing.
static void launch_cub(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cub::DeviceHistogram::HistogramEven(p->cub_temp, p->cub_temp_bytes, p->data, p->bins,
                                              BINS + 1, 0, BINS, (int)p->n));
}

// ---- v0 global ----------------------------------------------------------------------------------

// One global atomicAdd per byte. A warp reads 32 neighbouring bytes (one 32-byte sector) and
// sends 32 atomics to L2, where all the updates of a bin are done one after another: 256
// addresses for the whole GPU. On the degenerate input all of them go to one.
__global__ void histogram_v0_global(const uint8_t *__restrict__ data, size_t n,
                                    unsigned *__restrict__ bins) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i]], 1u);
}

static void launch_v0(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));  // every launch counts afresh
    unsigned blocks = hist_blocks(p, (const void *)histogram_v0_global, 1);
    histogram_v0_global<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- v1 privatized ------------------------------------------------------------------------------

// Each block counts into its own 256 bins in shared memory, where an atomic is done in the SM
// a few cycles away instead of in L2, and only the block's 256 threads compete for a bin
// instead of the whole GPU. At the end the block adds its bins to the global ones: 256 global
// atomics per block in place of one per byte.

// Adds the block's shared bins to the global bins; zero bins are skipped.
__device__ void merge_bins(const unsigned *local, unsigned *bins) {
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

__global__ void histogram_v1_privatized(const uint8_t *__restrict__ data, size_t n,
                                        unsigned *__restrict__ bins) {
    // EXERCISE: privatized begin
    __shared__ unsigned local[BINS];  // the block's histogram: 1 KiB
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();  // clear before counting
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();  // every byte counted before the merge reads the bins
    merge_bins(local, bins);
    // EXERCISE: privatized end
}

static void launch_v1(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v1_privatized, 1);
    histogram_v1_privatized<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- v2 warps -----------------------------------------------------------------------------------

// Two changes that go together. Loads: each thread reads 16 bytes at once (a uint4), so a warp
// reads 512 contiguous bytes per instruction instead of 32, and the load units issue 1/16 as
// many requests. Bins: each warp has its own 256, so only the 32 lanes of one warp compete for
// a bin, never two warps. The last n % 16 bytes, which fill no uint4, are counted one per
// thread by block 0. The block's eight sub-histograms are summed at the merge.

// Counts the four bytes of w into the bins h (any byte order: all four are counted).
__device__ __forceinline__ void count_word(unsigned *h, unsigned w) {
    atomicAdd(&h[w & 0xFF], 1u);
    atomicAdd(&h[(w >> 8) & 0xFF], 1u);
    atomicAdd(&h[(w >> 16) & 0xFF], 1u);
    atomicAdd(&h[w >> 24], 1u);
}

__global__ void histogram_v2_warps(const uint8_t *__restrict__ data, size_t n,
                                   unsigned *__restrict__ bins) {
    __shared__ unsigned local[HIST_WARPS][BINS];  // one histogram per warp: 8 KiB
    for (int i = threadIdx.x; i < HIST_WARPS * BINS; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = local[threadIdx.x / 32];
    const uint4 *data16 = (const uint4 *)data;  // cudaMalloc aligns data to 256 bytes
    size_t n16 = n / 16;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = data16[i];  // 16 bytes; lanes read 32 neighbouring uint4s, 512 bytes
        count_word(mine, v.x), count_word(mine, v.y), count_word(mine, v.z), count_word(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16) atomicAdd(&mine[data[n16 * 16 + threadIdx.x]], 1u);
    __syncthreads();  // every byte counted before the merge
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (int w = 0; w < HIST_WARPS; w++) sum += local[w][b];
        if (sum) atomicAdd(&bins[b], sum);
    }
}

static void launch_v2(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v2_warps, 16);
    histogram_v2_warps<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- v3 banked ----------------------------------------------------------------------------------

// Shared memory serves a warp's 32 accesses in one pass only when they fall in 32 different
// banks (bank = word address % 32). In v2 bin b is word b, so 32 random bytes land in random
// banks and collide (about 3.5 on the busiest bank), and the degenerate input sends all 32
// lanes to one word. Here each lane gets its own copy of the bins, laid out so that lane l's
// counter of bin b is word b * 32 + l: always bank l. Every warp access is now conflict-free,
// whatever the data. Lane l of every warp in the block shares copy l, so we still need the
// atomics, but two warps meet on a word only by chance. 256 x 32 words: 32 KiB a block.
__device__ __forceinline__ void count_word_banked(unsigned *h, unsigned w) {
    atomicAdd(&h[(w & 0xFF) * 32], 1u);  // h points at lane l's column: h[b * 32] is bin b
    atomicAdd(&h[((w >> 8) & 0xFF) * 32], 1u);
    atomicAdd(&h[((w >> 16) & 0xFF) * 32], 1u);
    atomicAdd(&h[(w >> 24) * 32], 1u);
}

// Sums the 32 lane copies of each bin and adds them to the global bins. Thread t reads copy
// (t + l) % 32 at step l, so the 32 lanes of a warp read 32 different banks.
__device__ void merge_banked(const unsigned (*local)[32], unsigned *bins) {
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (int l = 0; l < 32; l++) sum += local[b][(l + b) % 32];
        if (sum) atomicAdd(&bins[b], sum);
    }
}

__global__ void histogram_v3_banked(const uint8_t *__restrict__ data, size_t n,
                                    unsigned *__restrict__ bins) {
    __shared__ unsigned local[BINS][32];  // [bin][lane]: 32 KiB
    for (int i = threadIdx.x; i < BINS * 32; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = &local[0][threadIdx.x % 32];  // this lane's column
    const uint4 *data16 = (const uint4 *)data;
    size_t n16 = n / 16;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = data16[i];
        count_word_banked(mine, v.x), count_word_banked(mine, v.y);
        count_word_banked(mine, v.z), count_word_banked(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16)
        atomicAdd(&mine[data[n16 * 16 + threadIdx.x] * 32], 1u);
    __syncthreads();  // every byte counted before the merge
    merge_banked(local, bins);
}

static void launch_v3(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v3_banked, 16);
    histogram_v3_banked<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- v4 unrolled --------------------------------------------------------------------------------

// An experiment that did not pay: v3 waits for each 16-byte load before its atomics, so one
// load per thread is in flight. Device memory needs bandwidth x latency bytes in flight, and
// we guessed 24 KiB per SM was too few. Here each thread issues UNROLL loads, then counts them
// all. It measures no faster: v3 already reads at near the copy speed (see the README).
#define UNROLL 4  // 64 bytes per thread per step, four times the loads in flight; the compiler
                  // fits it in as many registers as v3 (its report: make evidence)

__global__ void histogram_v4_unrolled(const uint8_t *__restrict__ data, size_t n,
                                      unsigned *__restrict__ bins) {
    __shared__ unsigned local[BINS][32];  // [bin][lane]: 32 KiB
    for (int i = threadIdx.x; i < BINS * 32; i += blockDim.x) (&local[0][0])[i] = 0;
    __syncthreads();  // clear before counting
    unsigned *mine = &local[0][threadIdx.x % 32];
    const uint4 *data16 = (const uint4 *)data;
    size_t n16 = n / 16;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {  // i .. i + 3 stride in range
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) v[u] = data16[i + u * stride];  // all loads first
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            count_word_banked(mine, v[u].x), count_word_banked(mine, v[u].y);
            count_word_banked(mine, v[u].z), count_word_banked(mine, v[u].w);
        }
    }
    for (; i < n16; i += stride) {  // what is left, one uint4 at a time
        uint4 v = data16[i];
        count_word_banked(mine, v.x), count_word_banked(mine, v.y);
        count_word_banked(mine, v.z), count_word_banked(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16)
        atomicAdd(&mine[data[n16 * 16 + threadIdx.x] * 32], 1u);
    __syncthreads();  // every byte counted before the merge
    merge_banked(local, bins);
}

static void launch_v4(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = hist_blocks(p, (const void *)histogram_v4_unrolled, 16 * UNROLL);
    histogram_v4_unrolled<<<blocks, HIST_THREADS>>>(p->data, p->n, p->bins);
    CHECK_LAUNCH();
}

// ---- the histogram's version table --------------------------------------------------------------

static const version histogram_versions[] = {
    {"cub", "cub", launch_cub, KL_BASELINE},
    {"v0", "global", launch_v0, 0},
    {"v1", "privatized", launch_v1, 0},
    {"v2", "warps", launch_v2, 0},
    {"v3", "banked", launch_v3, 0},
    {"v4", "unrolled", launch_v4, 0},
};
#define HISTOGRAM_COUNT (int)(sizeof histogram_versions / sizeof histogram_versions[0])

// ---- checking and saving the histogram ----------------------------------------------------------

// Counts are integers: exact. Equal bins also means they sum to n, as the CPU's do.
static void histogram_check(void *problem, const version *v, check_result *r) {
    (void)v;
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cudaMemcpy(p->got, p->bins, sizeof p->got, cudaMemcpyDeviceToHost));
    check_u32(r, p->got, p->want, 1, BINS, 0);
}

static void histogram_save(void *problem, const char *dir, const char *tag) {
    histogram_problem *p = (histogram_problem *)problem;
    size_t shape[1] = {BINS};
    if (npy_save(dir, tag, "<u4", shape, 1, p->got) != 0) exit(KL_EXIT_USAGE);
}

// ================================================================================================
// The self-test of the CPU references (no GPU)
// ================================================================================================

static int report(int ok, const char *what) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    return !ok;
}

// The GPU's atomics done on the CPU in one order a GPU might pick: the n updates shuffled
// (seeded), each done whole. t[i] gets what update i's atomicAdd(1) returns, x[i] what its
// atomicExch(i + 1) returns, final[a] the word the exchanges leave. At most 1000 updates,
// at most 64 counters.
#define SIM_MAX_N 1000
#define SIM_MAX_M 64
static void atomics_in_some_order(size_t n, unsigned m, uint64_t seed, uint32_t *t, uint32_t *x,
                                  uint32_t *final) {
    uint32_t order[SIM_MAX_N], count[SIM_MAX_M];
    rng g;
    rng_init(&g, seed);
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) {  // Fisher-Yates
        size_t j = rng_below(&g, (uint32_t)i);
        uint32_t keep = order[i - 1];
        order[i - 1] = order[j], order[j] = keep;
    }
    for (unsigned a = 0; a < m; a++) count[a] = 0, final[a] = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = order[k];
        unsigned a = i % m;
        t[i] = count[a]++;
        x[i] = final[a];
        final[a] = i + 1;
    }
}

// Runs one of the returned-value checks on the CPU's simulated atomics, after `spoil` changes
// them; returns whether the check passed. Prints nothing: some of these are meant to fail.
enum { SPOIL_NONE, SPOIL_TWICE, SPOIL_PAST, SPOIL_POISON, SPOIL_FINAL };
static int returned_check_passes(int chain, size_t n, unsigned m, uint64_t seed, int spoil) {
    uint32_t t[SIM_MAX_N], x[SIM_MAX_N], final[SIM_MAX_M], scratch[SIM_MAX_N], at[SIM_MAX_M];
    atomics_in_some_order(n, m, seed, t, x, final);
    uint32_t *got = chain ? x : t;
    if (spoil == SPOIL_TWICE) got[n - 1] = got[n - 1 - m];  // what another of its counter's got
    if (spoil == SPOIL_PAST) t[n - 1] = (uint32_t)updates_of(n, m, (unsigned)((n - 1) % m));
    if (spoil == SPOIL_POISON) memset(got, 0xFF, n * sizeof(uint32_t));
    if (spoil == SPOIL_FINAL) final[0] = final[0] == 1 ? 1 + m : 1;  // not counter 0's last value
    check_result c;
    check_init(&c);
    c.printed = KL_MAX_PRINTED;
    if (chain) chain_check_cpu(&c, x, final, n, m, scratch, at);
    else tickets_check_cpu(&c, t, n, m, scratch);
    return check_ok(&c);
}

static int atomics_self_test(void) {
    int failed = 0;
    // histogram: worked by hand
    const uint8_t bytes[7] = {3, 0, 255, 3, 3, 0, 7};
    uint32_t bins[BINS];
    histogram_cpu(bytes, 7, bins);
    int ok = bins[0] == 2 && bins[3] == 3 && bins[7] == 1 && bins[255] == 1;
    uint64_t total = 0;
    for (int b = 0; b < BINS; b++) total += bins[b];
    failed += report(ok && total == 7, "histogram_cpu: 7 bytes by hand");
    // every input, at odd sizes: the bins sum to n, and degenerate fills one bin
    const size_t sizes[] = {1, 2, 3, 15, 17, 64, 65, 1001};
    for (int s = 0; inputs[s]; s++) {
        int all = 1;
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            uint8_t x[1001];
            make_input(inputs[s], 7, x, sizes[k]);
            histogram_cpu(x, sizes[k], bins);
            total = 0;
            for (int b = 0; b < BINS; b++) total += bins[b];
            all &= total == sizes[k];
            if (strcmp(inputs[s], "degenerate") == 0) all &= bins[42] == sizes[k];
        }
        char what[96];
        snprintf(what, sizeof what, "histogram_cpu: the bins of the %s input sum to n", inputs[s]);
        failed += report(all, what);
    }
    // counters: 10 updates over 3 counters by hand: 4, 3, 3
    uint32_t count[3], bits[3];
    float sum[3], max[3];
    int32_t imax[3];
    counters_cpu(10, 3, count, sum, max, imax, bits);
    ok = count[0] == 4 && count[1] == 3 && count[2] == 3 && sum[0] == 4.0f && sum[2] == 3.0f;
    ok &= max[0] == fmaxf(fmaxf(update_value(0), update_value(3)),
                          fmaxf(update_value(6), update_value(9)));
    int key = update_key(1);  // counter 1: updates 1, 4, 7
    if (update_key(4) > key) key = update_key(4);
    if (update_key(7) > key) key = update_key(7);
    ok &= imax[1] == key;
    failed += report(ok, "counters_cpu: 10 updates over 3 counters by hand");
    // more counters than updates: the idle ones hold 0, -inf, INT_MIN and the starting word
    uint32_t c5[5], b5[5];
    float s5[5], m5[5];
    int32_t i5[5];
    counters_cpu(2, 5, c5, s5, m5, i5, b5);
    ok = c5[1] == 1 && c5[2] == 0 && s5[4] == 0.0f && m5[3] == -INFINITY && m5[1] == update_value(1);
    ok &= i5[3] == INT32_MIN && i5[1] == update_key(1) && b5[4] == BITS_START;
    ok &= b5[0] == (BITS_START & bitwise_operand(0));  // update 0 is an AND (0 / 32 % 3 == 0)
    failed += report(ok, "counters_cpu: 2 updates over 5 counters");
    // a float sum of ones stops at 2^24
    uint32_t c1, b1;
    float s1, m1;
    int32_t i1;
    counters_cpu((1u << 24) + 5, 1, &c1, &s1, &m1, &i1, &b1);
    failed += report(c1 == (1u << 24) + 5 && s1 == 16777216.0f,
                     "counters_cpu: a float sum of ones stops at 2^24");
    // the update values are exact multiples of 1/64 in [-1024, 1024), their keys times 64
    ok = 1;
    for (uint64_t i = 0; i < 10000; i++) {
        float v = update_value(i);
        ok &= v >= -1024.0f && v < 1024.0f && v * 64.0f == (float)(int)(v * 64.0f);
        ok &= v * 64.0f == (float)update_key(i) && update_key(i) >= -65536 && update_key(i) < 65536;
    }
    failed += report(ok, "update_value: multiples of 1/64 in [-1024, 1024), update_key / 64");
    // c9: every operand touches its own field only; each operation is a third of the updates,
    // and the 32 updates of a warp's step share one
    ok = 1;
    size_t ops[3] = {0, 0, 0};
    for (uint64_t i = 0; i < 9600; i++) {
        unsigned x = bitwise_operand(i);
        int op = bitwise_op(i);
        ops[op]++;
        ok &= op == bitwise_op(i & ~(uint64_t)31);
        if (op == OP_AND) ok &= (x | AND_FIELD) == 0xFFFFFFFFu && __builtin_popcount(~x) == 1;
        if (op == OP_OR) ok &= (x & ~OR_FIELD) == 0 && __builtin_popcount(x) == 1;
        if (op == OP_XOR) ok &= (x & ~XOR_FIELD) == 0;
    }
    ok &= ops[0] == 3200 && ops[1] == 3200 && ops[2] == 3200;
    ok &= (AND_FIELD | OR_FIELD | XOR_FIELD) == 0xFFFFFFFFu && (AND_FIELD & OR_FIELD) == 0 &&
          (OR_FIELD & XOR_FIELD) == 0 && (AND_FIELD & XOR_FIELD) == 0;
    failed += report(ok, "bitwise_operand: each operation in its own field, a warp's 32 alike");
    // c9: the word from its three fields, each worked out on its own (the AND field keeps the
    // bits no AND cleared, the OR field has the bits some OR set, the XOR field is the parity),
    // and the same word from the counter's updates applied backwards
    enum { BN = 1001, BM = 7 };
    uint32_t bc[BM], bb[BM];
    float bs[BM], bx[BM];
    int32_t bi[BM];
    counters_cpu(BN, BM, bc, bs, bx, bi, bb);
    ok = 1;
    for (unsigned a = 0; a < BM; a++) {
        unsigned cleared = 0, set = 0, flipped = 0, backwards = BITS_START;
        for (size_t i = a; i < BN; i += BM) {
            unsigned x = bitwise_operand(i);
            if (bitwise_op(i) == OP_AND) cleared |= ~x;
            if (bitwise_op(i) == OP_OR) set |= x;
            if (bitwise_op(i) == OP_XOR) flipped ^= x;
        }
        for (size_t i = a + (BN - 1 - a) / BM * BM;; i -= BM) {
            backwards = bitwise_apply(backwards, i);
            if (i < BM) break;
        }
        ok &= bb[a] == ((AND_FIELD & ~cleared) | set | flipped) && bb[a] == backwards;
    }
    failed += report(ok, "counters_cpu: c9's word field by field, and in reverse order");
    // c7 and c6: c updates of atomicInc(limit) from 0 leave c % (limit + 1); c of atomicSub(1)
    // leave 0 - c, modulo 2^32
    ok = 1;
    uint32_t word = 0, down = 0;
    for (uint32_t c = 1; c <= 3 * (INC_LIMIT + 1) + 7; c++) {
        word = inc_wrap(word, INC_LIMIT);
        down -= 1;
        ok &= word == c % (INC_LIMIT + 1) && down == 0u - c && down == 4294967296ull - c;
    }
    ok &= inc_wrap(INC_LIMIT, INC_LIMIT) == 0 && inc_wrap(INC_LIMIT + 5, INC_LIMIT) == 0;
    failed += report(ok, "inc_wrap: atomicInc goes round INC_LIMIT + 1 values; atomicSub wraps");
    // c10 and c11: the checks pass the CPU's own atomics, done in random orders, at odd sizes
    // and with more counters than updates; and they fail each way the values can be wrong
    const size_t sim_n[] = {1, 2, 3, 31, 33, 97, 1000};
    const unsigned sim_m[] = {1, 2, 3, 7, 40};
    int tickets_ok = 1, chain_ok = 1, tickets_bad = 1, chain_bad = 1;
    for (size_t k = 0; k < sizeof sim_n / sizeof sim_n[0]; k++)
        for (size_t j = 0; j < sizeof sim_m / sizeof sim_m[0]; j++) {
            size_t n = sim_n[k];
            unsigned m = sim_m[j];
            for (uint64_t seed = 1; seed <= 3; seed++) {
                tickets_ok &= returned_check_passes(0, n, m, seed, SPOIL_NONE);
                chain_ok &= returned_check_passes(1, n, m, seed, SPOIL_NONE);
                tickets_bad &= !returned_check_passes(0, n, m, seed, SPOIL_POISON);
                tickets_bad &= !returned_check_passes(0, n, m, seed, SPOIL_PAST);
                chain_bad &= !returned_check_passes(1, n, m, seed, SPOIL_POISON);
                chain_bad &= !returned_check_passes(1, n, m, seed, SPOIL_FINAL);
                if (n > m) {
                    tickets_bad &= !returned_check_passes(0, n, m, seed, SPOIL_TWICE);
                    chain_bad &= !returned_check_passes(1, n, m, seed, SPOIL_TWICE);
                }
            }
        }
    failed += report(tickets_ok, "tickets_check_cpu: passes atomicAdd's returns in random orders");
    failed += report(tickets_bad, "tickets_check_cpu: fails a ticket given twice, one past the "
                                  "count, the poison");
    failed += report(chain_ok, "chain_check_cpu: passes atomicExch's returns in random orders");
    failed += report(chain_bad, "chain_check_cpu: fails a value got twice, a wrong last value, "
                                "the poison");
    // c11 by hand, one counter, 4 updates done in the order 2, 0, 3, 1: update 2 gets the 0,
    // 0 gets 3 (update 2's value), 3 gets 1, 1 gets 4, and 2 (update 1's) stays. Then a fake
    // in which every value written is still got back once or left in the word, but updates 0
    // and 1 hand their values to each other and 3 gets its own: a loop beside the chain.
    uint32_t hx[4] = {3, 4, 0, 1}, hfinal = 2, hnext[4], hat[1];
    check_result hc;
    check_init(&hc);
    chain_check_cpu(&hc, hx, &hfinal, 4, 1, hnext, hat);
    ok = check_ok(&hc);
    uint32_t fx[4] = {2, 1, 0, 4}, ffinal = 3;
    check_init(&hc);
    hc.printed = KL_MAX_PRINTED;
    chain_check_cpu(&hc, fx, &ffinal, 4, 1, hnext, hat);
    ok &= !check_ok(&hc);
    failed += report(ok, "chain_check_cpu: a chain by hand passes, its values with a loop fail");
    // counters with no update must still hold their 0
    uint32_t ux[2] = {0, 0}, ufinal[4] = {1, 2, 0, 0}, unext[2], uat[4];
    check_init(&hc);
    chain_check_cpu(&hc, ux, ufinal, 2, 4, unext, uat);
    ok = check_ok(&hc);
    ufinal[3] = 7;
    check_init(&hc);
    hc.printed = KL_MAX_PRINTED;
    chain_check_cpu(&hc, ux, ufinal, 2, 4, unext, uat);
    ok &= !check_ok(&hc);
    failed += report(ok, "chain_check_cpu: with more counters than updates, idle ones hold 0");
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ================================================================================================
// main
// ================================================================================================

// The counters part: n updates over m counters.
static int run_counters(const options *o, const env_info *env, const bool *selected) {
    counters_problem p = {};
    p.n = o->n, p.m = (unsigned)o->m;
    // c10 and c11 keep n returned values after the m counters, in the same poisoned output
    bool keep = false;
    for (int i = 0; i < COUNTER_COUNT; i++)
        keep |= selected[i] && keeps_returned(counter_kind_of(counter_versions[i].tag));
    size_t bytes = size_mul(p.m, sizeof(unsigned));
    size_t out_bytes = size_mul(p.m + (keep ? p.n : 0), sizeof(unsigned));
    gpu_require(out_bytes, "the counters and the returned values");
    p.count = (unsigned *)gpu_alloc(out_bytes, "the counters and the returned values");
    p.returned = keep ? p.count + p.m : NULL;
    p.host_out = (unsigned *)host_alloc(out_bytes, "the counters and the returned values");
    p.want_count = (uint32_t *)host_alloc(bytes, "the reference counts");
    p.want_sum = (float *)host_alloc(bytes, "the reference sums");
    p.want_max = (float *)host_alloc(bytes, "the reference maxima");
    p.want_imax = (int32_t *)host_alloc(bytes, "the reference integer maxima");
    p.want_bits = (uint32_t *)host_alloc(bytes, "the reference bit fields");
    p.want_tmp = (uint32_t *)host_alloc(bytes, "the references made at check time");
    p.scratch = keep ? (uint32_t *)host_alloc(size_mul(p.n, sizeof(uint32_t)),
                                              "the check of the returned values") : NULL;
    // every SM as full as it gets (2048 threads on an H200): the most contention we can make
    p.blocks = (unsigned)(env->sms * (env->sm_threads / COUNTER_THREADS));
    counters_cpu(p.n, p.m, p.want_count, p.want_sum, p.want_max, p.want_imax, p.want_bits);

    bench b = {};
    b.problem = &p;
    b.out = p.count;
    b.out_bytes = out_bytes;
    b.flops = (double)p.n;  // the GFLOP/s column counts updates: G updates/s
    b.check = counters_check;
    b.save = counters_save;
    b.extra_name = "lost_updates";
    b.extra = counters_lost;
    options oc = *o;
    oc.input = NULL;  // the counters take no input data
    printf("counters: %zu updates over %u counters (GFLOP/s = G updates/s)\n", p.n, p.m);
    int rc = bench_run(&oc, env, &b, counter_versions, selected, COUNTER_COUNT);
    printf("\n");
    CHECK(cudaFree(p.count));
    free(p.host_out), free(p.want_count), free(p.want_sum), free(p.want_max);
    free(p.want_imax), free(p.want_bits), free(p.want_tmp), free(p.scratch);
    return rc;
}

// The histogram part: n bytes of the chosen input into 256 bins.
static int run_histogram(const options *o, const env_info *env, const bool *selected) {
    histogram_problem p = {};
    p.n = o->n;
    p.sms = env->sms;
    CHECK(cub::DeviceHistogram::HistogramEven(NULL, p.cub_temp_bytes, (const uint8_t *)NULL,
                                              (unsigned *)NULL, BINS + 1, 0, BINS, (int)p.n));
    gpu_require(p.n + BINS * sizeof(unsigned) + p.cub_temp_bytes, "the input, bins and CUB");
    p.data = (const uint8_t *)gpu_alloc(p.n, "the input bytes");
    p.bins = (unsigned *)gpu_alloc(BINS * sizeof(unsigned), "the bins");
    p.cub_temp = gpu_alloc(p.cub_temp_bytes > 0 ? p.cub_temp_bytes : 1, "CUB's scratch space");
    p.host_data = (uint8_t *)host_alloc(p.n, "the input bytes");

    make_input(o->input, o->seed, p.host_data, p.n);
    CHECK(cudaMemcpy((void *)p.data, p.host_data, p.n, cudaMemcpyHostToDevice));
    histogram_cpu(p.host_data, p.n, p.want);
    if (o->save) {
        size_t shape[1] = {p.n};
        if (npy_save(o->save, "data", "<u1", shape, 1, p.host_data) != 0) return KL_EXIT_USAGE;
    }

    bench b = {};
    b.problem = &p;
    b.out = p.bins;
    b.out_bytes = BINS * sizeof(unsigned);
    b.inputs[0] = p.data, b.input_bytes[0] = p.n;  // no version may write it (--check-each)
    b.bytes = (double)p.n;  // every byte read once; the 1 KiB of bins is nothing beside it
    b.check = histogram_check;
    b.save = histogram_save;
    options oh = *o;
    oh.m = 1;  // m is the counters' size; unused here
    printf("histogram: %zu bytes, input %s, 256 bins\n", p.n, o->input);
    int rc = bench_run(&oh, env, &b, histogram_versions, selected, HISTOGRAM_COUNT);
    CHECK(cudaFree((void *)p.data));
    CHECK(cudaFree(p.bins));
    CHECK(cudaFree(p.cub_temp));
    free(p.host_data);
    return rc;
}

int main(int argc, char **argv) {
    // One table for the command line (--list, -v), counters first; each part runs its own rows.
    version all[COUNTER_COUNT + HISTOGRAM_COUNT];
    memcpy(all, counter_versions, sizeof counter_versions);
    memcpy(all + COUNTER_COUNT, histogram_versions, sizeof histogram_versions);
    options o = {};
    o.program = "atomics";
    o.chapter = "04-atomics";
    o.sizes = "mn";
    o.m_means = "counters (the counters part)";
    o.n_means = "updates (counters), bytes (histogram)";
    o.inputs = inputs;
    o.input = "uniform";
    o.m = DEFAULT_M, o.n = DEFAULT_N, o.k = 1;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[COUNTER_COUNT + HISTOGRAM_COUNT];
    options_begin(&o, argc, argv, all, COUNTER_COUNT + HISTOGRAM_COUNT, selected);
    if (o.self_test) return atomics_self_test();

    // A part runs when one of its own rows is selected; the CUB baseline runs with its part.
    bool *counters_sel = selected, *histogram_sel = selected + COUNTER_COUNT;
    bool run_c = false, run_h = false;
    for (int i = 0; i < COUNTER_COUNT; i++) run_c |= counters_sel[i];
    for (int i = 0; i < HISTOGRAM_COUNT; i++)
        run_h |= histogram_sel[i] && !(histogram_versions[i].flags & KL_BASELINE);

    env_info env;
    gpu_open(&env);
    bench_header(&o, &env);
    int rc = KL_EXIT_OK;
    if (run_c) rc |= run_counters(&o, &env, counters_sel);
    if (run_h) rc |= run_histogram(&o, &env, histogram_sel);
    return rc ? KL_EXIT_WRONG : KL_EXIT_OK;
}
