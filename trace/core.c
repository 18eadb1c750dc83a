/* SPDX-License-Identifier: MIT */
/* palev-trace's reader: finds CTF traces, builds the babeltrace2 graph (src.ctf.fs per trace ->
 * flt.utils.muxer -> our sink) and hands every event, decoded, to a command's sink. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index.h"
#include "internal.h"

/* Per babeltrace2 event class: where its name's data and its trace's context fields are. */
typedef struct bt_entry {
    pt_class *cls;              /* NULL until an event of it passes --pid */
    pt_trace *trace;
    int64_t ctx_vpid, ctx_vtid, ctx_procname;   /* common context member index, or -1 */
    int has_clock;
} bt_entry;

struct pt_reader {
    char **dirs;                /* LTTng's CTF trace directories under the inputs, or live URLs */
    unsigned ndirs;
    char **perf_dirs;           /* perf's CTF conversions (perf data convert --to-ctf) */
    unsigned nperf_dirs;
    unsigned found;             /* trace directories found, the same one twice included */
    pt_map dir_seen;            /* real path -> the dir as first found: each trace read once */
    pt_map manifest_dirs;       /* real paths of the palev-manifests/ directories loaded */
    pt_missing *missing;        /* packets the index lists that the stream files lack */
    unsigned nmissing;
    const bt_plugin *ctf, *utils;
    int live;                   /* the inputs are lttng-live URLs */
    unsigned live_seconds;
    unsigned pid;               /* --pid, or 0 */
    pt_class **classes;
    unsigned nclasses;
    pt_map class_by_name;       /* "Provider:Event" -> pt_class */
    pt_memo entry_by_ec;        /* bt_event_class * -> bt_entry */
    pt_map trace_by_bt;         /* bt_trace * -> pt_trace */
    pt_trace **traces;
    unsigned ntraces;
    char **tasks;
    unsigned ntasks;
    pt_map task_by_name;        /* task name -> its index + 1 */
    pt_manifests *manifests;    /* -m and TRACE/palev-manifests/, this reader's own */
    unsigned manifest_errors;
    const pt_sink *sink;
    int ran;                    /* the graph was set up and read (perhaps not to its end) */
};

/* ---- finding traces ----------------------------------------------------------------------- */

/* A trace directory found once more (the same input twice, or a directory and one inside it) is
 * read once, and said. perf's traces go to their own list: their clock is not LTTng's. */
static void add_dir(pt_reader *r, const char *dir, int perf)
{
    char *real = realpath(dir, NULL);
    const char *first = real ? pt_map_get_str(&r->dir_seen, real) : NULL;
    r->found++;
    if (first) {
        pt_text t = { 0 };
        if (strcmp(dir, first) == 0)
            fprintf(stderr, "palev-trace: warning: %s: this trace was found twice (an input given twice, "
                    "or inside another one): read once\n", pt_term(&t, dir));
        else
            fprintf(stderr, "palev-trace: warning: %s: this trace is %s, found already (an input given "
                    "twice, or inside another one): read once\n", pt_term(&t, dir), pt_term(&t, first));
        pt_text_free(&t);
        free(real);
        return;
    }
    char ***list = perf ? &r->perf_dirs : &r->dirs;
    unsigned *n = perf ? &r->nperf_dirs : &r->ndirs;
    *list = pt_xrealloc(*list, (*n + 1) * sizeof(**list));
    (*list)[*n] = pt_xstrdup(dir);
    if (real)
        pt_map_put_str(&r->dir_seen, real, (*list)[*n]);
    (*n)++;
    free(real);
}

static int is_file(const char *dir, const char *name)
{
    char *path = pt_xasprintf("%s/%s", dir, name);
    struct stat st;
    int yes = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    return yes;
}

/* perf data convert --to-ctf writes its metadata as text, its environment saying
 * tracer_name = "perf"; LTTng writes packetized metadata. */
