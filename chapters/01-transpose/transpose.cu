// Chapter 01: transpose. Moving data is all a transpose does, so this chapter is about one
// thing: which addresses the 32 threads of a warp touch at once.
//
//   memcpy      (baseline) cudaMemcpy of the same bytes: what the memory system can do
//   copy        (baseline) a plain copy kernel: what a kernel with perfect access can do
//   v0 naive      one thread per element; reads coalesced, writes to 32 different rows
//   v1 tiled      a 32 x 32 tile staged in shared memory, so reads and writes are both
//                 coalesced; the column reads from shared memory hit one bank 32 times
//   v2 padded     one extra column in the tile moves each row to the next bank: no conflicts
//   v3 coarsened  32 x 8 threads move the 32 x 32 tile, four elements each
//   v4 tile64     a 64 x 64 tile, sixteen elements a thread: more loads in flight per thread
//   v5 ordered    blocks take tiles column by column, so the blocks running together write
//                 neighbouring parts of out, as they already read neighbouring parts of in
//   v6 tall       128 x 32 tiles: each warp writes 512 contiguous bytes of an output row
//   v7 staged     all of a thread's loads go out before the first one is used: through
//                 registers, so that no bounds check has to wait in a predicate register
//   v8 wide       128 x 64 tiles, 32 elements a thread, now that they are all in flight
//   v9 aligned    each warp-wide store starts on a 32-byte sector of out, so only the two
//                 ends of an output run share a sector with another block
//   v10 fetch256  each load asks L2 to fetch 256 bytes, not just the sectors it touches, so
//                 the next piece of a row that starts inside a sector is already on its way
//
// Build and run:   make build/transpose && build/transpose            (8192 x 8192)
//                  build/transpose -m 8191 -n 8193 -v v9,v10 --reps 50
//                  build/transpose --list | --help | --check-only | --save out/
#include <string.h>

#include "copy.cuh"
#include "gpu.h"
#include "npy.h"
#include "progress.h"
#include "rng.h"

// 8192 x 8192 floats: 256 MiB read and 256 MiB written, far beyond the 50-60 MB L2 of a
// Hopper GPU, so we measure device memory and not the cache.
#define DEFAULT_M 8192
#define DEFAULT_N 8192
// 20 timed launches give a stable median; 3 warm-up launches take module loading and
// first-touch effects out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42

// The problem every version sees: in is m x n, out is n x m, both row-major on the device.
typedef struct {
    size_t m, n;
    const float *in;
    float *out;
    float *host_in, *host_out;  // the input, and a buffer for results copied back
    float *want;                // the CPU reference: in transposed
} transpose_problem;

// ---- the CPU reference ------------------------------------------------------------------------

// out[c][r] = in[r][c]: the definition, with nothing clever. pr (or NULL) hears of each row.
static void transpose_cpu(const float *in, float *out, size_t m, size_t n, progress *pr) {
    for (size_t r = 0; r < m; r++) {
        for (size_t c = 0; c < n; c++) out[c * m + r] = in[r * n + c];
        progress_update(pr, (double)r);
    }
}

#include "grid.cuh"

// ---- baselines ----------------------------------------------------------------------------------

// memcpy: the same number of bytes through cudaMemcpy. It copies, it does not transpose, so
// its output is checked against the input.
static void launch_memcpy(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    CHECK(cudaMemcpyAsync(p->out, p->in, p->m * p->n * sizeof(float), cudaMemcpyDeviceToDevice));
}

// copy: chapter 00's copy kernel (common/copy.cuh) over the same bytes: the best access pattern
// there is. No transpose can beat it by much; what is left between it and memcpy is the cost
// of being a kernel at all.
static void launch_copy(void *problem) {
    transpose_problem *p = (transpose_problem *)problem;
    copy_floats(p->in, p->out, p->m * p->n);
}

#include "v00-naive.cuh"
#include "v01-tiled.cuh"
#include "v02-padded.cuh"
#include "v03-coarsened.cuh"
#include "v04-tile64.cuh"
#include "v05-ordered.cuh"
#include "v06-tall.cuh"
#include "v07-staged.cuh"
#include "v08-wide.cuh"
#include "v09-aligned.cuh"
#include "v10-fetch256.cuh"

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"memcpy", "cudaMemcpy", launch_memcpy, KL_BASELINE},
    {"copy", "copy-kernel", launch_copy, KL_BASELINE},
    {"v0", "naive", launch_v0, 0},
    {"v1", "tiled", launch_v1, 0},
    {"v2", "padded", launch_v2, 0},
    {"v3", "coarsened", launch_v3, 0},
    {"v4", "tile64", launch_v4, 0},
    {"v5", "ordered", launch_v5, 0},
    {"v6", "tall", launch_v6, 0},
    {"v7", "staged", launch_v7, 0},
    {"v8", "wide", launch_v8, 0},
    {"v9", "aligned", launch_v9, 0},
    {"v10", "fetch256", launch_v10, 0},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// ---- checking and saving ------------------------------------------------------------------------

