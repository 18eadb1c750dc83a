/* SPDX-License-Identifier: MIT */
/* palev-trace internals shared between the core's files (not used by commands). */
#ifndef PALEV_TRACE_INTERNAL_H
#define PALEV_TRACE_INTERNAL_H

#include "core.h"

/* manifest.c: the manifests one reader loaded (-m and TRACE/palev-manifests/), with their
 * providers and events by LTTng name. Each registry has its own generator context: two readers
 * in one process share nothing. */
typedef struct pt_manifests pt_manifests;
pt_manifests *pt__manifest_new(void);
void pt__manifest_free(pt_manifests *ms);
/* The manifests are read once every rename is known, by pt__manifest_load_all(): first the
 * command line's renames (--provider-name; -1, said on stderr, when one is malformed), then the
 * manifests and directories found, whose provider-names files add renames (-1 for a bad line). */
int pt__manifest_renames(pt_manifests *ms, const char *const *specs, unsigned n);
void pt__manifest_add(pt_manifests *ms, const char *path);
int pt__manifest_add_dir(pt_manifests *ms, const char *dir);
/* Loads them: -m manifests, then the directories'. -1 when one is not valid, or when a command
 * line rename names no provider of any (said on stderr). */
int pt__manifest_load_all(pt_manifests *ms);
unsigned pt__manifest_count(const pt_manifests *ms);
const pg_provider *pt__manifest_provider(const pt_manifests *ms, const char *lttng_provider);
const pg_event *pt__manifest_event(const pt_manifests *ms, const char *name);
/* Why the trace's payload does not match the manifest's event, or NULL when it does (the text
 * lives in ms until the next call). */
const char *pt__manifest_mismatch(pt_manifests *ms, const pg_event *e, const bt_field_class *payload);
/* Says which -m manifests describe no provider that seen() finds in the trace; their number. */
unsigned pt__manifest_check_used(const pt_manifests *ms, int (*seen)(const char *provider, void *data),
                                 void *data);

/* fields.c: the index of structure st's member name (st may be NULL), or -1: a field found by
 * name once per event class, then by index in every event. */
int64_t pt__member_index(const bt_field_class *st, const char *name);

/* core.c: a babeltrace2 graph over dirs (src.ctf.fs each, or src.ctf.lttng-live), their
 * messages in time order through the muxer to message(). -1 when the graph could not be set up,
 * 1 when reading stopped early (the trace is damaged), 0 at its end; babeltrace2's reasons are
 * said by pt__bt_error(). */
int pt__run_graph(pt_reader *r, char *const *dirs, unsigned ndirs, int live,
                  void (*message)(const bt_message *msg, void *data), void *data);
/* "palev-trace: error: WHAT", then babeltrace2's causes, the root cause last. */
void pt__bt_error(const char *what);
/* --pid, or 0. */
unsigned pt__pid(const pt_reader *r);
/* The perf traces the reader found (pt_open), each a directory. */
unsigned pt__perf_dir_count(const pt_reader *r);
char *const *pt__perf_dirs(const pt_reader *r);

#endif /* PALEV_TRACE_INTERNAL_H */
