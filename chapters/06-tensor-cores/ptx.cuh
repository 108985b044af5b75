// ---- the tensor cores' instructions, one function each -----------------------------------------
// Every PTX instruction the chapter uses, wrapped in a small function that says what it does,
// so that each kernel reads as its idea. ldmatrix and mma.sync need compute capability 8.0
// for BF16; the rest are Hopper's and exist only in a build for sm_90a (the "a" is for
// features later GPUs do not keep): elsewhere the kernels that use them are empty, and their
// rows are skipped.

constexpr int WG = 128;  // threads in a warpgroup: 4 consecutive warps that issue one wgmma

// ldmatrix.x4: the warp loads four 8 x 8 matrices of 16-bit values from shared memory. Lanes
// 8i .. 8i+7 give the addresses of matrix i's 8 rows (16 bytes each); lane l receives, of each
// matrix, row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1, as one 32-bit register.
__device__ inline void ldmatrix_x4(uint32_t (&r)[4], const uint4 *row) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// d += a b for a 16 x 16 piece of A (four registers: rows 0-7 and 8-15 of k 0-7, then of k
// 8-15) and a 16 x 8 piece of B^T (two registers: k 0-7 and 8-15). Lane l holds d's rows l / 4
// and l / 4 + 8, columns 2 (l % 4) and 2 (l % 4) + 1: d[0], d[1] and d[2], d[3].
__device__ inline void mma_16x8x16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                   uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// cp.async (compute capability 8.0): copies 16 bytes from global to shared memory without
// passing through registers and without waiting for them; `bytes` of the 16 are read and the
// rest zero-filled. commit closes the copies issued so far into a group; wait<N> returns once
// at most N groups are still on the way.
__device__ inline void cp_async_16(void *dst, const void *src, unsigned bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src), "r"(bytes)
                 : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ inline void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define KL_SM90A 1
#endif
#ifdef KL_SM90A

__device__ inline unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// An mbarrier is a 64-bit counter in shared memory with a phase bit: a phase completes when
// `count` threads have arrived and every byte a copy announced has landed; the phase bit then
// flips, and whoever waits for that phase's parity goes on.
__device__ inline void mbar_init(uint64_t *bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem(bar)), "r"(count));
}

// Makes the initialised barriers visible to the copy engine (the "async proxy") and the cluster.
__device__ inline void mbar_fence_init() {
    asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;\n" ::
                     : "memory");
}

// One arrival that also announces `bytes` still to come from TMA copies in this phase.
__device__ inline void mbar_arrive_expect(uint64_t *bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem(bar)),
                 "r"(bytes)
                 : "memory");
}

__device__ inline void mbar_arrive(uint64_t *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem(bar)) : "memory");
}

// Waits until the phase of parity `parity` has completed (try_wait suspends the thread for a
// while in hardware before it says no, so the loop does not hammer shared memory).
// mbar_wait_at takes the barrier's shared-memory address as a number (v14).
__device__ inline void mbar_wait_at(unsigned bar, unsigned parity) {
    unsigned done = 0;
    while (!done)
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
            "selp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
}
__device__ inline void mbar_wait(uint64_t *bar, unsigned parity) { mbar_wait_at(smem(bar), parity); }

// TMA: the copy engine moves a whole box of the matrix that `map` describes (64 columns of k
// from column x, `rows` rows from row y) into shared memory, swizzled, zeros where the box
// leaves the matrix, and counts its bytes on `bar`. One thread issues it; nobody waits.
__device__ inline void tma_load(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smem(dst)),
        "l"(map), "r"(x), "r"(y), "r"(smem(bar))
        : "memory");
}

// TMA the other way (v10 on): the copy engine stores a box of shared memory, laid out in the
// map's swizzle, to the matrix that `map` describes at column x, row y, and writes nothing where
// the box leaves the matrix. One thread issues it; commit closes its stores issued so far into a
// bulk group, and wait_read<N> returns once at most N of its groups may still be reading shared
// memory (their buffers may be written again), wait<N> once at most N are not yet in memory.
__device__ inline void tma_store(const void *src, const CUtensorMap *map, int x, int y) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::
                     "l"(map), "r"(x), "r"(y), "r"(smem(src))
                 : "memory");
}
__device__ inline void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
template <int N>
__device__ inline void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N>
__device__ inline void bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// Ordinary stores to shared memory are made visible to the copy engine (the async proxy) before
// it reads them: each thread that stored fences, then the threads meet, then one issues the copy.
__device__ inline void fence_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Two floats to shared memory in one 8-byte store.
__device__ inline void st_shared_v2(const float *p, float x, float y) {
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(smem(p)), "f"(x), "f"(y) : "memory");
}

// A barrier for `count` threads (whole warps) only: hardware barrier `id` (1-15; 0 is
// __syncthreads), so a warpgroup can meet without stopping the rest of the block.
__device__ inline void named_barrier(int id, int count) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// An arrival at named barrier `id` that does not wait (v12 on): the `count` threads it counts are
// the arriving warps and the warps that wait there with named_barrier.
__device__ inline void named_arrive(int id, int count) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// Clusters (v11 on): the blocks of a cluster run at once on neighbouring SMs and can reach each
// other's shared memory. cluster_rank is this block's number in its cluster; cluster_sync is a
// barrier for every thread of every block of the cluster, whose shared-memory writes and
// mbarrier initialisations before it are seen by all after it.
__device__ inline unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
__device__ inline void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

