# OpenMP for the CPU reference, which is n^3 work at the test sizes.
shortcut_FLAGS := -Xcompiler -fopenmp
shortcut_LIBS := -lgomp
