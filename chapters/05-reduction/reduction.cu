// Chapter 05: reduction. A sum reads every float once and does one add for it, so memory
// bandwidth is the only ceiling; the lesson is how the threads share out the adds.
//
//   cub          (baseline) CUB DeviceReduce::Sum: the library's tuned reduction
//   v0 divergent   a tree in shared memory, one element a thread; thread t works at step s
//                  when t % 2s == 0, so the working threads are scattered across every warp
//   v1 strided     thread t works on element 2st: the working threads are packed into whole
//                  warps, but their shared-memory addresses are 2s words apart (bank conflicts)
//   v2 sequential  the tree folds the upper half of the range onto the lower half: thread t
//                  adds element t + s, consecutive words, no conflicts
//   v3 firstadd    each thread adds two elements while it loads them: half the blocks, and no
//                  thread that only loads and then idles
//   v4 lastwarp    the last six steps run inside one warp: no block barriers, no idle checks
//   v5 unrolled    the block size is a compile-time constant, so the whole tree unrolls
//   v6 coarsened   a grid sized to fill the GPU once; each thread sums many elements in a
//                  register first, so each block runs the tree once, at the end
//   v7 shuffle     16-byte loads, and warp shuffles instead of shared memory for the tree
//   v8 atomic      one pass: each block adds its sum into the result with one atomicAdd
//   v9 inflight    four 16-byte loads in flight per thread before the first add
//   v10 lastblock  the last block to finish adds the block sums in a fixed order: one kernel,
//                  no memset, and the same bits every run
//
// Build and run:   make build/reduction && build/reduction             (n = 2^28)
//                  build/reduction -n 1000003 -v v7,v9 --reps 50
//                  build/reduction --input positive | --list | --help | --check-only | --save out/
#include <float.h>
#include <math.h>
#include <string.h>

#include <cub/device/device_reduce.cuh>

#include "gpu.h"
#include "npy.h"
#include "rng.h"

// 2^28 floats: 1 GiB read, eighteen times the 50-60 MB L2 of a Hopper GPU, so we measure
// device memory and not the cache. It is also the size CUB's reference figure is taken at.
#define DEFAULT_N 268435456
// 20 timed launches give a stable median; 3 warm-up launches take module loading and
// first-touch effects out of the numbers.
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 42

// --input: what the floats are.
//   signed    uniform in [-1, 1): the usual case; the sum is small next to sum |x|
//   positive  uniform in [0, 1): the sum grows with n, where a plain float loop goes wrong
//   integers  whole numbers 1 to 4: every partial sum is a whole number, exact in a float
//             while it stays below 2^24, so up to n = 2^22 every version must be exact
static const char *const inputs[] = {"signed", "positive", "integers", NULL};

// The problem every version sees.
typedef struct {
    size_t n;
    const float *x;           // the input, n floats on the device
    float *out;               // the result: one float on the device
    float *partials;          // block sums between passes: partials_count floats
    float *partials2;         // and the sums of those, for a third pass: partials2_count
    size_t partials_count, partials2_count;
    void *cub_temp;           // CUB's scratch, allocated once, outside the timed launches
    size_t cub_temp_bytes;
    unsigned grid;            // blocks that fill the GPU once: SMs x the blocks an SM holds
    float *host_x;
    double want, abs_sum;     // the float64 reference sum and sum |x|
    double tol;               // how far a float32 sum may be from want
    float got;                // the last result copied back
} reduction_problem;

// ---- the CPU reference --------------------------------------------------------------------------

// The sum in float64, in order, and sum |x| for the tolerance. A double has 29 more mantissa
// bits than a float, so this is the truth to far better than any float32 sum can be.
static double reduction_cpu(const float *x, size_t n, double *abs_sum) {
    double s = 0.0, a = 0.0;
    for (size_t i = 0; i < n; i++) s += x[i], a += fabs((double)x[i]);
    *abs_sum = a;
    return s;
}