// One arrival on the mbarrier at the place of `bar` in the shared memory of block `rank` of the
// cluster (mapa turns our address into that block's). Plain release at the block's scope, as a
// local arrival: a .release.cluster arrival costs a fence of the whole GPU (MEMBAR.ALL.GPU)
// before every arrival, and what it would order (the wgmma's reads of the stage) is already
// done when the consumer arrives.
__device__ inline void mbar_arrive_cluster(uint64_t *bar, unsigned rank) {
    unsigned there;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(there) : "r"(smem(bar)), "r"(rank));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(there) : "memory");
}

// tma_load into every block of the cluster whose bit is set in `blocks`: the box lands at the
// same place in each one's shared memory, and its bytes count on each one's barrier at `bar`.
__device__ inline void tma_load_multicast(void *dst, const CUtensorMap *map, int x, int y,
                                          uint64_t *bar, unsigned short blocks) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(smem(dst)),
        "l"(map), "r"(x), "r"(y), "r"(smem(bar)), "h"(blocks)
        : "memory");
}

// A shared-memory matrix descriptor for wgmma: a tile whose rows are 128 bytes (64 BF16 of k),
// stored with the 128-byte swizzle, in groups of 8 rows 1024 bytes apart. The tile must start on
// 1024 bytes; moving 16 columns of k along is adding 32 bytes to the start (2 in its units).
__device__ inline uint64_t smem_desc(const void *tile) {
    return (uint64_t)((smem(tile) & 0x3FFFF) >> 4)  // start address, 16-byte units
           | (uint64_t)1 << 16                      // leading-dimension offset: unused here
           | (uint64_t)(1024 >> 4) << 32            // stride: 8 rows of 128 bytes
           | (uint64_t)1 << 62;                     // the 128-byte swizzle
}

// The same descriptor in its two 32-bit words (v14). The low word holds the start address
// (bits 0-13, in 16-byte units: the & 0x3FFFF keeps the address inside the block's 2^18 bytes of
// shared memory, and >> 4 makes it 14 bits) and the leading offset (1, at bit 16); it changes
// from tile to tile. The high word is the same for every tile: the stride (1024 >> 4, bits
// 32-45 of the descriptor) and the swizzle (1 << 62, bit 30 of the high word). Moving the start
// along adds to the low word only: any address inside shared memory stays below 2^18 bytes, so
// the sum stays inside its 14 bits and never reaches the offset.
__device__ inline unsigned desc_low(unsigned tile) { return (tile & 0x3FFFF) >> 4 | 1u << 16; }
__device__ inline uint64_t desc_of(unsigned low) {
    uint64_t d;
    asm("mov.b64 %0, {%1, %2};" : "=l"(d) : "r"(low), "r"(1024 >> 4 | 1u << 30));
    return d;
}

// x, which the compiler must keep in a register from here on rather than work out again where
// it is used (v14: it would recompute a shared-memory address from the block's special
// registers at every k step). The compiler cannot see into an asm statement, so it cannot
// recompute its output from the inputs: it has to keep the register the asm wrote.
__device__ inline unsigned kept(unsigned x) {
    asm volatile("mov.b32 %0, %0;" : "+r"(x));
    return x;
}

// wgmma runs asynchronously: fence before the first one that may touch registers written by
// ordinary instructions, commit the issued ones as a group, and wait until at most N groups
// are still running before reading (or releasing the shared memory of) the rest.
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ inline void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Tells the compiler that each accumulator may have changed here, so that no read of one is
// moved above a wgmma_wait (the registers are written by the tensor cores, not by code it sees).
template <int R>
__device__ inline void fence_registers(float (&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}

// setmaxnreg: this warpgroup gives up registers (dec) or takes freed ones (inc), so a kernel
// can hold more registers in the warps that multiply than an even split would give them.
template <int N>
__device__ inline void registers_down() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ inline void registers_up() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

// d += A B^T for a 64 x 128 block of C, A and B read from shared memory through descriptors.
__device__ inline void wgmma_64x128x16(float (&d)[64], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n.reg .pred add;\n"
        "setp.ne.b32 add, %66, 0;\n"  // add to d (the other choice, d = A B^T, we never use)
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18,"
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35,"
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52,"
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, add, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

// d += A B^T for a 64 x 256 block of C, A and B read from shared memory through descriptors.
__device__ inline void wgmma_64x256x16(float (&d)[128], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n.reg .pred add;\n"
        "setp.ne.b32 add, %130, 0;\n"  // add to d (the other choice, d = A B^T, we never use)
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18,"
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35,"
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52,"
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69,"
        "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86,"
        "%87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102,"
        "%103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116,"
        "%117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, add, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
#endif  // KL_SM90A
