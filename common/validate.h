// validate.h: comparing a GPU result with the CPU reference. Plain C.
#ifndef KL_VALIDATE_H
#define KL_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// What a comparison found. Comparisons accumulate, so a chapter can check a sample of rows
// one row at a time into the same result.
typedef struct {
    size_t count;     // elements compared
    size_t bad;       // elements outside the tolerance (NaN always is)
    double max_abs;   // largest |got - want|
    double max_rel;   // largest |got - want| / |want| over elements with want != 0
    int printed;      // mismatches printed so far (at most KL_MAX_PRINTED)
} check_result;

#define KL_MAX_PRINTED 5

void check_init(check_result *r);

// True when something was compared and nothing was out of tolerance.
bool check_ok(const check_result *r);

// Element (i, j) of a rows x cols block passes when |got - want| <= atol + rtol * |want|.
// A NaN in got fails, unless want is NaN too; an infinity passes only against the same
// infinity. `row0` is the block's first row in the whole matrix, for the printed positions.
// The first few mismatches are printed as (row, col).
void check_f32(check_result *r, const float *got, const float *want, size_t rows, size_t cols,
               size_t row0, double atol, double rtol);
void check_f64(check_result *r, const double *got, const double *want, size_t rows, size_t cols,
               size_t row0, double atol, double rtol);

// Exact comparison of counts.
void check_u32(check_result *r, const uint32_t *got, const uint32_t *want, size_t rows,
               size_t cols, size_t row0);

#ifdef __cplusplus
}
#endif
#endif
