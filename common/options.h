// options.h: the command-line contract shared by every chapter program. Plain C.
#ifndef KL_OPTIONS_H
#define KL_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// One row of a chapter's version table. Baselines (not ours: cudaMemcpy, cuBLAS, CUB, a
// measured peak) always run, first; the first row is the one every ratio is taken against.
typedef struct {
    const char *tag;               // "v2", or a plain name for a baseline ("memcpy")
    const char *idea;              // one word: "padded"; the same word in the kernel's name
    void (*launch)(void *problem); // enqueues the version's kernel(s) on the default stream
    unsigned flags;                // KL_BASELINE, KL_UNCHECKED
} version;

enum {
    KL_BASELINE = 1u,  // not ours: always runs, and the first one is the reference for ratios
    KL_UNCHECKED = 2u, // its output is not a result (a peak kernel, a deliberate race)
};

// Everything the command line sets. A chapter fills in its defaults before parsing.
typedef struct {
    // Set by the chapter:
    const char *program;           // "transpose"
    const char *chapter;           // "01-transpose"
    const char *sizes;             // which size flags it takes: "n", "mn" or "mnk"
    const char *const *inputs;     // NULL-terminated names accepted by --input, or NULL
    const char *m_means, *n_means, *k_means;  // what each size counts, for --help: "counters";
                                   // NULL for "rows", "columns" and "inner size"
    // Set by the command line (the chapter's defaults until then):
    size_t m, n, k;                // sizes; a flag the chapter does not take keeps 1
    const char *versions;          // -v LIST: "all", or tags/numbers such as "v0,v2"
    int reps, warmup;              // timed launches, untimed launches before them
    uint64_t seed;                 // input seed, printed in every header
    const char *input;             // --input NAME, one of inputs[]
    bool check_only;               // validate, do not time
    bool flush_l2;                 // evict L2 before every timed launch
    bool check_each;               // poison before, check after every timed launch (grading)
    int batch;                     // --batch N: time N back-to-back launches between one pair
                                   // of events (a launch's time = the batch's / N); 0: an
                                   // event pair around each launch
    bool graph;                    // --graph: that batch captured in a CUDA graph, the graph's
                                   // launch timed (programs that can capture their launches)
    bool interleave;               // --interleave: the versions timed in turns, one launch of
                                   // each a round, so that a clock that moves during the run
                                   // moves under all of them
    int rest_ms;                   // --rest MS: the GPU left idle MS milliseconds before
                                   // each version's timed launches (with --interleave, before
                                   // the rounds), so that none starts right after the
                                   // launches before it, on a clock those may have lowered
    bool list;                     // print the version table and exit
    bool self_test;                // test the CPU reference and exit; needs no GPU
    const char *csv;               // append results here
    const char *save;              // write inputs and outputs as .npy into this folder
    // Grading (classroom/): one process runs a version and another, which never runs the
    // version's code, checks what it wrote.
    const char *dump;              // write each version's raw output into this folder
    const char *verify;            // check the outputs in this folder instead of running
} options;

// Parses argv into o. Returns KL_EXIT_OK to go on, KL_EXIT_USAGE after printing a one-line
// message on stderr, or -1 after printing the help text (the caller exits 0).
int options_parse(options *o, int argc, char **argv);

// Prints the usage text, with every default as the chapter set it.
void options_usage(const options *o, FILE *out);

// Marks selected[i] for each row of the table that `list` names ("all", "v2", "2", "padded",
// comma separated). Baselines are always selected. Returns KL_EXIT_OK, or KL_EXIT_USAGE after
// a one-line message naming the unknown version.
int select_versions(const char *program, const char *list, const version *table, int count,
                    bool *selected);

// The largest value any size flag takes: 2^31 - 1, so that one index along one dimension
// always fits in an int. Whether the whole problem fits is the GPU's to say (exit code 3).
#define KL_MAX_SIZE 2147483647ull

// The start of every chapter's main: parses argv, prints --help or --list and exits 0, exits 2
// on a usage error, and marks the selected rows of the version table.
void options_begin(options *o, int argc, char **argv, const version *table, int count,
                   bool *selected);

// Parses a whole number: digits only, min <= value <= max. Returns 0 or prints why not (one line,
// naming the flag and the least it takes) and returns KL_EXIT_USAGE. Exposed for the unit tests.
int parse_whole(const char *program, const char *flag, const char *text, uint64_t min,
                uint64_t max, uint64_t *out);
// A size or count: parse_whole with min 1.
int parse_count(const char *program, const char *flag, const char *text, uint64_t max,
                uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif
