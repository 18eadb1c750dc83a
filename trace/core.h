/* SPDX-License-Identifier: MIT */
/* palev-trace's core: inputs, the babeltrace2 graph, decoded events, fields, the verdict.
 *
 * Names: pt_ for what the commands use (this header, util.h, stats.h, summary.h, counters.h,
 * stacks.h, symbols.h, svg.h, command.h); pt__ for the core's own cross-file internals
 * (internal.h), never used by a command; static names inside a file. Memory: util.h's one
 * policy (pt_x* exit on exhaustion). */
#ifndef PALEV_TRACE_CORE_H
#define PALEV_TRACE_CORE_H

#include <babeltrace2/babeltrace.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "util.h"

/* Exit codes of every command (documented in --help and docs/palev-trace.md). */
enum { PT_EXIT_OK = 0, PT_EXIT_DATA = 1, PT_EXIT_USAGE = 2 };

/* ETW's activity opcodes (win:Start, win:Stop). */
enum { PT_OPCODE_START = 1, PT_OPCODE_STOP = 2 };
enum pt_role { PT_ROLE_NONE, PT_ROLE_START, PT_ROLE_STOP };

/* One event name ("Provider:Event") as seen in the trace; every trace's classes of that name
 * share it. */
typedef struct pt_class {
    char *name;                 /* "Provider:Event" */
    char *provider;             /* "Provider" */
    const char *event;          /* "Event" (inside name) */
    unsigned index;             /* 0, 1, ... in order of first appearance */
    const pg_event *man;        /* the manifest's event, or NULL */
    enum pt_role role;          /* Start/Stop of an activity */
    char *task;                 /* the activity's task name when role != NONE */
    unsigned task_index;        /* dense index of task among activity tasks */
    int is_eventsource;         /* Paleventing:EventSource */
    int counter;                /* counters.c's verdict on this event: 0 until it looked */
    uint64_t count;
} pt_class;

/* One CTF trace directory (a host's or a session's). */
typedef struct pt_trace {
    char *path;
    char *hostname;             /* from the CTF environment, or "?" */
    unsigned index;
    uint64_t discarded_events, discarded_packets;
    uint64_t events;
    int64_t first_ts, last_ts;  /* ns from origin; first_ts > last_ts while empty */
    int64_t clock_offset;       /* ns from origin minus the clock's raw value (its offset to the
                                   epoch): raw CLOCK_MONOTONIC ns = ts - clock_offset */
} pt_trace;

/* A decoded event handed to a command. Fields are read on demand (pt_field_*). */
typedef struct pt_event {
    const bt_event *bt;
    pt_class *cls;
    pt_trace *trace;
    int64_t ts;                 /* ns from the clock's origin */
    int64_t vpid, vtid;         /* -1 when the context is absent */
    const char *procname;       /* NULL when absent */
} pt_event;

/* What a command does with the stream of events (any callback may be NULL). */
typedef struct pt_sink {
    void (*event)(const pt_event *ev, void *data);
    void (*discarded)(pt_trace *t, int packets, uint64_t count, void *data);
    /* Live inputs only: called about once per second of wall-clock time. */
    void (*tick)(void *data);
    void *data;
} pt_sink;

/* Options every command shares. */
typedef struct pt_input {
    const char **paths;         /* TRACE arguments */
    unsigned npaths;
    const char **manifests;     /* -m MANIFEST */
    unsigned nmanifests;
    const char **provider_names;    /* --provider-name ETWNAME=LTTNGNAME: as the providers were
                                       built (with TRACE/palev-manifests/provider-names) */
    unsigned nprovider_names;
    int no_auto_manifests;      /* --no-manifests */
    unsigned pid;               /* --pid: only the events of the processes of this vpid (0: all) */
    unsigned live_seconds;      /* live inputs: stop after this many seconds (0: at the end) */
} pt_input;

/* The reader: set up by pt_open(), driven by pt_run(), released by pt_close(). */
typedef struct pt_reader pt_reader;

/* An input "net://HOST[:PORT]/host/HOSTNAME/SESSION" is a live session of an lttng-relayd
 * (src.ctf.lttng-live); any other input is a directory searched for CTF traces. */
/* Finds the CTF traces under the inputs, loads the manifests (-m and TRACE/palev-manifests),
 * renamed as --provider-name and TRACE/palev-manifests/provider-names say. Returns 0, or
 * PT_EXIT_DATA (PT_EXIT_USAGE for a malformed --provider-name) after printing why on stderr. */
int pt_open(const pt_input *in, pt_reader **out);
/* --provider-name values checked as palev-gen checks them: -1 after saying why on stderr
 * ("palev-trace COMMAND: --provider-name ..."), or 0. */