// The loop everyone writes first: a float accumulator, in order. Not a reference: its error
// grows with the running sum (see the self-test and the README). We print it for comparison.
static float naive_float_sum(const float *x, size_t n) {
    float s = 0.0f;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s;
}

// A tree of depth d adds every x[i] into at most d partial sums; each add rounds by at most
// half an ulp, u = 2^-24 of its result, so |got - want| <= d * u * sum |x| (to first order).
// We allow twice that plus one rounding: FLT_EPSILON = 2u times (ceil(log2 n) + 1). Whole
// numbers are exact while every partial sum stays below 2^24 (4n <= 2^24 for inputs 1 to 4).
static double reduction_tolerance(size_t n, double abs_sum, int integers) {
    if (integers && n <= ((size_t)1 << 22)) return 0.0;
    return FLT_EPSILON * (ceil(log2((double)n)) + 1.0) * abs_sum;
}

// ---- baseline ---------------------------------------------------------------------------------

// cub: the library's reduction, two kernels (block sums, then one block over them). Its
// scratch buffer was sized and allocated in main, so only the launches are timed.
static void launch_cub(void *problem) {
    reduction_problem *p = (reduction_problem *)problem;
    CHECK(cub::DeviceReduce::Sum(p->cub_temp, p->cub_temp_bytes, p->x, p->out, (int)p->n));
}

// ---- v0 divergent -------------------------------------------------------------------------------

// One element a thread. The block loads THREADS elements into shared memory and sums them as
// a tree: at step s (1, 2, 4, ...) thread t adds element t + s into element t when t % 2s == 0.
// The working threads are spread out: at s = 1 every other lane of each warp works, at s = 16
// one lane in 32, yet the whole warp issues every instruction. And % of a run-time value is a
// long integer division. Blocks write their sums; the launcher repeats the kernel on the sums
// until one is left.
#define THREADS 256  // a block: eight warps, and a power of two, as the tree needs

__global__ void reduction_v0_divergent(const float *__restrict__ in, float *__restrict__ out,
                                       size_t count) {
    __shared__ float s[THREADS];  // one float per thread
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;  // i in [0, count), consecutive across the warp
    s[t] = i < count ? in[i] : 0.0f;                 // past the end: 0 changes no sum
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0) s[t] += s[t + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// Pass after pass of one kernel: count elements become ceil(count / per_block) block sums,
// until one is left, which the last pass writes to out. The sums ping-pong between the two
// partials buffers; each pass reads one and writes the other.
typedef void (*pass_kernel)(const float *__restrict__, float *__restrict__, size_t);

static void run_passes(reduction_problem *p, pass_kernel kernel, size_t per_block) {
    const float *src = p->x;
    size_t count = p->n;
    float *buffers[2] = {p->partials, p->partials2};
    int which = 0;
    do {
        size_t blocks = ceil_div(count, per_block);
        float *dst = blocks == 1 ? p->out : buffers[which];
        kernel<<<(unsigned)blocks, THREADS>>>(src, dst, count);
        CHECK_LAUNCH();
        src = dst, count = blocks, which ^= 1;
    } while (count > 1);
}

static void launch_v0(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v0_divergent, THREADS);
}

// ---- v1 strided ---------------------------------------------------------------------------------

// The same tree, with the work handed to the first threads: at step s thread t adds element
// 2st + s into element 2st. The working threads now fill whole warps (no divergence until
// fewer than 32 remain), and there is no %. But a warp's 32 addresses are 2s words apart: at
// s = 1 they hit the even banks twice each, at s = 4 four banks eight times each, and shared
// memory serves one word per bank per cycle.
__global__ void reduction_v1_strided(const float *__restrict__ in, float *__restrict__ out,
                                     size_t count) {
    __shared__ float s[THREADS];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    s[t] = i < count ? in[i] : 0.0f;
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned k = 2 * stride * t;  // k in [0, blockDim.x): 2s words apart across the warp
        if (k < blockDim.x) s[k] += s[k + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

static void launch_v1(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v1_strided, THREADS);
}

// ---- v2 sequential ------------------------------------------------------------------------------

// Fold the range in half instead: at step s (blockDim / 2, then half that, ...) thread t < s
// adds element t + s into element t. A warp reads 32 consecutive words and writes 32
// consecutive words, one per bank: no conflicts, and the working threads are still packed.
__global__ void reduction_v2_sequential(const float *__restrict__ in, float *__restrict__ out,
                                        size_t count) {
    __shared__ float s[THREADS];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    s[t] = i < count ? in[i] : 0.0f;
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];  // t and t + s: consecutive across the warp
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

static void launch_v2(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v2_sequential, THREADS);
}

