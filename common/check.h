// check.h: every CUDA call checked. CUDA only (it needs cuda_runtime.h).
#ifndef KL_CHECK_H
#define KL_CHECK_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

// CHECK(cudaMalloc(&p, bytes)) prints the call as written, where it is, and CUDA's own words
// for the error, then exits with code 3. Running out of device memory gets its own message,
// since it usually means the problem is too big for this GPU.
#define CHECK(call) kl_check((call), #call, __FILE__, __LINE__)

// After every kernel launch: a bad configuration (too many threads, too much shared memory)
// is reported here, at the launch, instead of at some later call.
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

static inline void kl_check(cudaError_t err, const char *call, const char *file, int line) {
    if (err == cudaSuccess) return;
    if (err == cudaErrorMemoryAllocation)
        fprintf(stderr, "CUDA error: %s at %s:%d: out of device memory (the problem is too big "
                "for this GPU)\n", call, file, line);
    else
        fprintf(stderr, "CUDA error: %s at %s:%d: %s\n", call, file, line,
                cudaGetErrorString(err));
    exit(KL_EXIT_GPU);
}

#endif
