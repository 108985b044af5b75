// report.c: the table and the CSV (report.h).
#define _POSIX_C_SOURCE 200809L
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

void report_table_header(FILE *out, const char *baseline_tag) {
    char pct[32];
    snprintf(pct, sizeof pct, "%% of %s", baseline_tag);
    fprintf(out, "%-12s %-11s %10s %21s %9s %9s %11s %11s  %s\n", "version", "idea", "ms", "[min, max]",
            "GB/s", "GFLOP/s", pct, "max rel err", "check");
}

// A number, or "-" when it does not apply.
static void cell(FILE *out, int width, int precision, double v) {
    if (isnan(v)) fprintf(out, " %*s", width, "-");
    else fprintf(out, " %*.*f", width, precision, v);
}

void report_table_row(FILE *out, const result_row *r) {
    fprintf(out, "%-12s %-11s", r->version, r->idea);
    cell(out, 10, 4, r->ms_median);
    if (isnan(r->ms_min)) fprintf(out, " %21s", "-");
    else fprintf(out, "   [%8.4f, %8.4f]", r->ms_min, r->ms_max);
    cell(out, 9, 1, r->gbps);
    cell(out, 9, 1, r->gflops);
    if (isnan(r->pct_of_baseline)) fprintf(out, " %11s", "-");
    else fprintf(out, " %10.1f%%", r->pct_of_baseline);
    if (isnan(r->max_rel_err)) fprintf(out, " %11s", "-");
    else fprintf(out, " %11.2e", r->max_rel_err);
    fprintf(out, "  %s", r->ok);
    if (r->extra_name && !isnan(r->extra_value))
        fprintf(out, "  %s=%.4g", r->extra_name, r->extra_value);
    fprintf(out, "\n");
}

// A CSV number: empty when it does not apply; enough digits to round-trip a timing.
static void field(FILE *f, double v) {
    if (!isnan(v)) fprintf(f, "%.6g", v);
}

void csv_write_row(FILE *f, const result_row *r) {
    fprintf(f, "%s,%s,%s,%s,%zu,%zu,%zu,%d,", r->chapter, r->version, r->idea,
            r->input ? r->input : "", r->m, r->n, r->k, r->reps);
    field(f, r->ms_median); fputc(',', f);
    field(f, r->ms_min); fputc(',', f);
    field(f, r->ms_max); fputc(',', f);
    field(f, r->gbps); fputc(',', f);
    field(f, r->gflops); fputc(',', f);
    field(f, r->pct_of_baseline); fputc(',', f);
    field(f, r->max_rel_err); fputc(',', f);
    fprintf(f, "%s,%s,", r->ok, r->extra_name ? r->extra_name : "");
    if (r->extra_name) field(f, r->extra_value);
    fprintf(f, ",%s\n", r->timing ? r->timing : "launch");
}

int csv_append(const char *path, const result_row *r) {
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "csv: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    fseek(f, 0, SEEK_END);
    if (ftell(f) == 0) fprintf(f, "%s\n", KL_CSV_HEADER);
    csv_write_row(f, r);
    return fclose(f) == 0 ? 0 : -1;
}

int env_write(const char *csv_path, const env_info *e) {
    char path[4096];
    size_t len = strlen(csv_path);
    if (len >= 4 && strcmp(csv_path + len - 4, ".csv") == 0) len -= 4;
    snprintf(path, sizeof path, "%.*s.env.csv", (int)len, csv_path);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "csv: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "key,value\n");
    fprintf(f, "gpu,%s\n", e->gpu);
    fprintf(f, "compute_capability,%d.%d\n", e->cc_major, e->cc_minor);
    fprintf(f, "sm_count,%d\n", e->sms);
    fprintf(f, "sm_threads,%d\n", e->sm_threads);
    fprintf(f, "sm_clock_mhz,%d\n", e->sm_clock_mhz);
    fprintf(f, "mem_clock_mhz,%d\n", e->mem_clock_mhz);
    fprintf(f, "mem_bus_bits,%d\n", e->bus_width_bits);
    fprintf(f, "l2_bytes,%zu\n", e->l2_bytes);
    fprintf(f, "mem_bytes,%zu\n", e->mem_bytes);
    fprintf(f, "driver,%d.%d\n", e->driver_version / 1000, (e->driver_version % 1000) / 10);
    fprintf(f, "cuda_runtime,%d.%d\n", e->runtime_version / 1000,
            (e->runtime_version % 1000) / 10);
    fprintf(f, "flags,\"%s\"\n", e->flags);
    if (e->library[0]) fprintf(f, "library,%s\n", e->library);
    fprintf(f, "commit,%s\n", e->commit);
    fprintf(f, "date,%s\n", date);
    return fclose(f) == 0 ? 0 : -1;
}

void gpu_slug(const char *name, char *out, size_t len) {
    static const char *const noise[] = {"nvidia ", "geforce ", "tesla ", "quadro ", NULL};
    char low[256];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof low; n++) low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = '\0';
    const char *p = low;
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; noise[i]; i++)
            if (strncmp(p, noise[i], strlen(noise[i])) == 0) p += strlen(noise[i]), again = 1;
    }
    // keep letters and digits; any run of other characters becomes one '-'
    size_t o = 0;
    for (; *p && o + 1 < len; p++) {
        if (isalnum((unsigned char)*p)) out[o++] = *p;
        else if (o > 0 && out[o - 1] != '-') out[o++] = '-';
    }
    while (o > 0 && out[o - 1] == '-') o--;
    if (o == 0 && len > 4) memcpy(out, "gpu", 3), o = 3;
    out[o] = '\0';
}
