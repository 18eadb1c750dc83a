/* SPDX-License-Identifier: MIT */
/* The checker's maps and templates: valueMap labels and enums, fields, counts and lengths,
 * structs, and the names their C types take. */
#include "model.h"
#include "check.h"
#include "lower.h"

#include <ctype.h>
#include <string.h>

/* ---- maps ------------------------------------------------------------------------------------- */

/* "$(string.Id)" resolved through the string table; other text is kept as is. */
static const char *resolve_message(pg_ctx *cx, const pg_manifest *m, const char *msg)
{
    const pg_string *s;
    size_t n;

    if (!msg || strncmp(msg, "$(string.", 9) != 0)
        return msg;
    n = strlen(msg);
    if (n < 11 || msg[n - 1] != ')')
        return msg;
    s = pg_index_get(&m->string_index, pg_strndup(cx, msg + 9, n - 10));
    return s ? s->value : NULL;
}

/* LTTng keeps 255 bytes of an enum label: cut longer ones here, between characters. */
static void cut_label(pg_ctx *cx, pg_map_entry *e)
{
    size_t n = strlen(e->label);

    if (n <= 255)
        return;
    n = 255;
    while (n > 0 && ((unsigned char)e->label[n] & 0xC0) == 0x80)
        n--;
    e->label[n] = 0;
    pg_warning(cx, e->loc, "label longer than LTTng's 255 bytes, cut to \"%.20s...\"", e->label);
}

void pg_check_maps(pg_ctx *cx, const pg_manifest *m, pg_provider *p)
{
    for (size_t i = 0; i < p->maps.len; i++) {
        pg_map *map = p->maps.items[i];

        if (!map->name) {
            pg_error(cx, map->loc, "map has no name");
            continue;
        }
        map->ident = pg_printf(cx, "map_%s", pg_make_ident(cx, map->name));
        for (size_t j = 0; j < i; j++) {
            pg_map *o = p->maps.items[j];

            if (o->name && (strcmp(o->name, map->name) == 0 || strcmp(o->ident, map->ident) == 0))
                pg_error(cx, map->loc, "map \"%s\" collides with map \"%s\" at %s:%u", map->name,
                         o->name, o->loc.file, o->loc.line);
        }
        PG_VEC_EACH(pg_map_entry, e, map->entries) {
            const char *label = resolve_message(cx, m, e->message);

            pg_parse_u64(cx, e->value_str, e->loc, pg_printf(cx, "value of an entry of map \"%s\"", map->name),
                      UINT64_MAX, &e->value);
            if (label)
                e->label = pg_strdup(cx, label);
            else if (!e->label || !*e->label)
                e->label = pg_strdup(cx, e->value_str ? e->value_str : "?");
            if (e->message && !label)
                pg_warning(cx, e->loc, "message \"%s\" of map \"%s\" names no string: the label is "
                           "\"%s\"", e->message, map->name, e->label);
            cut_label(cx, e);
        }
    }
}

/* ---- templates ------------------------------------------------------------------------------ */

/* A count or a length: an integer, not a pointer or a Boolean, and not itself an array. */
static int is_integer(const pg_field *f)
{
    return f && !f->is_struct && f->type && f->type->kind == PG_K_INT && !f->type->is_pointer &&
           !f->type->is_bool && !f->count.present;
}

/* count= and length=: a positive constant, or an integer sibling before self in the same template
 * or struct (a decoder reads fields in order). */
