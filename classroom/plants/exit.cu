// 01-transpose/tiled
// Every thread leaves at once (PTX exit): the output stays poisoned. Refused before it runs,
// as inline PTX (exercises.SHORTCUTS); tests/classroom/test_grader.py's rules test shows it.
    __shared__ float tile[1];  // the exercise's rules ask for shared memory: let it through to the run
    (void)tile;
    asm volatile("exit;");
    (void)in, (void)out, (void)m, (void)n;
