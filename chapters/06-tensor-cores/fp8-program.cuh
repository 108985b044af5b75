// ---- FP8: the program tensor-cores-fp8, the chapter's Hopper kernel on E4M3 (v9 on) -------------
// tensor-cores.cu built with -DTC_FP8 is this program: C = s_a s_b A B^T with A (m x k) and B
// (n x k) in FP8 E4M3, per-tensor FP32 scales s_a and s_b (a value of A is s_a times its E4M3
// code's value) and C (m x n) in FP32. The same product as the BF16 program, at the tensor
// cores' FP8 rate (twice BF16's on paper) and half the bytes, and a new question: how precisely
// the tensor cores add FP8 products up, since their accumulators keep fewer bits than FP32.
//
//   cublaslt    (baseline) cuBLASLt's FP8 GEMM: E4M3 in, the scales' product as its alpha,
//               FP32 accumulate and out: the target
//   cublaslt-fast  (baseline) the same with fast accumulation (CUBLASLT_MATMUL_DESC_FAST_ACCUM):
//               the tensor cores keep the whole sum, as f0 does; f0's like-for-like baseline
//   peak        (baseline) back-to-back E4M3 wgmma from shared memory, no loads: the tensor
//               cores' FP8 ceiling as this GPU sustains it (not a result)
//   f0 e4m3        v9's kernel on E4M3 tiles: 128 values of k a stage, wgmma of k = 32, the
//                  whole sum in the wgmma accumulators, the scales applied as C is stored
//   f1 promoted    every 128 values of k the accumulators are added into FP32 sums with
//                  ordinary adds: the precision FP8's accumulators lack, for registers and adds
//   f2 wide        f1 on a 128 x 192 tile: 96 accumulators and 96 FP32 sums a thread fit the
//                  232 registers a consumer has, where 128 x 256 would need 256
//   f3 multicast   f2 in clusters of two blocks on pairs of tiles, each block copying half of
//                  the pair's B for both (TMA multicast, v11's step): 28 KB from L2 a stage, not 40
//   f4 rounds      f3's kernel on a 128 x 176 tile, whose count fills its last round of
//                  tiles at 4096^3 (768 tiles, 5.8 rounds of 132, where 128 x 192 makes 5 1/3)
//   f5 fit         f4's kernel on a 128 x 208 tile: more columns for a stage's bytes, and
//                  tiles that fit 4096 (20 columns of them, the last 144/208 full; 4.85 rounds)
//   f6 unpaired    f5's tile without the clusters (f2's kernel): no stage waits for two blocks
//   f0-narrow      an experiment: f0 on f1's 128 x 128 tile, to measure promotion apart from
//                  the narrower tile it needs
//   f2-split       an experiment: f2 with its last round of tiles split along k, so that no
//                  block idles through it: each piece's sums to memory, the last piece's block
//                  adds them (no faster than f2 at 4096^3, slower where k is short: README)
//   f2-tmastore    an experiment: f2 storing C through shared memory and TMA, as v10 (slower)
//   f3-narrow      an experiment: f3's kernel on f1's 128 x 128 tile, whose rounds at 4096^3
//                  are nearly full where f2's and f3's are not
//   f3-twosets     an experiment: f3-narrow with two sets of accumulators taking turns by
//                  stage, the tensor cores running one stage while the other is added up
//
// Build and run:   make build/tensor-cores-fp8 && build/tensor-cores-fp8       (8192 x 8192 x 8192)
//                  build/tensor-cores-fp8 -m 4096 -n 4096 -k 16384 -v f0,f1  (the error at large k)
//                  build/tensor-cores-fp8 -m 4095 -n 4097 -k 4093 --input int
//                  build/tensor-cores-fp8 --list | --help | --check-only | --self-test
// Everything but cublaslt needs Hopper (compute capability 9.0) and a build for sm_90a, which
// the Makefile makes when it builds for sm_90; cuBLASLt's FP8 needs compute capability 8.9.
// (The file is one section, headed "(v9 on)", so that a classroom kit of an earlier version
// leaves it out whole; its parts are headed "// --".)
#include <cublasLt.h>
#include <cuda.h>  // CUtensorMap; the driver's encoder is looked up at run time, not linked
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "gpu.h"
#include "npy.h"
#include "progress.h"
#include "rng.h"

typedef __nv_bfloat16 bf16;      // grid.cuh's BF16 piece loader names it; this program has none
typedef __nv_fp8_storage_t fp8;  // the 8 bits of an E4M3 value

// 8192^3: 1.1 TFLOP, as in the BF16 program; A and B are 64 MiB each in E4M3 and C 256 MiB in
// FP32, all past the 50 MiB L2 of an H100 (60 MiB on an H200).
#define DEFAULT_M 8192
#define DEFAULT_N 8192
#define DEFAULT_K 8192
// 20 timed launches give a stable median; 3 warm-up launches take module loading, cuBLASLt's
// first call and our one-time tensor maps out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42
// The scales: powers of two, so that multiplying by them is exact (an exact sum stays exact,
// --input int) and a version that forgets them is off by a factor of 8, which no bound allows.
#define SCALE_A 0.5f
#define SCALE_B 0.25f
// Up to 2^31 multiply-adds and 2^24 results the CPU computes the whole reference (with the
// error bounds below, a few seconds on a few threads); beyond that, every result of 12 rows
// and 12 columns of C, spread over it, and a Freivalds product of the whole.
#define REF_MAX_MACS (1ull << 31)
#define REF_MAX_RESULTS (1ull << 24)
#define SAMPLE_LINES 12

// --input: random, uniform in [-448, 448] (E4M3's whole range) then rounded to E4M3; or int,
// whole numbers in [-2, 2], exact in E4M3, whose sums are exact where the arithmetic keeps
// enough bits (exact_for below).
static const char *const inputs[] = {"random", "int", NULL};

// What a version needs, and how it adds up k, in the version table's flags.
enum {
    NEEDS_FP8 = 1u << 8,       // FP8 tensor cores (cuBLASLt): compute capability 8.9 or later
    NEEDS_SM90A = 1u << 9,     // wgmma and TMA: Hopper, and a build for sm_90a
    PROMOTED = 1u << 10,       // sums in FP32 every PROMOTE_K values of k (else the whole sum
                               // in the wgmma accumulators: checked against the wider bound)
};

// -- E4M3 -----------------------------------------------------------------------------------------
// One sign bit, 4 bits of exponent (bias 7) and 3 of fraction: 1.xxx * 2^(e - 7) for e in 1..15,
// 0.xxx * 2^-6 for e = 0 (the subnormals, down to 2^-9), and no infinity: S.1111.111 is NaN,
// which frees S.1111.110 = 448 as the largest value. 4 significant bits: neighbours differ by
// 1/8 to 1/16 of their size.
static float e4m3_value(fp8 bits) {
    int sign = bits >> 7, e = (bits >> 3) & 15, f = bits & 7;
    if (e == 15 && f == 7) return NAN;
    float v = e == 0 ? ldexpf((float)f, -9) : ldexpf((float)(8 + f), e - 10);
    return sign ? -v : v;
}

// The nearest E4M3 to x, ties to even, beyond 448 saturated to 448 (cuda_fp8.h's conversion).
static fp8 e4m3_bits(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }

static const fp8 E4M3_NAN = 0x7F;  // the padding past k: a version that reads it cannot pass

