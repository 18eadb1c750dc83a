/* SPDX-License-Identifier: MIT */
/* palev-trace internals shared between the core's files (not used by commands). */
#ifndef PALEV_TRACE_INTERNAL_H
#define PALEV_TRACE_INTERNAL_H

#include "core.h"

/* manifest.c: a registry of the loaded manifests' providers and events. */
int pt__manifest_load(const char *path);
int pt__manifest_load_dir(const char *dir);
unsigned pt__manifest_count(void);
const pg_provider *pt__manifest_provider(const char *lttng_provider);
const pg_event *pt__manifest_event(const char *name);
/* Why the trace's payload does not match the manifest's event, or NULL when it does. */
const char *pt__manifest_mismatch(const pg_event *e, const bt_field_class *payload);
/* Says which -m manifests describe no provider that seen() finds in the trace; their number. */
unsigned pt__manifest_check_used(int (*seen)(const char *provider, void *data), void *data);
void pt__manifest_free(void);

#endif /* PALEV_TRACE_INTERNAL_H */
