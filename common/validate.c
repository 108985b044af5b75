// validate.c: comparing a GPU result with the CPU reference (validate.h).
#include "validate.h"

#include <math.h>
#include <stdio.h>

void check_init(check_result *r) {
    r->count = r->bad = 0;
    r->max_abs = r->max_rel = 0.0;
    r->printed = 0;
}

bool check_ok(const check_result *r) { return r->count > 0 && r->bad == 0; }

// One element: both inputs already widened to double, which holds every float exactly.
static void check_one(check_result *r, double got, double want, size_t row, size_t col,
                      double atol, double rtol) {
    int pass;
    double err;
    if (isnan(want) || isnan(got)) {
        pass = isnan(want) && isnan(got);
        err = pass ? 0.0 : INFINITY;
    } else if (isinf(want) || isinf(got)) {
        pass = got == want;  // the same infinity
        err = pass ? 0.0 : INFINITY;
    } else {
        err = fabs(got - want);
        pass = err <= atol + rtol * fabs(want);
    }
    r->count++;
    if (err > r->max_abs) r->max_abs = err;
    if (want != 0.0 && !isnan(want)) {
        double rel = isinf(err) ? INFINITY : err / fabs(want);
        if (rel > r->max_rel) r->max_rel = rel;
    } else if (!pass) {
        r->max_rel = INFINITY;
    }
    if (!pass) {
        r->bad++;
        if (r->printed < KL_MAX_PRINTED) {
            printf("    mismatch at (%zu, %zu): got %.9g, want %.9g\n", row, col, got, want);
            r->printed++;
        }
    }
}

void check_f32(check_result *r, const float *got, const float *want, size_t rows, size_t cols,
               size_t row0, double atol, double rtol) {
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            check_one(r, got[i * cols + j], want[i * cols + j], row0 + i, j, atol, rtol);
}

void check_f64(check_result *r, const double *got, const double *want, size_t rows, size_t cols,
               size_t row0, double atol, double rtol) {
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            check_one(r, got[i * cols + j], want[i * cols + j], row0 + i, j, atol, rtol);
}

void check_u32(check_result *r, const uint32_t *got, const uint32_t *want, size_t rows,
               size_t cols, size_t row0) {
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            check_one(r, got[i * cols + j], want[i * cols + j], row0 + i, j, 0.0, 0.0);
}
