// progress.h: one line on stderr, rewritten in place, for host work that may take more than a
// couple of seconds (making the input, the CPU reference): what, how far, how long is left.
// Only when stderr is a terminal, so logs and CSV files stay clean, and only once the work has
// run for PROGRESS_AFTER seconds, so short runs print nothing. Plain C.
#ifndef KL_PROGRESS_H
#define KL_PROGRESS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROGRESS_AFTER 2.0  // seconds of quiet before the first line

typedef struct {
    const char *what;  // "the CPU reference"
    double total;      // units of work: rows, elements
    double t0, next;   // when the work began, and when to print next (seconds)
    int on;            // stderr is a terminal, or KL_PROGRESS=1 asks for the line anyway
    int shown;         // a line was printed, which progress_end clears
} progress;

void progress_begin(progress *p, const char *what, double total);
// Says `done` of `total` units are done. Cheap enough to call once per row; p may be NULL.
void progress_update(progress *p, double done);
void progress_end(progress *p);

// The line progress_update prints, e.g. "the CPU reference: 43% (12 s so far, about 16 s
// left)". Exposed for the unit tests.
void progress_format(char *buf, size_t len, const char *what, double done, double total,
                     double elapsed);

#ifdef __cplusplus
}
#endif
#endif
