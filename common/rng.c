// rng.c: splitmix64 (Steele, Lea and Flood, 2014), small and good enough for test data.
#define _POSIX_C_SOURCE 200809L
#include "rng.h"

#include <pthread.h>
#include <unistd.h>

#include "progress.h"

// splitmix64's state steps by this constant, so value i of a sequence is a function of
// seed + (i + 1) * GOLDEN: any part of the sequence can start without the parts before it.
#define GOLDEN 0x9E3779B97F4A7C15ull

void rng_init(rng *g, uint64_t seed) { g->state = seed; }

uint64_t rng_next(rng *g) {
    uint64_t z = (g->state += GOLDEN);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float rng_bits_float(uint64_t bits, float lo, float hi) {
    // the top 24 bits give every float in [0, 1) with spacing 2^-24, exactly representable
    float u = (float)(bits >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

uint32_t rng_bits_below(uint64_t bits, uint32_t bound) {
    // multiply-shift: the bias is below 2^-32, far under anything a test can see
    return (uint32_t)(((bits >> 32) * (uint64_t)bound) >> 32);
}

float rng_float(rng *g, float lo, float hi) { return rng_bits_float(rng_next(g), lo, hi); }

uint32_t rng_below(rng *g, uint32_t bound) { return rng_bits_below(rng_next(g), bound); }

// One thread's share of a fill: values begin..end of the sequence that starts at `state`.
typedef struct {
    uint64_t state;
    size_t begin, end;
    void (*put)(void *ctx, size_t i, uint64_t bits);
    void *ctx;
    progress *pr;  // the first part reports for all
} fill_part;

static void *fill(void *arg) {
    fill_part *f = (fill_part *)arg;
    rng g = {f->state + (uint64_t)f->begin * GOLDEN};  // where a single thread would be
    const size_t step = 1u << 20;
    for (size_t i = f->begin; i < f->end; i += step) {
        size_t stop = i + step < f->end ? i + step : f->end;
        for (size_t j = i; j < stop; j++) f->put(f->ctx, j, rng_next(&g));
        progress_update(f->pr, (double)(stop - f->begin) / (double)(f->end - f->begin));
    }
    return NULL;
}

void rng_fill(rng *g, size_t count, void (*put)(void *ctx, size_t i, uint64_t bits), void *ctx) {
    enum { MAX_THREADS = 32 };
    const size_t per_thread = (size_t)1 << 22;  // fewer values than this are not worth a thread
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = count / per_thread;
    if (threads > (size_t)(cpus > 0 ? cpus : 1)) threads = (size_t)(cpus > 0 ? cpus : 1);
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads < 1) threads = 1;
    progress pr;
    progress_begin(&pr, "making the input", 1.0);
    fill_part parts[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (size_t t = 0; t < threads; t++) {
        parts[t] = (fill_part){g->state, count * t / threads, count * (t + 1) / threads, put, ctx,
                               t == 0 ? &pr : NULL};
        if (t > 0) started[t] = pthread_create(&ids[t], NULL, fill, &parts[t]) == 0;
    }
    fill(&parts[0]);  // the first part runs here, and so does any part whose thread did not start
    for (size_t t = 1; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        else fill(&parts[t]);
    }
    progress_end(&pr);
    g->state += (uint64_t)count * GOLDEN;  // as if the values had been drawn one by one
}

typedef struct {
    float *x;
    float lo, hi;
} uniform_floats;

static void put_float(void *ctx, size_t i, uint64_t bits) {
    uniform_floats *u = (uniform_floats *)ctx;
    u->x[i] = rng_bits_float(bits, u->lo, u->hi);
}

void rng_fill_f32(rng *g, float *x, size_t count, float lo, float hi) {
    uniform_floats u = {x, lo, hi};
    rng_fill(g, count, put_float, &u);
}
