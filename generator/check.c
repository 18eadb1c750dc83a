/* SPDX-License-Identifier: MIT */
/* The checker: resolve every reference, derive names, and report all errors with their lines. */
#include "model.h"
#include "lower.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ---------------------------------------------------------------------------- */

/* An attribute value without the white space XML Schema lets a number carry around it. */
static const char *trim(const char *s)
{
    size_t n;

    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    return s[n] ? pg_strndup(s, n) : s;
}

/* Decimal (leading zeros are not octal: XML Schema numbers) or 0x-hex, within [0, max]; reports
 * and returns 0 on failure. */
static int parse_u64(const char *s, pg_loc loc, const char *what, uint64_t max, uint64_t *out)
{
    const char *digits;
    uint64_t v = 0;
    int base = 10;

    *out = 0;
    if (!s)
        goto bad;
    digits = trim(s);
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        base = 16;
        digits += 2;
    }
    if (!*digits)
        goto bad;
    for (const char *c = digits; *c; c++) {
        unsigned d;

        if (*c >= '0' && *c <= '9')
            d = (unsigned)(*c - '0');
        else if (base == 16 && *c >= 'a' && *c <= 'f')
            d = (unsigned)(*c - 'a' + 10);
        else if (base == 16 && *c >= 'A' && *c <= 'F')
            d = (unsigned)(*c - 'A' + 10);
        else
            goto bad;
        if (v > (UINT64_MAX - d) / (unsigned)base)
            goto bad;
        v = v * (unsigned)base + d;
    }
    if (v > max)
        goto bad;
    *out = v;
    return 1;
bad:
    pg_error(loc, "%s is \"%s\", not a number from 0 to %llu", what, s ? s : "",
             (unsigned long long)max);
    return 0;
}

static pg_named *find_named(const pg_vec *v, const char *name)
{
    PG_VEC_EACH(pg_named, n, *v)
        if (n->name && strcmp(n->name, name) == 0)
            return n;
    return NULL;
}

/* Names and values of levels, tasks, opcodes, keywords: present, well-formed, unique. */
static void check_named(const pg_vec *v, const char *what, uint64_t max, int need_value)
{
    const char *value_attr = strcmp(what, "keyword") ? "value" : "mask";

    for (size_t i = 0; i < v->len; i++) {
        pg_named *n = v->items[i];

        if (!n->name) {
            pg_error(n->loc, "<%s> has no name", what);
            continue;
        }
        if (!n->value_str && need_value)
            pg_error(n->loc, "%s \"%s\" has no %s", what, n->name, value_attr);
        else if (n->value_str)
            n->value_ok = parse_u64(n->value_str, n->value_loc,
                                    pg_printf("%s of %s \"%s\"", value_attr, what, n->name), max,
                                    &n->value);
        for (size_t j = 0; j < i; j++) {
            pg_named *o = v->items[j];

            if (o->name && strcmp(o->name, n->name) == 0)
                pg_error(n->loc, "%s \"%s\" is defined twice (first at %s:%u)", what, n->name,
                         o->loc.file, o->loc.line);
        }
    }
}

/* Keywords are named in lists ("GC,JIT") by collectors: a name is one word. Two keywords with one
 * mask are legal but select the same events: worth a warning. */
static void check_keywords(pg_provider *p)
{
    check_named(&p->keywords, "keyword", UINT64_MAX, 1);
    for (size_t i = 0; i < p->keywords.len; i++) {
        pg_named *k = p->keywords.items[i];

        if (k->name && strpbrk(k->name, " \t\r\n,"))
            pg_error(k->loc, "keyword name \"%s\" has a space or a comma: collectors take keyword "
                     "names in comma-separated lists", k->name);
        if (k->value_ok && k->value == 0)
            pg_error(k->value_loc, "keyword \"%s\" has an empty mask", k->name ? k->name : "");
        for (size_t j = 0; j < i && k->value_ok; j++) {
            pg_named *o = p->keywords.items[j];

            if (o->value_ok && o->value == k->value && k->name && o->name && strcmp(o->name, k->name))
                pg_warning(k->value_loc, "keywords \"%s\" and \"%s\" (at %s:%u) have the same mask "
                           "0x%llx: each selects the events of both", k->name, o->name,
                           o->loc.file, o->loc.line, (unsigned long long)k->value);
        }
    }
}

