// Unit tests of the plain-C harness (common/*.c). No GPU needed. One PASS or FAIL line per
// check; tests/run.sh counts them. Usage: test_common [scratch dir]
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"
#include "options.h"
#include "report.h"
#include "progress.h"
#include "rng.h"
#include "stats.h"
#include "util.h"
#include "validate.h"

static int failures = 0;

static void expect(int cond, const char *what) {
    printf("%s %s\n", cond ? "PASS" : "FAIL", what);
    failures += !cond;
}

// ---- validation ---------------------------------------------------------------------------------

static check_result compare(float got, float want, double atol, double rtol) {
    check_result r;
    check_init(&r);
    check_f32(&r, &got, &want, 1, 1, 0, atol, rtol);
    return r;
}

static void test_validate(void) {
    expect(check_ok(&(check_result){0}) == 0, "validate: nothing compared is not ok");
    expect(check_ok((check_result[]){compare(1.0f, 1.0f, 0, 0)}), "validate: equal passes");
    expect(!check_ok((check_result[]){compare(NAN, 1.0f, 1, 1)}), "validate: NaN got fails");
    expect(!check_ok((check_result[]){compare(1.0f, NAN, 1, 1)}), "validate: NaN want fails");
    expect(check_ok((check_result[]){compare(NAN, NAN, 0, 0)}), "validate: NaN against NaN passes");
    expect(check_ok((check_result[]){compare(INFINITY, INFINITY, 0, 0)}), "validate: inf == inf");
    expect(!check_ok((check_result[]){compare(-INFINITY, INFINITY, 1, 1)}), "validate: -inf != inf");
    expect(!check_ok((check_result[]){compare(INFINITY, 1e30f, 1e30, 1)}), "validate: inf vs finite fails");
    // tolerance boundary: |got - want| <= atol + rtol * |want|, with values exact in binary
    expect(check_ok((check_result[]){compare(1.5f, 1.0f, 0.25, 0.25)}), "validate: error == atol + rtol*|want| passes");
    expect(!check_ok((check_result[]){compare(1.5f, 1.0f, 0.25, 0.2)}), "validate: error just above fails");
    expect(!check_ok((check_result[]){compare(1.0f, nextafterf(1.0f, 2.0f), 0, 0)}), "validate: exact mode sees one ulp");
    check_result r = compare(3.0f, 2.0f, 0, 1);
    expect(r.max_abs == 1.0 && r.max_rel == 0.5, "validate: max abs and rel error");
    // accumulation over blocks, and mismatches counted past the printed few
    float got[12], want[12];
    for (int i = 0; i < 12; i++) got[i] = want[i] = (float)i;
    for (int i = 0; i < 7; i++) got[i] = -1.0f;
    check_init(&r);
    check_f32(&r, got, want, 3, 4, 10, 0, 0);
    expect(r.count == 12 && r.bad == 7 && r.printed == KL_MAX_PRINTED, "validate: counts 7 bad, prints 5");
    uint32_t gu[3] = {1, 2, 3}, wu[3] = {1, 2, 4};
    check_init(&r);
    check_u32(&r, gu, wu, 1, 3, 0);
    expect(r.bad == 1, "validate: u32 off by one fails");
    double gd = 1.0 + 1e-12, wd = 1.0;
    check_init(&r);
    check_f64(&r, &gd, &wd, 1, 1, 0, 0, 1e-11);
    expect(check_ok(&r), "validate: f64 within rtol");
}

// ---- options ------------------------------------------------------------------------------------

static const version table[] = {
    {"memcpy", "cudaMemcpy", NULL, KL_BASELINE},
    {"v0", "naive", NULL, 0},
    {"v1", "tiled", NULL, 0},
    {"v2", "padded", NULL, 0},
};

static options defaults(void) {
    static const char *const inputs[] = {"uniform", "skewed", NULL};
    options o = {0};
    o.program = "test";
    o.chapter = "99-test";
    o.sizes = "mn";
    o.inputs = inputs;
    o.input = "uniform";
    o.m = 7, o.n = 9, o.k = 1;
    o.versions = "all";
    o.reps = 5, o.warmup = 1, o.seed = 42;
    return o;
}

