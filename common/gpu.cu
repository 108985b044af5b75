// gpu.cu: the device, memory, timing and the version loop (gpu.h).
#include "gpu.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "npy.h"

#ifndef KL_FLAGS
#define KL_FLAGS "unknown"
#endif
#ifndef KL_COMMIT
#define KL_COMMIT "unknown"
#endif

// The compiler flags env.csv reports: the common ones, unless the chapter's program says its
// own (a chapter built for another target, such as sm_90a; see gpu.h).
const char *kl_flags = KL_FLAGS;

void gpu_open(env_info *e) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        // Say it in a student's words first: a machine without a GPU reports a driver problem.
        const char *why = err == cudaErrorInsufficientDriver
                              ? "no NVIDIA driver, or one older than this CUDA runtime"
                              : "no CUDA device found";
        fprintf(stderr, "no usable GPU: %s (CUDA says: %s)\n", why,
                err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
        exit(KL_EXIT_GPU);
    }
    CHECK(cudaSetDevice(0));
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    memset(e, 0, sizeof *e);
    snprintf(e->gpu, sizeof e->gpu, "%s", p.name);
    e->cc_major = p.major;
    e->cc_minor = p.minor;
    e->sms = p.multiProcessorCount;
    e->sm_threads = p.maxThreadsPerMultiProcessor;
    e->l2_bytes = (size_t)p.l2CacheSize;
    e->mem_bytes = p.totalGlobalMem;
    e->bus_width_bits = p.memoryBusWidth;
    int khz = 0;  // the clock rates left cudaDeviceProp in CUDA 13; the attributes remain
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    e->sm_clock_mhz = khz / 1000;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0));
    e->mem_clock_mhz = khz / 1000;
    CHECK(cudaDriverGetVersion(&e->driver_version));
    CHECK(cudaRuntimeGetVersion(&e->runtime_version));
    e->flags = kl_flags;
    e->commit = KL_COMMIT;
}

void gpu_require(size_t bytes, const char *what) {
    size_t free_bytes = 0, total = 0;
    CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (bytes > free_bytes) {
        fprintf(stderr, "problem too big for this GPU: %s need %.3g GB, %.3g GB are free\n",
                what, bytes / 1e9, free_bytes / 1e9);
        exit(KL_EXIT_GPU);
    }
}

void *gpu_alloc(size_t bytes, const char *what) {
    gpu_require(bytes, what);
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes));
    return p;
}

void *host_alloc(size_t bytes, const char *what) {
    void *p = (bytes == SIZE_MAX) ? NULL : malloc(bytes);
    if (!p) {
        fprintf(stderr, "problem too big for this machine: %s needs %.3g GB of host memory\n",
                what, bytes / 1e9);
        exit(KL_EXIT_GPU);
    }
    return p;
}

void gpu_poison(void *p, size_t bytes) { CHECK(cudaMemset(p, 0xFF, bytes)); }

// Overwrites a buffer twice the size of L2 (allocated on first use) on the default stream.
static void flush_l2_now(int i) {
    static void *flush = NULL;
    static size_t flush_bytes = 0;
    if (!flush) {
        int l2 = 0;
        CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
        flush_bytes = 2 * (size_t)l2;
        flush = gpu_alloc(flush_bytes, "the L2 flush buffer");
    }
    CHECK(cudaMemsetAsync(flush, i & 0xFF, flush_bytes));
}

// --rest: the GPU idle for ms milliseconds, its queue drained first, so that the launches after
// it do not start right after the launches before it, on a clock those may have lowered
// (docs/methodology.md, "Rested").
static void rest(int ms) {
    if (ms <= 0) return;
    CHECK(cudaDeviceSynchronize());
    struct timespec left = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) == -1 && errno == EINTR) {
    }
}

