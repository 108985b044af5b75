// ---- the sum of every GPU's input over a range, loaded over NVLink (v6 on) ----------------------
// out[lo + i] = x[0][lo + i] + ... + x[G-1][lo + i] for i in [0, count), shared by `threads`
// threads of which we are `thread`: v4's sum kernel as a function that a block (v7) or a whole
// grid (v6, v6a) calls. The GPUs are added in the same order on every GPU, so every GPU gets the
// same bits. Each thread issues INFLIGHT 16-byte loads from one GPU before adding them; the
// inputs are read at the L2 (__ldcg), past an L1 that may hold an old copy. lo is a multiple of
// ALIGN floats, so the float4 loads are aligned; the last 0-3 floats are added one by one.
__device__ void sum_range(float *__restrict__ out, const float *const *x, int gpus, size_t lo,
                          size_t count, size_t thread, size_t threads) {
    constexpr int INFLIGHT = 4;  // as copy_range: loads a thread issues before the adds
    size_t count4 = count / 4;
    float4 *dst = (float4 *)(out + lo);
    for (size_t i = thread; i < count4; i += INFLIGHT * threads) {
        float4 s[INFLIGHT];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) s[u] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int h = 0; h < gpus; h++) {
            const float4 *src = (const float4 *)(x[h] + lo);
            float4 q[INFLIGHT];
#pragma unroll
            for (int u = 0; u < INFLIGHT; u++)  // all issued before the adds
                q[u] = i + u * threads < count4 ? __ldcg(&src[i + u * threads])
                                                : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
            for (int u = 0; u < INFLIGHT; u++)
                s[u] = make_float4(s[u].x + q[u].x, s[u].y + q[u].y, s[u].z + q[u].z,
                                   s[u].w + q[u].w);
        }
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++)
            if (i + u * threads < count4) dst[i + u * threads] = s[u];
    }
    for (size_t k = 4 * count4 + thread; k < count; k += threads) {  // the last 0-3 floats
        float s = 0.0f;
        for (int h = 0; h < gpus; h++) s += __ldcg(&x[h][lo + k]);
        out[lo + k] = s;
    }
}
