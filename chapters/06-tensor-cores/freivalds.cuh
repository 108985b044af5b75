// ---- Freivalds' check on the CPU, for products too large for the full reference ----------------
// The BF16 program and the FP8 program (fp8-program.cuh) both check every result this way.
// y = A (B^T x) and y_abs = |A| (|B|^T |x|) for a vector x of n entries: O(mk + nk) work, so it
// checks products far too large for the full reference (Freivalds' idea). pr (or NULL) hears
// of each row of B, then of A: n + m rows in all.
static void freivalds_cpu(const float *a, const float *b, const double *x, double *y,
                          double *y_abs, size_t m, size_t n, size_t k, progress *pr) {
    double *bx = (double *)host_alloc(size_mul(k, 2 * sizeof(double)), "B^T x");
    double *bx_abs = bx + k;
    for (size_t l = 0; l < k; l++) bx[l] = bx_abs[l] = 0.0;
    for (size_t j = 0; j < n; j++) {  // B^T x, a row of B at a time
        for (size_t l = 0; l < k; l++) {
            bx[l] += (double)b[j * k + l] * x[j];
            bx_abs[l] += fabs((double)b[j * k + l] * x[j]);
        }
        progress_update(pr, (double)j);
    }
    for (size_t i = 0; i < m; i++) {
        double s = 0.0, sa = 0.0;
        for (size_t l = 0; l < k; l++) {
            s += (double)a[i * k + l] * bx[l];
            sa += fabs((double)a[i * k + l]) * bx_abs[l];
        }
        y[i] = s, y_abs[i] = sa;
        progress_update(pr, (double)(n + i));
    }
    free(bx);
}