timing time_launches(const version *v, void *problem, int warmup, int reps, bool flush_l2) {
    for (int i = 0; i < warmup; i++) {
        v->launch(problem);
        CHECK_LAUNCH();
    }
    cudaEvent_t *start = (cudaEvent_t *)host_alloc(2 * sizeof(cudaEvent_t) * reps, "events");
    cudaEvent_t *stop = start + reps;
    for (int i = 0; i < reps; i++) {
        CHECK(cudaEventCreate(&start[i]));
        CHECK(cudaEventCreate(&stop[i]));
    }
    for (int i = 0; i < reps; i++) {
        if (flush_l2) flush_l2_now(i);
        CHECK(cudaEventRecord(start[i]));
        v->launch(problem);
        CHECK_LAUNCH();
        CHECK(cudaEventRecord(stop[i]));
    }
    CHECK(cudaDeviceSynchronize());
    double *ms = (double *)host_alloc(sizeof(double) * reps, "timings");
    for (int i = 0; i < reps; i++) {
        float t = 0.0f;
        CHECK(cudaEventElapsedTime(&t, start[i], stop[i]));
        ms[i] = t;
        CHECK(cudaEventDestroy(start[i]));
        CHECK(cudaEventDestroy(stop[i]));
    }
    timing t = timing_summary(ms, (size_t)reps);
    free(ms);
    free(start);
    return t;
}

timing time_batches(const version *v, void *problem, int warmup, int reps, int batch,
                    bool flush_l2) {
    for (int i = 0; i < warmup; i++) {
        v->launch(problem);
        CHECK_LAUNCH();
    }
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    double *ms = (double *)host_alloc(sizeof(double) * reps, "timings");
    for (int i = 0; i < reps; i++) {
        if (flush_l2) flush_l2_now(i);
        CHECK(cudaEventRecord(start));
        for (int j = 0; j < batch; j++) {
            v->launch(problem);
            CHECK_LAUNCH();
        }
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float t = 0.0f;
        CHECK(cudaEventElapsedTime(&t, start, stop));
        ms[i] = (double)t / batch;
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    timing t = timing_summary(ms, (size_t)reps);
    free(ms);
    return t;
}

void bench_header(const options *o, const env_info *e) {
    printf("%s (chapter %s)  m=%zu n=%zu k=%zu  seed=%llu", o->program, o->chapter, o->m, o->n,
           o->k, (unsigned long long)o->seed);
    if (o->input) printf("  input=%s", o->input);
    printf("\n%s: sm_%d%d, %d SMs, %d MHz, %.0f MB L2  |  reps=%d warmup=%d", e->gpu,
           e->cc_major, e->cc_minor, e->sms, e->sm_clock_mhz, e->l2_bytes / 1e6, o->reps,
           o->warmup);
    if (o->rest_ms) printf(" rest=%d ms", o->rest_ms);
    printf("%s\n", o->verify ? " (verifying dumped outputs)" : o->check_only ? " (check only)" : "");
    if (o->batch && !o->check_only && !o->verify)
        printf("timing: %d %s of %d back-to-back launches, each between one pair of events%s; "
               "ms is a batch's time / %d\n", o->reps, o->reps == 1 ? "batch" : "batches",
               o->batch, o->graph ? ", captured in a CUDA graph" : "", o->batch);
    if (o->interleave && !o->check_only && !o->verify)
        printf("timing: interleaved: %d %s of one launch of each version, each between its own "
               "pair of events; then each version once more, checked\n", o->reps,
               o->reps == 1 ? "round" : "rounds");
    printf("\n");
}

// Launches once on a poisoned output and checks the result.
static check_result run_and_check(const bench *b, const version *v) {
    gpu_poison(b->out, b->out_bytes);
    v->launch(b->problem);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    check_result r;
    check_init(&r);
    if (!(v->flags & KL_UNCHECKED)) b->check(b->problem, v, &r);
    return r;
}

// --check-each (the grader's speed runs, the reference's and the submission's alike): like
// time_launches, but every timed launch starts from a poisoned output and is checked after its
// events (the poisoning and the check are outside them; --flush-l2 is not applied). A version
// cannot then do its work once and skip it in later launches (a counter in device memory, a
// size set to 0 by the launcher) and report the time of launches that did nothing. Sets *wrong
// and stops at the first launch whose output is wrong or after which an input has changed.
// `inputs` holds the host copies of b->inputs taken before the first launch of any version.
static timing time_checked_launches(const bench *b, const version *v, const options *o,
                                    char *const *inputs, check_result *r, int *wrong) {
    for (int i = 0; i < o->warmup; i++) {
        v->launch(b->problem);
        CHECK_LAUNCH();
    }
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    double *ms = (double *)host_alloc(sizeof(double) * o->reps, "timings");
    int done = 0;
    size_t most = 0;  // the largest input: one host buffer to compare each of them in
    for (int i = 0; i < KL_MAX_BUFFERS && b->inputs[i]; i++)
        most = b->input_bytes[i] > most ? b->input_bytes[i] : most;
    char *now = most ? (char *)host_alloc(most, "the inputs to compare") : NULL;
    for (; done < o->reps; done++) {
        gpu_poison(b->out, b->out_bytes);
        for (int i = 0; i < KL_MAX_BUFFERS && b->scratch[i]; i++)
            gpu_poison(b->scratch[i], b->scratch_bytes[i]);
        CHECK(cudaEventRecord(start));
        v->launch(b->problem);
        CHECK_LAUNCH();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float t = 0.0f;
        CHECK(cudaEventElapsedTime(&t, start, stop));
        ms[done] = t;
        check_init(r);
        b->check(b->problem, v, r);
        if (!check_ok(r)) {
            printf("    %s: wrong in timed launch %d of %d\n", v->tag, done + 1, o->reps);
            *wrong = 1;
            break;
        }
        int changed = -1;
        for (int i = 0; i < KL_MAX_BUFFERS && b->inputs[i] && changed < 0; i++) {
            CHECK(cudaMemcpy(now, b->inputs[i], b->input_bytes[i], cudaMemcpyDeviceToHost));
            if (memcmp(now, inputs[i], b->input_bytes[i]) != 0) changed = i;
        }
        if (changed >= 0) {
            printf("    %s: input %d changed by timed launch %d of %d (or before it)\n", v->tag,
                   changed + 1, done + 1, o->reps);
            r->bad += 1;  // the output may be right: a version may still not write its inputs
            *wrong = 1;
            break;
        }
    }
    free(now);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    timing t = done == o->reps ? timing_summary(ms, (size_t)done) : (timing){NAN, NAN, NAN};
    free(ms);
    return t;
}

// ---- grading: one process writes a version's output, another checks it --------------------------

// --dump: the device output, byte for byte, into DIR/<tag><suffix>.
static void dump_output(const char *dir, const bench *b, const char *tag, const char *suffix) {
    if (npy_mkdir(dir) != 0) exit(KL_EXIT_USAGE);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, tag, suffix);
    void *host = host_alloc(b->out_bytes, "the dumped output");
    CHECK(cudaMemcpy(host, b->out, b->out_bytes, cudaMemcpyDeviceToHost));
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(host, 1, b->out_bytes, f) == b->out_bytes;
    if (f) ok &= fclose(f) == 0;
    free(host);
    if (!ok) {
        fprintf(stderr, "--dump: cannot write %s: %s\n", path, strerror(errno));
        exit(KL_EXIT_USAGE);
    }
}