static int channel_value_used(const pg_provider *p, const pg_named *self, uint64_t v)
{
    PG_VEC_EACH(const pg_named, c, p->channels)
        if (c != self && c->value_ok && c->value == v)
            return 1;
    return 0;
}

/* Channels: a chid (or name) each, unique; values as written, else the builtin's for an imported
 * well-known channel, else the next free number from 16 (as mc.exe numbers them). */
static void check_channels(pg_provider *p)
{
    uint64_t next = 16;

    PG_VEC_EACH(pg_named, c, p->channels) {
        if (!c->chid)
            c->chid = c->name;
        if (!c->chid) {
            pg_error(c->loc, "channel has neither chid nor name");
            continue;
        }
        for (size_t i = 0; p->channels.items[i] != c; i++) {
            const pg_named *o = p->channels.items[i];

            if (o->chid && strcmp(o->chid, c->chid) == 0)
                pg_error(c->loc, "channel \"%s\" is defined twice (first at %s:%u)", c->chid,
                         o->loc.file, o->loc.line);
        }
        if (!c->value_str)
            continue;
        c->value_ok = parse_u64(c->value_str, c->value_loc,
                                pg_printf("value of channel \"%s\"", c->chid), 255, &c->value);
        if (c->value_ok && channel_value_used(p, c, c->value))
            pg_error(c->value_loc, "channel value %llu is used twice",
                     (unsigned long long)c->value);
    }
    PG_VEC_EACH(pg_named, c, p->channels) {
        if (!c->chid || c->value_str)
            continue;
        if (!c->imported || !c->name || !pg_builtin_channel(c->name, &c->value)) {
            while (channel_value_used(p, c, next))
                next++;
            c->value = next++;
        }
        c->value_ok = 1;
    }
}

/* ---- maps ------------------------------------------------------------------------------------- */

/* "$(string.Id)" resolved through the string table; other text is kept as is. */
static const char *resolve_message(const pg_manifest *m, const char *msg)
{
    const pg_string *s;
    size_t n;

    if (!msg || strncmp(msg, "$(string.", 9) != 0)
        return msg;
    n = strlen(msg);
    if (n < 11 || msg[n - 1] != ')')
        return msg;
    s = pg_index_get(&m->string_index, pg_strndup(msg + 9, n - 10));
    return s ? s->value : NULL;
}

/* LTTng keeps 255 bytes of an enum label: cut longer ones here, between characters. */
static void cut_label(pg_map_entry *e)
{
    size_t n = strlen(e->label);

    if (n <= 255)
        return;
    n = 255;
    while (n > 0 && ((unsigned char)e->label[n] & 0xC0) == 0x80)
        n--;
    e->label[n] = 0;
    pg_warning(e->loc, "label longer than LTTng's 255 bytes, cut to \"%.20s...\"", e->label);
}

