// report.h: results as an aligned table for people and as CSV for machines. Plain C.
#ifndef KL_REPORT_H
#define KL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// One measured version. A rate that does not apply is NAN and prints as "-" (empty in CSV).
typedef struct {
    const char *chapter, *version, *idea, *input;
    size_t m, n, k;           // unused sizes are 1
    int reps;                 // 0 with --check-only
    double ms_median, ms_min, ms_max;
    double gbps;              // bytes the algorithm must move / time, 1 GB = 1e9 bytes
    double gflops;            // operations the algorithm needs / time
    double pct_of_baseline;   // baseline time / this time * 100 (the same work)
    double max_rel_err;
    const char *ok;           // "yes", "no" or "unchecked"
    const char *extra_name;   // one chapter-specific figure, e.g. "ops_per_clock", or NULL
    double extra_value;
    const char *timing;       // how the times were taken: "launch" (an event pair around each
                              // launch; NULL writes it too), "batch" (a batch of launches between
                              // one pair of events, time = batch / count), "graph" (that batch
                              // captured in a CUDA graph) or "interleaved" (--interleave: one
                              // event pair a launch, the versions in turns); a launch's time in
                              // every case
} result_row;

// The CSV columns, in order. Every chapter writes exactly these; plots read them by name.
#define KL_CSV_HEADER                                                                      \
    "chapter,version,idea,input,m,n,k,reps,ms_median,ms_min,ms_max,gbps,gflops,"           \
    "pct_of_baseline,max_rel_err,ok,extra_name,extra_value,timing"

// The machine and build a results file came from; written beside it as NAME.env.csv.
typedef struct {
    char gpu[256];
    int cc_major, cc_minor, sms, sm_clock_mhz, mem_clock_mhz, bus_width_bits;
    int sm_threads;           // the most threads an SM holds at once: 2048 on an H100, 1536 on
                              // an RTX 4090, 1024 on a T4; grids that fill the GPU use it
    size_t l2_bytes, mem_bytes;
    int driver_version, runtime_version;  // as CUDA encodes them: 13000 is 13.0
    const char *flags, *commit;
    char library[64];  // the baseline's library and version where it has one ("NCCL 2.27.7"),
                       // set by the chapter after gpu_open; "" for none (cudaMemcpy, peaks)
} env_info;

void report_table_header(FILE *out, const char *baseline_tag);
void report_table_row(FILE *out, const result_row *r);

// Appends r to the CSV file at path, writing the header first when the file is new or empty.
// Returns 0, or -1 after printing why.
int csv_append(const char *path, const result_row *r);
void csv_write_row(FILE *f, const result_row *r);

// Writes the environment record beside the CSV file (results.csv -> results.env.csv).
int env_write(const char *csv_path, const env_info *e);

// A short lower-case name for a GPU, used as a folder name: "NVIDIA H200" -> "h200",
// "NVIDIA GeForce RTX 4090" -> "rtx-4090".
void gpu_slug(const char *name, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
