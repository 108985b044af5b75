// ---- v6c's self-test: what its kernel computes, played on the CPU (v6c on) ----------------------
// The self-test of what v6c's kernel computes on the CPU side: the number of failures (0 or 1).
// Every float in one block's loop, exactly once, in block (i / 2048) mod 32 (v6a's block for its
// float4) at every size; a word carries its flag and float whole. (Its slots are peer_slot's,
// tested with spans.cuh.)
static int v6c_self_test(void) {
    const size_t sizes[] = {1, 2, 3, 5, 7, 511, 512, 513, 1000, 2047, 2048, 2049, 4097, 8193,
                            63489, 65535, 65536, 65539, 262143, LL_MAX_N};
    bool ok = true;
    for (size_t si = 0; ok && si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        unsigned blocks = ll_blocks(n);
        unsigned char *seen = (unsigned char *)calloc(n, 1);  // how often each float came
        if (!seen) return 1;
        for (unsigned b = 0; ok && b < blocks; b++)  // the kernel's loops, block by block
            for (size_t lo = b * 2048; lo < n; lo += (size_t)blocks * 2048)
                for (int u = 0; u < 4; u++)
                    for (size_t t = 0; t < 512; t++) {
                        size_t i = lo + u * 512 + t;
                        if (i >= n) continue;
                        ok &= seen[i]++ == 0 && b == i / 2048 % 32 && b == i / 4 % 16384 / 512;
                    }
        for (size_t i = 0; ok && i < n; i++) ok = seen[i] == 1;
        free(seen);
    }
    unsigned long long w = ll_word(0xbf800000u, 0xfffffffeu);  // -1.0f, the flag of 2^32 - 2
    ok &= (unsigned)(w >> 32) == 0xfffffffeu && (unsigned)w == 0xbf800000u &&
          ll_word(0x7fc00000u, 3u) == 0x000000037fc00000ull;
    printf("%s v6c: every float in one block, (i / 2048) mod 32 as in v6a, at 20 sizes from 1 to "
           "%d floats; a word holds its float and flag whole\n", ok ? "PASS" : "FAIL", LL_MAX_N);
    return !ok;
}
