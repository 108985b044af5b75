// ---- Hopper's rings of stages, for both programs (v4a on) ---------------------------------------
// What hopper-tiles.cuh (the BF16 ladder's Hopper versions) and fp8-tiles.cuh (the FP8 program)
// share, whatever the element type: where a ring of stages starts in shared memory, how a
// consumer warp hands a stage back, the driver's tensor-map encoder and a kernel's shared-memory
// limit.

// Dynamic shared memory starts on 16 bytes; the swizzled tiles need 1024. We ask for 1 KB more
// than the ring and start it at the first multiple of 1024.
template <class Ring>
constexpr size_t ring_bytes() {
    return sizeof(Ring) + 1024;
}

#ifdef KL_SM90A
template <class Ring>
__device__ inline Ring &ring_at(unsigned char *raw) {
    return *reinterpret_cast<Ring *>(raw + ((1024 - smem(raw) % 1024) % 1024));
}

// A consumer warp says it is done with a stage: one arrival per warp, once all its lanes are.
__device__ inline void release_stage(uint64_t *empty) {
    __syncwarp();
    if (threadIdx.x % 32 == 0) mbar_arrive(empty);
}
#endif  // KL_SM90A

// The driver's cuTensorMapEncodeTiled, looked up at run time (the program links the runtime, not
// the driver).
typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                    const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                    const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static encode_tiled_fn tensor_map_encoder(void) {
    static encode_tiled_fn encode = NULL;  // the driver's function, found once
    if (!encode) {
        cudaDriverEntryPointQueryResult found;
        CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                               cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess) {
            fprintf(stderr, "the driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12)\n");
            exit(KL_EXIT_GPU);
        }
    }
    return encode;
}

// Raises a kernel's dynamic shared memory limit past the default 48 KB (once is enough).
template <class Kernel>
static void allow_smem(Kernel kernel, size_t bytes) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}
