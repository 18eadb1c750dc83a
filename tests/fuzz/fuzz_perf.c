/* SPDX-License-Identifier: MIT */
/* libFuzzer target: palev-trace's reading of perf's samples over corrupt CTF packets. The input
 * is one data stream of a `perf data convert --to-ctf` trace (tests/fuzz/perf-metadata.tsdl
 * describes it: cpu-clock samples and sched:sched_switch with call stacks), read beside the golden
 * host's LTTng trace as palev-collect lays them out (DIR/ust, DIR/perf/ctf): every sample decoded,
 * named, cut by the golden trace's activities (--during with --where, per task, per thread),
 * aggregated, its functions listed and its flame graphs drawn, as cpu and report do. A damaged
 * stream must give an error status, never a crash or a leak. As in fuzz_trace.c, a child tries
 * each input first, and an input babeltrace2 itself aborts or runs away on is not run here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu.h"
#include "fuzz_ctf.h"
#include "svg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static FILE *sink_out;

/* DIR/ust: the golden trace (its metadata and a stream of it); DIR/perf/ctf: perf's metadata. */
static int setup(void)
{
    char a[160], b[160];
    strcpy(dir, "/tmp/palev-fuzz-perf.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(a, sizeof(a), "%s/ust", dir);
    snprintf(b, sizeof(b), "%s/perf", dir);
    if (mkdir(a, 0700) || mkdir(b, 0700))
        return -1;
    snprintf(b, sizeof(b), "%s/perf/ctf", dir);
    if (mkdir(b, 0700))
        return -1;
    snprintf(a, sizeof(a), "%s/ust/metadata", dir);
    snprintf(b, sizeof(b), "%s/ust/stream", dir);
    if (fuzz_copy_file(PALEV_FUZZ_TRACE_METADATA, a) || fuzz_copy_file(PALEV_FUZZ_TRACE_STREAM, b))
        return -1;
    snprintf(a, sizeof(a), "%s/perf/ctf/metadata", dir);
    sink_out = fopen("/dev/null", "w");
    return sink_out ? fuzz_copy_file(PALEV_FUZZ_PERF_METADATA, a) : -1;
}

static void on_event(const pt_event *ev, void *data)
{
    pt_cpu_event(data, ev);
}

/* The child's address space: what it has (AddressSanitizer's shadow included) and 2 GiB more. A
 * callchain's length is a 32-bit field: babeltrace2 allocates that many elements before reading
 * them, and a corrupt one asks for gigabytes, which must fail in the child, not fill the machine
 * (run.sh lifts libFuzzer's own malloc limit for this target: it would report the child's). */
static void limit_memory(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%lu", &pages) != 1)
        _exit(0);
    fclose(f);
    rlim_t size = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)2 << 30);
    struct rlimit rl = { size, size };
    if (setrlimit(RLIMIT_AS, &rl))
        _exit(0);
}

static int read_samples(const pt_input *in)
{
    pt_reader *r = NULL;
    pt_perf_sink none = { 0 };
    limit_memory();
    return pt_open(in, &r) == 0 ? pt_run_samples(r, &none) : 0;
}

/* 1 when babeltrace2 abort()s, runs away, or runs out of memory reading the samples (in a child:
 * the fuzzer goes on). */
static int decoder_aborts(const pt_input *in)
{
    int status = fuzz_try_in_child(read_samples, in);
    return WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

static void look(pt_cpu *c, const pt_profile *p, int measure)
{
    size_t n;
    pt_func *f = pt_cpu_functions(c, p, 0, &n);
    pt_text t = { 0 };
    for (size_t i = 0; i < n; i++)
        fputs(pt_term(&t, pt_cpu_name(c, f[i].name)), sink_out);
    pt_text_free(&t);
    free(f);
    pt_svg_flame(sink_out, c, p, measure);
}

static void read_with(const pt_input *in, const pt_cpu_opts *o)
{
    pt_reader *r = NULL;
    pt_cpu *c = pt_cpu_new(o);
    pt_sink sink = { .event = on_event, .data = c };
    if (pt_open(in, &r) == 0 && pt_run(r, &sink) == 0) {
        unsigned w = pt_cpu_watch(c, 1, 0, INT64_MAX);
        uint64_t samples;
        pt_cpu_read(c, r);
        pt_cpu_watched(c, w, &samples);
        for (int m = PT_ON_CPU; m <= PT_OFF_CPU; m++) {
            look(c, pt_cpu_profile(c, m), m);
            for (unsigned t = 0; t < pt_task_count(r); t++)
                if (pt_cpu_task_at(c, t))
                    look(c, &pt_cpu_task_at(c, t)->during[m], m);
        }
    }
    pt_cpu_free(c);
    pt_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready = -1;
    char path[160];
    const char *paths[1] = { dir }, *manifests[1] = { PALEV_FUZZ_TRACE_MANIFEST };
    const char *where[2] = { "Kind=1", "Id=2" };
    pt_input in = { .paths = paths, .npaths = 1, .manifests = manifests, .nmanifests = 1 };
    pt_cpu_opts cut = { .task = "Palev_TraceGolden:Work", .where = where, .nwhere = 2, .by_thread = 1 };
    pt_cpu_opts per_task = { .per_task = 1 };
    if (ready < 0)
        ready = setup();
    if (ready)
        abort();
    snprintf(path, sizeof(path), "%s/perf/ctf/perf_stream_0", dir);
    fuzz_write_input(path, data, size);
    if (decoder_aborts(&in))
        return 0;
    read_with(&in, &cut);
    read_with(&in, &per_task);
    return 0;
}