// ---- v3 firstadd --------------------------------------------------------------------------------

// Half the threads of v2 sit idle from the first step on. Here each thread loads two elements,
// blockDim apart (each load still 128 contiguous bytes per warp), and adds them before the
// tree: a block covers 2 x THREADS elements, so half as many blocks run the same tree.
__global__ void reduction_v3_firstadd(const float *__restrict__ in, float *__restrict__ out,
                                      size_t count) {
    __shared__ float s[THREADS];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + t;  // and i + blockDim.x
    float v = i < count ? in[i] : 0.0f;
    if (i + blockDim.x < count) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

static void launch_v3(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v3_firstadd, 2 * THREADS);
}

// ---- v4 lastwarp --------------------------------------------------------------------------------

// Once 64 sums are left, only warp 0 works. Its 32 threads finish the last six steps alone:
// no __syncthreads() for the whole block and no `t < stride` test, only __syncwarp(), which
// keeps the warp's reads of a step before its writes (threads of a warp need not run in
// lockstep since Volta, so we may not assume it). The upper lanes add sums nobody uses:
// cheaper than telling them apart.
__global__ void reduction_v4_lastwarp(const float *__restrict__ in, float *__restrict__ out,
                                      size_t count) {
    __shared__ float s[THREADS];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + t;
    float v = i < count ? in[i] : 0.0f;
    if (i + blockDim.x < count) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();  // the block's elements are all in s before anyone adds
    for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t < 32) {  // warp 0: s[0, 64) holds the block's last 64 sums
        v = s[t];
        for (unsigned stride = 32; stride > 0; stride /= 2) {
            v += s[t + stride];
            __syncwarp();  // every lane has read s[t + stride] before any lane overwrites it
            s[t] = v;
            __syncwarp();  // and has written its sum before the next step reads it
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}

static void launch_v4(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v4_lastwarp, 2 * THREADS);
}

// ---- v5 unrolled --------------------------------------------------------------------------------

// v4's kernel with the block size as a template parameter. The compiler now knows every
// stride, unrolls the tree completely, compares t with constants, and drops the loop counter
// and its branch. The launcher picks the instance for THREADS.
template <unsigned BLOCK>
__global__ void reduction_v5_unrolled(const float *__restrict__ in, float *__restrict__ out,
                                      size_t count) {
    static_assert(BLOCK >= 64 && (BLOCK & (BLOCK - 1)) == 0, "a power of two, two warps or more");
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * BLOCK) + t;
    float v = i < count ? in[i] : 0.0f;
    if (i + BLOCK < count) v += in[i + BLOCK];
    s[t] = v;
    __syncthreads();  // the block's elements are all in s before anyone adds