// One way of calling cuBLASLt: its operation (with or without fast accumulation), the algorithm
// that ran in the trial call, and why it cannot run here ("" when it can).
typedef struct {
    cublasLtMatmulDesc_t op;
    cublasLtMatmulAlgo_t algo;
    char why[400];
} lt_plan;

// The problem every version sees. A and B are stored with rows of ld = k rounded up to 16 bytes
// (TMA and cuBLASLt need rows that start on 16 bytes); the ld - k bytes past k hold NaN.
typedef struct {
    size_t m, n, k, ld;
    const fp8 *a, *b;            // A: m rows of ld, B: n rows of ld, on the device
    float *c;                    // C: m x n
    float sa, sb, scale;         // and on the host; scale = s_a s_b, what our epilogues multiply by
    fp8 *host_a, *host_b;
    float *host_c;
    float *fa, *fb;              // A (m x k) and B (n x k) as floats, without padding: the CPU's
    bool ints;
    // The checked results: every result of rows[0 .. rows_n) and of columns cols[0 .. cols_n)
    // (all rows, no columns, when the whole reference is made). For each: the exact sum (double,
    // unscaled), the sum of |products|, and the two bounds on the error of the arithmetic
    // (tc_bound, promoted_bound: reference_element), unscaled, rows' results first.
    size_t rows_n, cols_n, *rows, *cols;
    double *want, *abs_sum, *tc_bound, *promoted_bound;
    // Large problems also get Freivalds: y = A (B^T x), y_abs = |A| (|B|^T |x|) for random signs x.
    double *x, *y, *y_abs;
    double err;                  // the last check's max |C - want| / (s_a s_b sum |a b|)
    double tc_most, promoted_most;  // the widest bounds, in the same units
    int cc, sms;                 // compute capability as 90, and SMs
    bool sm90a;                  // this build has sm_90a code for this GPU
    bool maps_made;              // the tensor maps below, made at the first launch that needs them
    CUtensorMap map_a;           // A: boxes of 128 rows; B: boxes of 64 to 256 rows, by tile
    CUtensorMap map_b64, map_b88, map_b96, map_b104, map_b128, map_b192, map_b208, map_b256;
    float *peak_sink;            // where the peak kernel leaves a value, so it is not removed
    float *pieces;               // f2-split: its pieces' FP32 sums, a tile's worth an SM
    unsigned *pieces_done;       // f2-split: the pieces of each split tile done, a counter an SM
    // cuBLASLt: its handle, the product's layouts, and two plans (lt_plan): [0] for cublaslt, its
    // default mode, [1] for cublaslt-fast, fast accumulation
    cublasLtHandle_t lt;
    cublasLtMatrixLayout_t lay_a, lay_b, lay_c, lay_d;
    lt_plan plan[2];
    void *workspace;
    size_t workspace_bytes;
} fp8_problem;

// -- the CPU reference and the bounds of the arithmetic -------------------------------------------
// Hopper's tensor cores do not add FP8 products in FP32: they keep about 14 significant bits
// (the DeepSeek-V3 report measured this; others describe an accumulator of 13 fraction bits,
// "FP22", that truncates). We bound the error from that model, along each result's actual
// partial sums. The model: a k = 32 wgmma adds its 32 exact products (two E4M3 multiply to at
// most 8 significant bits, exact in any format) to the accumulator by aligning every term to the
// unit of the 13th fraction bit of the largest of them, cutting off what lies below (each term
// loses less than that unit, and never more than itself), then cuts the result to 13 fraction
// bits. If the hardware kept fewer bits, the GPU run would fail the bounds: that is what we want
// it to tell us.
//   The bound has two parts. What the accumulator and the result lose is bounded in the worst
// case, step by step ("fixed"). What each product loses is less than the unit, but the worst
// case, a whole unit every product in the same direction, would be a bound k times the unit,
// wider than the results themselves at large k (worst_tc below) and useless for finding a wrong
// kernel. Our inputs have random signs, independent of their magnitudes, so each product's loss
// is as likely one sign as the other, whatever came before: the losses are a martingale, and
// Azuma's inequality bounds their sum by Z sqrt(sum of unit^2) but with probability at most
// 2 exp(-Z^2 / 2): 2.5e-14 a result at Z = 8, far below one false alarm in 10^8 results.
constexpr int TC_FRACTION_BITS = 13;
constexpr int TC_GROUP = 32;  // products a wgmma adds to the accumulator at once: its k
constexpr double AZUMA_Z = 8.0;
// f1 adds the accumulators into FP32 every PROMOTE_K values of k: one stage, 4 wgmma (the
// DeepSeek-V3 report promotes every 128 too). The accumulators' losses grow with the size of
// what they hold; a run of 128 holds about sqrt(128 / k) of a whole sum's size, and the FP32
// adds of the runs lose almost nothing. Longer runs mean fewer waits and adds and a larger
// error; shorter, the reverse. // TRY: 256 or 512 (a multiple of 128): err_vs_abs and the time.
constexpr int PROMOTE_K = 128;

typedef struct {
    double want, abs;      // sum a_l b_l exactly, and sum |a_l b_l|
    double tc, promoted;   // bounds on |computed - want|: all of k in the accumulators / promoted
} element_ref;

// A run of the model: the exact partial sum, the worst-case ("fixed") part of the error so far
// and the sum of the squared units of the products' losses (Azuma's part).
typedef struct {
    double sum, fixed, var;
} tc_run;

static double tc_bound_of(const tc_run *r) { return r->fixed + AZUMA_Z * sqrt(r->var); }

// Adds the products p[0 .. count) to the run, TC_GROUP at a time, as the model says.
static void tc_add(const double *p, size_t count, tc_run *r) {
    const double u = ldexp(1.0, -TC_FRACTION_BITS);
    for (size_t g = 0; g < count; g += TC_GROUP) {
        size_t end = g + TC_GROUP < count ? g + TC_GROUP : count;
        double held = fabs(r->sum) + tc_bound_of(r);  // at most what the accumulator holds
        double big = held;                            // the largest magnitude of the terms
        for (size_t l = g; l < end; l++) big = fmax(big, fabs(p[l]));
        double unit = big * u;
        r->fixed += fmin(held, unit);  // the accumulator aligned to the unit
        for (size_t l = g; l < end; l++) {
            double loss = fmin(fabs(p[l]), unit);
            r->var += loss * loss, r->sum += p[l];
        }
        r->fixed += (fabs(r->sum) + tc_bound_of(r)) * u;  // the result cut to 13 fraction bits
    }
}

// One result: row a of A times row b of B (k values each), with `scratch` room for k products.
// The sum in double is exact: the products are multiples of 2^-18 below 2^18, so up to 2^16 of
// them fit double's 53 bits. Both bounds end with the epilogue: the scales' product and the
// multiply by it, two FP32 roundings of 2^-24 each.
static element_ref reference_element(const float *a, const float *b, size_t k, double *scratch) {
    element_ref r = {0.0, 0.0, 0.0, 0.0};
    for (size_t l = 0; l < k; l++) {
        scratch[l] = (double)a[l] * (double)b[l];
        r.want += scratch[l], r.abs += fabs(scratch[l]);
    }
    const double u32 = ldexp(1.0, -24);
    tc_run all = {0.0, 0.0, 0.0};
    tc_add(scratch, k, &all);  // all of k in the accumulators, 32 at a time
    r.tc = tc_bound_of(&all) + (fabs(all.sum) + tc_bound_of(&all)) * 2 * u32;
    // promoted: runs of PROMOTE_K, each from a zero accumulator, added in FP32 (round to
    // nearest: 2^-24 of the new total each); the runs' product losses are one martingale still
    tc_run total = {0.0, 0.0, 0.0};
    for (size_t l = 0; l < k; l += PROMOTE_K) {
        tc_run run = {0.0, 0.0, 0.0};
        tc_add(scratch + l, k - l < PROMOTE_K ? k - l : PROMOTE_K, &run);
        total.sum += run.sum, total.fixed += run.fixed, total.var += run.var;
        total.fixed += (fabs(total.sum) + tc_bound_of(&total)) * u32;
    }
    r.promoted = tc_bound_of(&total) + (fabs(total.sum) + tc_bound_of(&total)) * 2 * u32;
    return r;
}

