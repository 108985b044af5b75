// ---- v18 strip ----------------------------------------------------------------------------------
// Where v16 picks v12 or v13 (tiles 256 wide) and r = n mod 256 is at most STRIP_COLS, the last
// column of tiles is mostly zeros (4095 x 4097 x 4093: it holds one column of C). v18 cuts C in
// two along n: the first n - r columns are a product of their own, run by that version on tiles
// that end at the cut, and the last r a narrow product, run by v15's split-K kernel on tiles of
// 32 rows x STRIP_COLS columns, one warp a block. Elsewhere v18 is v17.
// For this the kernels take C's row length (ldc) apart from n (they have since v9, async.cuh;
// v18 is the first to pass one other than n): the first product's C has n - r columns in rows n
// long, the strip's r. Not under v14 and v15, whose tiles are 128 wide: measured there, the strip
// cost more than it saved (the README).
#ifdef MATMUL_FP64  // doubles: v12's tiles are 64 wide, and strips up to 16 columns
typedef shape<32, 16, 16, 32, 16, 4, 8> strip_shape;
#else
typedef shape<32, 32, 16, 32, 32, 4, 8> strip_shape;
#endif

static void launch_v18(void *problem) {
    matmul_problem *p = (matmul_problem *)problem;
    constexpr int STRIP_COLS = strip_shape::bn;  // the strip's widest: one of its tiles across
    int pick = dispatch_pick(p);
    size_t w = tallwarp_shape::bn, r = p->n % w;
    if (pick > 13 || r == 0 || r > (size_t)STRIP_COLS || p->n < w) {
        launch_v17(p);
        return;
    }
    matmul_problem *main_part = p->v18_main;
    if (!main_part) {  // once: the first n - r columns as a problem of their own
        main_part = (matmul_problem *)host_alloc(sizeof *main_part, "v18's first part");
        *main_part = *p;
        main_part->n = p->n - r, main_part->ldc = p->n;
        main_part->streamk = main_part->splitk = piece_plan{};
        main_part->padded_b = NULL, main_part->v18_main = NULL;
        p->v18_main = main_part;
        printf("    v18: columns 0-%zu by v%d, %zu-%zu by v15's kernel on tiles of 32 x %d\n",
               main_part->n - 1, pick, main_part->n, p->n - 1, STRIP_COLS);
    }
    main_part->b = p->b, main_part->ldb = p->n;
    if (p->n % VEC != 0) main_part->ldb = pad_b(p), main_part->b = p->padded_b;
    launch_v16(main_part);
    p->picked = main_part->picked;
    matmul_problem strip = *main_part;  // the last r columns of B and of C
    strip.b += main_part->n, strip.c += main_part->n, strip.n = r;
    if (!p->strip.made) {
        splitk_plan<strip_shape>(&p->strip, &strip, pieces_wave<strip_shape>());
        p->strip.made = true;
    }
    launch_pieces<strip_shape>(&strip, &p->strip);
}
