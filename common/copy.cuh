// copy.cuh: the vectorized copy kernel. Chapter 00 measures it as a ceiling; chapters that
// move data (01-transpose) run it as a baseline. CUDA only.
#ifndef KL_COPY_CUH
#define KL_COPY_CUH

#include "check.h"

// One float4 per thread and as many blocks as that takes: each warp reads and writes 512
// contiguous bytes with one instruction each, and every block is short and independent, so the
// GPU always has blocks ready to start while others wait on memory. (A grid-stride loop over a
// few blocks per SM, with several loads in flight per thread, measured slower on the H200.)
// TRY: a grid-stride version with COPY_THREADS * 4 elements per block per trip; compare.
#define COPY_THREADS 256

__global__ void copy_kernel(const float4 *__restrict__ in, float4 *__restrict__ out,
                            size_t count4) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count4) out[i] = in[i];
}

// The last count % 4 floats, which do not fill a float4.
__global__ void copy_tail_kernel(const float *__restrict__ in, float *__restrict__ out,
                                 size_t first, size_t count) {
    size_t i = first + threadIdx.x;
    if (i < count) out[i] = in[i];
}

// Copies count floats; in and out come from cudaMalloc, so they are 16-byte aligned.
static inline void copy_floats(const float *in, float *out, size_t count) {
    size_t count4 = count / 4;
    if (count4 > 0) {
        unsigned blocks = (unsigned)ceil_div(count4, COPY_THREADS);
        copy_kernel<<<blocks, COPY_THREADS>>>((const float4 *)in, (float4 *)out, count4);
        CHECK_LAUNCH();
    }
    if (count % 4) {
        copy_tail_kernel<<<1, 4>>>(in, out, count4 * 4, count);
        CHECK_LAUNCH();
    }
}

#endif
