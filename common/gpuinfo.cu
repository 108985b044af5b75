// gpuinfo: what the scripts ask about the GPU. `gpuinfo slug` prints a short folder name
// ("h200"), `gpuinfo count` how many GPUs CUDA shows; `gpuinfo` prints one line. Exit code 3
// with the reason when there is no GPU.
#include <string.h>

#include "gpu.h"

int main(int argc, char **argv) {
    env_info e;
    gpu_open(&e);
    if (argc > 1 && strcmp(argv[1], "slug") == 0) {
        char slug[64];
        gpu_slug(e.gpu, slug, sizeof slug);
        printf("%s\n", slug);
    } else if (argc > 1 && strcmp(argv[1], "count") == 0) {
        int count = 0;
        CHECK(cudaGetDeviceCount(&count));
        printf("%d\n", count);
    } else {
        printf("%s: sm_%d%d, %d SMs, %d MHz, %.0f MB L2, %.0f GB\n", e.gpu, e.cc_major,
               e.cc_minor, e.sms, e.sm_clock_mhz, e.l2_bytes / 1e6, e.mem_bytes / 1e9);
    }
    return 0;
}
