// progress.c: the progress line (progress.h).
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void progress_format(char *buf, size_t len, const char *what, double done, double total,
                     double elapsed) {
    double frac = total > 0 ? done / total : 0.0;
    if (frac > 1.0) frac = 1.0;
    if (frac <= 0.0) {
        snprintf(buf, len, "%s: started (%.0f s so far)", what, elapsed);
        return;
    }
    double left = elapsed * (1.0 - frac) / frac;  // at the pace so far
    snprintf(buf, len, "%s: %.0f%% (%.0f s so far, about %.0f s left)", what, 100.0 * frac,
             elapsed, left);
}

void progress_begin(progress *p, const char *what, double total) {
    const char *force = getenv("KL_PROGRESS");
    p->what = what;
    p->total = total;
    p->t0 = now();
    p->next = p->t0 + PROGRESS_AFTER;
    p->on = isatty(fileno(stderr)) || (force && strcmp(force, "1") == 0);
    p->shown = 0;
}

void progress_update(progress *p, double done) {
    if (!p || !p->on) return;
    double t = now();
    if (t < p->next) return;
    p->next = t + 0.5;  // two lines a second at most
    char line[256];
    progress_format(line, sizeof line, p->what, done, p->total, t - p->t0);
    fprintf(stderr, "\r%-78s", line);
    fflush(stderr);
    p->shown = 1;
}

void progress_end(progress *p) {
    if (!p || !p->shown) return;
    fprintf(stderr, "\r%-78s\r", "");  // the line goes, the table that follows stays clean
    fflush(stderr);
    p->shown = 0;
}