// Parses a command line given as one string of words; stderr goes to /dev/null.
static int parse(options *o, const char *line) {
    static char buf[512];  // options keep pointers into it
    char *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "prog %s", line);
    for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " ")) argv[argc++] = t;
    argv[argc] = NULL;
    fflush(stderr);
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    int rc = options_parse(o, argc, argv);
    fclose(stderr);
    stderr = saved;
    return rc;
}

static void test_options(void) {
    options o = defaults();
    expect(parse(&o, "") == 0 && o.m == 7 && o.n == 9, "options: defaults kept");
    o = defaults();
    expect(parse(&o, "-m 3 -n 5 --reps 2 --warmup 0 --seed 0 --check-only --csv x.csv") == 0 &&
           o.m == 3 && o.n == 5 && o.reps == 2 && o.warmup == 0 && o.seed == 0 && o.check_only &&
           strcmp(o.csv, "x.csv") == 0, "options: good values parsed");
    o = defaults();
    expect(parse(&o, "--input skewed -v v0,2") == 0 && strcmp(o.input, "skewed") == 0, "options: --input");
    const char *bad[] = {"-n 0", "-n -3", "-n abc", "-n 12x", "-n 1e3", "-n", "-n 2147483648",
                         "-n 99999999999999999999999", "-k 4", "--reps 0", "--reps -1",
                         "--warmup x", "--seed -1", "--input nope", "--bogus", "-q", "extra",
                         "--seed 18446744073709551616", "-n ''", "--dump", "--verify",
                         "--dump d --verify d", "--rest -1", "--rest x", "--rest 60001"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[128];
        o = defaults();
        snprintf(what, sizeof what, "options: '%s' is a usage error", bad[i]);
        expect(parse(&o, bad[i]) == KL_EXIT_USAGE, what);
    }
    o = defaults();
    expect(parse(&o, "--dump d1") == 0 && strcmp(o.dump, "d1") == 0 && !o.verify, "options: --dump");
    o = defaults();
    expect(parse(&o, "--verify d2") == 0 && strcmp(o.verify, "d2") == 0 && !o.dump,
           "options: --verify");
    o = defaults();
    expect(parse(&o, "--rest 200") == 0 && o.rest_ms == 200 && parse(&o, "--rest 0") == 0 &&
               o.rest_ms == 0, "options: --rest");
    o = defaults();
    expect(parse(&o, "-n 2147483647") == 0 && o.n == 2147483647u, "options: the largest size");
    o = defaults();
    expect(parse(&o, "--seed 18446744073709551615") == 0 && o.seed == UINT64_MAX, "options: 64-bit seed");
    uint64_t v;
    expect(parse_count("t", "-n", "", 10, &v) == KL_EXIT_USAGE, "options: empty count");
    o = defaults();
    expect(parse(&o, "--warmup 0") == 0 && o.warmup == 0 && parse(&o, "--seed 0") == 0 &&
               o.seed == 0, "options: --warmup 0 and --seed 0 are allowed");
    expect(parse_whole("t", "--x", "0", 0, 10, &v) == 0 && v == 0 &&
               parse_whole("t", "--x", "3", 4, 10, &v) == KL_EXIT_USAGE,
           "options: parse_whole's least value");
}

static void test_select(void) {
    bool sel[4];
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    int rc_all = select_versions("t", "all", table, 4, sel);
    int all = sel[0] && sel[1] && sel[2] && sel[3];
    int rc_some = select_versions("t", "v0,2", table, 4, sel);
    int some = sel[0] && sel[1] && !sel[2] && sel[3];
    int rc_idea = select_versions("t", "tiled", table, 4, sel);
    int idea = sel[0] && !sel[1] && sel[2] && !sel[3];
    int rc_bad = select_versions("t", "v7", table, 4, sel);
    int rc_empty = select_versions("t", "v0,", table, 4, sel);
    int rc_prefix = select_versions("t", "v", table, 4, sel);
    fclose(stderr);
    stderr = saved;
    expect(rc_all == 0 && all, "select: all");
    expect(rc_some == 0 && some, "select: tags and numbers, baseline always");
    expect(rc_idea == 0 && idea, "select: by idea");
    expect(rc_bad == KL_EXIT_USAGE, "select: unknown version");
    expect(rc_empty == KL_EXIT_USAGE, "select: empty name");
    expect(rc_prefix == KL_EXIT_USAGE, "select: a prefix is not a name");
}

