// copy.cuh: the vectorized copy kernel. Chapter 00 measures it as a ceiling; chapters that
// move data (01-transpose) run it as a baseline. CUDA only.
#ifndef KL_COPY_CUH
#define KL_COPY_CUH

#include "check.h"

// Each thread copies 16 bytes per access, so a warp reads and writes 512 contiguous bytes per
// instruction; COPY_UNROLL float4s per thread per iteration keep four independent loads in
// flight before the first store.
#define COPY_THREADS 256
#define COPY_UNROLL 4
// Blocks per SM: enough to fill every SM several times over, few enough that each thread
// loops a while (the grid strides over the array).
#define COPY_BLOCKS_PER_SM 32

__global__ void copy_kernel(const float4 *__restrict__ in, float4 *__restrict__ out,
                            size_t count4) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // the unrolled body, while i, i + stride, ..., i + 3 * stride are all in range
    for (; i + (COPY_UNROLL - 1) * stride < count4; i += COPY_UNROLL * stride) {
        float4 v[COPY_UNROLL];
#pragma unroll
        for (int u = 0; u < COPY_UNROLL; u++) v[u] = in[i + u * stride];
#pragma unroll
        for (int u = 0; u < COPY_UNROLL; u++) out[i + u * stride] = v[u];
    }
    for (; i < count4; i += stride) out[i] = in[i];  // what is left, one at a time
}

// The last count % 4 floats, which do not fill a float4.
__global__ void copy_tail_kernel(const float *__restrict__ in, float *__restrict__ out,
                                 size_t first, size_t count) {
    size_t i = first + threadIdx.x;
    if (i < count) out[i] = in[i];
}

// Copies count floats; in and out come from cudaMalloc, so they are 16-byte aligned.
static inline void copy_floats(const float *in, float *out, size_t count) {
    static int sms = 0;
    if (!sms) CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t count4 = count / 4;
    size_t blocks = ceil_div(count4, COPY_THREADS);
    if (blocks > (size_t)sms * COPY_BLOCKS_PER_SM) blocks = (size_t)sms * COPY_BLOCKS_PER_SM;
    if (count4 > 0) {
        copy_kernel<<<(unsigned)blocks, COPY_THREADS>>>((const float4 *)in, (float4 *)out, count4);
        CHECK_LAUNCH();
    }
    if (count % 4) {
        copy_tail_kernel<<<1, 4>>>(in, out, count4 * 4, count);
        CHECK_LAUNCH();
    }
}

#endif