static void check_maps(const pg_manifest *m, pg_provider *p)
{
    for (size_t i = 0; i < p->maps.len; i++) {
        pg_map *map = p->maps.items[i];

        if (!map->name) {
            pg_error(map->loc, "map has no name");
            continue;
        }
        map->ident = pg_printf("map_%s", pg_make_ident(map->name));
        for (size_t j = 0; j < i; j++) {
            pg_map *o = p->maps.items[j];

            if (o->name && (strcmp(o->name, map->name) == 0 || strcmp(o->ident, map->ident) == 0))
                pg_error(map->loc, "map \"%s\" collides with map \"%s\" at %s:%u", map->name,
                         o->name, o->loc.file, o->loc.line);
        }
        PG_VEC_EACH(pg_map_entry, e, map->entries) {
            const char *label = resolve_message(m, e->message);

            parse_u64(e->value_str, e->loc, pg_printf("value of an entry of map \"%s\"", map->name),
                      UINT64_MAX, &e->value);
            if (label)
                e->label = pg_strdup(label);
            else if (!e->label || !*e->label)
                e->label = pg_strdup(e->value_str ? e->value_str : "?");
            if (e->message && !label)
                pg_warning(e->loc, "message \"%s\" of map \"%s\" names no string: the label is "
                           "\"%s\"", e->message, map->name, e->label);
            cut_label(e);
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
static void check_ref(pg_ref *ref, const pg_field *self, const pg_vec *scope, const char *what,
                      const char *tid)
{
    int after = 0;

    if (!ref->present)
        return;
    ref->text = (char *)trim(ref->text);
    if (isdigit((unsigned char)ref->text[0])) {
        ref->is_const = 1;
        if (parse_u64(ref->text, ref->loc, pg_printf("%s=", what), 65535, &ref->value) && ref->value == 0)
            pg_error(ref->loc, "%s=\"%s\" must be at least 1", what, ref->text);
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
        pg_error(ref->loc, "%s=\"%s\" names no field of template \"%s\"", what, ref->text, tid);
    else if (ref->field == self)
        pg_error(ref->loc, "%s=\"%s\" names the field itself", what, ref->text);
    else if (after)
        pg_error(ref->loc, "%s=\"%s\" names a field declared after \"%s\" (%s:%u): it must come "
                 "first", what, ref->text, self->name, ref->field->loc.file, ref->field->loc.line);
    else if (!is_integer(ref->field))
        pg_error(ref->loc, "%s=\"%s\" names a field that is not a single integer (%s%s%s:%u)", what,
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
static pg_enum *new_enum(const pg_provider *p, pg_map *m, unsigned bits, int is_signed)
{
    pg_enum *en = pg_alloc(sizeof *en);
    char *ident = m->ident;

    en->bits = bits;
    en->is_signed = is_signed;
    for (unsigned n = 2; enum_ident_taken(p, m, ident); n++)
        ident = n == 2 ? pg_printf("%s_%c%u", m->ident, is_signed ? 's' : 'u', bits)
                       : pg_printf("%s_%c%u_%u", m->ident, is_signed ? 's' : 'u', bits, n);
    en->ident = ident;
    PG_VEC_EACH(const pg_map_entry, e, m->entries) {
        pg_enum_value *v;
        uint64_t x = e->value;

        if (bits < 64 && x >> bits)
            continue;
        if (is_signed && bits < 64 && x >> (bits - 1))
            x |= UINT64_MAX << bits;
        v = pg_alloc(sizeof *v);
        v->entry = e;
        v->value = x;
        pg_vec_push(&en->values, v);
    }
    pg_vec_push(&m->enums, en);
    return en;
}

static void use_enum(const pg_provider *p, pg_map *m, pg_field *f)
{
    unsigned bits = f->type->size * 8;
    int is_signed = f->type->is_signed;

    f->en = NULL;
    PG_VEC_EACH(pg_enum, en, m->enums)
        if (en->bits == bits && en->is_signed == is_signed)
            f->en = en;
    if (!f->en)
        f->en = new_enum(p, m, bits, is_signed);
    if (!f->en->values.len) {
        pg_warning(f->map_loc, "no value of map \"%s\" fits a %s: field \"%s\" is recorded as a "
                   "plain integer", m->name, f->intype_name, f->name);
        f->en = NULL;
    }
}

static void check_map_ref(pg_provider *p, pg_field *f)
{
    if (!f->map_name)
        return;
    f->map = NULL;
    PG_VEC_EACH(pg_map, m, p->maps)
        if (m->name && strcmp(m->name, f->map_name) == 0)
            f->map = m;
    if (!f->map) {
        pg_error(f->map_loc, "map \"%s\" is not defined", f->map_name);
        return;
    }
    if (f->type->kind != PG_K_INT || f->type->is_bool || f->type->is_pointer) {
        pg_warning(f->map_loc, "map \"%s\" ignored on a field of type %s", f->map_name,
                   f->intype_name);
        f->map = NULL;
        return;
    }
    /* LTTng has no flag enums: a bitMap shows as hex; a valueMap becomes an enum. */
    if (f->map->is_bitmap)
        f->hex = 1;
    else if (!f->count.present && !in_array(f) && f->map->entries.len)
        use_enum(p, f->map, f);
    else
        f->map = NULL;
}

static void check_data(pg_provider *p, pg_field *f, const pg_vec *scope, const char *tid)
{
    if (!f->intype_name) {
        pg_error(f->loc, "field \"%s\" has no inType", f->name);
        return;
    }
    f->type = pg_intype_lookup(f->intype_name);
    if (!f->type) {
        pg_error(f->type_loc, "unknown inType \"%s\"", f->intype_name);
        return;
    }
    if (pg_intype_spelling(f->intype_name))
        pg_warning(f->type_loc, "inType \"%s\" read as %s, winmeta's spelling", f->intype_name,
                   f->type->name);
    f->hex = f->type->hex;
    if (f->outtype_name) {
        int hex = pg_outtype_hex(f->outtype_name);

        if (hex < 0)
            pg_warning(f->outtype_loc, "unknown outType \"%s\" ignored", f->outtype_name);
        else if (f->type->kind == PG_K_INT && !f->type->is_bool)
            f->hex = f->hex || hex;
    }
    check_map_ref(p, f);
    check_ref(&f->count, f, scope, "count", tid);
    if (f->length.present && f->type->kind != PG_K_UTF16 && f->type->kind != PG_K_ANSI &&
        f->type->kind != PG_K_BINARY) {
        pg_warning(f->length.loc, "length= ignored on a field of type %s", f->intype_name);
        f->length.present = 0;
    }
    if (f->length.present && f->type->counted) {
        pg_warning(f->length.loc, "length= ignored on a counted type: the count travels with the value");
        f->length.present = 0;
    }
    check_ref(&f->length, f, scope, "length", tid);
    /* each element would need a length of its own, which no parameter or member can carry */
    if (f->type->counted && f->count.present)
        pg_error(f->count.loc, "array \"%s\" of %s is not supported (use %s with length=)",
                 f->name, f->intype_name, f->type->kind == PG_K_BINARY ? "win:Binary"
                 : f->type->kind == PG_K_UTF16 ? "win:UnicodeString" : "win:AnsiString");
    if (f->type->kind == PG_K_BINARY && !f->type->counted && !f->length.present)
        pg_error(f->type_loc, "field \"%s\" of type %s needs length=", f->name, f->intype_name);
}

static int elem_is_int(const pg_field *f)
{
    return f->type && f->type->kind == PG_K_INT;
}

static void check_fields(pg_provider *p, pg_template *t, pg_vec *scope, pg_field *parent);

/* What a struct may hold: we flatten it, so arrays inside an array of structs must be integers
 * counted by a sibling member (they are concatenated), and structs do not nest in arrays. */
static void check_struct(pg_provider *p, pg_template *t, pg_field *s, const pg_vec *scope)
{
    check_ref(&s->count, s, scope, "count", t->tid);
    if (s->length.present)
        pg_warning(s->length.loc, "length= ignored on a struct");
    if (!s->members.len) {
        pg_error(s->loc, "struct \"%s\" has no members", s->name);
        return;
    }
    check_fields(p, t, &s->members, s);
    if (!s->count.present)
        return;
    PG_VEC_EACH(pg_field, m, s->members) {
        if (m->is_struct)
            pg_error(m->loc, "struct \"%s\" inside the array of structs \"%s\" is not supported",
                     m->name, s->name);
        else if (m->type && m->count.present && (!elem_is_int(m) || m->count.is_const))
            pg_error(m->count.loc, "array \"%s\" inside the array of structs \"%s\" must be integers "
                     "counted by another member", m->name, s->name);
    }
}

static void check_fields(pg_provider *p, pg_template *t, pg_vec *scope, pg_field *parent)
{
    for (size_t i = 0; i < scope->len; i++) {
        pg_field *f = scope->items[i];

        f->parent = parent;
        if (!f->name) {
            pg_error(f->loc, "<%s> in template \"%s\" has no name", f->is_struct ? "struct" : "data",
                     t->tid);
            f->name = pg_printf("Field%zu", i + 1);
        }
        f->ident = pg_make_ident(f->name);
        f->cname = f->ident;
        f->tname = parent ? pg_printf("%s_%s", parent->tname, f->ident) : f->ident;
        for (size_t j = 0; j < i; j++) {
            pg_field *o = scope->items[j];

            if (strcmp(o->ident, f->ident) == 0)
                pg_error(f->loc, "field \"%s\" collides with field \"%s\" at %s:%u", f->name,
                         o->name, o->loc.file, o->loc.line);
        }
        if (f->is_struct)
            check_struct(p, t, f, scope);
        else
            check_data(p, f, scope, t->tid);
    }
    /* a counted type takes <name>_Length beside it, in parameters and struct members */
    PG_VEC_EACH(pg_field, f, *scope) {
        const char *len;
        pg_field *o;

        if (!f->type || !f->type->counted)
            continue;
        len = pg_printf("%s_Length", f->ident);
        for (size_t i = 0; i < scope->len; i++)
            if ((o = scope->items[i]) != f && !strcmp(o->ident, len))
                pg_error(o->loc, "field \"%s\" collides with the length of counted field \"%s\" at %s:%u",
                         o->name, f->name, f->loc.file, f->loc.line);
    }
    PG_VEC_EACH(pg_field, f, *scope) {
        if (f->count.field)
            f->count.field->used_as_count = 1;
        if (f->length.field)
            f->length.field->used_as_length = 1;
    }
}

/* Trace field names are flattened (struct members become <struct>_<member>, sequences add a
 * hidden _<name>_length): they must stay unique within the event. */
static void collect_tnames(const pg_vec *scope, pg_vec *names, pg_vec *owners)
{
    PG_VEC_EACH(pg_field, f, *scope) {
        int seq = f->count.present && !f->count.is_const;

        if (f->is_struct) {
            collect_tnames(&f->members, names, owners);
            continue;
        }
        if (!f->type)
            continue;
        if (f->parent && f->parent->count.present)
            seq = seq || !f->parent->count.is_const;
        if (f->type->kind == PG_K_BINARY && !f->count.present && !f->parent)
            seq = !f->length.is_const;
        pg_vec_push(names, f->tname);
        pg_vec_push(owners, f);
        if (seq && (elem_is_int(f) || f->type->kind == PG_K_BINARY)) {
            pg_vec_push(names, pg_printf("_%s_length", f->tname));
            pg_vec_push(owners, f);
        }
    }
}

static void check_tnames(pg_template *t)
{
    pg_vec names = { 0 }, owners = { 0 };
    pg_index seen = { 0 };

    collect_tnames(&t->fields, &names, &owners);
    for (size_t i = 0; i < names.len; i++) {
        pg_field *a = owners.items[i], *b = pg_index_put(&seen, names.items[i], a);

        /* LTTng keeps 255 bytes of a name: longer ones would be cut, and could then collide */
        if (strlen(names.items[i]) > 255) {
            if (i > 0 && owners.items[i - 1] == a && strlen(names.items[i - 1]) > 255)
                continue;
            pg_error(a->loc, "field \"%.40s...\" would be recorded as a name longer than LTTng's "
                     "255 characters", a->name);
            continue;
        }
        /* siblings with one identifier were reported already */
        if (b && a != b && (a->parent != b->parent || strcmp(a->ident, b->ident) != 0))
            pg_error(a->loc, "field \"%s\" would be recorded as \"%s\", as is field \"%s\" at %s:%u",
                     a->name, (char *)names.items[i], b->name, b->loc.file, b->loc.line);
    }
}

static void check_templates(pg_provider *p)
{
    pg_index idents = { 0 };

    for (size_t i = 0; i < p->templates.len; i++) {
        pg_template *t = p->templates.items[i], *o;

        t->index = (unsigned)i;
        if (!t->tid) {
            pg_error(t->loc, "template has no tid");
            t->tid = pg_printf("template%zu", i + 1);
        }
        t->ident = pg_make_ident(t->tid);
        if ((o = pg_index_put(&p->template_index, t->tid, t)))
            pg_error(t->loc, "template \"%s\" is defined twice (first at %s:%u)", t->tid,
                     o->loc.file, o->loc.line);
        else if ((o = pg_index_put(&idents, t->ident, t)))
            pg_error(t->loc, "template \"%s\" collides with template \"%s\" at %s:%u", t->tid,
                     o->tid, o->loc.file, o->loc.line);
        check_fields(p, t, &t->fields, NULL);
        check_tnames(t);
    }
}

/* ---- events ----------------------------------------------------------------------------------- */

static pg_named *resolve(const pg_vec *defined, enum pg_builtin_kind kind, const char *name,
                         pg_loc loc, const char *what)
{
    pg_named *found;

    if (!name)
        return NULL;
    found = find_named(defined, name);
    if (!found)
        found = pg_builtin_find(kind, name, loc);
    if (!found)
        pg_error(loc, "%s \"%s\" is not defined", what, name);
    return found;
}

static void resolve_opcode(pg_provider *p, pg_event *e)
{
    if (!e->opcode_name)
        return;
    if (e->task && !e->task->builtin)
        e->opcode = find_named(&e->task->opcodes, e->opcode_name);
    if (!e->opcode)
        e->opcode = resolve(&p->opcodes, PG_BUILTIN_OPCODE, e->opcode_name, e->opcode_loc, "opcode");
}

static void resolve_keywords(pg_provider *p, pg_event *e)
{
    char *list, *save = NULL;

    if (!e->keywords_attr)
        return;
    list = pg_strdup(e->keywords_attr);
    for (char *k = strtok_r(list, " \t\r\n", &save); k; k = strtok_r(NULL, " \t\r\n", &save)) {
        pg_named *kw = resolve(&p->keywords, PG_BUILTIN_KEYWORD, k, e->keywords_loc, "keyword");

        if (kw)
            e->keywords |= kw->value;
    }
}

static void resolve_channel(pg_provider *p, pg_event *e)
{
    if (!e->channel_name)
        return;
    PG_VEC_EACH(pg_named, c, p->channels)
        if ((c->chid && strcmp(c->chid, e->channel_name) == 0) ||
            (c->name && strcmp(c->name, e->channel_name) == 0))
            e->channel = c;
    if (!e->channel)
        pg_error(e->channel_loc, "channel \"%s\" is not defined", e->channel_name);
}

static void resolve_template(pg_provider *p, pg_event *e)
{
    if (!e->template_name)
        return;
    e->tmpl = pg_index_get(&p->template_index, e->template_name);
    if (e->tmpl)
        e->tmpl->used = 1;
    else
        pg_error(e->template_loc, "template \"%s\" is not defined", e->template_name);
}

static void check_event(pg_provider *p, pg_event *e)
{
    uint64_t level = 0;
    const char *name = e->symbol ? pg_printf(" \"%s\"", e->symbol) : "";

    if (!e->value_str)
        pg_error(e->loc, "event%s has no value", name);
    else
        e->id_ok = parse_u64(e->value_str, e->value_loc, pg_printf("value of event%s", name), 65535,
                             &e->value);
    if (e->version_str)
        e->id_ok &= parse_u64(e->version_str, e->version_loc, pg_printf("version of event%s", name),
                              255, &e->version);
    e->level = resolve(&p->levels, PG_BUILTIN_LEVEL, e->level_name, e->level_loc, "level");
    e->task = resolve(&p->tasks, PG_BUILTIN_TASK, e->task_name, e->task_loc, "task");
    resolve_opcode(p, e);
    resolve_keywords(p, e);
    resolve_channel(p, e);
    resolve_template(p, e);
    if (e->level)
        level = e->level->value;
    e->loglevel = pg_lttng_loglevel(level);
}

/* A name for an event without symbol: <Task><Opcode>[_V<version>], else Event<id>[_V<version>];
 * by_id 2 always spells the version, as the last resort against a symbol of the same name. */
static char *derive_name(const pg_event *e, int by_id)
{
    pg_buf b = { 0 };
    char *name;

    if (!by_id && e->task && e->task->value)
        pg_buf_puts(&b, pg_make_ident(e->task->name));
    if (b.len && e->opcode && e->opcode->value)
        pg_buf_puts(&b, pg_make_ident(e->opcode->name));
    if (!b.len)
        pg_buf_printf(&b, "Event%llu", (unsigned long long)e->value);
    if (e->version || by_id == 2)
        pg_buf_printf(&b, "_V%llu", (unsigned long long)e->version);
    name = pg_strdup(b.data);
    pg_buf_free(&b);
    return name;
}

static void name_events(pg_provider *p)
{
    pg_index names = { 0 };
    pg_event *o;

    PG_VEC_EACH(pg_event, e, p->events) {
        if (!e->symbol)
            continue;
        e->lttng_name = pg_make_ident(e->symbol);
        if ((o = pg_index_put(&names, e->lttng_name, e)))
            pg_error(pg_event_name_loc(e), "event name \"%s\" is used twice (first at %s:%u)",
                     e->lttng_name, pg_event_name_loc(o).file, pg_event_name_loc(o).line);
    }
    PG_VEC_EACH(pg_event, e, p->events) {
        if (e->symbol)
            continue;
        e->derived_name = 1;
        for (int by_id = 0; by_id <= 2; by_id++)
            if (!pg_index_get(&names, e->lttng_name = derive_name(e, by_id)))
                break;
        if ((o = pg_index_put(&names, e->lttng_name, e)))
            pg_error(pg_event_name_loc(e), "event name \"%s\" is used twice (first at %s:%u)",
                     e->lttng_name, pg_event_name_loc(o).file, pg_event_name_loc(o).line);
    }
    PG_VEC_EACH(pg_event, e, p->events) {
        e->cname = e->lttng_name;
        if (strlen(p->lttng_name) + 1 + strlen(e->lttng_name) >= 256)
            pg_error(e->loc, "LTTng name \"%s:%s\" is longer than 255 characters", p->lttng_name,
                     e->lttng_name);
    }
}

static void check_events(pg_provider *p)
{
    pg_index ids = { 0 };
    pg_event *o;

    for (size_t i = 0; i < p->events.len; i++) {
        pg_event *e = p->events.items[i];

        e->index = (unsigned)i;
        e->provider = p;
        check_event(p, e);
        if (e->id_ok && (o = pg_index_put(&ids, pg_printf("%llu/%llu", (unsigned long long)e->value,
                                                          (unsigned long long)e->version), e)))
            pg_error(e->value_loc, "event %llu version %llu is defined twice (first at %s:%u)",
                     (unsigned long long)e->value, (unsigned long long)e->version,
                     o->value_loc.file, o->value_loc.line);
    }
    name_events(p);
}

/* ---- providers -------------------------------------------------------------------------------- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}", braces optional. */
static int parse_guid(pg_provider *p)
{
    const char *s = p->guid;
    size_t n = strlen(s);
    uint8_t b[16];
    static const int dash[] = { 8, 13, 18, 23 };

    if (n == 38 && s[0] == '{' && s[37] == '}')
        s++, n = 36;
    if (n != 36)
        return 0;
    for (int i = 0; i < 4; i++)
        if (s[dash[i]] != '-')
            return 0;
    for (int i = 0, k = 0; i < 36; i++) {
        int hi, lo;

        if (s[i] == '-')
            continue;
        hi = hexval(s[i]);
        lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        b[k++] = (uint8_t)(hi << 4 | lo);
        i++;
    }
    p->guid_d1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    p->guid_d2 = (uint16_t)(b[4] << 8 | b[5]);
    p->guid_d3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(p->guid_d4, b + 8, 8);
    return 1;
}

/* DESIGN decision 2: drop a leading Microsoft- / Windows-, map the rest to an identifier. */
static char *lttng_provider_name(const pg_provider *p, const pg_options *opt)
{
    const char *n = p->name;

    for (size_t i = 0; opt && i < opt->rename_from.len; i++)
        if (strcmp(opt->rename_from.items[i], n) == 0)
            return pg_strdup(opt->rename_to.items[i]);
    while (!strncmp(n, "Microsoft-", 10) || !strncmp(n, "Windows-", 8))
        n += n[0] == 'M' ? 10 : 8;
    return pg_make_ident(*n ? n : p->name);
}

/* libpaleventing's own provider: only its manifest (manifest/eventsource.man, by GUID) may
 * take the name, or two providers would register the same LTTng events. */
#define PALEVENTING_NAME "Paleventing"
static int is_paleventing(const pg_provider *p)
{
    static const uint8_t d4[8] = { 0x9d, 0x3c, 0x2e, 0x41, 0xa7, 0xb0, 0x5f, 0x68 };

    return p->guid_ok && p->guid_d1 == 0x6c9d1f3e && p->guid_d2 == 0x5b8a && p->guid_d3 == 0x4f27 &&
           memcmp(p->guid_d4, d4, 8) == 0;
}

static int same_guid(const pg_provider *a, const pg_provider *b)
{
    return a->guid_ok && b->guid_ok && a->guid_d1 == b->guid_d1 && a->guid_d2 == b->guid_d2 &&
           a->guid_d3 == b->guid_d3 && memcmp(a->guid_d4, b->guid_d4, 8) == 0;
}

static void check_provider(const pg_manifest *m, pg_provider *p, const pg_options *opt)
{
    if (!p->name || !*p->name) {
        pg_error(p->name ? p->name_loc : p->loc, "provider has no name");
        p->name = pg_strdup("Provider");
    }
    p->lttng_name = lttng_provider_name(p, opt);
    if (!pg_is_identifier(p->lttng_name) || strlen(p->lttng_name) > 200)
        pg_error(p->name_loc, "provider name \"%s\" is not a usable LTTng provider name",
                 p->lttng_name);
    if (p->guid && !(p->guid_ok = parse_guid(p)))
        pg_error(p->guid_loc, "guid \"%s\" is not a GUID", p->guid);
    else if (strcmp(p->lttng_name, PALEVENTING_NAME) == 0 && !is_paleventing(p))
        pg_error(p->name_loc, "provider \"%s\" would be named \"%s\" in LTTng: that is "
                 "libpaleventing's own provider (use --provider-name)", p->name, p->lttng_name);
    else if (!p->guid)
        pg_warning(p->loc, "provider \"%s\" has no guid: its event descriptors carry the zero GUID",
                   p->name);
    check_named(&p->levels, "level", 255, 1);
    check_named(&p->tasks, "task", 65535, 1);
    PG_VEC_EACH(pg_named, t, p->tasks)
        check_named(&t->opcodes, "opcode", 255, 1);
    check_named(&p->opcodes, "opcode", 255, 1);
    check_keywords(p);
    check_channels(p);
    check_maps(m, p);
    check_templates(p);
    check_events(p);
}
unsigned pg_check(pg_manifest *m, const pg_options *opt)
{
    if (!m)
        return pg_error_count();
    PG_VEC_EACH(pg_string, s, m->strings)
        pg_index_put(&m->string_index, s->id, s);
    if (!m->providers.len)
        pg_error((pg_loc){ m->path, 1 }, "no event provider found (expected <instrumentation>"
                                         "<events><provider>)");
    for (size_t i = 0; i < m->providers.len; i++) {
        pg_provider *p = m->providers.items[i];

        check_provider(m, p, opt);
        for (size_t j = 0; j < i; j++) {
            pg_provider *o = m->providers.items[j];

            if (strcmp(o->lttng_name, p->lttng_name) == 0)
                pg_error(p->name_loc, "provider \"%s\" would be named \"%s\" in LTTng, as is "
                         "provider \"%s\" at %s:%u (use --provider-name)", p->name, p->lttng_name,
                         o->name, o->name_loc.file, o->name_loc.line);
            if (same_guid(o, p))
                pg_error(p->guid_loc, "provider \"%s\" has the guid %s of provider \"%s\" at %s:%u",
                         p->name, p->guid, o->name, o->guid_loc.file, o->guid_loc.line);
        }
    }
    for (size_t i = 0; opt && i < opt->rename_from.len; i++) {
        int found = 0;

        PG_VEC_EACH(const pg_provider, p, m->providers)
            found |= p->name && strcmp(p->name, opt->rename_from.items[i]) == 0;
        if (!found && m->providers.len)
            pg_error((pg_loc){ m->path, 0 }, "--provider-name %s=%s: no provider \"%s\" in the "
                     "manifest", (char *)opt->rename_from.items[i], (char *)opt->rename_to.items[i],
                     (char *)opt->rename_from.items[i]);
    }
    pg_check_cnames(m, opt ? opt->symbol_prefix : NULL);
    return pg_error_count();
}