#pragma unroll
    for (unsigned stride = BLOCK / 2; stride > 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t < 32) {  // warp 0: s[0, 64) holds the block's last 64 sums
        v = s[t];
#pragma unroll
        for (unsigned stride = 32; stride > 0; stride /= 2) {
            v += s[t + stride];
            __syncwarp();  // every lane has read s[t + stride] before any lane overwrites it
            s[t] = v;
            __syncwarp();  // and has written its sum before the next step reads it
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}

static void launch_v5(void *problem) {
    run_passes((reduction_problem *)problem, reduction_v5_unrolled<THREADS>, 2 * THREADS);
}

// ---- v6 coarsened -------------------------------------------------------------------------------

// Until now the tree ran once for every 2 x THREADS elements, and there were as many blocks as
// that. Now the grid is just big enough to fill every SM once, and each thread walks the whole
// array with the grid's stride, adding into a register: one load and one add per element, and
// the tree once per thread at the end. A warp still reads 128 contiguous bytes per step. Two
// passes: the block sums, then one block over them.
// Blocks per SM: as many as an SM holds at once. __launch_bounds__ makes the compiler keep each
// kernel within the registers for that many, so it needs the number at compile time, for each
// architecture: 2048 threads an SM on compute capability 8.0, 9.0 and 10.0, 1536 on 8.6, 8.9
// and 12.0 (the consumer GPUs), 1024 on 7.5. The grid is sized from the GPU itself (main).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define SM_THREADS 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define SM_THREADS 1536
#else
#define SM_THREADS 2048
#endif
#define BLOCKS_PER_SM (SM_THREADS / THREADS)

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, BLOCKS_PER_SM)
    reduction_v6_coarsened(const float *__restrict__ in, float *__restrict__ out, size_t count) {
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK;  // the whole grid's threads
    float v = 0.0f;
    for (size_t i = (size_t)blockIdx.x * BLOCK + t; i < count; i += stride) v += in[i];
    s[t] = v;
    __syncthreads();  // every thread's sum is in s before anyone adds
#pragma unroll
    for (unsigned stride = BLOCK / 2; stride > 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();  // this step's sums are written before the next step reads them
    }
    if (t < 32) {  // warp 0: s[0, 64) holds the block's last 64 sums
        v = s[t];
#pragma unroll
        for (unsigned stride = 32; stride > 0; stride /= 2) {
            v += s[t + stride];
            __syncwarp();  // every lane has read s[t + stride] before any lane overwrites it
            s[t] = v;
            __syncwarp();  // and has written its sum before the next step reads it
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}

// Blocks for a grid-stride pass over `count` items of `per_thread` floats each: the grid
// that fills the GPU, or fewer when the array is small, and at least one.
static unsigned grid_for(const reduction_problem *p, size_t count, size_t per_thread) {
    size_t blocks = ceil_div(count, per_thread * THREADS);
    if (blocks > p->grid) blocks = p->grid;
    return blocks > 0 ? (unsigned)blocks : 1;
}

// Two grid-stride passes: the block sums into partials, then one block sums those into out.
static void run_two_passes(reduction_problem *p, pass_kernel kernel, size_t per_thread) {
    unsigned blocks = grid_for(p, p->n, per_thread);
    if (blocks == 1) {
        kernel<<<1, THREADS>>>(p->x, p->out, p->n);
        CHECK_LAUNCH();
        return;
    }
    kernel<<<blocks, THREADS>>>(p->x, p->partials, p->n);
    CHECK_LAUNCH();
    kernel<<<1, THREADS>>>(p->partials, p->out, blocks);
    CHECK_LAUNCH();
}

static void launch_v6(void *problem) {
    run_two_passes((reduction_problem *)problem, reduction_v6_coarsened<THREADS>, 1);
}

// ---- v7 shuffle ---------------------------------------------------------------------------------

// Two changes to the same plan. Loads of 16 bytes: a float4 a thread, 512 contiguous bytes a
// warp, a quarter of the load instructions. And the tree inside a warp moves through
// registers: __shfl_down_sync hands each lane the value of the lane `offset` above it, so five
// shuffles sum a warp with no shared memory and no barrier. Shared memory holds only the
// eight warp sums, and one __syncthreads() remains.

// Lane 0 ends with the sum of the warp's 32 values (the other lanes hold partial sums).
__device__ float warp_sum(float v) {
    // EXERCISE: shuffle begin
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
    // EXERCISE: shuffle end
}

// Thread 0 ends with the sum of the block's values. All BLOCK threads must call it.
template <unsigned BLOCK>
__device__ float block_sum(float v) {
    // EXERCISE: shuffle begin
    __shared__ float warp_sums[BLOCK / 32];  // one per warp
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();  // every warp's sum is written before warp 0 reads them
    v = 0.0f;
    if (warp == 0) v = warp_sum(lane < BLOCK / 32 ? warp_sums[lane] : 0.0f);
    return v;
    // EXERCISE: shuffle end
}

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, BLOCKS_PER_SM)
    reduction_v7_shuffle(const float *__restrict__ in, float *__restrict__ out, size_t count) {
    // cudaMalloc returns 256-byte aligned memory, so in (x or partials) is 16-byte aligned
    const float4 *in4 = (const float4 *)in;
    size_t count4 = count / 4;                           // whole float4s
    size_t first = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK;
    float v = 0.0f;
    for (size_t i = first; i < count4; i += stride) {  // i: consecutive float4s across the warp
        float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (first < count % 4) v += in[4 * count4 + first];  // the last 0-3 floats: threads 0-2
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

static void launch_v7(void *problem) {
    run_two_passes((reduction_problem *)problem, reduction_v7_shuffle<THREADS>, 4);
}

// ---- v8 atomic ----------------------------------------------------------------------------------

// The second pass was a whole kernel launch to add a few hundred numbers. Instead, each block
// adds its sum straight into the result with one atomicAdd: a thousand atomics on one address,
// spread over the kernel's run, are nothing next to the array. The result must start at zero,
// so the launcher clears it first (cudaMemsetAsync), every launch. The order of the atomics
// varies, so the last bits of the result may vary from run to run.
template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, BLOCKS_PER_SM)
    reduction_v8_atomic(const float *__restrict__ in, float *__restrict__ out, size_t count) {
    // EXERCISE: atomic begin
    const float4 *in4 = (const float4 *)in;  // cudaMalloc'd: 16-byte aligned
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
    // EXERCISE: atomic end
}

static void launch_v8(void *problem) {
    // EXERCISE: atomic begin
    reduction_problem *p = (reduction_problem *)problem;
    CHECK(cudaMemsetAsync(p->out, 0, sizeof(float)));  // the sum starts from zero every launch
    reduction_v8_atomic<THREADS><<<grid_for(p, p->n, 4), THREADS>>>(p->x, p->out, p->n);
    CHECK_LAUNCH();
    // EXERCISE: atomic end
}

// ---- v9 inflight --------------------------------------------------------------------------------

// A thread of v8 issues a load, waits for it (several hundred cycles from device memory),
// adds, and only then issues the next. Device memory needs megabytes in flight across the GPU
// to run at full speed (bandwidth times latency). Here each thread issues INFLIGHT loads, a
// grid stride apart, before the first add: four times the bytes in flight with the same
// threads. The remainder loop takes the last fewer-than-INFLIGHT strides.
#define INFLIGHT 4  // 64 bytes a thread, 128 KiB an SM in flight; 16 registers hold them

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, BLOCKS_PER_SM)
    reduction_v9_inflight(const float *__restrict__ in, float *__restrict__ out, size_t count) {
    const float4 *in4 = (const float4 *)in;  // cudaMalloc'd: 16-byte aligned
    size_t count4 = count / 4;
    size_t first = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK;
    float v = 0.0f;
    size_t i = first;
    for (; i + (INFLIGHT - 1) * stride < count4; i += INFLIGHT * stride) {
        float4 q[INFLIGHT];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) q[u] = in4[i + u * stride];  // all issued first
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) v += (q[u].x + q[u].y) + (q[u].z + q[u].w);
    }
    for (; i < count4; i += stride) {  // what is left, one float4 at a time
        float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (first < count % 4) v += in[4 * count4 + first];
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) atomicAdd(out, v);
}

