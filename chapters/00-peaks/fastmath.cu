// fastmath.cu: the sinf and expf rows' kernels once more, in a translation unit of their own that
// the Makefile (chapters/00-peaks/chapter.mk) compiles with --use_fast_math and links into
// build/peaks. The source is the same call as in peaks.cu; the flag alone changes the machine
// code (README: "What fast math changes"). Nothing else in the project is built this way.
#include "check.h"
#include "sfu.cuh"

__global__ void peak_sinf_fastmath(float *out, int iters, float step) {
    sfu_sweep(out, iters, SIN_LO, SIN_SPACING, step, call_sinf());
}

__global__ void peak_expf_fastmath(float *out, int iters, float step) {
    sfu_sweep(out, iters, EXP_LO, EXP_SPACING, step, call_expf());
}

void launch_sinf_fastmath(float *out, unsigned blocks, unsigned threads, int iters, float step) {
    peak_sinf_fastmath<<<blocks, threads>>>(out, iters, step);
    CHECK_LAUNCH();
}

void launch_expf_fastmath(float *out, unsigned blocks, unsigned threads, int iters, float step) {
    peak_expf_fastmath<<<blocks, threads>>>(out, iters, step);
    CHECK_LAUNCH();
}