// ---- small helpers ------------------------------------------------------------------------------

static void test_util(void) {
    expect(ceil_div(0, 32) == 0 && ceil_div(1, 32) == 1 && ceil_div(32, 32) == 1 &&
           ceil_div(33, 32) == 2, "util: ceil_div");
    expect(ceil_div(SIZE_MAX, 2) == SIZE_MAX / 2 + 1, "util: ceil_div does not overflow");
    expect(round_up(33, 32) == 64 && round_up(64, 32) == 64, "util: round_up");
    expect(size_mul(1u << 20, 1u << 20) == (size_t)1 << 40, "util: size_mul");
    expect(size_mul(SIZE_MAX / 2, 3) == SIZE_MAX, "util: size_mul saturates");
    double ms[] = {5, 1, 4, 2, 3};
    timing t = timing_summary(ms, 5);
    expect(t.median == 3 && t.min == 1 && t.max == 5, "stats: odd count");
    double ms2[] = {4, 1, 3, 2};
    t = timing_summary(ms2, 4);
    expect(t.median == 2.5, "stats: even count");
    rng a, b;
    rng_init(&a, 42), rng_init(&b, 42);
    int same = 1, in_range = 1;
    for (int i = 0; i < 1000; i++) {
        float x = rng_float(&a, -1, 1);
        same &= x == rng_float(&b, -1, 1);
        in_range &= x >= -1 && x < 1;
        in_range &= rng_below(&a, 7) < 7;
        (void)rng_below(&b, 7);
    }
    expect(same && in_range, "rng: repeatable and in range");
    rng_init(&a, 1), rng_init(&b, 2);
    expect(rng_next(&a) != rng_next(&b), "rng: seeds differ");
    // a fill large enough to be split among threads gives what one thread drawing value by
    // value gives, and leaves the generator where that thread would
    size_t count = (3u << 22) + 5;
    float *x = (float *)malloc(count * sizeof(float));
    rng_init(&a, 7), rng_init(&b, 7);
    rng_fill_f32(&a, x, count, -1.0f, 1.0f);
    int equal = x != NULL;
    for (size_t i = 0; equal && i < count; i++) equal = x[i] == rng_float(&b, -1.0f, 1.0f);
    expect(equal && a.state == b.state, "rng: a threaded fill is the sequential sequence");
    free(x);
    char s[64];
    gpu_slug("NVIDIA H200", s, sizeof s);
    expect(strcmp(s, "h200") == 0, "slug: NVIDIA H200 -> h200");
    gpu_slug("NVIDIA GeForce RTX 4090", s, sizeof s);
    expect(strcmp(s, "rtx-4090") == 0, "slug: RTX 4090");
    gpu_slug("NVIDIA H100 80GB HBM3", s, sizeof s);
    expect(strcmp(s, "h100-80gb-hbm3") == 0, "slug: H100 80GB HBM3");
    gpu_slug("  ", s, sizeof s);
    expect(strcmp(s, "gpu") == 0, "slug: empty name");
}

