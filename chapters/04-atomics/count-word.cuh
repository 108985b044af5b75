// ---- count_word: the four bytes of a 32-bit word into a histogram (v1a on) --------------------

// The 16-byte loads of v1a and v2 bring four 32-bit words a thread; each word holds four bytes,
// and each byte is one count in the bins h (any byte order: all four are counted).
__device__ __forceinline__ void count_word(unsigned *h, unsigned w) {
    atomicAdd(&h[w & 0xFF], 1u);
    atomicAdd(&h[(w >> 8) & 0xFF], 1u);
    atomicAdd(&h[(w >> 16) & 0xFF], 1u);
    atomicAdd(&h[w >> 24], 1u);
}