static void launch_v9(void *problem) {
    reduction_problem *p = (reduction_problem *)problem;
    CHECK(cudaMemsetAsync(p->out, 0, sizeof(float)));  // the sum starts from zero every launch
    reduction_v9_inflight<THREADS><<<grid_for(p, p->n, 4), THREADS>>>(p->x, p->out, p->n);
    CHECK_LAUNCH();
}

// ---- v10 lastblock ------------------------------------------------------------------------------

// No memset and no float atomics: each block writes its sum to partials[block], then counts
// itself done with an integer atomic. The block that counts last knows every sum is written;
// it adds them in block order, writes the result and resets the counter for the next launch.
// One kernel, and the same order of adds every run, so the same bits every run.
// The counter starts at zero when the program loads and every launch leaves it at zero; one
// launch at a time may use it (we launch on one stream).
__device__ unsigned blocks_done;

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, BLOCKS_PER_SM)
    reduction_v10_lastblock(const float *__restrict__ in, float *__restrict__ partials,
                            float *__restrict__ out, size_t count) {
    __shared__ bool last;  // is this block the last one done?
    const float4 *in4 = (const float4 *)in;  // cudaMalloc'd: 16-byte aligned
    size_t count4 = count / 4;
    size_t first = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK;
    float v = 0.0f;
    size_t i = first;
    for (; i + (INFLIGHT - 1) * stride < count4; i += INFLIGHT * stride) {
        float4 q[INFLIGHT];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) q[u] = in4[i + u * stride];  // all issued first
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) v += (q[u].x + q[u].y) + (q[u].z + q[u].w);
    }
    for (; i < count4; i += stride) {  // what is left, one float4 at a time
        float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (first < count % 4) v += in[4 * count4 + first];
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();  // our sum is visible to every block before we count ourselves done
        last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
        __threadfence();  // in the last block: the reads below come after the count we saw
    }
    __syncthreads();  // every thread knows `last`; warp 0 is done with block_sum's shared sums
    if (!last) return;
    // The last block: every block's sum is written. __ldcg reads them from L2, past L1, which
    // may hold none of them. Thread t adds sums t, t + BLOCK, ...: the same order every run.
    v = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) v += __ldcg(&partials[b]);
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) {
        *out = v;
        blocks_done = 0;  // ready for the next launch
    }
}

