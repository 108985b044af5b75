// options.c: parsing the command line every chapter shares (options.h).
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int parse_whole(const char *program, const char *flag, const char *text, uint64_t min,
                uint64_t max, uint64_t *out) {
    // strtoull accepts "-5" (wrapping it) and leading blanks, so we insist on digits only.
    const char *p = text;
    if (*p == '\0') {
        fprintf(stderr, "%s: %s: empty value; expected a whole number >= %llu\n", program, flag,
                (unsigned long long)min);
        return KL_EXIT_USAGE;
    }
    for (; *p; p++) {
        if (*p < '0' || *p > '9') {
            const char *why = (text[0] == '-') ? "is negative" : "is not a whole number";
            fprintf(stderr, "%s: %s: '%s' %s; expected a whole number >= %llu\n", program, flag,
                    text, why, (unsigned long long)min);
            return KL_EXIT_USAGE;
        }
    }
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || v > max) {
        fprintf(stderr, "%s: %s: '%s' is too large; the most is %llu\n", program, flag, text,
                (unsigned long long)max);
        return KL_EXIT_USAGE;
    }
    if (v < min) {
        fprintf(stderr, "%s: %s: '%s' is %s; expected a whole number >= %llu\n", program, flag,
                text, v == 0 ? "zero" : "too small", (unsigned long long)min);
        return KL_EXIT_USAGE;
    }
    *out = v;
    return KL_EXIT_OK;
}

int parse_count(const char *program, const char *flag, const char *text, uint64_t max,
                uint64_t *out) {
    return parse_whole(program, flag, text, 1, max, out);
}

void options_usage(const options *o, FILE *out) {
    fprintf(out, "usage: %s [options]\n\n", o->program);
    fprintf(out, "Chapter %s. Runs the baselines and the selected versions, checks each one\n"
                 "against the CPU reference, times it and prints a table.\n\n", o->chapter);
    if (strchr(o->sizes, 'm'))
        fprintf(out, "  -m M               %s (default %zu)\n", o->m_means ? o->m_means : "rows",
                o->m);
    if (strchr(o->sizes, 'n'))
        fprintf(out, "  -n N               %s (default %zu)\n",
                o->n_means ? o->n_means : "columns", o->n);
    if (strchr(o->sizes, 'k'))
        fprintf(out, "  -k K               %s (default %zu)\n",
                o->k_means ? o->k_means : "inner size", o->k);
    fprintf(out, "  -v, --version LIST versions to run: all, or tags, numbers or ideas such as\n"
                 "                     v0,v2 or 2 or padded (default %s; baselines always run)\n",
            o->versions);
    fprintf(out, "      --reps R       timed launches per version (default %d)\n", o->reps);
    fprintf(out, "      --warmup W     untimed launches first (default %d)\n", o->warmup);
    fprintf(out, "      --seed S       input seed (default %llu, printed)\n",
            (unsigned long long)o->seed);
    if (o->inputs) {
        fprintf(out, "      --input NAME   input data: ");
        for (int i = 0; o->inputs[i]; i++) fprintf(out, "%s%s", i ? ", " : "", o->inputs[i]);
        fprintf(out, " (default %s)\n", o->input);
    }
    fprintf(out, "      --check-only   validate every version, time nothing\n");
    fprintf(out, "      --flush-l2     evict the L2 cache before every timed launch\n");
    fprintf(out, "      --batch N      time N back-to-back launches between one pair of events\n"
                 "                     (a launch's time = the batch's / N, as nccl-tests times);\n"
                 "                     without it, a pair of events around each launch\n");
    fprintf(out, "      --graph        with --batch: capture the batch in a CUDA graph and time\n"
                 "                     the graph's launch (where the program can capture it)\n");
    fprintf(out, "      --interleave   time the versions in turns, R rounds of a launch of each\n"
                 "                     (each round starting one version further), so that a clock\n"
                 "                     that moves during the run moves under all of them; then\n"
                 "                     each is checked once more (CSV timing: interleaved)\n");
    fprintf(out, "      --rest MS      leave the GPU idle MS milliseconds before each version's\n"
                 "                     timed launches (default 0), so that none starts right after\n"
                 "                     the launches before it, on a clock those may have lowered\n");
    fprintf(out, "      --check-each   poison the output before every timed launch, then check it\n"
                 "                     and that the inputs are unchanged (the grader: no launch\n"
                 "                     may skip its work)\n");
    fprintf(out, "      --csv FILE     append results to FILE (header when new)\n");
    fprintf(out, "      --save DIR     write inputs and outputs as .npy files into DIR\n");
    fprintf(out, "      --dump DIR     write each version's raw output to DIR/<version>.out\n"
                 "                     (and, after timing, DIR/<version>.timed.out)\n");
    fprintf(out, "      --verify DIR   run no version of ours: check the outputs that --dump\n"
                 "                     wrote into DIR (same sizes, seed and input)\n");
    fprintf(out, "      --list         list the versions and exit\n");
    fprintf(out, "      --self-test    test the CPU reference on tiny cases and exit (no GPU)\n");
    fprintf(out, "  -h, --help         this text\n\n");
    fprintf(out, "Exit codes: 0 all correct, 1 a wrong result, 2 bad usage,\n"
                 "3 no usable GPU, a CUDA error, or a problem too big for the GPU.\n");
}