int pt_provider_names_check(const char *command, const pt_input *in);
/* Reads every event in time order through sink. Returns 0 or PT_EXIT_DATA (reported). */
int pt_run(pt_reader *r, const pt_sink *sink);
void pt_close(pt_reader *r);

/* 1 when pt_run() set up the graph and read (perhaps not to the end): there is something to say. */
int pt_ran(const pt_reader *r);
/* What the reader learnt (valid after pt_run). */
unsigned pt_trace_count(const pt_reader *r);
pt_trace *pt_trace_at(const pt_reader *r, unsigned i);
unsigned pt_class_count(const pt_reader *r);
pt_class *pt_class_at(const pt_reader *r, unsigned i);
unsigned pt_task_count(const pt_reader *r);
const char *pt_task_name(const pt_reader *r, unsigned i);
unsigned pt_manifest_count(const pt_reader *r);
/* Span of all events; 0 when there is none. */
int pt_span(const pt_reader *r, int64_t *first, int64_t *last);
/* Problems found with the manifests (mismatches with the trace): reported, counted. */
unsigned pt_manifest_errors(const pt_reader *r);

/* Packets LTTng's index (DIR/index/STREAM.idx) lists that the stream file DIR/STREAM lacks:
 * the file was emptied, cut short or deleted after the trace was written (known at pt_open). */
typedef struct pt_missing {
    char *stream;               /* the stream file's path */
    uint64_t packets, bytes;
} pt_missing;
unsigned pt_missing_count(const pt_reader *r);
const pt_missing *pt_missing_at(const pt_reader *r, unsigned i);

/* ---- fields of an event ------------------------------------------------------------------ */

/* A scalar value of a field. */
typedef struct pt_value {
    enum { PT_V_NONE, PT_V_SINT, PT_V_UINT, PT_V_REAL, PT_V_STR, PT_V_BOOL } kind;
    int64_t i;
    uint64_t u;
    double d;
    const char *s;              /* string, or the enum label (first one) */
    int is_enum;                /* integer with labels: s is the label (or NULL: no label) */
    int hex;                    /* integer preferred in hex */
} pt_value;

const bt_field *pt_payload(const pt_event *ev);
/* The payload member named name, or NULL. */
const bt_field *pt_member(const pt_event *ev, const char *name);
/* The payload member named name as an integer (0, or -1 when absent or not an integer), as a
 * string (NULL when absent or not one), as an integer array (the number of elements copied, at
 * most max). */
int pt_member_u64(const pt_event *ev, const char *name, uint64_t *out);
const char *pt_member_str(const pt_event *ev, const char *name);
size_t pt_member_u64_array(const pt_event *ev, const char *name, uint64_t *out, size_t max);
/* Reads a scalar field (integer, enum, real, string, bool); returns 0, or -1 for a compound. */
int pt_field_value(const bt_field *f, pt_value *v);
/* The value as a number (1 when it is one). */
int pt_value_number(const pt_value *v, double *out);
/* Writes any field as JSON: enum labels and hex integers as strings, like babeltrace2 prints them. */
void pt_field_json(FILE *out, const bt_field *f);
/* Formats a scalar value as babeltrace2 would print it (labels for enums), into buf. */
const char *pt_value_text(const pt_value *v, char *buf, size_t size);
/* An event's fields as one line, "Count=3 Generation=1 Reason=OldBudget" (compound fields as
 * JSON), cut near 240 bytes with an ellipsis: a new string (free it). Not escaped. */
char *pt_fields_text(const bt_field *payload);

/* ---- reading a whole input, and the verdict ------------------------------------------------ */

/* pt_open() then pt_run(): *out is set (or NULL) either way. Returns 0 or PT_EXIT_DATA. */
int pt_read_all(const pt_input *in, const pt_sink *sink, pt_reader **out);
/* The exit status after a read: data problems (discarded events, packets missing from the
 * stream files, manifest errors, no events) are said on stderr once and give PT_EXIT_DATA. */
int pt_verdict(pt_reader *r, int read_rc);
/* A command that reads its whole input, then prints: pt_read_all() through sink; when the trace
 * could be read, print(r, sink->data) (0, or PT_EXIT_DATA when what it found is wanting: said on
 * stderr) and stdout flushed, then the verdict; the reader closed. Returns the exit status. */
int pt_read_print(const pt_input *in, const pt_sink *sink, int (*print)(pt_reader *r, void *data));

/* A process across the inputs: two hosts (or sessions) may reuse a pid, so the trace's index
 * goes above the vpid. */
uint64_t pt_process_key(const pt_event *ev);

#endif /* PALEV_TRACE_CORE_H */