static int is_perf_trace(const char *dir)
{
    char *path = pt_xasprintf("%s/metadata", dir), head[16384];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(head, 1, sizeof(head) - 1, f) : 0;
    head[n] = '\0';
    if (f)
        fclose(f);
    free(path);
    return strncmp(head, "/* CTF", 6) == 0 && strstr(head, "tracer_name = \"perf\";") != NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The subdirectories of dir, sorted (traces are then always read in the same order). Symbolic
 * links are not followed: the walk cannot loop. */
static char **subdirs(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t cap = 0;
    *n = 0;
    if (!d)
        return NULL;
    for (struct dirent *de; (de = readdir(d));) {
        struct stat st;
        if (de->d_name[0] == '.')
            continue;
        char *path = pt_xasprintf("%s/%s", dir, de->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            names = pt_xgrow(names, &cap, *n + 1, sizeof(*names));
            names[(*n)++] = path;
        } else {
            free(path);
        }
    }
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof(*names), by_name);
    return names;
}

/* A palev-manifests/ directory reached twice (an input inside another) is loaded once. */
static int load_manifest_dir(pt_reader *r, const char *dir)
{
    char *real = realpath(dir, NULL);
    int rc = 0;
    if (!real || !pt_map_get_str(&r->manifest_dirs, real)) {
        if (real)
            pt_map_put_str(&r->manifest_dirs, real, r);
        rc = pt__manifest_add_dir(r->manifests, dir);
    }
    free(real);
    return rc;
}

/* Every directory holding a CTF "metadata" file under dir, at any depth (as babeltrace2 finds
 * them); palev-manifests/ loads manifests. */
static int walk(pt_reader *r, const char *dir, int load_manifests)
{
    size_t n;
    int rc = 0;
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    if (strcmp(base, "palev-manifests") == 0)
        return load_manifests ? load_manifest_dir(r, dir) : 0;
    if (is_file(dir, "metadata"))
        add_dir(r, dir, is_perf_trace(dir));
    char **subs = subdirs(dir, &n);
    for (size_t i = 0; subs && i < n; i++) {
        if (walk(r, subs[i], load_manifests))
            rc = -1;
        free(subs[i]);
    }
    free(subs);
    return rc;
}

static int is_live(const char *path)
{
    return strncmp(path, "net://", 6) == 0;
}

static int find_traces(pt_reader *r, const pt_input *in)
{
    for (unsigned i = 0; i < in->npaths; i++) {
        struct stat st;
        unsigned before = r->found;
        if (is_live(in->paths[i]) != is_live(in->paths[0])) {
            fprintf(stderr, "palev-trace: error: %s: live sessions and trace directories cannot be "
                    "read together\n", in->paths[i]);
            return PT_EXIT_DATA;
        }
        if (is_live(in->paths[i])) {
            add_dir(r, in->paths[i], 0);
            r->live = 1;
            continue;
        }
        if (stat(in->paths[i], &st) != 0) {
            fprintf(stderr, "palev-trace: error: %s: %s\n", in->paths[i], strerror(errno));
            return PT_EXIT_DATA;
        }
        if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "palev-trace: error: %s: not a trace directory (give the directory "
                    "lttng wrote, which holds a CTF \"metadata\" file somewhere below it)\n",
                    in->paths[i]);
            return PT_EXIT_DATA;
        }
        if (walk(r, in->paths[i], !in->no_auto_manifests))
            return PT_EXIT_DATA;
        if (r->found == before) {
            fprintf(stderr, "palev-trace: error: %s: no CTF trace in this directory (no "
                    "\"metadata\" file below it)\n", in->paths[i]);
            return PT_EXIT_DATA;
        }
    }
    if (!r->ndirs) {    /* perf's samples alone: nothing names their frames or cuts them */
        pt_text t = { 0 };
        fprintf(stderr, "palev-trace: error: %s: only perf's CPU samples here, no LTTng trace (give the "
                "directory palev-collect wrote, which holds both)\n", pt_term(&t, in->paths[0]));
        pt_text_free(&t);
        return PT_EXIT_DATA;
    }
    return 0;
}

static int by_stream(const void *a, const void *b)
{
    return strcmp(((const pt_missing *)a)->stream, ((const pt_missing *)b)->stream);
}

/* The packets each trace's index lists and its stream files lack. */
static void check_indexes(pt_reader *r)
{
    for (unsigned i = 0; i < r->ndirs && !r->live; i++)
        pt__index_check(r->dirs[i], &r->missing, &r->nmissing);
    if (r->nmissing)
        qsort(r->missing, r->nmissing, sizeof(*r->missing), by_stream);
}

