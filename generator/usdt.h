/* SPDX-License-Identifier: MIT */
/* generate --usdt (emit_usdt.c): what emit.c asks of it; each does nothing new without --usdt. */
#ifndef PALEVGEN_USDT_H
#define PALEVGEN_USDT_H

#include "ctext.h"

/* The inline check of FireEvent<Sym>() / EventEnabled<Sym>() on the event's tracepoint state:
 * the state alone, or (--usdt) the state or the event's semaphore, in one branch. */
const char *pg_usdt_check(pg_ctx *cx, const pg_event *e);

/* <P>-events.h: with --usdt, ProviderEnabled<P>() also answers for attached USDT tools; returns 1
 * when it wrote it, 0 (nothing written) without --usdt. */
int pg_usdt_emit_provider_enabled(pg_ctx *cx, pg_buf *b, const pg_provider *p);

/* <P>-events.h: the check's macros, once; per event its semaphore and the probe's arguments. */
void pg_usdt_emit_h_prelude(pg_ctx *cx, pg_buf *b, const pg_provider *p);
void pg_usdt_emit_h_event(pg_ctx *cx, pg_buf *b, const pg_provider *p, const pg_event *e);

/* <P>-events.c: sys/sdt.h and the semaphores, once; in each emit function, after its values
 * are prepared into palev_a, the tracepoint (`tp_args` follows the event name: "" or
 * ", &palev_a") and the probe. */
void pg_usdt_emit_c_prelude(pg_ctx *cx, pg_buf *b, const pg_provider *p);
/* <P>-events.c, after the registration tables: the USDT side of ProviderEnabled<P>(). */
void pg_usdt_emit_c_tail(pg_ctx *cx, pg_buf *b, const pg_provider *p);
void pg_usdt_emit_fire(pg_ctx *cx, pg_buf *b, const pg_provider *p, const pg_event *e,
                       const char *tp_args);

#endif /* PALEVGEN_USDT_H */