// Whether integer inputs in [-2, 2] make every partial sum exact: a product is in [-4, 4], so a
// sum of j products is a whole number of at most 4 j. The accumulators hold whole numbers below
// 2^14 exactly (14 significant bits), FP32 below 2^24. Promoted, the accumulators see at most
// PROMOTE_K products (4 * 128 = 512) and FP32 the whole sum.
static bool exact_for(size_t k, bool promoted) {
    return promoted ? 4.0 * (double)k <= 16777216.0 : 4.0 * (double)k < 16384.0;
}

// The worst case of the bounds above over every input, as a fraction of sum |a b|: the largest
// term of a group is at most the sum of |products| so far, so each product may lose that times
// 2^-13. They are for the Freivalds check, which cannot follow each result's partial sums: at
// k = 8192 the unpromoted one exceeds 1 (no check at all but for NaN and gross errors), which is
// why the large problems also check sampled rows and columns against reference_element.
static double worst_tc(size_t k) {
    double groups = ceil((double)k / TC_GROUP);
    return ((double)k + 3 * groups) * ldexp(1.0, -TC_FRACTION_BITS) + 3 * ldexp(1.0, -24);
}
static double worst_promoted(size_t k) {
    double runs = ceil((double)k / PROMOTE_K);
    return worst_tc(PROMOTE_K) + (runs + 3) * ldexp(1.0, -24);
}

// The results to check: every row of C when the whole reference is affordable, else
// SAMPLE_LINES rows and SAMPLE_LINES columns spread evenly from the first to the last (so that
// the last, partial tile is among them), each at its own place inside the tiles.
static void pick_lines(size_t count, size_t want, size_t **out, size_t *n) {
    *n = want < count ? want : count;
    *out = (size_t *)host_alloc(*n * sizeof(size_t), "the checked lines");
    for (size_t q = 0; q < *n; q++)
        (*out)[q] = *n == 1 ? 0 : (size_t)((double)q * (double)(count - 1) / (double)(*n - 1) + 0.5);
}

// The reference for every checked result, on several threads (the lines are independent).
typedef struct {
    fp8_problem *p;
    size_t next;                // the next line to take, under the lock
    pthread_mutex_t lock;
    progress *pr;
} ref_work;

static void reference_line(fp8_problem *p, size_t q, double *scratch) {
    size_t n = p->n, m = p->m, k = p->k;
    bool is_row = q < p->rows_n;
    size_t fixed = is_row ? p->rows[q] : p->cols[q - p->rows_n];
    size_t len = is_row ? n : m, base = is_row ? q * n : p->rows_n * n + (q - p->rows_n) * m;
    for (size_t t = 0; t < len; t++) {
        size_t i = is_row ? fixed : t, j = is_row ? t : fixed;
        element_ref r = reference_element(p->fa + i * k, p->fb + j * k, k, scratch);
        p->want[base + t] = r.want, p->abs_sum[base + t] = r.abs;
        p->tc_bound[base + t] = r.tc, p->promoted_bound[base + t] = r.promoted;
    }
}

static void *reference_worker(void *arg) {
    ref_work *w = (ref_work *)arg;
    double *scratch = (double *)host_alloc(size_mul(w->p->k, sizeof(double)), "the products");
    size_t lines = w->p->rows_n + w->p->cols_n;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        size_t q = w->next++;
        if (q < lines) progress_update(w->pr, (double)q);
        pthread_mutex_unlock(&w->lock);
        if (q >= lines) break;
        reference_line(w->p, q, scratch);
    }
    free(scratch);
    return NULL;
}

static void reference_all(fp8_problem *p) {
    size_t lines = p->rows_n + p->cols_n, results = p->rows_n * p->n + p->cols_n * p->m;
    p->want = (double *)host_alloc(size_mul(results, 4 * sizeof(double)), "the reference");
    p->abs_sum = p->want + results, p->tc_bound = p->abs_sum + results;
    p->promoted_bound = p->tc_bound + results;
    progress pr;
    progress_begin(&pr, "the CPU reference", (double)lines);
    ref_work w = {p, 0, PTHREAD_MUTEX_INITIALIZER, &pr};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = (int)(cpus < 1 ? 1 : cpus > 32 ? 32 : cpus);
    pthread_t id[32];
    for (int t = 0; t < threads; t++) pthread_create(&id[t], NULL, reference_worker, &w);
    for (int t = 0; t < threads; t++) pthread_join(id[t], NULL);
    progress_end(&pr);
}

#include "freivalds.cuh"
#include "grid.cuh"
#include "ptx.cuh"
#include "ptx-fp8.cuh"
#include "hopper-ring.cuh"
#include "fp8-tiles.cuh"
#include "tma-store.cuh"
#include "cluster-pairs.cuh"

// The tensor maps of A (boxes of 128 x 128) and B (boxes of 128 values of k and 64, 88, 96, 104,
// 128, 192, 208 or 256 rows: f3's, f4's and f5's blocks copy half a tile of B), made at the first
// launch that needs them.
static void make_maps_fp8(fp8_problem *p) {
    if (p->maps_made) return;
    make_map_fp8(&p->map_a, p->a, p->m, p->k, p->ld, 128);
    make_map_fp8(&p->map_b64, p->b, p->n, p->k, p->ld, 64);
    make_map_fp8(&p->map_b88, p->b, p->n, p->k, p->ld, 88);
    make_map_fp8(&p->map_b96, p->b, p->n, p->k, p->ld, 96);
    make_map_fp8(&p->map_b104, p->b, p->n, p->k, p->ld, 104);
    make_map_fp8(&p->map_b128, p->b, p->n, p->k, p->ld, 128);
    make_map_fp8(&p->map_b192, p->b, p->n, p->k, p->ld, 192);
    make_map_fp8(&p->map_b208, p->b, p->n, p->k, p->ld, 208);
    make_map_fp8(&p->map_b256, p->b, p->n, p->k, p->ld, 256);
    p->maps_made = true;
}

// -- baselines ------------------------------------------------------------------------------------

#define CHECK_CUBLAS(call) check_cublas((call), #call, __FILE__, __LINE__)

static void check_cublas(cublasStatus_t s, const char *call, const char *file, int line) {
    if (s == CUBLAS_STATUS_SUCCESS) return;
    fprintf(stderr, "cuBLASLt error: %s at %s:%d: %s\n", call, file, line, cublasLtGetStatusString(s));
    exit(KL_EXIT_GPU);
}

