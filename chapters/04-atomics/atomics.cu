// Chapter 04: atomics. Many threads updating one memory word: what goes wrong without atomics,
// what an atomic costs when threads fight over one address, and how a histogram stops fighting.
//
// Part 1, counters: n updates spread over m counters (update i goes to counter i % m).
//   c0 racy       a plain ++ on a block's shared copy of the counters: updates vanish (the lesson,
//                 not a result; its lost updates are reported, and racecheck flags it)
//   c0a global    c1's grid walk with a plain ++ on the global counters: updates vanish there too
//                 (unchecked, its lost updates reported; racecheck does not see a global race)
//   c1 atomic     atomicAdd: the hardware's read-modify-write, nothing lost
//   c2 casint     atomicAdd built from atomicCAS: read, compute, swap if unchanged, else retry
//   c3 casfloat   the same loop adding floats (their bits go through the integer CAS)
//   c4 casmax     a float maximum from the same loop; it stops as soon as it cannot win
//   c5 aggregated the lanes of a warp that hit one counter add their count with one atomic
//   c6 sub        atomicSub: atomicAdd of the negated value, the same reduction at L2
//   c7 inc        atomicInc: counts up to a limit and starts again at 0 (a ring of slots)
//   c8 max        atomicMax on c4-int's integer keys: the hardware's maximum, always at L2
//   c9 bitwise    atomicAnd, atomicOr, atomicXor, a third each, on separate bit fields
//   c10 tickets   c1 keeping what atomicAdd returns: every update gets a different ticket
//   c11 exchange  atomicExch, keeping what it returns: the values handed on form one chain
//   c4-int        an experiment: c4's loop on c8's integer keys, the key change of c4 -> c8 alone
// Part 2, a histogram of n bytes into 256 bins:
//   cub         (baseline) cub::DeviceHistogram::HistogramEven
//   v0 global     one global atomicAdd per byte
//   v1 privatized each block counts into its own shared-memory histogram, merged at the end
//   v1a vectorized 16-byte loads: a uint4 a thread, 1/16 of the load instructions
//   v2 warps      one sub-histogram per warp: warps never meet on a bin
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
static const char *const inputs[] = {"uniform", "degenerate", "skewed", NULL};

// ================================================================================================
// Part 1: counters
// ================================================================================================

// What a counter version computes, and so which reference it is checked against.
enum {
    KIND_COUNT,    // c0, c0a, c1, c2, c5: how many updates each counter received
    KIND_SUM,      // c3: a float sum
    KIND_MAX,      // c4: a float maximum
    KIND_DOWN,     // c6: the count subtracted from 0, modulo 2^32
    KIND_WRAP,     // c7: the count modulo INC_LIMIT + 1
    KIND_IMAX,     // c8, c4-int: an integer maximum
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

// The integer update i brings to c8's maximum (and c4-int's): 17 bits of the hash, in
// [-65536, 65536).
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

#include "counters-grid.cuh"
#include "c00-racy.cuh"
#include "c00a-global.cuh"
#include "c01-atomic.cuh"
#include "c02-casint.cuh"
#include "c03-casfloat.cuh"
#include "fill-counters.cuh"
#include "c04-casmax.cuh"
#include "c04x-int.cuh"
#include "c05-aggregated.cuh"
#include "c06-sub.cuh"
#include "c07-inc.cuh"
#include "c08-max.cuh"
#include "c09-bitwise.cuh"
#include "c10-tickets.cuh"
#include "c11-exchange.cuh"

// ---- the counters' version table ----------------------------------------------------------------

static const version counter_versions[] = {
    {"c0", "racy", launch_c0, KL_UNCHECKED},
    {"c0a", "global", launch_c0a, KL_UNCHECKED},
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
    // experiments on c4: its loop on c8's integer keys, so that c4-int -> c8 is the hardware's max
    {"c4-int", "intkeys", launch_c4_int, 0},
};
#define COUNTER_COUNT (int)(sizeof counter_versions / sizeof counter_versions[0])
// What a counter version computes (the KIND_ list), told by the tag, not by the launch, so a
// check needs no launch (--verify).
static int counter_kind_of(const char *tag) {
    static const struct { const char *tag; int kind; } kinds[] = {
        {"c3", KIND_SUM},  {"c4", KIND_MAX},  {"c6", KIND_DOWN},     {"c7", KIND_WRAP},
        {"c8", KIND_IMAX}, {"c9", KIND_BITS}, {"c10", KIND_TICKETS}, {"c11", KIND_CHAIN},
        {"c4-int", KIND_IMAX},
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

#include "histogram-grid.cuh"

// ---- baseline: CUB ------------------------------------------------------------------------------

// CUB's device-wide histogram, 257 levels 0, 1, ..., 256 so that bin b holds the value b. It
// clears the bins itself. Its scratch space was sized and allocated before any timing.
static void launch_cub(void *problem) {
    histogram_problem *p = (histogram_problem *)problem;
    CHECK(cub::DeviceHistogram::HistogramEven(p->cub_temp, p->cub_temp_bytes, p->data, p->bins,
                                              BINS + 1, 0, BINS, (int)p->n));
}

#include "v00-global.cuh"
#include "merge-bins.cuh"
#include "v01-privatized.cuh"
#include "count-word.cuh"
#include "v01a-vectorized.cuh"
#include "v02-warps.cuh"
#include "banked-bins.cuh"
#include "v03-banked.cuh"
#include "v04-unrolled.cuh"

// ---- the histogram's version table --------------------------------------------------------------

static const version histogram_versions[] = {
    {"cub", "cub", launch_cub, KL_BASELINE},
    {"v0", "global", launch_v0, 0},
    {"v1", "privatized", launch_v1, 0},
    {"v1a", "vectorized", launch_v1a, 0},
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
    // the baseline's library, for the .env.csv: CUB_VERSION is 100000 major + 100 minor + patch
    snprintf(env.library, sizeof env.library, "CUB %d.%d.%d", CUB_VERSION / 100000,
             CUB_VERSION / 100 % 1000, CUB_VERSION % 100);
    bench_header(&o, &env);
    int rc = KL_EXIT_OK;
    if (run_c) rc |= run_counters(&o, &env, counters_sel);
    if (run_h) rc |= run_histogram(&o, &env, histogram_sel);
    return rc ? KL_EXIT_WRONG : KL_EXIT_OK;
}
