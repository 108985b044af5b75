// npy.c: the .npy writer (npy.h). Format: magic "\x93NUMPY", version 1.0, a little-endian
// uint16 header length, an ASCII dict padded with spaces to a multiple of 64 bytes and ending
// in '\n', then the raw data.
#define _POSIX_C_SOURCE 200809L
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static size_t item_size(const char *descr) {
    // "<f4" -> 4: the digits after the type letter
    size_t s = 0;
    for (const char *p = descr + 2; *p >= '0' && *p <= '9'; p++) s = s * 10 + (size_t)(*p - '0');
    return s;
}

int npy_write(const char *path, const char *descr, const size_t *shape, int ndim,
              const void *data) {
    char dict[256];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                       descr);
    size_t count = 1;
    for (int i = 0; i < ndim; i++) {
        // Python's tuple syntax: "(2, 3)", and "(5,)" for one dimension
        len += snprintf(dict + len, sizeof dict - (size_t)len, "%s%zu%s", i ? ", " : "",
                        shape[i], ndim == 1 ? "," : "");
        count *= shape[i];
    }
    len += snprintf(dict + len, sizeof dict - (size_t)len, "), }");
    // magic (6) + version (2) + length (2) + dict + padding + '\n' = a multiple of 64
    size_t total = (10 + (size_t)len + 1 + 63) / 64 * 64;
    size_t header_len = total - 10;

    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "npy: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(header_len & 0xff), (unsigned char)(header_len >> 8)};
    fwrite(pre, 1, sizeof pre, f);
    fwrite(dict, 1, (size_t)len, f);
    for (size_t i = 10 + (size_t)len; i < total - 1; i++) fputc(' ', f);
    fputc('\n', f);
    size_t bytes = count * item_size(descr);
    int ok = fwrite(data, 1, bytes, f) == bytes;
    ok &= fclose(f) == 0;
    if (!ok) {
        fprintf(stderr, "npy: writing %s failed\n", path);
        return -1;
    }
    return 0;
}

int npy_mkdir(const char *dir) {
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int npy_save(const char *dir, const char *name, const char *descr, const size_t *shape,
             int ndim, const void *data) {
    if (npy_mkdir(dir) != 0) return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    return npy_write(path, descr, shape, ndim, data);
}
