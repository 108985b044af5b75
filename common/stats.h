// stats.h: summarizing repeated timings. Plain C.
#ifndef KL_STATS_H
#define KL_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double median, min, max;  // milliseconds
} timing;

// Median (the mean of the middle two for an even count), min and max of ms[0..count).
// Reorders ms. count must be >= 1.
timing timing_summary(double *ms, size_t count);

#ifdef __cplusplus
}
#endif
#endif
