// rng.h: a small, seeded, platform-independent random generator for inputs. Plain C.
// Inputs come from a fixed, printed seed, so every run and every machine sees the same data.
#ifndef KL_RNG_H
#define KL_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t state;
} rng;

void rng_init(rng *g, uint64_t seed);
uint64_t rng_next(rng *g);            // 64 random bits (splitmix64)
float rng_float(rng *g, float lo, float hi);   // uniform in [lo, hi), 24 random bits
uint32_t rng_below(rng *g, uint32_t bound);    // uniform in [0, bound), bound >= 1

// Fills x[0..count) with uniform floats in [lo, hi).
void rng_fill_f32(rng *g, float *x, size_t count, float lo, float hi);

#ifdef __cplusplus
}
#endif
#endif