// Long-only options get codes above the range of characters.
enum { OPT_REPS = 256, OPT_WARMUP, OPT_SEED, OPT_INPUT, OPT_CHECK_ONLY, OPT_FLUSH_L2, OPT_CSV,
       OPT_CHECK_EACH, OPT_BATCH, OPT_GRAPH, OPT_INTERLEAVE, OPT_REST, OPT_SAVE, OPT_DUMP,
       OPT_VERIFY, OPT_LIST, OPT_SELF_TEST };

int options_parse(options *o, int argc, char **argv) {
    static const struct option longs[] = {
        {"version", required_argument, NULL, 'v'},  {"reps", required_argument, NULL, OPT_REPS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"seed", required_argument, NULL, OPT_SEED}, {"input", required_argument, NULL, OPT_INPUT},
        {"check-only", no_argument, NULL, OPT_CHECK_ONLY},
        {"flush-l2", no_argument, NULL, OPT_FLUSH_L2}, {"csv", required_argument, NULL, OPT_CSV},
        {"check-each", no_argument, NULL, OPT_CHECK_EACH},
        {"batch", required_argument, NULL, OPT_BATCH}, {"graph", no_argument, NULL, OPT_GRAPH},
        {"interleave", no_argument, NULL, OPT_INTERLEAVE},
        {"rest", required_argument, NULL, OPT_REST},
        {"save", required_argument, NULL, OPT_SAVE}, {"dump", required_argument, NULL, OPT_DUMP},
        {"verify", required_argument, NULL, OPT_VERIFY}, {"list", no_argument, NULL, OPT_LIST},
        {"self-test", no_argument, NULL, OPT_SELF_TEST}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;  // we print our own one-line messages
    optind = 0;  // 0, not 1: glibc then resets all its state, so parsing can run again (tests)
    int c;
    while ((c = getopt_long(argc, argv, ":m:n:k:v:h", longs, NULL)) != -1) {
        uint64_t v = 0;
        int rc = KL_EXIT_OK;
        switch (c) {
        case 'm': case 'n': case 'k': {
            char flag[3] = {'-', (char)c, '\0'};
            if (!strchr(o->sizes, c)) {
                fprintf(stderr, "%s: %s: this chapter takes no such size (it takes %s)\n",
                        o->program, flag, strcmp(o->sizes, "n") == 0 ? "-n" :
                        strcmp(o->sizes, "mn") == 0 ? "-m and -n" :
                        strcmp(o->sizes, "nk") == 0 ? "-n and -k" : "-m, -n and -k");
                return KL_EXIT_USAGE;
            }
            rc = parse_count(o->program, flag, optarg, KL_MAX_SIZE, &v);
            if (c == 'm') o->m = v;
            if (c == 'n') o->n = v;
            if (c == 'k') o->k = v;
            break;
        }
        case 'v': o->versions = optarg; break;
        case OPT_REPS:
            rc = parse_count(o->program, "--reps", optarg, 1000000, &v);
            o->reps = (int)v;
            break;
        case OPT_WARMUP:
            // zero warm-up runs is allowed (the sanitizers use it)
            rc = parse_whole(o->program, "--warmup", optarg, 0, 1000000, &v);
            o->warmup = (int)v;
            break;
        case OPT_SEED:  // --seed may be 0
            rc = parse_whole(o->program, "--seed", optarg, 0, UINT64_MAX, &o->seed);
            break;
        case OPT_INPUT: {
            int found = 0;
            for (int i = 0; o->inputs && o->inputs[i]; i++)
                if (strcmp(o->inputs[i], optarg) == 0) found = 1;
            if (!found) {
                fprintf(stderr, "%s: --input: unknown input '%s'%s\n", o->program, optarg,
                        o->inputs ? " (see --help)" : "; this chapter has only one input");
                return KL_EXIT_USAGE;
            }
            o->input = optarg;
            break;
        }
        case OPT_CHECK_ONLY: o->check_only = true; break;
        case OPT_FLUSH_L2: o->flush_l2 = true; break;
        case OPT_CHECK_EACH: o->check_each = true; break;
        case OPT_BATCH:
            rc = parse_count(o->program, "--batch", optarg, 1000000, &v);
            o->batch = (int)v;
            break;
        case OPT_GRAPH: o->graph = true; break;
        case OPT_INTERLEAVE: o->interleave = true; break;
        case OPT_REST:  // 0: no rest; at most a minute
            rc = parse_whole(o->program, "--rest", optarg, 0, 60000, &v);
            o->rest_ms = (int)v;
            break;
        case OPT_CSV: o->csv = optarg; break;
        case OPT_SAVE: o->save = optarg; break;
        case OPT_DUMP: o->dump = optarg; break;
        case OPT_VERIFY: o->verify = optarg; break;
        case OPT_LIST: o->list = true; break;
        case OPT_SELF_TEST: o->self_test = true; break;
        case 'h': options_usage(o, stdout); return -1;
        case ':':
            fprintf(stderr, "%s: %s needs a value (see --help)\n", o->program, argv[optind - 1]);
            return KL_EXIT_USAGE;
        default:
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", o->program,
                    argv[optind - 1]);
            return KL_EXIT_USAGE;
        }
        if (rc != KL_EXIT_OK) return rc;
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", o->program, argv[optind]);
        return KL_EXIT_USAGE;
    }
    if (o->graph && !o->batch) {
        fprintf(stderr, "%s: --graph captures a batch: give --batch N too\n", o->program);
        return KL_EXIT_USAGE;
    }
    if (o->batch && o->check_each) {
        fprintf(stderr, "%s: --batch and --check-each: the grader checks every launch, which a "
                "batch does not; give one of the two\n", o->program);
        return KL_EXIT_USAGE;
    }
    if (o->interleave && (o->batch || o->check_each || o->dump || o->verify)) {
        const char *other = o->batch        ? "--batch"
                            : o->check_each ? "--check-each"
                            : o->dump       ? "--dump"
                                            : "--verify";
        fprintf(stderr, "%s: --interleave and %s: --interleave times single launches in turns, "
                "for a benchmark; give one of the two\n", o->program, other);
        return KL_EXIT_USAGE;
    }
    if (o->dump && o->verify) {
        fprintf(stderr, "%s: --dump and --verify: one process writes outputs, another checks "
                "them; give one of the two\n", o->program);
        return KL_EXIT_USAGE;
    }
    return KL_EXIT_OK;
}

