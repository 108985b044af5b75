// util.h: exit codes and small integer helpers shared by every chapter. Plain C.
#ifndef KL_UTIL_H
#define KL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Exit codes, the same for every chapter program (docs/methodology.md).
enum {
    KL_EXIT_OK = 0,     // every selected version gave the right result
    KL_EXIT_WRONG = 1,  // a version gave a wrong result
    KL_EXIT_USAGE = 2,  // a bad flag or value; a one-line message names it
    KL_EXIT_GPU = 3,    // no usable GPU, a CUDA error, or a problem too big for the device
};

// ceil(a / b) for b > 0, without the overflow of (a + b - 1) / b.
static inline size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

// The smallest multiple of b that is >= a.
static inline size_t round_up(size_t a, size_t b) { return ceil_div(a, b) * b; }

// a * b, or SIZE_MAX when the product does not fit: a size that overflows is then
// simply "too big for the device" instead of a small wrapped-around number.
static inline size_t size_mul(size_t a, size_t b) {
    if (a != 0 && b > SIZE_MAX / a) return SIZE_MAX;
    return a * b;
}

#ifdef __cplusplus
}
#endif
#endif
