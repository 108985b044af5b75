// gpuinfo: what the scripts ask about the GPU. `gpuinfo slug` prints a short folder name
// ("h200"), `gpuinfo count` how many GPUs CUDA shows; `gpuinfo` prints one line. Exit codes as
// every program's: 2 for a usage error, 3 with the reason when there is no GPU.
#include <string.h>

#include "gpu.h"

static void usage(FILE *out) {
    fprintf(out, "usage: gpuinfo [slug | count]\n\n"
                 "  (nothing)   one line: the GPU, its architecture, SMs, clock, L2 and memory\n"
                 "  slug        a short name for the GPU, the folder of its results (h200)\n"
                 "  count       how many GPUs CUDA shows\n"
                 "  -h, --help  this text\n"
                 "Exit codes: 0 ok, 2 usage, 3 no usable GPU.\n");
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "-h") == 0 || strcmp(what, "--help") == 0) {
        usage(stdout);
        return KL_EXIT_OK;
    }
    if (argc > 2 || (argc == 2 && strcmp(what, "slug") != 0 && strcmp(what, "count") != 0)) {
        fprintf(stderr, "gpuinfo: unknown argument '%s'; it takes slug, count or --help\n",
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
    } else {
        printf("%s: sm_%d%d, %d SMs, %d MHz, %.0f MB L2, %.0f GB\n", e.gpu, e.cc_major,
               e.cc_minor, e.sms, e.sm_clock_mhz, e.l2_bytes / 1e6, e.mem_bytes / 1e9);
    }
    return KL_EXIT_OK;
}