int pt_open(const pt_input *in, pt_reader **out)
{
    pt_reader *r = pt_xcalloc(1, sizeof(*r));
    int rc = 0;
    r->manifests = pt__manifest_new();
    if (pt__manifest_renames(r->manifests, in->provider_names, in->nprovider_names))
        rc = PT_EXIT_USAGE;
    for (unsigned i = 0; i < in->nmanifests; i++)
        pt__manifest_add(r->manifests, in->manifests[i]);
    r->live_seconds = in->live_seconds;
    r->pid = in->pid;
    if (!rc)
        rc = find_traces(r, in);
    if (!rc && pt__manifest_load_all(r->manifests))
        rc = PT_EXIT_DATA;
    if (!rc)
        check_indexes(r);
    if (rc) {
        pt_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

void pt_close(pt_reader *r)
{
    if (!r)
        return;
    for (unsigned i = 0; i < r->ndirs; i++)
        free(r->dirs[i]);
    for (unsigned i = 0; i < r->nperf_dirs; i++)
        free(r->perf_dirs[i]);
    for (unsigned i = 0; i < r->nmissing; i++)
        free(r->missing[i].stream);
    for (unsigned i = 0; i < r->nclasses; i++) {
        free(r->classes[i]->name);
        free(r->classes[i]->provider);
        free(r->classes[i]->task);
        free(r->classes[i]);
    }
    for (unsigned i = 0; i < r->ntraces; i++) {
        free(r->traces[i]->path);
        free(r->traces[i]->hostname);
        free(r->traces[i]);
    }
    for (unsigned i = 0; i < r->ntasks; i++)
        free(r->tasks[i]);
    pt_memo_free(&r->entry_by_ec);
    pt_map_free(&r->dir_seen);
    pt_map_free(&r->manifest_dirs);
    bt_plugin_put_ref(r->ctf);
    bt_plugin_put_ref(r->utils);
    pt_map_free(&r->class_by_name);
    pt_map_free(&r->trace_by_bt);
    pt_map_free(&r->task_by_name);
    free(r->dirs);
    free(r->perf_dirs);
    free(r->missing);
    free(r->classes);
    free(r->traces);
    free(r->tasks);
    pt__manifest_free(r->manifests);
    free(r);
}

/* ---- what the reader learnt ---------------------------------------------------------------- */

unsigned pt_trace_count(const pt_reader *r) { return r->ntraces; }
pt_trace *pt_trace_at(const pt_reader *r, unsigned i) { return r->traces[i]; }
unsigned pt_class_count(const pt_reader *r) { return r->nclasses; }
pt_class *pt_class_at(const pt_reader *r, unsigned i) { return r->classes[i]; }
unsigned pt_task_count(const pt_reader *r) { return r->ntasks; }
const char *pt_task_name(const pt_reader *r, unsigned i) { return r->tasks[i]; }
unsigned pt_manifest_count(const pt_reader *r) { return pt__manifest_count(r->manifests); }
unsigned pt_manifest_errors(const pt_reader *r) { return r->manifest_errors; }
int pt_ran(const pt_reader *r) { return r && r->ran; }
unsigned pt_missing_count(const pt_reader *r) { return r->nmissing; }
const pt_missing *pt_missing_at(const pt_reader *r, unsigned i) { return &r->missing[i]; }

int pt_span(const pt_reader *r, int64_t *first, int64_t *last)
{
    int any = 0;
    for (unsigned i = 0; i < r->ntraces; i++) {
        const pt_trace *t = r->traces[i];
        if (t->first_ts > t->last_ts)
            continue;
        if (!any || t->first_ts < *first)
            *first = t->first_ts;
        if (!any || t->last_ts > *last)
            *last = t->last_ts;
        any = 1;
    }
    return any;
}

/* ---- classes, tasks, traces ---------------------------------------------------------------- */

static unsigned task_index(pt_reader *r, const char *name)
{
    void *v = pt_map_get_str(&r->task_by_name, name);
    if (v)
        return (unsigned)(uintptr_t)v - 1;
    r->tasks = pt_xrealloc(r->tasks, (r->ntasks + 1) * sizeof(*r->tasks));
    r->tasks[r->ntasks] = pt_xstrdup(name);
    pt_map_put_str(&r->task_by_name, name, (void *)(uintptr_t)(r->ntasks + 1));
    return r->ntasks++;
}

/* "GCStart" -> START of "GC"; "GCStop"/"GCEnd" -> STOP of "GC" (no manifest describes it). */
static enum pt_role name_role(const char *event, size_t *stem)
{
    static const struct { const char *suffix; enum pt_role role; } rules[] = {
        { "Start", PT_ROLE_START }, { "Stop", PT_ROLE_STOP }, { "End", PT_ROLE_STOP },
    };
    size_t n = strlen(event);
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        size_t k = strlen(rules[i].suffix);
        if (n > k && strcmp(event + n - k, rules[i].suffix) == 0) {
            *stem = n - k;
            return rules[i].role;
        }
    }
    return PT_ROLE_NONE;
}

static void set_role(pt_reader *r, pt_class *c)
{
    char *task;
    size_t stem = 0;
    const pg_event *e = c->man;
    if (pt__manifest_provider(r->manifests, c->provider)) {
        uint64_t op = e && e->opcode ? e->opcode->value : 0;
        if (!e || !e->task || (op != PT_OPCODE_START && op != PT_OPCODE_STOP))
            return;
        c->role = op == PT_OPCODE_START ? PT_ROLE_START : PT_ROLE_STOP;
        task = pt_xasprintf("%s:%s", c->provider, e->task->name);
    } else {
        if ((c->role = name_role(c->event, &stem)) == PT_ROLE_NONE)
            return;
        task = pt_xasprintf("%s:%.*s", c->provider, (int)stem, c->event);
    }
    c->task = task;
    c->task_index = task_index(r, task);
}

static pt_class *class_named(pt_reader *r, const char *name)
{
    pt_class *c = pt_map_get_str(&r->class_by_name, name);
    if (c)
        return c;
    c = pt_xcalloc(1, sizeof(*c));
    c->name = pt_xstrdup(name);
    const char *colon = strchr(c->name, ':');
    c->provider = colon ? pt_xstrndup(c->name, (size_t)(colon - c->name)) : pt_xstrdup("");
    c->event = colon ? colon + 1 : c->name;
    c->index = r->nclasses;
    c->man = pt__manifest_event(r->manifests, c->name);
    c->is_eventsource = strcmp(c->name, PCM_OWN_EVENT("EventSource")) == 0;
    set_role(r, c);
    PT_APPEND(r->classes, r->nclasses, c);
    pt_map_put_str(&r->class_by_name, name, c);
    return c;
}

/* src.ctf.fs names a stream after its file: the trace's directory, else the trace's name. */
static char *trace_path(const bt_stream *s, const char *fallback)
{
    const char *name = bt_stream_get_name(s), *slash = name ? strrchr(name, '/') : NULL;
    return name && name[0] == '/' && slash ? pt_xstrndup(name, (size_t)(slash - name)) : pt_xstrdup(fallback);
}

/* ns from the clock's origin minus its raw value: LTTng's offset to the epoch (0 without a clock). */
static int64_t clock_offset(const bt_stream *s)
{
    const bt_clock_class *cc = bt_stream_class_borrow_default_clock_class_const(bt_stream_borrow_class_const(s));
    int64_t seconds = 0, ns = 0;
    uint64_t cycles = 0;
    if (!cc)
        return 0;
    bt_clock_class_get_offset(cc, &seconds, &cycles);
    bt_util_clock_cycles_to_ns_from_origin(cycles, bt_clock_class_get_frequency(cc), seconds, 0, &ns);
    return ns;
}

static pt_trace *trace_of(pt_reader *r, const bt_stream *s)
{
    const bt_trace *bt = bt_stream_borrow_trace_const(s);
    pt_trace *t = pt_map_get(&r->trace_by_bt, (uint64_t)(uintptr_t)bt);
    if (t)
        return t;
    t = pt_xcalloc(1, sizeof(*t));
    const bt_value *host = bt_trace_borrow_environment_entry_value_by_name_const(bt, "hostname");
    const char *name = bt_trace_get_name(bt);
    t->hostname = pt_xstrdup(host && bt_value_is_string(host) ? bt_value_string_get(host) : "?");
    t->path = trace_path(s, name ? name : t->hostname);
    t->index = r->ntraces;
    t->clock_offset = clock_offset(s);
    t->first_ts = 1;
    t->last_ts = 0;
    PT_APPEND(r->traces, r->ntraces, t);
    pt_map_put(&r->trace_by_bt, (uint64_t)(uintptr_t)bt, t);
    return t;
}

/* The manifest must describe what the trace holds: a mismatch is said once per event name. */
static void check_manifest(pt_reader *r, pt_class *c, const bt_event_class *ec)
{
    const char *why;
    pt_text t = { 0 };
    if (c->count || !pt__manifest_provider(r->manifests, c->provider))
        return;
    if (!c->man) {
        fprintf(stderr, "palev-trace: error: the manifest of provider %s has no event %s, which "
                "the trace holds: is it the manifest this trace was recorded with?\n",
                pt_term(&t, c->provider), pt_term(&t, c->event));
        r->manifest_errors++;
    } else if ((why = pt__manifest_mismatch(r->manifests, c->man,
                                            bt_event_class_borrow_payload_field_class_const(ec)))) {
        fprintf(stderr, "palev-trace: error: event %s does not match its manifest: %s\n",
                pt_term(&t, c->name), pt_term(&t, why));
        r->manifest_errors++;
        c->man = NULL;
    }
    pt_text_free(&t);
}

static bt_entry *entry_of(pt_reader *r, const bt_message *msg, const bt_event *ev)
{
    const bt_event_class *ec = bt_event_borrow_class_const(ev);
    bt_entry *e = pt_memo_get(&r->entry_by_ec, ec);
    if (e)
        return e;
    const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
    const bt_field_class *ctx = bt_stream_class_borrow_event_common_context_field_class_const(sc);
    e = pt_xcalloc(1, sizeof(*e));
    e->trace = trace_of(r, bt_event_borrow_stream_const(ev));
    e->ctx_vpid = pt__member_index(ctx, "vpid");
    e->ctx_vtid = pt__member_index(ctx, "vtid");
    e->ctx_procname = pt__member_index(ctx, "procname");
    e->has_clock = bt_message_event_borrow_stream_class_default_clock_class_const(msg) != NULL;
    return pt_memo_put(&r->entry_by_ec, ec, e);
}

/* ---- reading ------------------------------------------------------------------------------ */

static int64_t ctx_int(const bt_field *ctx, int64_t index)
{
    if (!ctx || index < 0)
        return -1;
    const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(ctx, (uint64_t)index);
    bt_field_class_type t = bt_field_get_class_type(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
        return bt_field_integer_signed_get_value(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
        return (int64_t)bt_field_integer_unsigned_get_value(f);
    return -1;
}

static void on_event(pt_reader *r, const bt_message *msg)
{
    const bt_event *bev = bt_message_event_borrow_event_const(msg);
    bt_entry *e = entry_of(r, msg, bev);
    pt_event ev = { .bt = bev, .trace = e->trace, .vpid = -1, .vtid = -1 };
    const bt_field *ctx = bt_event_borrow_common_context_field_const(bev);
    ev.vpid = ctx_int(ctx, e->ctx_vpid);
    if (r->pid && ev.vpid != (int64_t)r->pid)
        return;     /* --pid: another process (or none known) */
    if (!e->cls) {  /* the class is known from its first event that is read */
        const bt_event_class *ec = bt_event_borrow_class_const(bev);
        const char *name = bt_event_class_get_name(ec);
        e->cls = class_named(r, name ? name : "?");
        check_manifest(r, e->cls, ec);
    }
    ev.cls = e->cls;
    if (e->has_clock)
        bt_clock_snapshot_get_ns_from_origin(bt_message_event_borrow_default_clock_snapshot_const(msg), &ev.ts);
    ev.vtid = ctx_int(ctx, e->ctx_vtid);
    if (ctx && e->ctx_procname >= 0)
        ev.procname = bt_field_string_get_value(
            bt_field_structure_borrow_member_field_by_index_const(ctx, (uint64_t)e->ctx_procname));
    pt_trace *t = e->trace;
    if (t->first_ts > t->last_ts)
        t->first_ts = ev.ts;
    t->last_ts = ev.ts;
    t->events++;
    if (r->sink->event)
        r->sink->event(&ev, r->sink->data);
    e->cls->count++;
}

static void on_discarded(pt_reader *r, const bt_message *msg, int packets)
{
    uint64_t count = 0;
    const bt_stream *s = packets ? bt_message_discarded_packets_borrow_stream_const(msg)
                                 : bt_message_discarded_events_borrow_stream_const(msg);
    bt_property_availability a = packets ? bt_message_discarded_packets_get_count(msg, &count)
                                         : bt_message_discarded_events_get_count(msg, &count);
    if (a != BT_PROPERTY_AVAILABILITY_AVAILABLE)
        count = 1;  /* "some": at least one */
    pt_trace *t = trace_of(r, s);
    if (packets)
        t->discarded_packets += count;
    else
        t->discarded_events += count;
    if (r->sink->discarded)
        r->sink->discarded(t, packets, count, r->sink->data);
}

/* ---- babeltrace2's aborts ------------------------------------------------------------------------
 * babeltrace2 2.0.4's CTF decoder asserts (abort()) on some damaged packets: the babeltrace2
 * command dies the same way. While babeltrace2 decodes (in_decoder), an abort is said to be the
 * trace's and exits as for any bad trace; anywhere else (our code, a sink callback, heap
 * corruption) the handler returns and abort() goes on: a crash stays a crash, never blamed on the
 * trace. A signal handler can only see file-scope state: this flag is the reader's one global. */
static volatile sig_atomic_t in_decoder;

static void on_abort(int sig)
{
    static const char msg[] = "palev-trace: error: the trace is damaged: babeltrace2's CTF decoder "
                              "stopped on an internal assertion (babeltrace2 itself aborts on this "
                              "trace too)\n";
    (void)sig;
    if (!in_decoder)
        return;     /* abort() restores the default action and raises again: a real crash */
    if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
        _exit(PT_EXIT_DATA);
    _exit(PT_EXIT_DATA);
}

/* Who reads a graph's messages: the LTTng trace's dispatcher, or samples.c for perf's. */
typedef struct graph_user {
    void (*message)(const bt_message *msg, void *data);
    void *data;
} graph_user;

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it, void *data)
{
    const graph_user *u = data;
    bt_message_array_const msgs;
    uint64_t n = 0;
    bt_message_iterator_next_status st = bt_message_iterator_next(it, &msgs, &n);
    in_decoder = 0;     /* the messages are ours to handle now */
    if (st != BT_MESSAGE_ITERATOR_NEXT_STATUS_OK) {
        in_decoder = 1;
        switch (st) {
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_END: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
            return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
        default: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        u->message(msgs[i], u->data);
        bt_message_put_ref(msgs[i]);
    }
    in_decoder = 1;
    return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static void lttng_message(const bt_message *msg, void *data)
{
    pt_reader *r = data;
    switch (bt_message_get_type(msg)) {
    case BT_MESSAGE_TYPE_EVENT: on_event(r, msg); break;
    case BT_MESSAGE_TYPE_DISCARDED_EVENTS: on_discarded(r, msg, 0); break;
    case BT_MESSAGE_TYPE_DISCARDED_PACKETS: on_discarded(r, msg, 1); break;
    default: break;
    }
}

/* babeltrace2's own explanation of a failure, the root cause last; lines that only give its
 * internal addresses are left out. */
void pt__bt_error(const char *what)
{
    const bt_error *err = bt_current_thread_take_error();
    pt_text t = { 0 };
    fprintf(stderr, "palev-trace: error: %s\n", pt_term(&t, what));
    uint64_t n = err ? bt_error_get_cause_count(err) : 0;
    for (uint64_t i = n; i-- > 0;) {   /* they quote the trace (paths, metadata): escaped */
        const char *msg = bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i));
        if (!strstr(msg, "-addr="))
            fprintf(stderr, "  babeltrace2: %s\n", pt_term(&t, msg));
    }
    if (err)
        bt_error_release(err);
    pt_text_free(&t);
}

/* A babeltrace2 plugin, held by the reader until pt_close(). */
static const bt_plugin *find_plugin(const bt_plugin **held, const char *name)
{
    if (!*held && bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, held) != BT_PLUGIN_FIND_STATUS_OK) {
        fprintf(stderr, "palev-trace: error: babeltrace2's \"%s\" plugin is not installed "
                "(Debian package libbabeltrace2-0)\n", name);
        *held = NULL;
    }
    return *held;
}

static int add_source(bt_graph *g, const bt_component_class_source *cls, const char *dir, unsigned i,
                      const bt_component_source **src)
{
    char name[32], *what;
    bt_value *params = bt_value_map_create(), *inputs = NULL;
    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs);
    bt_value_array_append_string_element(inputs, dir);
    snprintf(name, sizeof(name), "src%u", i);
    in_decoder = 1;     /* src.ctf.fs reads the metadata and indexes the streams here */
    bt_graph_add_component_status st =
        bt_graph_add_source_component(g, cls, name, params, BT_LOGGING_LEVEL_NONE, src);
    in_decoder = 0;
    bt_value_put_ref(params);
    if (st == BT_GRAPH_ADD_COMPONENT_STATUS_OK)
        return 0;
    what = pt_xasprintf(strncmp(dir, "net://", 6) == 0 ? "%s: cannot read this live session"
                        : "%s: not a readable CTF trace", dir);
    pt__bt_error(what);
    free(what);
    return -1;
}

