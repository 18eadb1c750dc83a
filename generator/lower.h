/* SPDX-License-Identifier: MIT */
/* Lowering: how each manifest field becomes C parameters and LTTng trace fields. */
#ifndef PALEVGEN_LOWER_H
#define PALEVGEN_LOWER_H

#include "model.h"

/* How one leaf (a <data>, possibly inside a struct) is recorded. */
enum pg_rec {
    PG_REC_INT,         /* integer, hex integer, enum */
    PG_REC_FLOAT,
    PG_REC_STRING,      /* converted or copied string */
    PG_REC_BYTES,       /* uint8 hex array (constant length) or sequence */
    PG_REC_INTS,        /* integer array (constant count) or sequence */
    PG_REC_JSON,        /* what LTTng cannot type in an array: a JSON array in a string */
    PG_REC_NESTED       /* integer arrays inside an array of structs, concatenated */
};

/* One leaf as the trace sees it. */
typedef struct pg_leaf {
    const pg_field *f;
    const pg_field *arr;    /* enclosing array of structs, or NULL */
    enum pg_rec rec;
    int fixed;              /* array / bytes with a constant size: LTTng array, not sequence */
    uint64_t fixed_len;     /* that size in elements */
    char *src;              /* C expression of the value (outside arrays of structs) */
    const char *prefix;     /* how siblings of f are reached, for its count= and length= */
    const char *arr_src;    /* expression of the base pointer of arr */
    const char *arr_prefix; /* how siblings of arr are reached, for its count= */
} pg_leaf;

/* The leaves of a template in trace order (pg_lower keeps them in t->leaves). */
void pg_template_leaves(pg_ctx *cx, const pg_template *t, pg_vec *leaves);

/* C types. */
char *pg_param_decl(pg_ctx *cx, const pg_field *f, const char *name, int in_struct);

/* "head(lead..., the template's parameters)", "(void)" when there are none; one parameter per
 * line when that would pass 100 columns. */
void pg_put_signature(pg_ctx *cx, pg_buf *b, const char *head, const char *const *lead, size_t n_lead,
                      const pg_template *t);
/* The argument list matching the template's parameters. */
char *pg_args(pg_ctx *cx, const pg_template *t);

/* Typedefs for struct element types, for the public header. */
void pg_emit_struct_types(pg_ctx *cx, pg_buf *b, const pg_template *t);

/* A C string literal for arbitrary bytes. */
void pg_put_c_string(pg_ctx *cx, pg_buf *b, const char *s);
/* Text safe inside a C comment. */
void pg_put_comment_text(pg_ctx *cx, pg_buf *b, const char *s);

/* Does recording this template (its t->leaves) need the scratch arena? */
int pg_template_needs_scratch(const pg_template *t);

#endif /* PALEVGEN_LOWER_H */
