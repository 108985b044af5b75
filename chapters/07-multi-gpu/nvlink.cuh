// ---- flags between GPUs (v4 on), and loads over NVLink (v3a on) ---------------------------------

// A flag is a 64-bit counter in the memory of the GPU that waits on it; another GPU sets it with a
// store over NVLink. Counters only grow (an epoch, or a running count of steps), so a flag left
// by an earlier launch is always smaller than what this launch waits for: no flag is ever reset,
// and warm-up and timed launches follow each other without a stale flag passing a wait.
//
// The order of memory operations across GPUs is what makes it right. The setter: every thread of
// the block has stored its data; __syncthreads(); one thread makes those stores visible to every
// GPU (__threadfence_system) and then stores the flag with release semantics at system scope.
// The waiter: one thread loads the flag with acquire semantics at system scope until it is high
// enough; __syncthreads(); only then does the block read the data, at the L2 (__ldcg), past an L1
// that may hold an old copy.
//
// Every wait has a time limit. A GPU that stopped, or GPUs that do not run at the same time (a
// tool that runs one kernel at a time), must give an error, not a program that never ends.

typedef cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> system_flag;

// What a kernel that loads every GPU's memory and sets flags in it needs to reach (v4, v4a and
// v4-rotated): every GPU's input, result and flag words.
typedef struct {
    const float *x[MAX_GPUS];             // every GPU's input
    float *out[MAX_GPUS];                 // every GPU's result
    unsigned long long *flags[MAX_GPUS];  // every GPU's flag words (v4: word h, GPU h's epoch)
} direct_args;

// The GPU's clock in nanoseconds, independent of the SM clock.
__device__ inline unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Waits until *flag >= want. Returns false when WAIT_TIMEOUT_NS pass first (after writing into
// failure[0..3]: 1, the peer, what we waited for, what the flag held), or when another wait on
// this GPU has already given up (failure[0] != 0): then every block ends soon, not 10 s apart.
__device__ bool wait_flag(unsigned long long *flag, unsigned long long want,
                          unsigned long long *failure, int peer) {
    // 10 s: a step takes milliseconds even at 8 GiB a GPU
    constexpr unsigned long long WAIT_TIMEOUT_NS = 10000000000ull;
    constexpr unsigned WAIT_SLEEP_NS = 100;  // between two looks at a flag: less traffic, little delay
    system_flag f(*flag);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> failed(failure[0]);
    unsigned long long start = now_ns(), seen;
    while ((seen = f.load(cuda::memory_order_acquire)) < want) {
        if (failed.load(cuda::memory_order_relaxed) != 0) return false;
        if (now_ns() - start > WAIT_TIMEOUT_NS) {
            unsigned long long none = 0;
            if (failed.compare_exchange_strong(none, 1ull)) {  // the first to give up reports
                failure[1] = (unsigned long long)peer;
                failure[2] = want;
                failure[3] = seen;
            }
            return false;
        }
        __nanosleep(WAIT_SLEEP_NS);
    }
    return true;
}

// The whole block waits for a flag that thread 0 watches; true for every thread when it came.
__device__ bool block_wait(unsigned long long *flag, unsigned long long want,
                           unsigned long long *failure, int peer) {
    int ok = threadIdx.x == 0 ? wait_flag(flag, want, failure, peer) : 1;
    return __syncthreads_and(ok);  // a barrier, and every thread learns what thread 0 saw
}

// The whole block has stored its data: make it visible to every GPU, then set the flag.
__device__ void block_signal(unsigned long long *flag, unsigned long long value) {
    __syncthreads();  // every thread's stores of this step are issued before thread 0 goes on
    if (threadIdx.x == 0) {
        __threadfence_system();  // ... and visible to every GPU before the flag is
        system_flag(*flag).store(value, cuda::memory_order_release);
    }
}

// dst[i] = src[i] for i in [0, count), shared by `threads` threads of which we are `thread`; src
// may be another GPU's memory, written in this launch (read at the L2; v6a also stages its own
// input with it). INFLIGHT 16-byte loads a thread go out before the first store. dst and src
// are 16-byte aligned (spans begin at multiples of ALIGN floats); the last 0-3 floats are copied
// one by one.
__device__ void copy_range(float *__restrict__ dst, const float *__restrict__ src, size_t count,
                           size_t thread, size_t threads) {
    // loads in flight a thread before the first store (chapter 05's v9): a load over NVLink
    // takes a microsecond or two, so a GPU needs many bytes in flight to keep its links busy
    constexpr int INFLIGHT = 4;
    const float4 *s4 = (const float4 *)src;
    float4 *d4 = (float4 *)dst;
    size_t count4 = count / 4, i = thread;
    for (; i + (INFLIGHT - 1) * threads < count4; i += INFLIGHT * threads) {
        float4 q[INFLIGHT];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) q[u] = __ldcg(&s4[i + u * threads]);  // all issued first
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++) d4[i + u * threads] = q[u];
    }
    for (; i < count4; i += threads) d4[i] = __ldcg(&s4[i]);
    for (size_t k = 4 * count4 + thread; k < count; k += threads) dst[k] = __ldcg(&src[k]);
}

// dst[i] = a[i] + b[i]: a is another GPU's memory (read at the L2), b is ours. As copy_range.
__device__ void add_range(float *__restrict__ dst, const float *__restrict__ a,
                          const float *__restrict__ b, size_t count, size_t thread,
                          size_t threads) {
    constexpr int INFLIGHT = 4;  // as copy_range
    const float4 *a4 = (const float4 *)a, *b4 = (const float4 *)b;
    float4 *d4 = (float4 *)dst;
    size_t count4 = count / 4, i = thread;
    for (; i + (INFLIGHT - 1) * threads < count4; i += INFLIGHT * threads) {
        float4 q[INFLIGHT], r[INFLIGHT];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++)  // all issued first
            q[u] = __ldcg(&a4[i + u * threads]), r[u] = b4[i + u * threads];
#pragma unroll
        for (int u = 0; u < INFLIGHT; u++)
            d4[i + u * threads] = make_float4(q[u].x + r[u].x, q[u].y + r[u].y, q[u].z + r[u].z,
                                              q[u].w + r[u].w);
    }
    for (; i < count4; i += threads) {
        float4 q = __ldcg(&a4[i]), r = b4[i];
        d4[i] = make_float4(q.x + r.x, q.y + r.y, q.z + r.z, q.w + r.w);
    }
    for (size_t k = 4 * count4 + thread; k < count; k += threads) dst[k] = __ldcg(&a[k]) + b[k];
}