/* Every output port of the sources into the muxer, whose input ports appear as they connect. */
static int connect_all(bt_graph *g, const bt_component_source **srcs, unsigned n,
                       const bt_component_filter *mux, const bt_component_sink *sink)
{
    uint64_t k = 0;
    for (unsigned i = 0; i < n; i++)
        for (uint64_t p = 0; p < bt_component_source_get_output_port_count(srcs[i]); p++)
            if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(srcs[i], p),
                                       bt_component_filter_borrow_input_port_by_index_const(mux, k++), NULL))
                return -1;
    return bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
                                  bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL) ? -1 : 0;
}

static int build_graph(pt_reader *r, bt_graph *g, char *const *dirs, unsigned ndirs, int live, graph_user *u)
{
    const bt_plugin *ctf = find_plugin(&r->ctf, "ctf"), *utils = find_plugin(&r->utils, "utils");
    const bt_component_source **srcs = pt_xcalloc(ndirs, sizeof(*srcs));
    const bt_component_filter *mux = NULL;
    const bt_component_sink *sink = NULL;
    int rc = -1;
    if (!ctf || !utils)
        goto end;
    const bt_component_class_source *fs =
        bt_plugin_borrow_source_component_class_by_name_const(ctf, live ? "lttng-live" : "fs");
    const bt_component_class_filter *muxc = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
    for (unsigned i = 0; i < ndirs; i++)
        if (add_source(g, fs, dirs[i], i, &srcs[i]))
            goto end;
    if (bt_graph_add_filter_component(g, muxc, "mux", NULL, BT_LOGGING_LEVEL_NONE, &mux) ||
        bt_graph_add_simple_sink_component(g, "palev-trace", NULL, consume, NULL, u, &sink) ||
        connect_all(g, srcs, ndirs, mux, sink)) {
        pt__bt_error("cannot set up babeltrace2's graph");
        goto end;
    }
    rc = 0;
end:
    free(srcs);
    return rc;
}

