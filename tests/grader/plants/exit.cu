// 01-transpose/tiled
// Every thread leaves at once (PTX exit): the output stays poisoned.
    asm volatile("exit;");
    (void)in, (void)out, (void)m, (void)n;