// Does one name from the -v list pick table row i? "v2", "2" and "padded" all pick v2.
static int names_row(const char *name, size_t len, const version *row) {
    if (strlen(row->tag) == len && strncmp(row->tag, name, len) == 0) return 1;
    if (strlen(row->idea) == len && strncmp(row->idea, name, len) == 0) return 1;
    return row->tag[0] == 'v' && strlen(row->tag + 1) == len &&
           strncmp(row->tag + 1, name, len) == 0;
}

int select_versions(const char *program, const char *list, const version *table, int count,
                    bool *selected) {
    int all = strcmp(list, "all") == 0;
    for (int i = 0; i < count; i++) selected[i] = all || (table[i].flags & KL_BASELINE);
    if (all) return KL_EXIT_OK;
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int i = 0; i < count; i++)
            if (len > 0 && names_row(p, len, &table[i])) selected[i] = true, found = 1;
        if (!found) {
            fprintf(stderr, "%s: --version: unknown version '%.*s' (see --list)\n", program,
                    (int)len, p);
            return KL_EXIT_USAGE;
        }
        if (p[len] == '\0') break;
        p += len + 1;
    }
    return KL_EXIT_OK;
}

void options_begin(options *o, int argc, char **argv, const version *table, int count,
                   bool *selected) {
    int rc = options_parse(o, argc, argv);
    if (rc < 0) exit(KL_EXIT_OK);  // --help was printed
    if (rc != KL_EXIT_OK) exit(rc);
    if (o->list) {  // columns as wide as the longest tag and idea, 12 at least
        int tag_w = 12, idea_w = 12;
        for (int i = 0; i < count; i++) {
            if ((int)strlen(table[i].tag) > tag_w) tag_w = (int)strlen(table[i].tag);
            if ((int)strlen(table[i].idea) > idea_w) idea_w = (int)strlen(table[i].idea);
        }
        printf("%-*s %-*s %s\n", tag_w, "version", idea_w, "idea", "kind");
        for (int i = 0; i < count; i++)
            printf("%-*s %-*s %s\n", tag_w, table[i].tag, idea_w, table[i].idea,
                   (table[i].flags & KL_BASELINE) ? "baseline (always runs)" : "ours");
        exit(KL_EXIT_OK);
    }
    rc = select_versions(o->program, o->versions, table, count, selected);
    if (rc != KL_EXIT_OK) exit(rc);
}
