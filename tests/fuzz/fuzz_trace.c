/* SPDX-License-Identifier: MIT */
/* libFuzzer target: palev-trace's reading core over corrupt CTF packets. The input is one data
 * stream file of the golden host's trace (tests/fuzz/trace-metadata.tsdl describes it); every
 * event is decoded (all fields as JSON and as terminal text), paired into activities, read for
 * counters, summarised and handed to the stacks, as the commands do. A damaged stream must give an error status, never a crash or a leak.
 * babeltrace2 2.0.4's decoder itself abort()s on some damaged packets (an assertion; the
 * babeltrace2 command dies too; palev-trace turns it into an error message), and on others
 * allocates without end (the babeltrace2 command too): a child process tries each input first,
 * with 5 seconds to live, and an input babeltrace2 aborts or hangs on is not run here. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "core.h"
#include "counters.h"
#include "fuzz_ctf.h"
#include "stacks.h"
#include "stats.h"
#include "summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static FILE *sink_out;

static int setup(void)
{
    char path[128];
    strcpy(dir, "/tmp/palev-fuzz-trace.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof(path), "%s/metadata", dir);
    sink_out = fopen("/dev/null", "w");
    return sink_out ? fuzz_copy_file(PALEV_FUZZ_TRACE_METADATA, path) : -1;
}

typedef struct readers {
    pt_pairer pairer;
    pt_summary summary;
    pt_stacks *stacks;
} readers;

static void on_value(const pt_sample *s, void *data)
{
    pt_text t = { 0 };
    fputs(pt_term(&t, s->series), data);
    pt_text_free(&t);
}

static void on_event(const pt_event *ev, void *data)
{
    readers *rd = data;
    pt_value v;
    pt_text t = { 0 };
    pt_field_json(sink_out, pt_payload(ev));
    pt_pairer_event(&rd->pairer, ev);
    pt_counter_values(ev, on_value, sink_out);
    pt_summary_event(&rd->summary, ev);
    pt_stacks_event(rd->stacks, ev);
    if (pt_field_value(pt_member(ev, "Text"), &v) == 0 && v.kind == PT_V_STR)
        fputs(pt_term(&t, v.s), sink_out);
    pt_text_free(&t);
}

static int read_quietly(const pt_input *in)
{
    pt_reader *r = NULL;
    pt_sink none = { 0 };
    if (pt_open(in, &r) == 0)
        pt_run(r, &none);
    return 0;
}

/* 1 when babeltrace2 abort()s or runs away reading the stream (in a child: the fuzzer goes on).
 * pt_run() turns the decoder's abort into exit status 1 (PT_EXIT_DATA, said on stderr); the child
 * exits 0 otherwise. */
static int decoder_aborts(const pt_input *in)
{
    int status = fuzz_try_in_child(read_quietly, in);
    return (WIFSIGNALED(status) && (WTERMSIG(status) == SIGABRT || WTERMSIG(status) == SIGALRM)) ||
           (WIFEXITED(status) && WEXITSTATUS(status) == PT_EXIT_DATA);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready = -1;
    char path[128];
    const char *paths[1] = { dir }, *manifests[1] = { PALEV_FUZZ_TRACE_MANIFEST };
    pt_input in = { .paths = paths, .npaths = 1, .manifests = manifests, .nmanifests = 1 };
    pt_reader *r = NULL;
    readers rd = { .summary = { 0 } };
    if (ready < 0)
        ready = setup();
    if (ready)
        abort();
    snprintf(path, sizeof(path), "%s/stream", dir);
    fuzz_write_input(path, data, size);
    if (decoder_aborts(&in))
        return 0;
    pt_pairer_init(&rd.pairer, "Kind", NULL);
    rd.stacks = pt_stacks_new(NULL);
    pt_sink sink = { .event = on_event, .data = &rd };
    if (pt_open(&in, &r) == 0)
        pt_run(r, &sink);
    pt_pairer_finish(&rd.pairer);
    pt_stacks_finish(rd.stacks);
    pt_pairer_free(&rd.pairer);
    pt_summary_free(&rd.summary);
    pt_stacks_free(rd.stacks);
    pt_close(r);
    return 0;
}