static void launch_v10(void *problem) {
    reduction_problem *p = (reduction_problem *)problem;
    reduction_v10_lastblock<THREADS><<<grid_for(p, p->n, 4), THREADS>>>(p->x, p->partials, p->out,
                                                                         p->n);
    CHECK_LAUNCH();
}

// ---- the version table --------------------------------------------------------------------------

static const version versions[] = {
    {"cub", "DeviceReduce", launch_cub, KL_BASELINE},
    {"v0", "divergent", launch_v0, 0},
    {"v1", "strided", launch_v1, 0},
    {"v2", "sequential", launch_v2, 0},
    {"v3", "firstadd", launch_v3, 0},
    {"v4", "lastwarp", launch_v4, 0},
    {"v5", "unrolled", launch_v5, 0},
    {"v6", "coarsened", launch_v6, 0},
    {"v7", "shuffle", launch_v7, 0},
    {"v8", "atomic", launch_v8, 0},
    {"v9", "inflight", launch_v9, 0},
    {"v10", "lastblock", launch_v10, 0},
};
#define VERSION_COUNT (int)(sizeof versions / sizeof versions[0])

// ---- checking and saving ------------------------------------------------------------------------

// One float against the float64 reference, within the tolerance of reduction_tolerance.
// Then the partial-sum buffers are poisoned: the harness poisons only out, and a later version
// that skipped a block must not find this version's sums waiting there.
static void reduction_check(void *problem, const version *v, check_result *r) {
    (void)v;
    reduction_problem *p = (reduction_problem *)problem;
    CHECK(cudaMemcpy(&p->got, p->out, sizeof(float), cudaMemcpyDeviceToHost));
    double got = p->got;
    check_f64(r, &got, &p->want, 1, 1, 0, p->tol, 0.0);
    gpu_poison(p->partials, p->partials_count * sizeof(float));
    gpu_poison(p->partials2, p->partials2_count * sizeof(float));
}