// --verify: loads DIR/<tag><suffix> into the device output. Returns 1 when loaded, 0 when the
// file is not there, -1 when it cannot be used; `why` says what was wrong.
static int load_output(const char *dir, const bench *b, const char *tag, const char *suffix,
                       char *why, size_t len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, tag, suffix);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
        return errno == ENOENT ? 0 : -1;
    }
    char *host = (char *)host_alloc(b->out_bytes + 1, "the output to verify");
    size_t got = fread(host, 1, b->out_bytes + 1, f);  // one byte more: a longer file is wrong
    fclose(f);
    if (got != b->out_bytes) {
        snprintf(why, len, "%s holds %s%zu bytes; the output is %zu", path,
                 got > b->out_bytes ? "more than " : "", got > b->out_bytes ? b->out_bytes : got,
                 b->out_bytes);
        free(host);
        return -1;
    }
    CHECK(cudaMemcpy(b->out, host, b->out_bytes, cudaMemcpyHostToDevice));
    free(host);
    return 1;
}

// Checks what --dump wrote for version v: its first output, which must be there, and the output
// of its last timed launch, when it was timed. Nothing of v runs here. Returns 1 when both pass.
static int verify_dumped(const options *o, const bench *b, const version *v) {
    const char *suffixes[2] = {".out", ".timed.out"};
    int ok = 1;
    for (int s = 0; s < 2; s++) {
        char why[4400] = "";
        gpu_poison(b->out, b->out_bytes);
        int loaded = load_output(o->verify, b, v->tag, suffixes[s], why, sizeof why);
        if (loaded == 0 && s == 1) continue;  // a --check-only run times nothing
        check_result r;
        check_init(&r);
        if (loaded == 1) b->check(b->problem, v, &r);
        int good = loaded == 1 && check_ok(&r);
        printf("%s verify %s%s%s%s\n", good ? "PASS" : "FAIL", v->tag, suffixes[s],
               loaded == 1 ? "" : ": ", why);
        ok &= good;
    }
    return ok;
}