static bt_graph_run_status run_all(bt_graph *g)
{
    bt_graph_run_status st;
    in_decoder = 1;
    while ((st = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN)
        ;
    in_decoder = 0;
    return st;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A live session: a little at a time, a tick every second, until it ends or time is up. */
static bt_graph_run_status run_live(pt_reader *r, bt_graph *g)
{
    double start = now_s(), next = start + 1;
    for (;;) {
        in_decoder = 1;
        bt_graph_run_once_status st = bt_graph_run_once(g);
        in_decoder = 0;
        if (st == BT_GRAPH_RUN_ONCE_STATUS_END)
            return BT_GRAPH_RUN_STATUS_OK;
        if (st != BT_GRAPH_RUN_ONCE_STATUS_OK && st != BT_GRAPH_RUN_ONCE_STATUS_AGAIN)
            return BT_GRAPH_RUN_STATUS_ERROR;
        if (st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN) {
            struct timespec pause = { 0, 20000000 };
            nanosleep(&pause, NULL);
        }
        double t = now_s();
        if (t >= next) {
            if (r->sink->tick)
                r->sink->tick(r->sink->data);
            next += 1;
        }
        if (r->live_seconds && t - start >= r->live_seconds)
            return BT_GRAPH_RUN_STATUS_OK;
    }
}

static int provider_seen(const char *provider, void *data)
{
    const pt_reader *r = data;
    for (unsigned i = 0; i < r->nclasses; i++)
        if (strcmp(r->classes[i]->provider, provider) == 0)
            return 1;
    return 0;
}

int pt__run_graph(pt_reader *r, char *const *dirs, unsigned ndirs, int live,
                  void (*message)(const bt_message *msg, void *data), void *data)
{
    struct sigaction sa = { .sa_handler = on_abort }, old;
    bt_graph *g = bt_graph_create(0);
    graph_user u = { message, data };
    int rc = -1;
    sigaction(SIGABRT, &sa, &old);
    if (g && build_graph(r, g, dirs, ndirs, live, &u) == 0)
        rc = (live ? run_live(r, g) : run_all(g)) == BT_GRAPH_RUN_STATUS_OK ? 0 : 1;
    if (rc == 0) {
        /* babeltrace2 2.0.4's CTF source may end a damaged stream as if it ended, an error cause
         * left behind: the next graph would abort on it (found by fuzzing). A damaged trace. */
        const bt_error *err = bt_current_thread_take_error();
        if (err) {
            bt_current_thread_move_error(err);
            rc = 1;
        }
    }
    sigaction(SIGABRT, &old, NULL);
    bt_graph_put_ref(g);
    return rc;
}

int pt_run(pt_reader *r, const pt_sink *sink)
{
    int rc = PT_EXIT_DATA;
    r->sink = sink;
    int st = pt__run_graph(r, r->dirs, r->ndirs, r->live, lttng_message, r);
    r->ran = st >= 0;
    if (st > 0) {
        char what[128];
        uint64_t events = 0;
        for (unsigned i = 0; i < r->ntraces; i++)
            events += r->traces[i]->events;
        snprintf(what, sizeof(what), "the trace is damaged: reading stopped after %llu events "
                 "(what follows covers those only)", (unsigned long long)events);
        pt__bt_error(what);
    } else if (st == 0) {
        rc = 0;
    }
    if (r->nclasses)
        r->manifest_errors += pt__manifest_check_used(r->manifests, provider_seen, r);
    return rc;
}

/* ---- a whole input, and the verdict ------------------------------------------------------------ */

int pt_read_all(const pt_input *in, const pt_sink *sink, pt_reader **out)
{
    *out = NULL;
    int rc = pt_open(in, out);
    return rc ? rc : pt_run(*out, sink);
}

static void say_missing(const pt_reader *r)
{
    pt_text t = { 0 };
    for (unsigned i = 0; i < r->nmissing; i++)
        fprintf(stderr, "palev-trace: error: %s: %llu packets (%llu bytes) the trace's index lists are "
                "missing from this stream file (emptied, cut short or deleted after recording): their "
                "events are not read\n", pt_term(&t, r->missing[i].stream),
                (unsigned long long)r->missing[i].packets, (unsigned long long)r->missing[i].bytes);
    pt_text_free(&t);
}

int pt_verdict(pt_reader *r, int read_rc)
{
    uint64_t lost = 0, lost_packets = 0, events = 0;
    for (unsigned i = 0; i < pt_trace_count(r); i++) {
        lost += pt_trace_at(r, i)->discarded_events;
        lost_packets += pt_trace_at(r, i)->discarded_packets;
        events += pt_trace_at(r, i)->events;
    }
    if (lost || lost_packets)
        fprintf(stderr, "palev-trace: warning: the trace lost %llu events and %llu packets: "
                "figures are lower bounds (palev-trace summary says where; record again with "
                "bigger sub-buffers or fewer events)\n", (unsigned long long)lost,
                (unsigned long long)lost_packets);
    say_missing(r);
    if (!events && !read_rc && r->pid)
        fprintf(stderr, "palev-trace: error: the trace holds no event of process %u (--pid)\n", r->pid);
    else if (!events && !read_rc)
        fputs("palev-trace: error: the trace holds no event\n", stderr);
    if (read_rc || lost || lost_packets || r->nmissing || !events || pt_manifest_errors(r))
        return PT_EXIT_DATA;
    return PT_EXIT_OK;
}

int pt_read_print(const pt_input *in, const pt_sink *sink, int (*print)(pt_reader *r, void *data))
{
    pt_reader *r = NULL;
    int rc = pt_read_all(in, sink, &r);
    if (pt_ran(r)) {
        int found = print(r, sink->data);
        fflush(stdout);
        rc = pt_verdict(r, rc ? rc : found);
    }
    pt_close(r);
    return rc;
}

uint64_t pt_process_key(const pt_event *ev)
{
    return (uint64_t)ev->trace->index << 32 | (uint32_t)ev->vpid;
}

unsigned pt__perf_dir_count(const pt_reader *r)
{
    return r->nperf_dirs;
}

char *const *pt__perf_dirs(const pt_reader *r)
{
    return r->perf_dirs;
}

unsigned pt__pid(const pt_reader *r)
{
    return r->pid;
}
