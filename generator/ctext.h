/* SPDX-License-Identifier: MIT */
/* The C text the emitters share (ctext.c): declarations and signatures from the lowered model,
 * and the one escaping function for each place manifest text reaches in generated code. */
#ifndef PALEVGEN_CTEXT_H
#define PALEVGEN_CTEXT_H

#include "lower.h"

/* The declaration of a parameter or struct member named name for field f (not a struct). */
char *pg_param_decl(pg_ctx *cx, const pg_field *f, const char *name, int in_struct);

/* "head(lead..., the template's parameters)", "(void)" when there are none; one parameter per
 * line when that would pass 100 columns. */
void pg_put_signature(pg_ctx *cx, pg_buf *b, const char *head, const char *const *lead, size_t n_lead,
                      const pg_template *t);
/* The argument list matching the template's parameters. */
char *pg_args(pg_ctx *cx, const pg_template *t);

/* Typedefs for the template's struct element types, for the public header. */
void pg_put_struct_types(pg_ctx *cx, pg_buf *b, const pg_template *t);

/* Manifest text (any bytes) as a C string literal: quotes, backslashes, '?' (trigraphs), control
 * and non-ASCII bytes escaped. */
void pg_put_c_string(pg_ctx *cx, pg_buf *b, const char *s);
/* Manifest text (any bytes) inside a C comment: it can neither end the comment, open one, nor
 * splice the next line into it. */
void pg_put_comment_text(pg_ctx *cx, pg_buf *b, const char *s);
/* A one-line comment, "/\* text *\/" without newline, the whole text printf-formatted and then
 * escaped as above: how every comment that holds manifest text is written. */
void pg_put_comment(pg_ctx *cx, pg_buf *b, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The first two lines of every generated file: the manifest it comes from, and its purpose. */
void pg_put_banner(pg_ctx *cx, pg_buf *b, const pg_manifest *m, const char *purpose);

#endif /* PALEVGEN_CTEXT_H */