// One version's row: printed, and appended to --csv. ref_ms is the baseline's median (NAN
// when there is none yet); `timing_name` is the CSV's timing column.
static void emit_row(const options *o, const bench *b, const version *v, const check_result *r,
                     int ok, timing t, const char *ref_tag, double ref_ms,
                     const char *timing_name) {
    int checked = !(v->flags & KL_UNCHECKED);
    result_row row;
    row.chapter = o->chapter;
    row.version = v->tag;
    row.idea = v->idea;
    row.input = o->input;
    row.m = o->m;
    row.n = o->n;
    row.k = o->k;
    row.reps = (o->check_only || o->verify) ? 0 : o->reps;
    row.ms_median = ok ? t.median : NAN;
    row.ms_min = ok ? t.min : NAN;
    row.ms_max = ok ? t.max : NAN;
    row.gbps = b->bytes > 0 ? b->bytes / (row.ms_median * 1e-3) / 1e9 : NAN;
    row.gflops = b->flops > 0 ? b->flops / (row.ms_median * 1e-3) / 1e9 : NAN;
    row.pct_of_baseline = ref_tag ? 100.0 * ref_ms / row.ms_median : NAN;
    row.max_rel_err = checked ? r->max_rel : NAN;
    row.ok = !checked ? "unchecked" : ok ? "yes" : "no";
    row.extra_name = b->extra_name;
    row.extra_value = (b->extra && ok) ? b->extra(b->problem, row.ms_median) : NAN;
    row.timing = timing_name;
    report_table_row(stdout, &row);
    if (o->csv && csv_append(o->csv, &row) != 0) exit(KL_EXIT_USAGE);
}

// --interleave: the versions in `vs` (each checked once already) timed in turns. Each gets its
// warm-up launches; then `reps` rounds launch each once between its own pair of events, back to
// back, with no check or copy between them. Round i starts at version i % n and wraps around,
// so that each version opens some of the rounds. t[j] is version j's timing. The caller checks
// each version again afterwards (one more launch from a poisoned output).
static void time_interleaved(const bench *b, const options *o, const version *const *vs, int n,
                             timing *t) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < o->warmup; i++) {
            vs[j]->launch(b->problem);
            CHECK_LAUNCH();
        }
    size_t events = (size_t)n * (size_t)o->reps;
    cudaEvent_t *start = (cudaEvent_t *)host_alloc(2 * sizeof(cudaEvent_t) * events, "events");
    cudaEvent_t *stop = start + events;  // version j's launch of round i: [j * reps + i]
    for (size_t e = 0; e < events; e++) {
        CHECK(cudaEventCreate(&start[e]));
        CHECK(cudaEventCreate(&stop[e]));
    }
    for (int i = 0; i < o->reps; i++)
        for (int q = 0; q < n; q++) {
            int j = (i + q) % n;
            size_t e = (size_t)j * o->reps + i;
            if (o->flush_l2) flush_l2_now(i * n + q);
            CHECK(cudaEventRecord(start[e]));
            vs[j]->launch(b->problem);
            CHECK_LAUNCH();
            CHECK(cudaEventRecord(stop[e]));
        }
    CHECK(cudaDeviceSynchronize());
    double *ms = (double *)host_alloc(sizeof(double) * o->reps, "timings");
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < o->reps; i++) {
            size_t e = (size_t)j * o->reps + i;
            float x = 0.0f;
            CHECK(cudaEventElapsedTime(&x, start[e], stop[e]));
            ms[i] = x;
            CHECK(cudaEventDestroy(start[e]));
            CHECK(cudaEventDestroy(stop[e]));
        }
        t[j] = timing_summary(ms, (size_t)o->reps);
    }
    free(ms);
    free(start);
}

