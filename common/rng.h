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

// The same two, from 64 bits that rng_next returned: rng_float(g, ...) is
// rng_bits_float(rng_next(g), ...).
float rng_bits_float(uint64_t bits, float lo, float hi);
uint32_t rng_bits_below(uint64_t bits, uint32_t bound);

// Calls put(ctx, i, bits) for i in [0, count), with bits the i-th value rng_next would return,
// on several threads when count is large (so put must only write element i), and leaves g
// where count calls of rng_next would. The same data whatever the number of threads.
void rng_fill(rng *g, size_t count, void (*put)(void *ctx, size_t i, uint64_t bits), void *ctx);

// Fills x[0..count) with uniform floats in [lo, hi): the same values as count calls of
// rng_float, made by several threads when count is large, and g ends where those calls would
// leave it. Says how far it is on stderr when that takes long (progress.h).
void rng_fill_f32(rng *g, float *x, size_t count, float lo, float hi);

#ifdef __cplusplus
}
#endif
#endif