// cuBLASLt is column-major, as cuBLAS: our row-major C (m x n) is its n x m matrix C^T = B A^T,
// B's bytes being its k x n matrix, transposed (OP_T), A's its k x m matrix (OP_N): the "TN"
// product, the one layout its FP8 kernels take (both operands K-major, as FP8 wgmma needs too).
// Output D: FP32, in place of C, the addend, which beta = 0 leaves unread.
//
// The scales. Per-tensor scales are one number for the whole product, s_a s_b, and cuBLASLt
// multiplies its sums by alpha: alpha = s_a s_b is the scaling, the same multiply our epilogues
// do. cuBLASLt also takes each scale through a device pointer (CUBLASLT_MATMUL_DESC_A_SCALE_
// POINTER); with those set, cuBLAS 13.1 on H100s refused every algorithm its heuristic offered
// for FP32 C and D (NOT_SUPPORTED, 8 of 8 at 4096^3), and ran all 8 without them (a probe on
// four H100s, README). So alpha carries them.
// The heuristic's offers get a trial call each, outside any timing, before the table; the first
// that runs is timed. A shape with none that runs leaves cublaslt skipped, with the reason and
// cuBLASLt's own account of it (its log, level 1; CUBLASLT_LOG_LEVEL=5 shows all of it).
static char lt_error[160];
static void keep_lt_error(int level, const char *function, const char *message) {
    if (level == 1) snprintf(lt_error, sizeof lt_error, "%s: %s", function, message);
}

static cublasStatus_t lt_matmul(fp8_problem *p, const lt_plan *plan, const cublasLtMatmulAlgo_t *algo) {
    const float alpha = p->scale, zero = 0.0f;  // scale = s_a s_b
    return cublasLtMatmul(p->lt, plan->op, &alpha, p->b, p->lay_a, p->a, p->lay_b, &zero, p->c,
                          p->lay_c, p->c, p->lay_d, algo, p->workspace, p->workspace_bytes, 0);
}

// One trial call of `algo`, outside any timing: its status (cuBLASLt's first error in lt_error
// while we listen, unless the user asked for its log).
static cublasStatus_t lt_trial(fp8_problem *p, const lt_plan *plan,
                               const cublasLtMatmulAlgo_t *algo) {
    bool listen = !getenv("CUBLASLT_LOG_LEVEL") && !getenv("CUBLASLT_LOG_MASK");
    if (listen) CHECK_CUBLAS(cublasLtLoggerSetCallback(keep_lt_error)),
                CHECK_CUBLAS(cublasLtLoggerSetMask(1));
    cublasStatus_t s = lt_matmul(p, plan, algo);
    if (listen) CHECK_CUBLAS(cublasLtLoggerSetMask(0)),
                CHECK_CUBLAS(cublasLtLoggerSetCallback(NULL));
    CHECK(cudaDeviceSynchronize());
    return s;
}

// A plan: the operation, then the heuristic's offers (up to OFFERS, best first), each tried once;
// the first that runs is the one timed. fast: CUBLASLT_MATMUL_DESC_FAST_ACCUM, which lets the
// tensor cores keep the whole sum, as f0 does (without it cuBLASLt promotes, as f1 does).
static void plan_cublaslt(fp8_problem *p, lt_plan *plan, bool fast,
                          cublasLtMatmulPreference_t pref) {
    const char *tag = fast ? "cublaslt-fast" : "cublaslt";
    CHECK_CUBLAS(cublasLtMatmulDescCreate(&plan->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    int8_t fast_accum = fast ? 1 : 0;
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                                                &fast_accum, sizeof fast_accum));
    constexpr int OFFERS = 16;
    cublasLtMatmulHeuristicResult_t found[OFFERS];
    int count = 0, ran = -1;
    lt_error[0] = 0;
    cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(p->lt, plan->op, p->lay_a, p->lay_b,
                                                      p->lay_c, p->lay_d, pref, OFFERS, found,
                                                      &count);
    cublasStatus_t refused = CUBLAS_STATUS_SUCCESS;
    for (int i = 0; s == CUBLAS_STATUS_SUCCESS && i < count && ran < 0; i++) {
        cublasStatus_t t = lt_trial(p, plan, &found[i].algo);
        if (t == CUBLAS_STATUS_SUCCESS) ran = i, plan->algo = found[i].algo;
        else refused = t;
    }
    if (s != CUBLAS_STATUS_SUCCESS || count == 0)
        snprintf(plan->why, sizeof plan->why, "cuBLASLt has no FP8 (E4M3, FP32 out) algorithm for "
                 "%zu x %zu x %zu: %s", p->m, p->n, p->k,
                 s != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusString(s) : "none found");
    else if (ran < 0)
        snprintf(plan->why, sizeof plan->why, "cuBLASLt refused all %d FP8 algorithms its "
                 "heuristic offered for %zu x %zu x %zu (%s)%s%s", count, p->m, p->n, p->k,
                 cublasLtGetStatusString(refused), lt_error[0] ? "; its log: " : "", lt_error);
    else if (ran > 0)
        printf("%s: the heuristic's offer %d of %d, the first that ran\n", tag, ran + 1, count);
}

static void setup_cublaslt(fp8_problem *p) {
    CHECK_CUBLAS(cublasLtCreate(&p->lt));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&p->lay_a, CUDA_R_8F_E4M3, p->k, p->n, (int64_t)p->ld));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&p->lay_b, CUDA_R_8F_E4M3, p->k, p->m, (int64_t)p->ld));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&p->lay_c, CUDA_R_32F, p->n, p->m, (int64_t)p->n));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&p->lay_d, CUDA_R_32F, p->n, p->m, (int64_t)p->n));
    // 32 MiB of workspace, what cuBLAS's documentation suggests for Hopper
    p->workspace_bytes = 32u << 20;
    p->workspace = gpu_alloc(p->workspace_bytes, "cuBLASLt's workspace");
    cublasLtMatmulPreference_t pref;
    CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &p->workspace_bytes, sizeof p->workspace_bytes));
    plan_cublaslt(p, &p->plan[0], false, pref);
    plan_cublaslt(p, &p->plan[1], true, pref);
    CHECK_CUBLAS(cublasLtMatmulPreferenceDestroy(pref));
}

static void launch_cublaslt(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    CHECK_CUBLAS(lt_matmul(p, &p->plan[0], &p->plan[0].algo));
}

static void launch_cublaslt_fast(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    CHECK_CUBLAS(lt_matmul(p, &p->plan[1], &p->plan[1].algo));
}

// -- peak: the FP8 tensor cores' ceiling ----------------------------------------------------------
// As the BF16 program's peak: blocks of two warpgroups issue 64 x 256 x 32 E4M3 wgmma back to
// back on one pair of tiles in shared memory, as many as the product needs (2 m n k operations,
// in whole batches of 8), two blocks an SM in the grid, one resident at a time.

constexpr int PEAK_BLOCKS_PER_SM = 2;
constexpr int PEAK_BATCH = 8;                                  // wgmma a commit group
constexpr double PEAK_OPS = 2.0 * 64 * 256 * 32 * PEAK_BATCH;  // operations in one batch