// The most timed launches --interleave takes (versions x reps): their events all exist at once.
#define KL_MAX_INTERLEAVED 1000000

int bench_run(const options *o, const env_info *e, const bench *b, const version *table,
              const bool *selected, int count) {
    const char *ref_tag = NULL;
    double ref_ms = NAN;
    for (int i = 0; i < count && !ref_tag; i++)
        if (table[i].flags & KL_BASELINE) ref_tag = table[i].tag;
    if (o->graph && !b->time_batch) {
        fprintf(stderr, "%s: --graph: this program cannot capture its launches in a CUDA graph\n",
                o->program);
        exit(KL_EXIT_USAGE);
    }
    // --interleave: every version is checked in the loop below as usual; the ones to time wait
    // there, and are timed together after it, in turns (time_interleaved). Then their rows.
    bool interleaved = o->interleave && !o->check_only;
    int n_selected = 0;
    for (int i = 0; i < count; i++) n_selected += selected[i];
    if (interleaved && (double)n_selected * o->reps > KL_MAX_INTERLEAVED) {
        fprintf(stderr, "%s: --interleave: %d versions x %d reps is more than %d timed launches, "
                "whose events all exist at once; give fewer of either\n", o->program,
                n_selected, o->reps, KL_MAX_INTERLEAVED);
        exit(KL_EXIT_USAGE);
    }
    report_table_header(stdout, ref_tag ? ref_tag : "baseline");
    int wrong = 0;
    const version **later = (const version **)host_alloc(sizeof(version *) * count, "a list");
    check_result *later_r = (check_result *)host_alloc(sizeof(check_result) * count, "checks");
    int *later_ok = (int *)host_alloc(sizeof(int) * count, "a list");
    int n_later = 0;
    char *inputs[KL_MAX_BUFFERS] = {NULL};  // --check-each: the inputs as they are now
    for (int i = 0; o->check_each && i < KL_MAX_BUFFERS && b->inputs[i]; i++) {
        inputs[i] = (char *)host_alloc(b->input_bytes[i], "a copy of the inputs");
        CHECK(cudaMemcpy(inputs[i], b->inputs[i], b->input_bytes[i], cudaMemcpyDeviceToHost));
    }
    for (int i = 0; i < count; i++) {
        if (!selected[i]) continue;
        const version *v = &table[i];
        const char *why = b->skip ? b->skip(b->problem, v) : NULL;
        if (why) {
            printf("    %s: skipped: %s\n", v->tag, why);
            // --verify checks a dump of a version this GPU cannot run: nothing it could say is
            // a pass (a grader on an older GPU would otherwise count every submission right)
            if (o->verify && !(v->flags & KL_BASELINE) && !(v->flags & KL_UNCHECKED)) {
                printf("FAIL verify %s: it cannot run here: %s\n", v->tag, why);
                wrong = 1;
            }
            continue;
        }
        int checked = !(v->flags & KL_UNCHECKED);
        int ours = !(v->flags & KL_BASELINE);
        if (o->verify && ours) {  // baselines run as usual: a check may compare with them
            if (checked && !verify_dumped(o, b, v)) wrong = 1;
            continue;
        }
        check_result r = run_and_check(b, v);
        int ok = !checked || check_ok(&r);
        if (o->save && b->save) b->save(b->problem, o->save, v->tag);  // a wrong one too: to look at
        if (o->dump && ours && checked) dump_output(o->dump, b, v->tag, ".out");
        timing t = {NAN, NAN, NAN};
        if (ok && !o->check_only && !o->verify && !interleaved) rest(o->rest_ms);
        if (ok && !o->check_only && !o->verify && o->check_each && ours && checked) {
            int bad = 0;
            check_result again;
            t = time_checked_launches(b, v, o, inputs, &again, &bad);
            if (bad) r = again, ok = 0;
            if (o->dump) dump_output(o->dump, b, v->tag, ".timed.out");
        } else if (ok && !o->check_only && !o->verify && !interleaved) {
            if (!o->batch) t = time_launches(v, b->problem, o->warmup, o->reps, o->flush_l2);
            else if (b->time_batch)
                t = b->time_batch(b->problem, v, o->warmup, o->reps, o->batch, o->graph);
            else t = time_batches(v, b->problem, o->warmup, o->reps, o->batch, o->flush_l2);
            // The output now holds the last timed launch's result: check it again, so a
            // version that goes wrong while being timed cannot report a fast number.
            check_result again;
            check_init(&again);
            if (checked) b->check(b->problem, v, &again);
            if (checked && !check_ok(&again)) {
                printf("    %s: wrong after the timed launches\n", v->tag);
                r = again;
                ok = 0;
            }
            if (o->dump && ours && checked) dump_output(o->dump, b, v->tag, ".timed.out");
        }
        if (ref_tag && strcmp(v->tag, ref_tag) == 0) ref_ms = t.median;
        if (interleaved) {  // its row waits for the rounds below
            if (!ok) printf("    %s: wrong (above); its row follows the timed rounds\n", v->tag);
            later[n_later] = v, later_r[n_later] = r, later_ok[n_later] = ok;
            n_later++;
            continue;
        }
        emit_row(o, b, v, &r, ok, t, ref_tag, ref_ms,
                 !o->batch || o->check_each ? "launch" : o->graph ? "graph" : "batch");
        if (!ok) wrong = 1;
    }
    if (n_later > 0) {
        const version **timed =
            (const version **)host_alloc(sizeof(version *) * n_later, "a list");
        int *slot = (int *)host_alloc(sizeof(int) * n_later, "a list");  // j's place in `timed`
        int n_timed = 0;
        for (int j = 0; j < n_later; j++) {
            slot[j] = later_ok[j] ? n_timed : -1;
            if (later_ok[j]) timed[n_timed++] = later[j];
        }
        timing *t = (timing *)host_alloc(sizeof(timing) * (n_timed + 1), "timings");
        if (n_timed > 0) rest(o->rest_ms), time_interleaved(b, o, timed, n_timed, t);
        for (int j = 0; j < n_later; j++)  // the baseline's median first: every row's ratio
            if (slot[j] >= 0 && ref_tag && strcmp(later[j]->tag, ref_tag) == 0)
                ref_ms = t[slot[j]].median;
        // Each version once more, from a poisoned output, checked before its row: the rounds
        // left the output to whichever version ran last, and a chapter's extra column reads
        // what the row's own version's launch and check left (04's counters, 03's pick, which
        // its extra clears once read: called once before the launch, it drops the rounds').
        for (int j = 0; j < n_later; j++) {
            const version *v = later[j];
            int ok = later_ok[j];
            timing tj = {NAN, NAN, NAN};
            if (slot[j] >= 0) {
                tj = t[slot[j]];
                if (b->extra) (void)b->extra(b->problem, NAN);  // drops what the rounds left
                check_result again = run_and_check(b, v);
                if (!(v->flags & KL_UNCHECKED) && !check_ok(&again)) {
                    printf("    %s: wrong after the timed launches\n", v->tag);
                    later_r[j] = again;
                    ok = 0;
                }
            }
            emit_row(o, b, v, &later_r[j], ok, tj, ref_tag, ref_ms, "interleaved");
            if (!ok) wrong = 1;
        }
        free(t);
        free(slot);
        free(timed);
    }
    free(later);
    free(later_r);
    free(later_ok);
    for (int i = 0; i < KL_MAX_BUFFERS; i++) free(inputs[i]);
    if (o->csv) env_write(o->csv, e);
    return wrong ? KL_EXIT_WRONG : KL_EXIT_OK;
}
