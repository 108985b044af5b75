// gpu.h: the GPU side of the harness: the device, memory, timing, and the loop that runs
// each version. CUDA only; everything that needs no GPU lives in the plain C files.
#ifndef KL_GPU_H
#define KL_GPU_H

#include "check.h"
#include "options.h"
#include "report.h"
#include "stats.h"
#include "validate.h"

// Picks device 0 and fills e. Exits with code 3 and a one-line message when there is no
// usable GPU, so a chapter calls it only after its options are parsed.
// The flags the program was built with, for env.csv. The Makefile compiles each chapter with
// KL_CHAPTER_FLAGS, its own command line, which replaces the common flags before main runs.
extern const char *kl_flags;
#ifdef KL_CHAPTER_FLAGS
__attribute__((constructor)) static void kl_chapter_flags(void) { kl_flags = KL_CHAPTER_FLAGS; }
#endif
void gpu_open(env_info *e);

// Exits with code 3 and a one-line message when `bytes` (everything the problem needs at once)
// is more than the device has free. Call it before the first allocation.
void gpu_require(size_t bytes, const char *what);

// cudaMalloc that first says, in one line, when the problem does not fit in device memory
// (exit code 3). `what` names the buffer in that message.
void *gpu_alloc(size_t bytes, const char *what);

// malloc for the host copies, with the same one-line message when memory runs out.
void *host_alloc(size_t bytes, const char *what);

// Fills a device buffer with 0xFF bytes: NaN as floats, 0xFFFFFFFF as counts. A version that
// forgets to write an element cannot pass.
void gpu_poison(void *p, size_t bytes);

// Times v->launch(problem): `warmup` untimed launches, then `reps` launches each between its
// own pair of events, so nothing but the launch is timed. With flush_l2, a buffer twice the
// size of L2 is overwritten before each timed launch, outside its events.
timing time_launches(const version *v, void *problem, int warmup, int reps, bool flush_l2);

// --batch: `warmup` untimed launches, then `reps` batches of `batch` back-to-back launches, each
// batch between one pair of events; the times are a batch's divided by `batch`, a launch's time
// without the gaps an event pair around each launch leaves (the way nccl-tests times). With
// flush_l2 the L2 is overwritten before each batch, outside its events.
timing time_batches(const version *v, void *problem, int warmup, int reps, int batch,
                    bool flush_l2);

#define KL_MAX_BUFFERS 4

// What a chapter tells the loop below about its problem.
typedef struct {
    void *problem;      // the chapter's own struct, passed to every callback
    void *out;          // device output, poisoned before each version
    size_t out_bytes;
    double bytes;       // bytes the algorithm must move per launch (for GB/s), or 0
    double flops;       // operations the algorithm needs per launch (for GFLOP/s), or 0
    // Copies the output back and compares it with what version v should have made, into r.
    void (*check)(void *problem, const version *v, check_result *r);
    // Optional: writes the output as DIR/<tag>.npy (--save).
    void (*save)(void *problem, const char *dir, const char *tag);
    // Optional: one chapter-specific figure for the row, from the median time and what the
    // row's version's last launch and check left (03's pick, 04's counters). It may clear that
    // state; under --interleave it is also called once, its value unused, before the version's
    // last launch, to drop what the other versions' launches left.
    const char *extra_name;
    double (*extra)(void *problem, double ms_median);
    // Optional: why version v cannot run on this GPU or this build (NULL when it can). A
    // skipped version prints one line with the reason instead of its row.
    const char *(*skip)(void *problem, const version *v);
    // Optional: times a batch of `batch` launches of v the chapter's own way, for a chapter
    // whose launch is more than a stream of kernels (07: the streams of several GPUs forked at
    // the start of the batch and joined at its end, once, not around every launch); with
    // `graph`, the batch captured in a CUDA graph. NULL: time_batches, and --graph is refused.
    timing (*time_batch)(void *problem, const version *v, int warmup, int reps, int batch,
                         bool graph);
    // Optional, for --check-each (the grader's speed runs): the device buffers that no version
    // may change (its inputs), and scratch buffers that every launch writes before it reads
    // them (poisoned before each timed launch), so that no version can keep a result in either
    // from one launch to the next. A NULL pointer ends each list.
    const void *inputs[KL_MAX_BUFFERS];
    size_t input_bytes[KL_MAX_BUFFERS];
    void *scratch[KL_MAX_BUFFERS];
    size_t scratch_bytes[KL_MAX_BUFFERS];
} bench;

// For each selected row of the table that b->skip lets run: poison the output, launch once,
// check, time (unless --check-only), check again (the output of the last timed launch), print a
// table row and append it to --csv. With --interleave every version is checked first, then the
// ones that passed are timed together in turns (a launch of each a round), then each is launched
// once more on a poisoned output and checked before its row. Returns KL_EXIT_OK, or
// KL_EXIT_WRONG if any checked version was wrong.
int bench_run(const options *o, const env_info *e, const bench *b, const version *table,
              const bool *selected, int count);

// Prints the run's header line: program, sizes, seed, input and GPU.
void bench_header(const options *o, const env_info *e);

#endif