__global__ __launch_bounds__(2 * WG) void tc_peak_fp8(float *sink, unsigned long long batches) {
#ifdef KL_SM90A
    __shared__ alignas(1024) fp8 tile[(64 + 256) * FP8_BK];  // A's 64 rows, then B's 256: 40 KB
    // small non-zero values (a product of zeros runs faster than real data): -3/8 .. 3/8
    for (int i = threadIdx.x; i < (64 + 256) * FP8_BK; i += blockDim.x)
        tile[i] = __nv_cvt_float_to_fp8((float)(i % 7 - 3) * 0.125f, __NV_SATFINITE, __NV_E4M3);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // ordinary stores, read by wgmma
    __syncthreads();
    // the same count for both warpgroups of a block (see the BF16 program's peak)
    unsigned long long mine = batches / gridDim.x + (blockIdx.x < batches % gridDim.x);
    uint64_t da = smem_desc(tile), db = smem_desc(tile + 64 * FP8_BK);
    float acc[128] = {};
    fence_registers(acc);  // the zeros are in place before any wgmma
    wgmma_fence();
    // batches of 8 (two stages' worth of k), at most two batches in the queue
    for (unsigned long long i = 0; i < mine; i++) {
#pragma unroll
        for (int j = 0; j < PEAK_BATCH; j++)
            wgmma_64x256x32_e4m3(acc, da + 2 * (j % 4), db + 2 * (j % 4), 1);
        wgmma_commit();
        wgmma_wait<1>();
    }
    wgmma_wait<0>();
    fence_registers(acc);
    if (threadIdx.x % WG == 0) sink[2 * blockIdx.x + threadIdx.x / WG] = acc[0];
#endif
}

static void launch_peak(void *problem) {
    fp8_problem *p = (fp8_problem *)problem;
    double ops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    unsigned long long batches = (unsigned long long)ceil(ops / (2 * PEAK_OPS));  // 2 a block
    tc_peak_fp8<<<PEAK_BLOCKS_PER_SM * p->sms, 2 * WG>>>(p->peak_sink, batches);
    p->err = NAN;  // nothing checked: no error for the CSV's err_vs_abs (not the last check's)
}

#include "f00-e4m3.cuh"
#include "f00x-narrow.cuh"
#include "f01-promoted.cuh"
#include "f02-wide.cuh"
#include "f03-multicast.cuh"
#include "f04-rounds.cuh"
#include "f05-fit.cuh"
#include "f06-unpaired.cuh"
#include "f02x-split.cuh"
#include "f02x-tmastore.cuh"
#include "f03x-narrow.cuh"
#include "f03x-twosets.cuh"

// -- the version table (FP8) ----------------------------------------------------------------------

static const version versions[] = {
    {"cublaslt", "cublaslt-fp8", launch_cublaslt, KL_BASELINE | NEEDS_FP8},
    {"cublaslt-fast", "fast-accum", launch_cublaslt_fast, KL_BASELINE | NEEDS_FP8},
    {"peak", "e4m3-peak", launch_peak, KL_BASELINE | KL_UNCHECKED | NEEDS_SM90A},
    // the ladder
    {"f0", "e4m3", launch_f0, NEEDS_SM90A},
    {"f1", "promoted", launch_f1, NEEDS_SM90A | PROMOTED},
    {"f2", "wide", launch_f2, NEEDS_SM90A | PROMOTED},
    {"f3", "multicast", launch_f3, NEEDS_SM90A | PROMOTED},
    {"f4", "rounds", launch_f4, NEEDS_SM90A | PROMOTED},
    {"f5", "fit", launch_f5, NEEDS_SM90A | PROMOTED},
    {"f6", "unpaired", launch_f6, NEEDS_SM90A | PROMOTED},
    // experiments on f0: its kernel on f1's tile
    {"f0-narrow", "narrow", launch_f0_narrow, NEEDS_SM90A},
    // experiments on f2: its last round of tiles split along k
    {"f2-split", "split", launch_f2_split, NEEDS_SM90A | PROMOTED},
    // experiments on f2: its results stored through shared memory by TMA, as v10's
    {"f2-tmastore", "tmastore", launch_f2_tmastore, NEEDS_SM90A | PROMOTED},
    // experiments on f3: its kernel on f1's 128 x 128 tile
    {"f3-narrow", "narrow-pairs", launch_f3_narrow, NEEDS_SM90A | PROMOTED},
    // experiments on f3: f3-narrow with two sets of accumulators taking turns by stage
    {"f3-twosets", "two-sets", launch_f3_twosets, NEEDS_SM90A | PROMOTED},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

#include "sm90a-probe.cuh"

// A version that needs what this GPU or this build lacks is skipped with one line saying what.
static const char *tc_skip(void *problem, const version *v) {
    const fp8_problem *p = (const fp8_problem *)problem;
    static char why[200];
    if ((v->flags & NEEDS_FP8) && p->cc < 89) {
        snprintf(why, sizeof why, "needs FP8 tensor cores (compute capability 8.9); this GPU is "
                 "%d.%d", p->cc / 10, p->cc % 10);
        return why;
    }
    if (strcmp(v->tag, "cublaslt") == 0 && p->plan[0].why[0]) return p->plan[0].why;
    if (strcmp(v->tag, "cublaslt-fast") == 0 && p->plan[1].why[0]) return p->plan[1].why;
    if ((v->flags & NEEDS_SM90A) && p->cc != 90) {
        snprintf(why, sizeof why, "needs FP8 wgmma and TMA (Hopper, compute capability 9.0); this "
                 "GPU is %d.%d", p->cc / 10, p->cc % 10);
        return why;
    }
    if ((v->flags & NEEDS_SM90A) && !p->sm90a)
        return "needs a build for sm_90a (wgmma, TMA): make ARCH=sm_90 builds this chapter for it";
    return NULL;
}

// -- checking and saving --------------------------------------------------------------------------

// Every checked result against its bound: the promoted one for the PROMOTED versions (f1-f6 and
// the experiments on them), the unpromoted (wider) one for f0, f0-narrow and cuBLASLt (where it
// promotes, and how often, is its own: it must at least meet the unpromoted bound, and its
// err_vs_abs shows what it does). Integer inputs need no bound
// where exact_for says the sums are exact: the results must then be exact.
static void tc_check(void *problem, const version *v, check_result *r) {
    fp8_problem *p = (fp8_problem *)problem;
    size_t m = p->m, n = p->n;
    CHECK(cudaMemcpy(p->host_c, p->c, size_mul(size_mul(m, n), sizeof(float)),
                     cudaMemcpyDeviceToHost));
    bool promoted = v->flags & PROMOTED, exact = p->ints && exact_for(p->k, promoted);
    const double *bound = promoted ? p->promoted_bound : p->tc_bound;
    double s = (double)p->sa * (double)p->sb;  // the exact scale: both are powers of two here
    p->err = 0.0;
    for (size_t q = 0; q < p->rows_n + p->cols_n; q++) {
        bool is_row = q < p->rows_n;
        size_t fixed = is_row ? p->rows[q] : p->cols[q - p->rows_n], len = is_row ? n : m;
        size_t base = is_row ? q * n : p->rows_n * n + (q - p->rows_n) * m;
        for (size_t t = 0; t < len; t++) {
            size_t i = is_row ? fixed : t, j = is_row ? t : fixed;
            double got = p->host_c[i * n + j], want = s * p->want[base + t];
            double tol = exact ? 0.0 : s * bound[base + t];
            check_result one;  // validate.c's comparison, this result's bound, its own message
            check_init(&one);
            one.printed = KL_MAX_PRINTED;  // quiet: the line below names the column too
            check_f64(&one, &got, &want, 1, 1, i, tol, 0.0);
            if (one.bad && r->printed < KL_MAX_PRINTED) {
                printf("    mismatch at (%zu, %zu): got %.9g, want %.9g, bound %.3g (%s)\n", i, j,
                       got, want, tol, exact ? "exact" : promoted ? "promoted" : "unpromoted");
                r->printed++;
            }
            r->count += one.count, r->bad += one.bad;
            r->max_abs = fmax(r->max_abs, one.max_abs), r->max_rel = fmax(r->max_rel, one.max_rel);
            if (p->abs_sum[base + t] > 0.0)
                p->err = fmax(p->err, fabs(got - want) / (s * p->abs_sum[base + t]));
            else if (got != 0.0 || isnan(got))
                p->err = INFINITY;
        }
    }
    if (r->bad)  // how far off: near the bounds (the model's bits?) or nowhere near (a bug)
        printf("    %s: %zu of %zu results outside their bounds; the largest |C - want| is %.3g "
               "of s_a s_b sum |a b| (bounds up to %.3g)\n", v->tag, r->bad, r->count, p->err,
               promoted ? p->promoted_most : p->tc_most);
    if (!p->x) return;
    // Large: every result through Freivalds. C x must match s_a s_b A (B^T x) within the worst
    // case of the bound, carried through |x| = 1, plus the double rounding of the two products.
    double worst = exact ? 0.0 : promoted ? worst_promoted(p->k) : worst_tc(p->k);
    double slack = ((double)p->k + (double)n + 4.0) * (DBL_EPSILON / 2);
    for (size_t i = 0; i < m; i++) {
        double cx = 0.0;
        for (size_t j = 0; j < n; j++) cx += (double)p->host_c[i * n + j] * p->x[j];
        double want = s * p->y[i];
        check_f64(r, &cx, &want, 1, 1, i, (worst + slack) * s * p->y_abs[i], 0.0);
    }
}

// The CSV's extra column: what the check found, max |C - want| / (s_a s_b sum |a b|) over the
// checked results: the error in the units the bounds are in, comparable across sizes.
static double fp8_err(void *problem, double) { return ((fp8_problem *)problem)->err; }

static void tc_save(void *problem, const char *dir, const char *tag) {
    fp8_problem *p = (fp8_problem *)problem;
    size_t shape[2] = {p->m, p->n};
    if (npy_save(dir, tag, "<f4", shape, 2, p->host_c) != 0) exit(KL_EXIT_USAGE);
}

// -- inputs ---------------------------------------------------------------------------------------

// "random": uniform in [-448, 448], rounded to the nearest E4M3. "int": whole numbers in [-2, 2].
// The floats the CPU uses are the E4M3 values exactly.
typedef struct {
    float *x;
    bool ints;
} fill_target;

static void put_input(void *ctx, size_t i, uint64_t bits) {
    fill_target *t = (fill_target *)ctx;
    float v = t->ints ? (float)((int)rng_bits_below(bits, 5) - 2)
                      : rng_bits_float(bits, -448.0f, 448.0f);
    t->x[i] = e4m3_value(e4m3_bits(v));
}

// rows x k values into x (floats, dense) and into xb as E4M3 with rows of ld, NaN in the padding.
static void fill(rng *g, float *x, fp8 *xb, size_t rows, size_t k, size_t ld, bool ints) {
    fill_target t = {x, ints};
    rng_fill(g, rows * k, put_input, &t);
    for (size_t i = 0; i < rows; i++) {
        for (size_t l = 0; l < k; l++) xb[i * ld + l] = e4m3_bits(x[i * k + l]);
        for (size_t l = k; l < ld; l++) xb[i * ld + l] = E4M3_NAN;
    }
}

// -- the self-test of the CPU side (no GPU) -------------------------------------------------------

static int report(const char *name, bool ok) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", name);
    return ok ? 0 : 1;
}

