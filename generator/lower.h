/* SPDX-License-Identifier: MIT */
/* The lowered model: how pg_lower() records each manifest field as LTTng trace fields. The
 * emitters read it (t->leaves), never change it; the checker asks how a field will be recorded. */
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
    PG_REC_NESTED       /* integer arrays counted by a member, inside an array of structs:
                           concatenated */
};

/* One leaf as the trace sees it. */
typedef struct pg_leaf {
    const pg_field *f;
    const pg_field *arr;    /* enclosing array of structs, or NULL */
    enum pg_rec rec;
    int fixed;              /* array / bytes with a constant size: LTTng array, not sequence */
    uint64_t fixed_len;     /* that size in elements */
    uint64_t per_struct;    /* PG_REC_INTS in an array of structs: the integers each element holds
                               (1, or the constant count= of an array member, held in the struct) */
    char *src;              /* C expression of the value (outside arrays of structs) */
    const char *prefix;     /* how siblings of f are reached, for its count= and length= */
    const char *arr_src;    /* expression of the base pointer of arr */
    const char *arr_prefix; /* how siblings of arr are reached, for its count= */
} pg_leaf;

/* How field f (a <data>; arr: its enclosing array of structs, or NULL) is recorded: sets rec,
 * fixed and fixed_len of l. pg_lower decides every leaf with it; the checker asks it too, for
 * the names LTTng gives what it records. */
void pg_leaf_form(const pg_field *f, const pg_field *arr, pg_leaf *l);
/* 1 when the leaf is an LTTng sequence: LTTng records its length before it, as a field named
 * "_<name>_length". */
int pg_leaf_is_sequence(const pg_leaf *l);

#endif /* PALEVGEN_LOWER_H */