// Baselines copy, so they must reproduce the input; versions must reproduce the reference.
// Nothing is computed, so both comparisons are exact (tolerance 0).
static void transpose_check(void *problem, const version *v, check_result *r) {
    transpose_problem *p = (transpose_problem *)problem;
    int is_copy = (v->flags & KL_BASELINE) != 0;
    CHECK(cudaMemcpy(p->host_out, p->out, p->m * p->n * sizeof(float), cudaMemcpyDeviceToHost));
    if (is_copy) check_f32(r, p->host_out, p->host_in, p->m, p->n, 0, 0.0, 0.0);
    else check_f32(r, p->host_out, p->want, p->n, p->m, 0, 0.0, 0.0);
}

static void transpose_save(void *problem, const char *dir, const char *tag) {
    transpose_problem *p = (transpose_problem *)problem;
    int is_copy = strcmp(tag, "memcpy") == 0 || strcmp(tag, "copy") == 0;
    size_t shape[2] = {is_copy ? p->m : p->n, is_copy ? p->n : p->m};
    if (npy_save(dir, tag, "<f4", shape, 2, p->host_out) != 0) exit(KL_EXIT_USAGE);
}

// ---- the self-test of the CPU reference (no GPU) -----------------------------------------------

static int transpose_self_test(void) {
    int failed = 0;
    // a 2 x 3 example worked by hand
    const float in[6] = {1, 2, 3, 4, 5, 6};
    const float want[6] = {1, 4, 2, 5, 3, 6};
    float out[6];
    transpose_cpu(in, out, 2, 3, NULL);
    int ok = memcmp(out, want, sizeof want) == 0;
    printf("%s transpose_cpu: 2 x 3 by hand\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    // transposing twice gives the input back, at odd shapes
    const size_t shapes[][2] = {{1, 1}, {1, 7}, {7, 1}, {3, 5}, {33, 31}, {64, 65}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t m = shapes[s][0], n = shapes[s][1];
        float *a = (float *)host_alloc(m * n * sizeof(float), "self-test");
        float *b = (float *)host_alloc(m * n * sizeof(float), "self-test");
        float *c = (float *)host_alloc(m * n * sizeof(float), "self-test");
        rng g;
        rng_init(&g, 7 + s);
        rng_fill_f32(&g, a, m * n, -1.0f, 1.0f);
        transpose_cpu(a, b, m, n, NULL);
        transpose_cpu(b, c, n, m, NULL);
        ok = memcmp(a, c, m * n * sizeof(float)) == 0;
        printf("%s transpose_cpu: twice is identity at %zu x %zu\n", ok ? "PASS" : "FAIL", m, n);
        failed += !ok;
        free(a), free(b), free(c);
    }
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ---- main ---------------------------------------------------------------------------------------

int main(int argc, char **argv) {
    options o = {};
    o.program = "transpose";
    o.chapter = "01-transpose";
    o.sizes = "mn";
    o.m_means = "rows of the input";
    o.n_means = "columns of the input";
    o.m = DEFAULT_M, o.n = DEFAULT_N, o.k = 1;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return transpose_self_test();

    env_info env;
    gpu_open(&env);
    bench_header(&o, &env);

    transpose_problem p = {};
    p.m = o.m, p.n = o.n;
    size_t bytes = size_mul(size_mul(p.m, p.n), sizeof(float));
    gpu_require(size_mul(bytes, 2), "the input and output matrices");
    p.in = (const float *)gpu_alloc(bytes, "the input matrix");
    p.out = (float *)gpu_alloc(bytes, "the output matrix");
    p.host_in = (float *)host_alloc(bytes, "the input");
    p.host_out = (float *)host_alloc(bytes, "the results");
    p.want = (float *)host_alloc(bytes, "the reference");

    rng g;
    rng_init(&g, o.seed);
    rng_fill_f32(&g, p.host_in, p.m * p.n, -1.0f, 1.0f);
    CHECK(cudaMemcpy((void *)p.in, p.host_in, bytes, cudaMemcpyHostToDevice));
    progress pr;
    progress_begin(&pr, "the CPU reference", (double)p.m);
    transpose_cpu(p.host_in, p.want, p.m, p.n, &pr);
    progress_end(&pr);
    if (o.save) {
        size_t shape[2] = {p.m, p.n};
        if (npy_save(o.save, "in", "<f4", shape, 2, p.host_in) != 0) return KL_EXIT_USAGE;
    }

    bench b = {};
    b.problem = &p;
    b.out = p.out;
    b.out_bytes = bytes;
    b.inputs[0] = p.in, b.input_bytes[0] = bytes;  // no version may write it (--check-each)
    b.bytes = 2.0 * (double)bytes;  // every element read once and written once
    b.check = transpose_check;
    b.save = transpose_save;
    int rc = bench_run(&o, &env, &b, versions, selected, VERSION_COUNT);

    CHECK(cudaFree((void *)p.in));
    CHECK(cudaFree(p.out));
    free(p.host_in), free(p.host_out), free(p.want);
    return rc;
}