static void check_ref(pg_ctx *cx, pg_ref *ref, const pg_field *self, const pg_vec *scope, const char *what,
                      const char *tid)
{
    int after = 0;

    if (!ref->present)
        return;
    ref->text = (char *)pg_trim(cx, ref->text);
    if (isdigit((unsigned char)ref->text[0])) {
        ref->is_const = 1;
        if (pg_parse_u64(cx, ref->text, ref->loc, pg_printf(cx, "%s=", what), 65535, &ref->value) && ref->value == 0)
            pg_error(cx, ref->loc, "%s=\"%s\" must be at least 1", what, ref->text);
        return;
    }
    ref->field = NULL;
    for (size_t i = 0; i < scope->len && !ref->field; i++) {
        pg_field *f = scope->items[i];

        if (f->name && strcmp(f->name, ref->text) == 0)
            ref->field = f;
        else
            after |= f == self;
    }
    if (!ref->field)
        pg_error(cx, ref->loc, "%s=\"%s\" names no field of template \"%s\"", what, ref->text, tid);
    else if (ref->field == self)
        pg_error(cx, ref->loc, "%s=\"%s\" names the field itself", what, ref->text);
    else if (after)
        pg_error(cx, ref->loc, "%s=\"%s\" names a field declared after \"%s\" (%s:%u): it must come "
                 "first", what, ref->text, self->name, ref->field->loc.file, ref->field->loc.line);
    else if (!is_integer(ref->field))
        pg_error(cx, ref->loc, "%s=\"%s\" names a field that is not a single integer (%s%s%s:%u)", what,
                 ref->text, ref->field->intype_name ? ref->field->intype_name : "",
                 ref->field->intype_name ? " at " : "", ref->field->loc.file, ref->field->loc.line);
}

static int in_array(const pg_field *f)
{
    for (const pg_field *p = f->parent; p; p = p->parent)
        if (p->count.present)
            return 1;
    return 0;
}

/* Enum names: a map's own name for the first integer type that uses it, then suffixed. */
static int enum_ident_taken(const pg_provider *p, const pg_map *self, const char *ident)
{
    PG_VEC_EACH(const pg_map, m, p->maps) {
        if (m != self && m->ident && strcmp(m->ident, ident) == 0)
            return 1;
        PG_VEC_EACH(const pg_enum, en, m->enums)
            if (strcmp(en->ident, ident) == 0)
                return 1;
    }
    return 0;
}

/* The map's entries as a field of `bits`, signed or not, holds them: a value written in hex for
 * an Int32 (0x80004005, an HRESULT) is the negative number the field carries; a value the type
 * cannot hold at all is left out. */
static pg_enum *new_enum(pg_ctx *cx, const pg_provider *p, pg_map *m, unsigned bits, int is_signed)
{
    pg_enum *en = pg_zalloc(cx, sizeof *en);
    char *ident = m->ident;

    en->bits = bits;
    en->is_signed = is_signed;
    for (unsigned n = 2; enum_ident_taken(p, m, ident); n++)
        ident = n == 2 ? pg_printf(cx, "%s_%c%u", m->ident, is_signed ? 's' : 'u', bits)
                       : pg_printf(cx, "%s_%c%u_%u", m->ident, is_signed ? 's' : 'u', bits, n);
    en->ident = ident;
    PG_VEC_EACH(const pg_map_entry, e, m->entries) {
        pg_enum_value *v;
        uint64_t x = e->value;

        if (bits < 64 && x >> bits)
            continue;
        if (is_signed && bits < 64 && x >> (bits - 1))
            x |= UINT64_MAX << bits;
        v = pg_zalloc(cx, sizeof *v);
        v->entry = e;
        v->value = x;
        pg_vec_push(cx, &en->values, v);
    }
    pg_vec_push(cx, &m->enums, en);
    return en;
}

static void use_enum(pg_ctx *cx, const pg_provider *p, pg_map *m, pg_field *f)
{
    unsigned bits = f->type->size * 8;
    int is_signed = f->type->is_signed;

    f->en = NULL;
    PG_VEC_EACH(pg_enum, en, m->enums)
        if (en->bits == bits && en->is_signed == is_signed)
            f->en = en;
    if (!f->en)
        f->en = new_enum(cx, p, m, bits, is_signed);
    if (!f->en->values.len) {
        pg_warning(cx, f->map_loc, "no value of map \"%s\" fits a %s: field \"%s\" is recorded as a "
                   "plain integer", m->name, f->intype_name, f->name);
        f->en = NULL;
    }
}

