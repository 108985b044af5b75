// ---- v19 unbounded ------------------------------------------------------------------------------
// v14 asks for three blocks an SM, which holds a thread to 168 registers; but at 1024^3 v16 picks
// v14 for 128 tiles on 132 SMs, one block an SM, and the registers held back lie unused. v19 is
// v18 with one more kernel: v14's, built for one block an SM (the same shape, min_blocks 1), which
// the compiler spends on a longer schedule of the same loop. v19 runs it where v16 picks v14 and
// all the tiles fit in one round of that build: there it can only gain. Elsewhere v19 is v18.
#ifdef MATMUL_FP64
typedef shape<64, 32, 16, 64, 16, 3, 1, rows_serpentine> unbounded_shape;
#else
typedef shape<64, 128, 16, 64, 32, 4, 1, rows_serpentine> unbounded_shape;
#endif

// How many blocks of the async kernel for shape S the whole GPU runs at once, asked once.
template <class S>
static unsigned async_wave() {
    static unsigned wave = 0;
    if (wave == 0) wave = blocks_at_once<S>(matmul_v9_async<S, true, true>);
    return wave;
}

static void launch_v19(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    unsigned count = tiles(p->m, p->n, unbounded_shape::bm, unbounded_shape::bn);
    if (dispatch_pick(p) != 14 || count > async_wave<unbounded_shape>()) {
        launch_v18(p);
        return;
    }
    static bool told = false;  // say so once
    if (!told) {
        printf("    v19: v16 picks v14, and its %u tiles fit in one round of the unbounded "
               "build (%u blocks): runs that\n", count, async_wave<unbounded_shape>());
        told = true;
    }
    const real *b = p->b;
    if (p->n % VEC != 0) p->ldb = pad_b(p), p->b = p->padded_b;  // as v17 does
    launch_async<unbounded_shape>(p);
    p->b = b, p->ldb = p->n;
    p->picked = 19;
}
