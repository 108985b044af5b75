// gpuinfo: what the scripts ask about the GPU. `gpuinfo slug` prints a short folder name
// ("h200"), `gpuinfo count` how many GPUs CUDA shows, `gpuinfo uuids` their UUIDs in CUDA's
// order (the grader's lock of each GPU goes by it); `gpuinfo` prints one line. Exit codes as
// every program's: 2 for a usage error, 3 with the reason when there is no GPU.
#include <string.h>

#include "gpu.h"

static void usage(FILE *out) {
    fprintf(out, "usage: gpuinfo [slug | count | uuids]\n\n"
                 "  (nothing)   one line: the GPU, its architecture, SMs, clock, L2 and memory\n"
                 "  slug        a short name for the GPU, the folder of its results (h200)\n"
                 "  count       how many GPUs CUDA shows\n"
                 "  uuids       the UUID of each, a line each (GPU-8-4-4-4-12 hex digits)\n"
                 "  -h, --help  this text\n"
                 "Exit codes: 0 ok, 2 usage, 3 no usable GPU.\n");
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "-h") == 0 || strcmp(what, "--help") == 0) {
        usage(stdout);
        return KL_EXIT_OK;
    }
    if (argc > 2 || (argc == 2 && strcmp(what, "slug") != 0 && strcmp(what, "count") != 0 &&
                     strcmp(what, "uuids") != 0)) {
        fprintf(stderr, "gpuinfo: unknown argument '%s'; it takes slug, count, uuids or --help\n",
                argc > 2 ? argv[2] : what);
        return KL_EXIT_USAGE;
    }
    env_info e;
    gpu_open(&e);
    if (strcmp(what, "slug") == 0) {
        char slug[64];
        gpu_slug(e.gpu, slug, sizeof slug);
        printf("%s\n", slug);
    } else if (strcmp(what, "count") == 0) {
        int count = 0;
        CHECK(cudaGetDeviceCount(&count));
        printf("%d\n", count);
    } else if (strcmp(what, "uuids") == 0) {
        int count = 0;
        CHECK(cudaGetDeviceCount(&count));
        for (int i = 0; i < count; i++) {
            cudaDeviceProp p;
            CHECK(cudaGetDeviceProperties(&p, i));
            const unsigned char *u = (const unsigned char *)p.uuid.bytes;
            printf("GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
                   u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
                   u[13], u[14], u[15]);
        }
    } else {
        printf("%s: sm_%d%d, %d SMs, %d MHz, %.0f MB L2, %.0f GB\n", e.gpu, e.cc_major,
               e.cc_minor, e.sms, e.sm_clock_mhz, e.l2_bytes / 1e6, e.mem_bytes / 1e9);
    }
    return KL_EXIT_OK;
}