static void check_map_ref(pg_ctx *cx, pg_provider *p, pg_field *f)
{
    if (!f->map_name)
        return;
    f->map = NULL;
    PG_VEC_EACH(pg_map, m, p->maps)
        if (m->name && strcmp(m->name, f->map_name) == 0)
            f->map = m;
    if (!f->map) {
        pg_error(cx, f->map_loc, "map \"%s\" is not defined", f->map_name);
        return;
    }
    if (f->type->kind != PG_K_INT || f->type->is_bool || f->type->is_pointer) {
        pg_warning(cx, f->map_loc, "map \"%s\" ignored on a field of type %s", f->map_name,
                   f->intype_name);
        f->map = NULL;
        return;
    }
    /* LTTng has no flag enums: a bitMap shows as hex; a valueMap becomes an enum. */
    if (f->map->is_bitmap)
        f->hex = 1;
    else if (!f->count.present && !in_array(f) && f->map->entries.len)
        use_enum(cx, p, f->map, f);
    else
        f->map = NULL;
}

static void check_data(pg_ctx *cx, pg_provider *p, pg_field *f, const pg_vec *scope, const char *tid)
{
    if (!f->intype_name) {
        pg_error(cx, f->loc, "field \"%s\" has no inType", f->name);
        return;
    }
    f->type = pg_intype_lookup(f->intype_name);
    if (!f->type) {
        pg_error(cx, f->type_loc, "unknown inType \"%s\"", f->intype_name);
        return;
    }
    if (pg_intype_spelling(f->intype_name))
        pg_warning(cx, f->type_loc, "inType \"%s\" read as %s, winmeta's spelling", f->intype_name,
                   f->type->name);
    f->hex = f->type->hex;
    if (f->outtype_name) {
        int hex = pg_outtype_hex(f->outtype_name);

        if (hex < 0)
            pg_warning(cx, f->outtype_loc, "unknown outType \"%s\" ignored", f->outtype_name);
        else if (f->type->kind == PG_K_INT && !f->type->is_bool)
            f->hex = f->hex || hex;
    }
    check_map_ref(cx, p, f);
    check_ref(cx, &f->count, f, scope, "count", tid);
    if (f->length.present && f->type->kind != PG_K_UTF16 && f->type->kind != PG_K_ANSI &&
        f->type->kind != PG_K_BINARY) {
        pg_warning(cx, f->length.loc, "length= ignored on a field of type %s", f->intype_name);
        f->length.present = 0;
    }
    if (f->length.present && f->type->counted) {
        pg_warning(cx, f->length.loc, "length= ignored on a counted type: the count travels with the value");
        f->length.present = 0;
    }
    check_ref(cx, &f->length, f, scope, "length", tid);
    /* each element would need a length of its own, which no parameter or member can carry */
    if (f->type->counted && f->count.present)
        pg_error(cx, f->count.loc, "array \"%s\" of %s is not supported (use %s with length=)",
                 f->name, f->intype_name, f->type->kind == PG_K_BINARY ? "win:Binary"
                 : f->type->kind == PG_K_UTF16 ? "win:UnicodeString" : "win:AnsiString");
    if (f->type->kind == PG_K_BINARY && !f->type->counted && !f->length.present)
        pg_error(cx, f->type_loc, "field \"%s\" of type %s needs length=", f->name, f->intype_name);
}

static int elem_is_int(const pg_field *f)
{
    return f->type && f->type->kind == PG_K_INT;
}

static void check_fields(pg_ctx *cx, pg_provider *p, pg_template *t, pg_vec *scope, pg_field *parent);

/* What a struct may hold: we flatten it, so arrays inside an array of structs must be integers,
 * counted by a sibling member or a constant (every element's are concatenated), and structs do
 * not nest in arrays. */
static void check_struct(pg_ctx *cx, pg_provider *p, pg_template *t, pg_field *s, const pg_vec *scope)
{
    check_ref(cx, &s->count, s, scope, "count", t->tid);
    if (s->length.present)
        pg_warning(cx, s->length.loc, "length= ignored on a struct");
    if (!s->members.len) {
        pg_error(cx, s->loc, "struct \"%s\" has no members", s->name);
        return;
    }
    check_fields(cx, p, t, &s->members, s);
    if (!s->count.present)
        return;
    PG_VEC_EACH(pg_field, m, s->members) {
        if (m->is_struct)
            pg_error(cx, m->loc, "struct \"%s\" inside the array of structs \"%s\" is not supported",
                     m->name, s->name);
        else if (m->type && m->count.present && !elem_is_int(m))
            pg_error(cx, m->count.loc, "array \"%s\" inside the array of structs \"%s\" must be integers "
                     "(%s is not one)", m->name, s->name, m->intype_name);
    }
}

