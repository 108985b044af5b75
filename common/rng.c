// rng.c: splitmix64 (Steele, Lea and Flood, 2014), small and good enough for test data.
#include "rng.h"

void rng_init(rng *g, uint64_t seed) { g->state = seed; }

uint64_t rng_next(rng *g) {
    uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float rng_float(rng *g, float lo, float hi) {
    // the top 24 bits give every float in [0, 1) with spacing 2^-24, exactly representable
    float u = (float)(rng_next(g) >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

uint32_t rng_below(rng *g, uint32_t bound) {
    // multiply-shift: the bias is below 2^-32, far under anything a test can see
    return (uint32_t)(((rng_next(g) >> 32) * (uint64_t)bound) >> 32);
}

void rng_fill_f32(rng *g, float *x, size_t count, float lo, float hi) {
    for (size_t i = 0; i < count; i++) x[i] = rng_float(g, lo, hi);
}
