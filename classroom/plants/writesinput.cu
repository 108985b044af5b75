// 05-reduction/atomic
// A kernel that sums right but writes its input (it swaps two elements, which leaves the sum as
// it was): a kernel that may write its input can keep a result there from one launch to the
// next. The correctness cases pass; the speed run (--check-each) finds the input changed.
    const float4 *in4 = (const float4 *)in;
    size_t count4 = count / 4;
    size_t first = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK;
    float v = 0.0f;
    for (size_t i = first; i < count4; i += stride) {
        float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (first < count % 4) v += in[4 * count4 + first];
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) atomicAdd(out, v);
    if (blockIdx.x == 0 && threadIdx.x == 0 && count >= 2) {  // planted: after block 0's loads
        float *w = (float *)in, t = w[0];
        w[0] = w[1];
        w[1] = t;
    }