static void check_fields(pg_ctx *cx, pg_provider *p, pg_template *t, pg_vec *scope, pg_field *parent)
{
    for (size_t i = 0; i < scope->len; i++) {
        pg_field *f = scope->items[i];

        f->parent = parent;
        if (!f->name) {
            pg_error(cx, f->loc, "<%s> in template \"%s\" has no name", f->is_struct ? "struct" : "data",
                     t->tid);
            f->name = pg_printf(cx, "Field%zu", i + 1);
        }
        f->ident = pg_make_ident(cx, f->name);
        /* members are the host's to write (s.Name = ...): they keep the identifier */
        f->cname = parent ? f->ident : pg_make_param(cx, f->name);
        f->len_cname = parent ? pg_printf(cx, "%s_Length", f->cname)
                              : pg_printf(cx, "%.*s_Length_", (int)strlen(f->cname) - 1, f->cname);
        f->tname = parent ? pg_printf(cx, "%s_%s", parent->tname, f->ident) : f->ident;
        for (size_t j = 0; j < i; j++) {
            pg_field *o = scope->items[j];

            if (strcmp(o->ident, f->ident) == 0)
                pg_error(cx, f->loc, "field \"%s\" collides with field \"%s\" at %s:%u", f->name,
                         o->name, o->loc.file, o->loc.line);
        }
        if (f->is_struct)
            check_struct(cx, p, t, f, scope);
        else
            check_data(cx, p, f, scope, t->tid);
    }
    /* a counted type takes <name>_Length beside it, in parameters and struct members */
    PG_VEC_EACH(pg_field, f, *scope) {
        pg_field *o;

        if (!f->type || !f->type->counted)
            continue;
        for (size_t i = 0; i < scope->len; i++)
            if ((o = scope->items[i]) != f && !strcmp(o->cname, f->len_cname))
                pg_error(cx, o->loc, "field \"%s\" collides with the length of counted field \"%s\" at %s:%u",
                         o->name, f->name, f->loc.file, f->loc.line);
    }
    PG_VEC_EACH(pg_field, f, *scope) {
        if (f->count.field)
            f->count.field->used_as_count = 1;
        if (f->length.field)
            f->length.field->used_as_length = 1;
    }
}

/* A name LTTng gives something of a field: the field itself (<struct>_<member> inside structs),
 * or the length it records before a sequence (_<name>_length). */
struct tname {
    const char *name;
    const pg_field *f;
    int hidden;             /* the length of sequence f */
};

static void add_tname(pg_ctx *cx, pg_vec *names, const char *name, const pg_field *f, int hidden)
{
    struct tname *t = pg_zalloc(cx, sizeof(*t));

    t->name = name, t->f = f, t->hidden = hidden;
    pg_vec_push(cx, names, t);
}

static const pg_field *array_of(const pg_field *f)
{
    for (const pg_field *p = f->parent; p; p = p->parent)
        if (p->count.present)
            return p;
    return NULL;
}

/* Every name in the order the trace holds them, each field recorded as pg_lower will record it. */
static void collect_tnames(pg_ctx *cx, const pg_vec *scope, pg_vec *names)
{
    PG_VEC_EACH(pg_field, f, *scope) {
        pg_leaf form;

        if (f->is_struct) {
            collect_tnames(cx, &f->members, names);
            continue;
        }
        if (!f->type)
            continue;
        pg_leaf_form(f, array_of(f), &form);
        if (pg_leaf_is_sequence(&form))
            add_tname(cx, names, pg_printf(cx, "_%s_length", f->tname), f, 1);
        add_tname(cx, names, f->tname, f, 0);
    }
}

/* LTTng writes every name into the trace's metadata with a '_' in front, which babeltrace2 strips
 * again: a name recorded after one that is "_" + it ("x" after "_x", "x_length" after the length
 * "_x_length" of a sequence "x") is then a duplicate, and babeltrace2 refuses the metadata, every
 * event of the session lost. As libpaleventing does (pal/dyndesc.c), names are compared without
 * their leading '_', in either order. */
