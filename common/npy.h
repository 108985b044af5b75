// npy.h: writing arrays in NumPy's .npy format (version 1.0, C order). Plain C.
// Anyone can then check a result with numpy: np.load("out/v2.npy").
#ifndef KL_NPY_H
#define KL_NPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// descr is the NumPy type string: "<f4" float32, "<f8" float64, "<u4" uint32, "<u1" uint8.
// Writes dir/name.npy (creating dir if needed). Returns 0, or -1 after printing why.
int npy_save(const char *dir, const char *name, const char *descr, const size_t *shape,
             int ndim, const void *data);

// Creates the folder `dir` unless it exists. Returns 0, or -1 after printing why.
int npy_mkdir(const char *dir);

// Writes the file at `path`; npy_save builds the path and calls this.
int npy_write(const char *path, const char *descr, const size_t *shape, int ndim,
              const void *data);

#ifdef __cplusplus
}
#endif
#endif