static void reduction_save(void *problem, const char *dir, const char *tag) {
    reduction_problem *p = (reduction_problem *)problem;
    size_t shape[1] = {1};
    if (npy_save(dir, tag, "<f4", shape, 1, &p->got) != 0) exit(KL_EXIT_USAGE);
}

// ---- the self-test of the CPU reference (no GPU) -----------------------------------------------

static int reduction_self_test(void) {
    int failed = 0, ok;
    // four numbers worked by hand
    const float hand[4] = {1.0f, 2.0f, 3.5f, -4.0f};
    double abs_sum = 0.0;
    ok = reduction_cpu(hand, 4, &abs_sum) == 2.5 && abs_sum == 10.5;
    printf("%s reduction_cpu: 1 + 2 + 3.5 - 4 = 2.5, sum |x| = 10.5\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    // whole numbers 1 to 4, against an integer count, at the sizes the GPU sweep uses
    const size_t sizes[] = {1, 2, 3, 31, 32, 33, 255, 256, 257, 1023, 1025, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        float *x = (float *)host_alloc(n * sizeof(float), "self-test");
        rng g;
        rng_init(&g, 11 + s);
        long long count = 0;
        for (size_t i = 0; i < n; i++) {
            x[i] = (float)(1 + rng_below(&g, 4));
            count += (long long)x[i];
        }
        ok = reduction_cpu(x, n, &abs_sum) == (double)count && abs_sum == (double)count;
        printf("%s reduction_cpu: whole numbers 1 to 4, n = %zu, sum = %lld exactly\n",
               ok ? "PASS" : "FAIL", n, count);
        failed += !ok;
        free(x);
    }
    // Why the reference is float64: 2^25 ones. A float loop stops at 2^24 = 16777216, where the
    // gap between floats is 2 and 16777216 + 1 rounds back down; the double sum is exact.
    size_t n = (size_t)1 << 25;
    float *ones = (float *)host_alloc(n * sizeof(float), "self-test");
    for (size_t i = 0; i < n; i++) ones[i] = 1.0f;
    ok = reduction_cpu(ones, n, &abs_sum) == 33554432.0;
    printf("%s reduction_cpu: 2^25 ones sum to 33554432\n", ok ? "PASS" : "FAIL");
    failed += !ok;
    ok = naive_float_sum(ones, n) == 16777216.0f;
    printf("%s naive_float_sum: 2^25 ones stop at 16777216 (why the reference is float64)\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    free(ones);
    // the tolerance: exact for small whole-number sums, eps (log2 n + 1) sum |x| otherwise
    ok = reduction_tolerance(1000, 2500.0, 1) == 0.0 &&
         reduction_tolerance((size_t)1 << 23, 1.0, 1) == FLT_EPSILON * 24.0 &&
         reduction_tolerance(1024, 1.0, 0) == FLT_EPSILON * 11.0 &&
         reduction_tolerance(1, 1.0, 0) == FLT_EPSILON;
    printf("%s reduction_tolerance: exact, or FLT_EPSILON * (ceil(log2 n) + 1) * sum |x|\n",
           ok ? "PASS" : "FAIL");
    failed += !ok;
    return failed ? KL_EXIT_WRONG : KL_EXIT_OK;
}

// ---- main ---------------------------------------------------------------------------------------

int main(int argc, char **argv) {
    options o = {};
    o.program = "reduction";
    o.chapter = "05-reduction";
    o.sizes = "n";
    o.n_means = "floats to sum";
    o.inputs = inputs;
    o.input = inputs[0];
    o.m = 1, o.n = DEFAULT_N, o.k = 1;
    o.versions = "all";
    o.reps = DEFAULT_REPS, o.warmup = DEFAULT_WARMUP, o.seed = DEFAULT_SEED;
    bool selected[VERSION_COUNT];
    options_begin(&o, argc, argv, versions, VERSION_COUNT, selected);
    if (o.self_test) return reduction_self_test();

    env_info env;
    gpu_open(&env);
    bench_header(&o, &env);

    reduction_problem p = {};
    p.n = o.n;
    p.grid = (unsigned)(env.sms * (env.sm_threads / THREADS));
    // Pass 1 of v0-v2 leaves ceil(n / THREADS) sums, the most any version leaves; the
    // grid-stride versions leave at most `grid`. Pass 2 leaves at most ceil(that / THREADS).
    p.partials_count = ceil_div(p.n, THREADS);
    if (p.partials_count < p.grid) p.partials_count = p.grid;
    p.partials2_count = ceil_div(p.partials_count, THREADS);
    CHECK(cub::DeviceReduce::Sum(NULL, p.cub_temp_bytes, (const float *)NULL, (float *)NULL,
                                 (int)p.n));
    size_t bytes = size_mul(p.n, sizeof(float));
    size_t scratch = (p.partials_count + p.partials2_count + 1) * sizeof(float);
    gpu_require(bytes + scratch + p.cub_temp_bytes, "the input, partial sums and CUB's scratch");
    p.x = (const float *)gpu_alloc(bytes, "the input");
    p.out = (float *)gpu_alloc(sizeof(float), "the result");
    p.partials = (float *)gpu_alloc(p.partials_count * sizeof(float), "the block sums");
    p.partials2 = (float *)gpu_alloc(p.partials2_count * sizeof(float), "the block sums");
    p.cub_temp = gpu_alloc(p.cub_temp_bytes > 0 ? p.cub_temp_bytes : 1, "CUB's scratch");
    gpu_poison(p.partials, p.partials_count * sizeof(float));
    gpu_poison(p.partials2, p.partials2_count * sizeof(float));
    p.host_x = (float *)host_alloc(bytes, "the input");

    rng g;
    rng_init(&g, o.seed);
    int integers = strcmp(o.input, "integers") == 0;
    if (integers)
        for (size_t i = 0; i < p.n; i++) p.host_x[i] = (float)(1 + rng_below(&g, 4));
    else if (strcmp(o.input, "positive") == 0)
        rng_fill_f32(&g, p.host_x, p.n, 0.0f, 1.0f);
    else
        rng_fill_f32(&g, p.host_x, p.n, -1.0f, 1.0f);
    CHECK(cudaMemcpy((void *)p.x, p.host_x, bytes, cudaMemcpyHostToDevice));
    p.want = reduction_cpu(p.host_x, p.n, &p.abs_sum);
    p.tol = reduction_tolerance(p.n, p.abs_sum, integers);
    printf("reference (float64) %.9g, sum |x| %.9g, tolerance %.3g; a float loop gives %.9g\n\n",
           p.want, p.abs_sum, p.tol, (double)naive_float_sum(p.host_x, p.n));
    if (o.save) {
        size_t shape[1] = {p.n};
        if (npy_save(o.save, "x", "<f4", shape, 1, p.host_x) != 0) return KL_EXIT_USAGE;
    }

    bench b = {};
    b.problem = &p;
    b.out = p.out;
    b.out_bytes = sizeof(float);
    // --check-each: no version may write x, and every launch writes the block sums before it
    // reads them, so they are poisoned before each timed launch
    b.inputs[0] = p.x, b.input_bytes[0] = bytes;
    b.scratch[0] = p.partials, b.scratch_bytes[0] = p.partials_count * sizeof(float);
    b.scratch[1] = p.partials2, b.scratch_bytes[1] = p.partials2_count * sizeof(float);
    b.bytes = (double)bytes;  // every float read once; one float written, not counted
    b.flops = (double)(p.n - 1);  // n - 1 adds, whatever the order
    b.check = reduction_check;
    b.save = reduction_save;
    int rc = bench_run(&o, &env, &b, versions, selected, VERSION_COUNT);

    CHECK(cudaFree((void *)p.x));
    CHECK(cudaFree(p.out));
    CHECK(cudaFree(p.partials));
    CHECK(cudaFree(p.partials2));
    CHECK(cudaFree(p.cub_temp));
    free(p.host_x);
    return rc;
}
