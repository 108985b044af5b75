// ---- v17 padded ---------------------------------------------------------------------------------
// When n is not a multiple of 4, not every row of B starts on 16 bytes, and every version copies
// B 4 bytes at a time. v17 first copies B into rows of ldb = n rounded up to a multiple of 4 (the
// extra columns zero), a pass over B, and runs v16's choice on the copy, with 16-byte copies of
// B. C keeps its n columns and is stored an element at a time as before, once a tile rather than
// once a k step. Where n is a multiple of 4, v17 is v16. The kernels have taken ldb, and VC
// apart from VB, since v9 (async.cuh, pieces.cuh): v17 is the first to pass an ldb other than n.

// Copies B into p->padded_b, rows of ldb = n rounded up to a multiple of VEC, and returns ldb.
static size_t pad_b(matmul_problem *p) {
    size_t ldb = ceil_div(p->n, VEC) * VEC;
    if (!p->padded_b) {  // once: the copy, zero where it has no column of B
        size_t bytes = size_mul(size_mul(p->k, ldb), sizeof(real));
        p->padded_b = (real *)gpu_alloc(bytes, "v17's copy of B");
        CHECK(cudaMemset(p->padded_b, 0, bytes));
    }
    CHECK(cudaMemcpy2DAsync(p->padded_b, ldb * sizeof(real), p->b, p->n * sizeof(real),
                            p->n * sizeof(real), p->k, cudaMemcpyDeviceToDevice));
    return ldb;
}

static void launch_v17(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    if (p->n % VEC == 0) {
        launch_v16(p);
        return;
    }
    size_t ldb = pad_b(p);
    const real *b = p->b;
    p->b = p->padded_b, p->ldb = ldb;
    launch_v16(p);
    p->b = b, p->ldb = p->n;
}