// The model of the tensor cores' sum, run: each group of TC_GROUP products and the accumulator
// cut to the unit of the 13th fraction bit of the largest (toward zero), then the result too.
// The bounds must hold for it; a wrong kernel's result must not meet them.
static double cut(double x, double unit) { return trunc(x / unit) * unit; }

static double model_sum(const double *p, size_t count, double acc) {
    for (size_t g = 0; g < count; g += TC_GROUP) {
        size_t end = g + TC_GROUP < count ? g + TC_GROUP : count;
        double big = fabs(acc);
        for (size_t l = g; l < end; l++) big = fmax(big, fabs(p[l]));
        if (big == 0.0) continue;
        double unit = ldexp(1.0, ilogb(big) - TC_FRACTION_BITS);
        double s = cut(acc, unit);
        for (size_t l = g; l < end; l++) s += cut(p[l], unit);
        acc = s == 0.0 ? 0.0 : cut(s, ldexp(1.0, ilogb(s) - TC_FRACTION_BITS));
    }
    return acc;
}

static int tc_self_test(void) {
    int failed = 0;
    // E4M3: every code against cuda_fp8.h's own conversion, and the format's landmarks
    bool codes = true;
    for (int c = 0; c < 256; c++) {
        float mine = e4m3_value((fp8)c);
        __half_raw h = __nv_cvt_fp8_to_halfraw((fp8)c, __NV_E4M3);
        float theirs = __half2float(__half(h));
        codes &= (isnan(mine) && isnan(theirs)) || mine == theirs;
    }
    failed += report("e4m3_value: all 256 codes as cuda_fp8.h decodes them", codes);
    failed += report("e4m3: 448 largest (0x7E), 2^-9 smallest (0x01), 1 = 0x38, 0x7F NaN",
                     e4m3_value(0x7E) == 448.0f && e4m3_value(0x01) == ldexpf(1.0f, -9) &&
                         e4m3_value(0x38) == 1.0f && isnan(e4m3_value(0x7F)) &&
                         e4m3_value(0xB8) == -1.0f);
    failed += report("e4m3_bits: to nearest, ties to even, saturating at 448",
                     e4m3_value(e4m3_bits(1.0f + 1.0f / 16)) == 1.0f &&
                         e4m3_value(e4m3_bits(1.0f + 3.0f / 16)) == 1.25f &&
                         e4m3_value(e4m3_bits(1.0f + 1.0f / 16 + 1e-3f)) == 1.125f &&
                         e4m3_value(e4m3_bits(1000.0f)) == 448.0f &&
                         e4m3_value(e4m3_bits(-1000.0f)) == -448.0f);
    // the reference against a hand-worked example: (1, 2, 3) . (7, -9, 11) = 22, |products| 58
    const float a[3] = {1, 2, 3}, b[3] = {7, -9, 11};
    double scratch[4096];
    element_ref r = reference_element(a, b, 3, scratch);
    failed += report("reference_element: 1*7 - 2*9 + 3*11 = 22, sum |a b| = 58",
                     r.want == 22.0 && r.abs == 58.0);
    // one run of PROMOTE_K or less: the two sums are the same but for promoted's FP32 add
    failed += report("reference_element: the bounds are positive, the same for one run of k",
                     r.tc > 0 && r.promoted > 0 && fabs(r.promoted - r.tc) <= ldexp(r.abs, -22));
    // inputs: E4M3 values, rows of ld, NaN past k
    {
        size_t rows = 5, k = 37, ld = round_up(k, 16);
        float x[5 * 37];
        fp8 xb[5 * 48];
        rng g;
        rng_init(&g, 3);
        fill(&g, x, xb, rows, k, ld, false);
        bool ok = true;
        for (size_t i = 0; i < rows; i++)
            for (size_t l = 0; l < ld; l++)
                ok &= l < k ? e4m3_value(xb[i * ld + l]) == x[i * k + l] && fabsf(x[i * k + l]) <= 448
                            : xb[i * ld + l] == E4M3_NAN;
        failed += report("fill: E4M3 values in rows of 48 bytes, NaN past k = 37", ok);
    }
    failed += report("exact_for: unpromoted below 4 k = 2^14, promoted up to 2^24",
                     exact_for(4095, false) && !exact_for(4096, false) && exact_for(1 << 22, true) &&
                         !exact_for((1 << 22) + 1, true));
    // The bounds against the model and against wrong results, at k = 4096 and 16384: random
    // E4M3 in [-448, 448] as the program makes them, and 64 results. The model's sums must
    // meet their bounds; each wrong result must miss the bound somewhere.
    const size_t ks[2] = {4096, 16384};
    for (int t = 0; t < 2; t++) {
        size_t k = ks[t], count = 64;
        float *x = (float *)host_alloc(2 * count * k * sizeof(float), "self-test");
        fp8 *xb = (fp8 *)host_alloc(2 * count * k, "self-test");
        double *prod = (double *)host_alloc(2 * k * sizeof(double), "self-test");
        rng g;
        rng_init(&g, 11 + t);
        fill(&g, x, xb, 2 * count, k, k, false);
        bool model_tc = true, model_pro = true;
        bool fail_tile = true, fail_group = true, fail_scale = true, fail_row = true;
        bool fail_tail = true;
        double worst_seen_tc = 0, worst_seen_pro = 0;
        int miss_tile = 0, miss_group = 0, miss_scale = 0, miss_row = 0, miss_tail = 0;
        int miss_group_pro = 0;  // the skipped wgmma against the promoted bound (f1's check)
        for (size_t e = 0; e < count; e++) {
            const float *ra = x + e * k, *rb = x + (count + e) * k;
            element_ref ref = reference_element(ra, rb, k, prod);
            double tc = model_sum(prod, k, 0.0), pro = 0.0;
            for (size_t l = 0; l < k; l += PROMOTE_K) pro += (double)(float)model_sum(prod + l, PROMOTE_K, 0.0);
            model_tc &= fabs(tc - ref.want) <= ref.tc;
            model_pro &= fabs(pro - ref.want) <= ref.promoted;
            worst_seen_tc = fmax(worst_seen_tc, fabs(tc - ref.want) / ref.abs);
            worst_seen_pro = fmax(worst_seen_pro, fabs(pro - ref.want) / ref.abs);
            // wrong kernels, judged by the wider (unpromoted) bound: a k-tile of 128 skipped
            // (the middle one), one wgmma's 32 products skipped, the scales forgotten (8 times
            // the result), the next row of B used; and by the promoted bound, the last 3 values
            // of k dropped (a tail handled as if k were a multiple of 16)
            double tile = 0, group = 0, tail = 0;
            for (size_t l = k / 2; l < k / 2 + 128; l++) tile += prod[l];
            for (size_t l = k / 2; l < k / 2 + 32; l++) group += prod[l];
            for (size_t l = k - 3; l < k; l++) tail += prod[l];
            miss_tile += fabs(tile) > ref.tc;
            miss_group += fabs(group) > ref.tc;
            miss_tail += fabs(tail) > ref.promoted;
            miss_group_pro += fabs(group) > ref.promoted;
            miss_scale += fabs(7 * ref.want) > ref.tc;
            element_ref next = reference_element(ra, x + (count + (e + 1) % count) * k, k, prod);
            miss_row += fabs(next.want - ref.want) > ref.tc;
        }
        // a check fails when any of its results misses: most must, for the check to mean much
        fail_tile = miss_tile > 0, fail_group = miss_group > 0, fail_scale = miss_scale > 0;
        fail_row = miss_row > 0, fail_tail = miss_tail > 0;
        char name[200];
        snprintf(name, sizeof name, "bounds at k = %zu: the model's sums meet them (worst error "
                 "%.2g of sum |a b| unpromoted, %.2g promoted)", k, worst_seen_tc, worst_seen_pro);
        failed += report(name, model_tc && model_pro);
        snprintf(name, sizeof name, "bounds at k = %zu: wrong results miss them (of 64, "
                 "unpromoted: tile %d, wgmma %d, scales %d, row %d; promoted: wgmma %d, tail %d)", k,
                 miss_tile, miss_group, miss_scale, miss_row, miss_group_pro, miss_tail);
        // At k = 16384 one wgmma's 32 products are 0.2% of the sum, within the unpromoted bound
        // for almost every result: f0 relies on f1, whose kernel reads the same tiles with the
        // same wgmma, to show such a bug (its bound is the tight one): so the promoted bound
        // must catch it at every k.
        failed += report(name, fail_tile && (fail_group || k > 4096) && miss_group_pro > 0 &&
                                   fail_scale && fail_row && fail_tail);
        free(x), free(xb), free(prod);
    }
    // the checked lines: all of a small C, else spread from the first to the last
    size_t *lines, count;
    pick_lines(8192, SAMPLE_LINES, &lines, &count);
    bool spread = count == SAMPLE_LINES && lines[0] == 0 && lines[count - 1] == 8191;
    for (size_t q = 1; q < count; q++) spread &= lines[q] > lines[q - 1];
    free(lines);
    pick_lines(3, SAMPLE_LINES, &lines, &count);
    spread &= count == 3 && lines[0] == 0 && lines[1] == 1 && lines[2] == 2;
    free(lines);
    failed += report("pick_lines: 12 lines from the first to the last; all of a short side", spread);
    // f2-split's plan: every stage of every tile in exactly one work item, pieces starting on a
    // promotion, at most one piece a block, and the whole tiles first; for 132 and 114 blocks
    bool covered = true;
    const size_t plan_tiles[] = {1, 44, 131, 132, 133, 176, 704, 2752, 11008};
    const int plan_steps[] = {1, 2, 3, 16, 32, 33, 128};
    for (unsigned blocks : {132u, 114u})
        for (size_t tiles : plan_tiles)
            for (int steps : plan_steps) {
                split_plan sp = split_plan_of(tiles, blocks, steps);
                size_t items = sp.whole + sp.tail * sp.pieces;
                covered &= sp.tail * sp.pieces <= blocks && sp.pieces >= 1;
                int *seen = (int *)calloc(tiles * steps, sizeof(int));
                for (size_t item = 0; item < items; item++) {
                    split_work w = split_work_of(item, sp, steps);
                    covered &= w.tile < tiles && w.first < w.last && w.first % (PROMOTE_K / FP8_BK) == 0;
                    covered &= (item < sp.whole) == (w.tile < sp.whole);
                    for (int s = w.first; s < w.last && w.tile < tiles; s++) seen[w.tile * steps + s]++;
                }
                for (size_t q = 0; q < tiles * (size_t)steps; q++) covered &= seen[q] == 1;
                free(seen);
            }
    failed += report("split_plan_of: f2-split's work items cover every stage of every tile once", covered);
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// -- main -----------------------------------------------------------------------------------------

int main(int argc, char **argv) {
    options o = {};
    o.program = "tensor-cores-fp8";
    o.chapter = "06-tensor-cores";
    o.sizes = "mnk";
    o.m_means = "rows of A and C";
    o.n_means = "rows of B, columns of C";
    o.k_means = "columns of A and B";
    o.inputs = inputs;
    o.input = "random";
    o.m = DEFAULT_M, o.n = DEFAULT_N, o.k = DEFAULT_K;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return tc_self_test();

    env_info env;
    gpu_open(&env);
    {  // the baseline's library, for the .env.csv (version: 10000 major + 100 minor + patch)
        size_t v = cublasLtGetVersion();
        snprintf(env.library, sizeof env.library, "cuBLASLt %zu.%zu.%zu", v / 10000, v / 100 % 100,
                 v % 100);
    }
    bench_header(&o, &env);

    fp8_problem p = {};
    p.m = o.m, p.n = o.n, p.k = o.k;
    p.ld = round_up(p.k, 16);
    p.cc = env.cc_major * 10 + env.cc_minor;
    p.sms = env.sms;
    p.sa = SCALE_A, p.sb = SCALE_B, p.scale = SCALE_A * SCALE_B;
    size_t a_bytes = size_mul(p.m, p.ld), b_bytes = size_mul(p.n, p.ld);
    size_t c_bytes = size_mul(size_mul(p.m, p.n), sizeof(float));
    size_t all_bytes = a_bytes + b_bytes;
    all_bytes = (all_bytes < a_bytes || all_bytes + c_bytes < all_bytes) ? SIZE_MAX
                                                                         : all_bytes + c_bytes;
    gpu_require(all_bytes, "A, B and C");
    if (p.m > INT32_MAX || p.n > INT32_MAX || p.ld > INT32_MAX) {  // TMA takes ints
        fprintf(stderr, "problem too big for this GPU: a side of 2^31 or more\n");
        return KL_EXIT_GPU;
    }
    p.a = (const fp8 *)gpu_alloc(a_bytes, "A");
    p.b = (const fp8 *)gpu_alloc(b_bytes, "B");
    p.c = (float *)gpu_alloc(c_bytes, "C");
    p.peak_sink = (float *)gpu_alloc(2 * PEAK_BLOCKS_PER_SM * (size_t)p.sms * sizeof(float), "peak");
    p.pieces = (float *)gpu_alloc((size_t)p.sms * SPLIT_TILE * sizeof(float), "f2-split's pieces");
    p.pieces_done = (unsigned *)gpu_alloc((size_t)p.sms * sizeof(unsigned), "f2-split's counters");
    CHECK(cudaMemset(p.pieces_done, 0, (size_t)p.sms * sizeof(unsigned)));  // a tile's last block resets it
    p.host_a = (fp8 *)host_alloc(a_bytes, "A");
    p.host_b = (fp8 *)host_alloc(b_bytes, "B");
    p.host_c = (float *)host_alloc(c_bytes, "the results");
    p.fa = (float *)host_alloc(size_mul(size_mul(p.m, p.k), sizeof(float)), "A as floats");
    p.fb = (float *)host_alloc(size_mul(size_mul(p.n, p.k), sizeof(float)), "B as floats");

    p.ints = strcmp(o.input, "int") == 0;
    rng g;
    rng_init(&g, o.seed);
    fill(&g, p.fa, p.host_a, p.m, p.k, p.ld, p.ints);
    fill(&g, p.fb, p.host_b, p.n, p.k, p.ld, p.ints);
    CHECK(cudaMemcpy((void *)p.a, p.host_a, a_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy((void *)p.b, p.host_b, b_bytes, cudaMemcpyHostToDevice));
    p.sm90a = p.cc == 90 && probe_sm90a();

    double macs = (double)p.m * (double)p.n * (double)p.k;
    bool whole = macs <= (double)REF_MAX_MACS && (double)p.m * (double)p.n <= (double)REF_MAX_RESULTS;
    pick_lines(p.m, whole ? p.m : SAMPLE_LINES, &p.rows, &p.rows_n);
    if (whole) p.cols = NULL, p.cols_n = 0;
    else pick_lines(p.n, SAMPLE_LINES, &p.cols, &p.cols_n);
    reference_all(&p);
    size_t checked = p.rows_n * p.n + p.cols_n * p.m;
    for (size_t e = 0; e < checked; e++)
        if (p.abs_sum[e] > 0.0) {
            p.tc_most = fmax(p.tc_most, p.tc_bound[e] / p.abs_sum[e]);
            p.promoted_most = fmax(p.promoted_most, p.promoted_bound[e] / p.abs_sum[e]);
        }
    printf("scales: s_a = %g, s_b = %g; check: %s%zu results against the exact sums, within "
           "%s%.2g of sum |a b| unpromoted, %s%.2g promoted\n",
           (double)p.sa, (double)p.sb, whole ? "all " : "", checked,
           p.ints && exact_for(p.k, false) ? "0 (exact), not " : "", p.tc_most,
           p.ints && exact_for(p.k, true) ? "0 (exact), not " : "", p.promoted_most);
    if (!whole) {
        printf("check: %zu rows and %zu columns of C element by element; every result through "
               "Freivalds (A (B^T x), x = random signs)\n", p.rows_n, p.cols_n);
        p.x = (double *)host_alloc(size_mul(p.n, sizeof(double)), "x");
        p.y = (double *)host_alloc(size_mul(2 * p.m, sizeof(double)), "y");
        p.y_abs = p.y + p.m;
        for (size_t j = 0; j < p.n; j++) p.x[j] = (rng_next(&g) & 1) ? 1.0 : -1.0;
        freivalds_cpu(p.fa, p.fb, p.x, p.y, p.y_abs, p.m, p.n, p.k, NULL);
    }
    printf("\n");
    if (o.save) {
        size_t sa[2] = {p.m, p.k}, sb[2] = {p.n, p.k};
        if (npy_save(o.save, "a", "<f4", sa, 2, p.fa) != 0) return KL_EXIT_USAGE;
        if (npy_save(o.save, "b", "<f4", sb, 2, p.fb) != 0) return KL_EXIT_USAGE;
    }
    if (p.cc >= 89) setup_cublaslt(&p);

    bench b = {};
    b.problem = &p;
    b.out = p.c;
    b.out_bytes = c_bytes;
    b.inputs[0] = p.a, b.input_bytes[0] = a_bytes;  // no version may write them (--check-each)
    b.inputs[1] = p.b, b.input_bytes[1] = b_bytes;
    // each matrix once: A and B a byte a value (k columns, not the padding), C in FP32
    b.bytes = ((double)p.m + (double)p.n) * (double)p.k + 4.0 * (double)p.m * (double)p.n;
    b.flops = 2.0 * macs;  // a multiply and an add
    b.check = tc_check;
    b.save = tc_save;
    b.skip = tc_skip;
    b.extra_name = "err_vs_abs";
    b.extra = fp8_err;
    int rc = bench_run(&o, &env, &b, versions, selected, VERSION_COUNT);

    if (p.cc >= 89) {
        CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(p.lay_a));
        CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(p.lay_b));
        CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(p.lay_c));
        CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(p.lay_d));
        for (lt_plan &plan : p.plan) CHECK_CUBLAS(cublasLtMatmulDescDestroy(plan.op));
        CHECK_CUBLAS(cublasLtDestroy(p.lt));
        CHECK(cudaFree(p.workspace));
    }
    CHECK(cudaFree((void *)p.a));
    CHECK(cudaFree((void *)p.b));
    CHECK(cudaFree(p.c));
    CHECK(cudaFree(p.peak_sink));
    CHECK(cudaFree(p.pieces));
    CHECK(cudaFree(p.pieces_done));
    free(p.host_a), free(p.host_b), free(p.host_c), free(p.fa), free(p.fb), free(p.want);
    free(p.rows), free(p.cols), free(p.x), free(p.y);
    return rc;
}
