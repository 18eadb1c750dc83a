/* SPDX-License-Identifier: MIT */
/* What the checker's files share: check.c (providers, events) calls check_templates.c (maps,
 * templates); both read attribute values with numbers.c. */
#ifndef PALEVGEN_CHECK_H
#define PALEVGEN_CHECK_H

#include "model.h"

/* numbers.c: s without leading and trailing white space (a copy in the arena when it has any). */
const char *pg_trim(pg_ctx *cx, const char *s);
/* A decimal or 0x number of at most max into *out; else an error naming `what` at loc.
 * Returns 1 when it is one. */
int pg_parse_u64(pg_ctx *cx, const char *s, pg_loc loc, const char *what, uint64_t max, uint64_t *out);

/* check_templates.c: the provider's valueMaps and bitMaps: labels from the string table, values parsed. */
void pg_check_maps(pg_ctx *cx, const pg_manifest *m, pg_provider *p);
/* Its templates: fields, references, trace field names, enums. */
void pg_check_templates(pg_ctx *cx, pg_provider *p);

#endif /* PALEVGEN_CHECK_H */
