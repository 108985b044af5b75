// ---- passes: the kernel again on its own block sums (v0 on) -------------------------------------

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
