// stats.c: summarizing repeated timings (stats.h).
#include "stats.h"

#include <stdlib.h>

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

timing timing_summary(double *ms, size_t count) {
    qsort(ms, count, sizeof ms[0], by_value);
    timing t;
    t.min = ms[0];
    t.max = ms[count - 1];
    t.median = (count % 2) ? ms[count / 2] : 0.5 * (ms[count / 2 - 1] + ms[count / 2]);
    return t;
}