// ---- writers ------------------------------------------------------------------------------------

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    *len = fread(buf, 1, sizeof buf - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static void test_writers(const char *dir) {
    char path[1024];
    size_t len;
    // .npy: the header is a multiple of 64 bytes, ends in '\n', and the data follows it
    float data[6] = {1, 2, 3, 4, 5, 6};
    size_t shape[2] = {2, 3};
    expect(npy_save(dir, "m", "<f4", shape, 2, data) == 0, "npy: written");
    snprintf(path, sizeof path, "%s/m.npy", dir);
    char *b = slurp(path, &len);
    size_t hl = b ? (unsigned char)b[8] | (unsigned char)b[9] << 8 : 0;
    expect(b && memcmp(b, "\x93NUMPY\x01\x00", 8) == 0, "npy: magic and version");
    expect(b && (10 + hl) % 64 == 0 && b[10 + hl - 1] == '\n', "npy: header padded to 64");
    expect(b && strstr(b + 10, "'shape': (2, 3), }") && strstr(b + 10, "'descr': '<f4'"), "npy: dict");
    expect(b && len == 10 + hl + sizeof data && memcmp(b + 10 + hl, data, sizeof data) == 0, "npy: data");
    uint32_t one = 7;
    size_t shape1[1] = {1};
    expect(npy_save(dir, "one", "<u4", shape1, 1, &one) == 0, "npy: 1-d written");
    snprintf(path, sizeof path, "%s/one.npy", dir);
    b = slurp(path, &len);
    expect(b && strstr(b + 10, "'shape': (1,), }"), "npy: 1-d shape has its comma");
    expect(npy_save("/proc/no/such/dir", "x", "<f4", shape, 2, data) != 0, "npy: unwritable dir fails");
    // CSV: a header once, then rows; empty fields for rates that do not apply
    snprintf(path, sizeof path, "%s/r.csv", dir);
    unlink(path);
    result_row r = {"99-test", "v1", "tiled", NULL, 3, 4, 1, 10, 1.5, 1.0, 2.0, 100.0, NAN, 50.0, 0.0, "yes", NULL, NAN, NULL};  // timing NULL: "launch"
    expect(csv_append(path, &r) == 0 && csv_append(path, &r) == 0, "csv: appended twice");
    b = slurp(path, &len);
    const char *row = "99-test,v1,tiled,,3,4,1,10,1.5,1,2,100,,50,0,yes,,,launch\n";
    char want[1024];
    snprintf(want, sizeof want, "%s\n%s%s", KL_CSV_HEADER, row, row);
    expect(b && strcmp(b, want) == 0, "csv: header once, exact rows");
    env_info e = {0};
    snprintf(e.gpu, sizeof e.gpu, "Test GPU");
    e.flags = "-O3", e.commit = "abc";
    expect(env_write(path, &e) == 0, "csv: environment record written");
    snprintf(path, sizeof path, "%s/r.env.csv", dir);
    b = slurp(path, &len);
    expect(b && strstr(b, "gpu,Test GPU\n") && strstr(b, "commit,abc\n") && !strstr(b, "library,"),
           "csv: environment record beside it (no library line when the baseline has none)");
    snprintf(e.library, sizeof e.library, "NCCL 2.27.7");
    snprintf(path, sizeof path, "%s/r.csv", dir);
    expect(env_write(path, &e) == 0, "csv: environment record with a library written");
    snprintf(path, sizeof path, "%s/r.env.csv", dir);
    b = slurp(path, &len);
    expect(b && strstr(b, "library,NCCL 2.27.7\ncommit,abc\n"),
           "csv: the baseline's library and version, before the commit");
}

static void test_progress(void) {
    char line[256];
    progress_format(line, sizeof line, "the CPU reference", 43, 100, 12.0);
    expect(strcmp(line, "the CPU reference: 43% (12 s so far, about 16 s left)") == 0,
           "progress: what, how far, how long left");
    progress_format(line, sizeof line, "making the input", 0, 100, 3.0);
    expect(strcmp(line, "making the input: started (3 s so far)") == 0, "progress: nothing done yet");
    progress p;
    progress_begin(&p, "quiet", 10);  // stderr is not a terminal under make test
    progress_update(&p, 5);
    progress_update(NULL, 5);
    progress_end(&p);
    expect(!p.shown, "progress: quiet when stderr is not a terminal, and for the first seconds");
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "build/test-scratch";
    test_validate();
    test_options();
    test_select();
    test_util();
    test_progress();
    test_writers(dir);
    return failures ? 1 : 0;
}
