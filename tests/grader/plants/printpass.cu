// 01-transpose/tiled
// Prints PASS and computes nothing: what a program prints is never a verdict.
    if (blockIdx.x == 0 && threadIdx.x == 0 && threadIdx.y == 0) printf("PASS\n0 failed\n");
    (void)in, (void)out, (void)m, (void)n;