static const char *bare(const char *name)
{
    return name + strspn(name, "_");
}

/* "field "x"" or "the length of sequence "x"": what a name of the trace belongs to. */
static const char *owner(pg_ctx *cx, const struct tname *t)
{
    return pg_printf(cx, "%s \"%s\"", t->hidden ? "the length of sequence" : "field", t->f->name);
}

/* Two things of one event recorded under one name, or under names that differ only in their
 * leading '_': LTTng writes both, and babeltrace2 cannot read the trace (every event of the
 * session is lost). Both places are named. */
static void name_collision(pg_ctx *cx, const struct tname *a, const struct tname *b)
{
    const pg_field *fa = a->f, *fb = b->f;

    /* siblings with one identifier were reported already; two lengths that meet belong to two
     * sequences that meet, reported as such */
    if ((!a->hidden && !b->hidden && fa->parent == fb->parent && strcmp(fa->ident, fb->ident) == 0) ||
        (a->hidden && b->hidden))
        return;
    if (strcmp(a->name, b->name) != 0)
        pg_error(cx, fa->loc, "%s would be recorded as \"%s\", %s at %s:%u as \"%s\": names that "
                 "differ only in leading '_' meet in babeltrace2, which would read no event of the "
                 "trace", owner(cx, a), a->name, owner(cx, b), fb->loc.file, fb->loc.line, b->name);
    else if (a->hidden)
        pg_error(cx, fa->loc, "field \"%s\" is a sequence whose length LTTng records as \"%s\", the "
                 "name of field \"%s\" at %s:%u", fa->name, a->name, fb->name, fb->loc.file, fb->loc.line);
    else if (b->hidden)
        pg_error(cx, fa->loc, "field \"%s\" would be recorded as \"%s\", the name LTTng gives the "
                 "length of sequence \"%s\" at %s:%u", fa->name, a->name, fb->name, fb->loc.file,
                 fb->loc.line);
    else
        pg_error(cx, fa->loc, "field \"%s\" would be recorded as \"%s\", as is field \"%s\" at %s:%u",
                 fa->name, a->name, fb->name, fb->loc.file, fb->loc.line);
}

static void check_tnames(pg_ctx *cx, pg_template *t)
{
    pg_vec names = { 0 };
    pg_index seen = { 0 };
    const pg_field *too_long = NULL;

    collect_tnames(cx, &t->fields, &names);
    PG_VEC_EACH(const struct tname, a, names) {
        const struct tname *b;

        /* LTTng keeps 255 bytes of a name: longer ones would be cut, and could then collide */
        if (strlen(a->name) > 255) {
            if (a->f != too_long)
                pg_error(cx, a->f->loc, "field \"%.40s...\" would be recorded as a name longer than "
                         "LTTng's 255 characters", a->f->name);
            too_long = a->f;
            continue;
        }
        if ((b = pg_index_put(cx, &seen, bare(a->name), (void *)a)) && b->f != a->f)
            name_collision(cx, a, b);
    }
}

void pg_check_templates(pg_ctx *cx, pg_provider *p)
{
    pg_index idents = { 0 };

    for (size_t i = 0; i < p->templates.len; i++) {
        pg_template *t = p->templates.items[i], *o;

        t->index = (unsigned)i;
        if (!t->tid) {
            pg_error(cx, t->loc, "template has no tid");
            t->tid = pg_printf(cx, "template%zu", i + 1);
        }
        t->ident = pg_make_ident(cx, t->tid);
        if ((o = pg_index_put(cx, &p->template_index, t->tid, t)))
            pg_error(cx, t->loc, "template \"%s\" is defined twice (first at %s:%u)", t->tid,
                     o->loc.file, o->loc.line);
        else if ((o = pg_index_put(cx, &idents, t->ident, t)))
            pg_error(cx, t->loc, "template \"%s\" collides with template \"%s\" at %s:%u", t->tid,
                     o->tid, o->loc.file, o->loc.line);
        check_fields(cx, p, t, &t->fields, NULL);
        check_tnames(cx, t);
    }
}
