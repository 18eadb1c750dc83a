/* SPDX-License-Identifier: MIT */
/* The manifest reader: expat events into the model, every node with its file:line. */
#include "model.h"
#include "utf.h"

#include <errno.h>
#include <expat.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Where the reader is: the kind of the enclosing element decides what a child element means. */
enum ctx {
    C_SKIP,         /* inside an element we do not interpret: ignore the whole subtree */
    C_ROOT,         /* document level, and wrappers such as <instrumentationManifest>, <assembly> */
    C_INSTR,        /* <instrumentation> */
    C_PROVIDERS,    /* <events> listing providers */
    C_PROVIDER,
    C_CHANNELS, C_LEVELS, C_TASKS, C_TASK, C_TASK_OPCODES, C_OPCODES, C_KEYWORDS,
    C_MAPS, C_MAP, C_TEMPLATES, C_TEMPLATE, C_STRUCT, C_EVENTS,
    C_LOCALIZATION, C_RESOURCES, C_STRINGTABLE,
    C_LEAF          /* an interpreted element whose children do not matter */
};

struct frame {
    enum ctx ctx;
    void *node;     /* the model object this element created, if any */
};

struct reader {
    pg_ctx *cx;
    XML_Parser xml;
    pg_manifest *m;
    const char *path;
    const char *text;   /* the UTF-8 document, for attribute line numbers */
    size_t text_len;
    struct frame stack[64];
    unsigned depth;     /* may exceed 64: deeper frames are all C_SKIP */
    pg_provider *provider;
    pg_template *tmpl;
    int culture_rank;   /* rank of the culture whose strings are kept */
    int resources_rank; /* rank of the <resources> being read */
};

typedef void (*start_fn)(struct reader *r, const char **atts, struct frame *f);

struct rule {
    enum ctx parent;
    const char *element;
    enum ctx child;
    start_fn start;
};

static const char *local_name(const char *name)
{
    const char *colon = strrchr(name, ':');

    return colon ? colon + 1 : name;
}

static pg_loc here(struct reader *r)
{
    pg_loc loc = { r->path, (unsigned)XML_GetCurrentLineNumber(r->xml) };

    return loc;
}

/* The line of an attribute inside the current start tag (tags often span lines). */
static pg_loc attr_loc(struct reader *r, const char *attr)
{
    pg_loc loc = here(r);
    XML_Index at = XML_GetCurrentByteIndex(r->xml);
    size_t n = strlen(attr);
    char quote = 0;

    if (at < 0)
        return loc;
    for (size_t i = (size_t)at; i < r->text_len; i++) {
        char c = r->text[i];

        if (quote) {
            quote = c == quote ? 0 : quote;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '>') {
            break;
        } else if ((c == ' ' || c == '\t' || c == '\n' || c == '\r') && i + 1 + n < r->text_len &&
                   strncmp(r->text + i + 1, attr, n) == 0 &&
                   strchr(" \t\r\n=", r->text[i + 1 + n])) {
            return loc;
        }
        if (c == '\n' || (c == '\r' && (i + 1 >= r->text_len || r->text[i + 1] != '\n')))
            loc.line++;
    }
    return here(r);
}

static char *attr(struct reader *r, const char **atts, const char *name)
{
    for (; atts[0]; atts += 2)
        if (strcmp(local_name(atts[0]), name) == 0)
            return pg_strdup(r->cx, atts[1]);
    return NULL;
}

static char *attr_at(struct reader *r, const char **atts, const char *name, pg_loc *loc)
{
    char *v = attr(r, atts, name);

    *loc = v ? attr_loc(r, name) : here(r);
    return v;
}

static void ref_attr(struct reader *r, const char **atts, const char *name, pg_ref *ref)
{
    ref->text = attr_at(r, atts, name, &ref->loc);
    ref->present = ref->text != NULL;
}

static void start_provider(struct reader *r, const char **atts, struct frame *f)
{
    pg_provider *p = pg_zalloc(r->cx, sizeof(*p));

    p->loc = here(r);
    p->name = attr_at(r, atts, "name", &p->name_loc);
    p->guid = attr_at(r, atts, "guid", &p->guid_loc);
    p->symbol = attr(r, atts, "symbol");
    pg_vec_push(r->cx, &r->m->providers, p);
    r->provider = p;
    f->node = p;
}

static pg_named *named(struct reader *r, const char **atts, const char *value_attr, pg_vec *into)
{
    pg_named *n = pg_zalloc(r->cx, sizeof(*n));

    n->loc = here(r);
    n->name = attr(r, atts, "name");
    n->symbol = attr(r, atts, "symbol");
    n->message = attr(r, atts, "message");
    if (value_attr)
        n->value_str = attr_at(r, atts, value_attr, &n->value_loc);
    pg_vec_push(r->cx, into, n);
    return n;
}

static void start_level(struct reader *r, const char **atts, struct frame *f)
{
    f->node = named(r, atts, "value", &r->provider->levels);
}

static void start_task(struct reader *r, const char **atts, struct frame *f)
{
    f->node = named(r, atts, "value", &r->provider->tasks);
}

static void start_opcode(struct reader *r, const char **atts, struct frame *f)
{
    f->node = named(r, atts, "value", &r->provider->opcodes);
}

static void start_task_opcode(struct reader *r, const char **atts, struct frame *f)
{
    pg_named *task = f[-2].node;
    pg_named *op = named(r, atts, "value", &task->opcodes);

    op->task = task;
    f->node = op;
}

static void start_keyword(struct reader *r, const char **atts, struct frame *f)
{
    f->node = named(r, atts, "mask", &r->provider->keywords);
}

static void start_channel(struct reader *r, const char **atts, struct frame *f)
{
    pg_named *c = named(r, atts, "value", &r->provider->channels);

    c->chid = attr(r, atts, "chid");
    c->type = attr(r, atts, "type");
    f->node = c;
}

static void start_import_channel(struct reader *r, const char **atts, struct frame *f)
{
    start_channel(r, atts, f);
    ((pg_named *)f->node)->imported = 1;
}

static void start_map(struct reader *r, const char **atts, struct frame *f, int is_bitmap)
{
    pg_map *m = pg_zalloc(r->cx, sizeof(*m));

    m->loc = here(r);
    m->name = attr(r, atts, "name");
    m->is_bitmap = is_bitmap;
    pg_vec_push(r->cx, &r->provider->maps, m);
    f->node = m;
}

static void start_value_map(struct reader *r, const char **atts, struct frame *f)
{
    start_map(r, atts, f, 0);
}

static void start_bit_map(struct reader *r, const char **atts, struct frame *f)
{
    start_map(r, atts, f, 1);
}

static void start_map_entry(struct reader *r, const char **atts, struct frame *f)
{
    pg_map *m = f[-1].node;
    pg_map_entry *e = pg_zalloc(r->cx, sizeof(*e));

    e->value_str = attr_at(r, atts, "value", &e->loc);
    e->message = attr(r, atts, "message");
    e->label = attr(r, atts, "symbol");
    pg_vec_push(r->cx, &m->entries, e);
    f->node = e;
}

static void start_template(struct reader *r, const char **atts, struct frame *f)
{
    pg_template *t = pg_zalloc(r->cx, sizeof(*t));

    t->loc = here(r);
    t->tid = attr(r, atts, "tid");
    pg_vec_push(r->cx, &r->provider->templates, t);
    r->tmpl = t;
    f->node = t;
}

static pg_field *field(struct reader *r, const char **atts, struct frame *f)
{
    pg_field *fld = pg_zalloc(r->cx, sizeof(*fld));
    pg_loc name_loc;

    fld->loc = here(r);
    fld->name = attr_at(r, atts, "name", &name_loc);
    fld->loc = name_loc;
    ref_attr(r, atts, "count", &fld->count);
    ref_attr(r, atts, "length", &fld->length);
    if (f[-1].ctx == C_STRUCT) {
        fld->parent = f[-1].node;
        pg_vec_push(r->cx, &fld->parent->members, fld);
    } else {
        pg_vec_push(r->cx, &r->tmpl->fields, fld);
    }
    f->node = fld;
    return fld;
}

static void start_data(struct reader *r, const char **atts, struct frame *f)
{
    pg_field *fld = field(r, atts, f);

    fld->intype_name = attr_at(r, atts, "inType", &fld->type_loc);
    fld->outtype_name = attr_at(r, atts, "outType", &fld->outtype_loc);
    fld->map_name = attr_at(r, atts, "map", &fld->map_loc);
}

static void start_struct(struct reader *r, const char **atts, struct frame *f)
{
    field(r, atts, f)->is_struct = 1;
}

static void start_event(struct reader *r, const char **atts, struct frame *f)
{
    pg_event *e = pg_zalloc(r->cx, sizeof(*e));

    e->loc = here(r);
    e->value_str = attr_at(r, atts, "value", &e->value_loc);
    e->version_str = attr_at(r, atts, "version", &e->version_loc);
    e->symbol = attr_at(r, atts, "symbol", &e->symbol_loc);
    if (e->symbol && !*e->symbol)
        e->symbol = NULL;   /* symbol="": as if absent, a name is derived */
    e->level_name = attr_at(r, atts, "level", &e->level_loc);
    e->task_name = attr_at(r, atts, "task", &e->task_loc);
    e->opcode_name = attr_at(r, atts, "opcode", &e->opcode_loc);
    e->keywords_attr = attr_at(r, atts, "keywords", &e->keywords_loc);
    e->template_name = attr_at(r, atts, "template", &e->template_loc);
    e->channel_name = attr_at(r, atts, "channel", &e->channel_loc);
    e->message = attr(r, atts, "message");
    pg_vec_push(r->cx, &r->provider->events, e);
    f->node = e;
}

/* Strings of one culture are kept: en-US first, then any English, then the first one seen. */
static int culture_rank(const char *culture)
{
    if (!culture)
        return 1;
    if (strcmp(culture, "en-US") == 0)
        return 3;
    return strncmp(culture, "en", 2) == 0 ? 2 : 1;
}

static void start_resources(struct reader *r, const char **atts, struct frame *f)
{
    int rank = culture_rank(attr(r, atts, "culture"));

    (void)f;
    r->resources_rank = rank > r->culture_rank ? rank : 0;
    if (r->resources_rank) {
        r->culture_rank = rank;
        r->m->strings.len = 0;
    }
}

static void start_string(struct reader *r, const char **atts, struct frame *f)
{
    pg_string *s;

    (void)f;
    if (!r->resources_rank)
        return;
    s = pg_zalloc(r->cx, sizeof(*s));
    s->id = attr(r, atts, "id");
    s->value = attr(r, atts, "value");
    if (s->id && s->value)
        pg_vec_push(r->cx, &r->m->strings, s);
}

/* Elements not listed are skipped with their whole subtree: UserData, counters, filters, ... */
static const struct rule rules[] = {
    { C_ROOT, "instrumentationManifest", C_ROOT, NULL },
    { C_ROOT, "assembly", C_ROOT, NULL },
    { C_ROOT, "instrumentation", C_INSTR, NULL },
    { C_ROOT, "localization", C_LOCALIZATION, NULL },
    { C_INSTR, "events", C_PROVIDERS, NULL },
    { C_PROVIDERS, "provider", C_PROVIDER, start_provider },
    { C_PROVIDER, "channels", C_CHANNELS, NULL },
    { C_PROVIDER, "levels", C_LEVELS, NULL },
    { C_PROVIDER, "tasks", C_TASKS, NULL },
    { C_PROVIDER, "opcodes", C_OPCODES, NULL },
    { C_PROVIDER, "keywords", C_KEYWORDS, NULL },
    { C_PROVIDER, "maps", C_MAPS, NULL },
    { C_PROVIDER, "templates", C_TEMPLATES, NULL },
    { C_PROVIDER, "events", C_EVENTS, NULL },
    { C_CHANNELS, "channel", C_LEAF, start_channel },
    { C_CHANNELS, "importChannel", C_LEAF, start_import_channel },
    { C_LEVELS, "level", C_LEAF, start_level },
    { C_TASKS, "task", C_TASK, start_task },
    { C_TASK, "opcodes", C_TASK_OPCODES, NULL },
    { C_TASK_OPCODES, "opcode", C_LEAF, start_task_opcode },
    { C_OPCODES, "opcode", C_LEAF, start_opcode },
    { C_KEYWORDS, "keyword", C_LEAF, start_keyword },
    { C_MAPS, "valueMap", C_MAP, start_value_map },
    { C_MAPS, "bitMap", C_MAP, start_bit_map },
    { C_MAP, "map", C_LEAF, start_map_entry },
    { C_TEMPLATES, "template", C_TEMPLATE, start_template },
    { C_TEMPLATE, "data", C_LEAF, start_data },
    { C_TEMPLATE, "struct", C_STRUCT, start_struct },
    { C_STRUCT, "data", C_LEAF, start_data },
    { C_STRUCT, "struct", C_STRUCT, start_struct },
    { C_EVENTS, "event", C_LEAF, start_event },
    { C_LOCALIZATION, "resources", C_RESOURCES, start_resources },
    { C_RESOURCES, "stringTable", C_STRINGTABLE, NULL },
    { C_STRINGTABLE, "string", C_LEAF, start_string },
};

static void XMLCALL on_start(void *data, const char *name, const char **atts)
{
    struct reader *r = data;
    struct frame *f;
    enum ctx parent;

    /* Past the fixed stack everything is skipped: no manifest nests that deep. */
    if (r->depth++ >= sizeof(r->stack) / sizeof(r->stack[0]))
        return;
    f = &r->stack[r->depth - 1];
    parent = f[-1].ctx;
    f->ctx = C_SKIP;
    f->node = NULL;
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        if (rules[i].parent == parent && strcmp(rules[i].element, local_name(name)) == 0) {
            f->ctx = rules[i].child;
            if (rules[i].start)
                rules[i].start(r, atts, f);
            return;
        }
    }
}

static void XMLCALL on_end(void *data, const char *name)
{
    struct reader *r = data;

    (void)name;
    if (r->depth <= sizeof(r->stack) / sizeof(r->stack[0]) &&
        r->stack[r->depth - 1].ctx == C_PROVIDER)
        r->provider = NULL;
    r->depth--;
}

/* expat sees the document as UTF-8: UTF-16 input (by BOM, or by "<?" in UTF-16) is transcoded
 * here, so attribute line numbers can be found in one buffer and any declared encoding works.
 * common/utf.c converts (unpaired surrogates become U+FFFD); it ends a string at a NUL unit, so
 * the text is converted between NULs and each NUL kept, for expat to refuse where it stands. */
static void utf16_to_utf8(pg_ctx *cx, pg_buf *b, const unsigned char *s, size_t len, int big_endian)
{
    size_t n = len / 2, start = 0;
    char16_t *units = pg_zalloc(cx, (n ? n : 1) * sizeof(*units));

    for (size_t i = 0; i < n; i++)
        units[i] = (char16_t)(big_endian ? s[2 * i] << 8 | s[2 * i + 1] : s[2 * i + 1] << 8 | s[2 * i]);
    for (size_t i = 0; i <= n; i++) {
        size_t need;
        char *text;

        if (i < n && units[i] != 0)
            continue;
        need = pcm_utf16_to_utf8(NULL, 0, units + start, i - start);
        text = pg_zalloc(cx, need + 1);
        pcm_utf16_to_utf8(text, need + 1, units + start, i - start);
        pg_buf_putn(cx, b, text, need);
        if (i < n)
            pg_buf_putn(cx, b, "", 1);
        start = i + 1;
    }
}

/* The encoding an 8-bit document declares in <?xml ... encoding="X"?>, or NULL. */
static char *declared_encoding(pg_ctx *cx, const char *data, size_t len)
{
    const char *end, *e;
    char quote;
    size_t n;

    if (len < 5 || strncmp(data, "<?xml", 5) != 0 || !(end = memchr(data, '>', len)))
        return NULL;
    for (e = data; e + 8 < end && strncmp(e, "encoding", 8) != 0; e++)
        ;
    if (e + 8 >= end)
        return NULL;
    for (e += 8; e < end && (*e == ' ' || *e == '\t' || *e == '\r' || *e == '\n' || *e == '='); e++)
        ;
    if (e >= end || (*e != '"' && *e != '\''))
        return NULL;
    quote = *e++;
    for (n = 0; e + n < end && e[n] != quote; n++)
        ;
    return pg_strndup(cx, e, n);
}

/* windows-1252's 0x80-0x9F; where it has no character, the Latin-1 control character. */
static const uint16_t cp1252_high[32] = {
    0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
};

static void single_byte_to_utf8(pg_ctx *cx, pg_buf *b, const unsigned char *s, size_t len, int cp1252)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] < 0x80)
            pg_buf_putn(cx, b, (const char *)s + i, 1);
        else
            pg_buf_put_utf8(cx, b, cp1252 && s[i] < 0xA0 ? cp1252_high[s[i] - 0x80] : s[i]);
    }
}

/* The 8-bit encodings read, by the names a declaration may give them. "UTF-16..." on 8-bit text
 * (no BOM, '<' a byte of its own): a tool saved it as UTF-8 and kept the declaration. */
enum { ENC_UTF8, ENC_LATIN1, ENC_CP1252 };
static const struct {
    const char *name;
    int enc;
} encodings[] = {
    { "utf-8", ENC_UTF8 }, { "utf8", ENC_UTF8 }, { "unicode", ENC_UTF8 },
    { "iso-8859-1", ENC_LATIN1 }, { "iso_8859-1", ENC_LATIN1 }, { "latin1", ENC_LATIN1 },
    { "l1", ENC_LATIN1 }, { "us-ascii", ENC_LATIN1 }, { "ascii", ENC_LATIN1 },
    { "windows-1252", ENC_CP1252 }, { "cp1252", ENC_CP1252 },
};

/* Everything becomes UTF-8 for expat: the BOM decides, else the XML declaration. Returns 0, or
 * -1 for an encoding we cannot read (reported). */
static int to_utf8(pg_ctx *cx, const char *path, pg_buf *b, const char *data, size_t len)
{
    const unsigned char *s = (const unsigned char *)data;
    char *enc;

    if (len >= 2 && s[0] == 0xFF && s[1] == 0xFE)
        utf16_to_utf8(cx, b, s + 2, len - 2, 0);
    else if (len >= 2 && s[0] == 0xFE && s[1] == 0xFF)
        utf16_to_utf8(cx, b, s + 2, len - 2, 1);
    else if (len >= 4 && s[0] == '<' && s[1] == 0 && s[2] != 0 && s[3] == 0)
        utf16_to_utf8(cx, b, s, len, 0);
    else if (len >= 4 && s[0] == 0 && s[1] == '<' && s[2] == 0 && s[3] != 0)
        utf16_to_utf8(cx, b, s, len, 1);
    else if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
        pg_buf_putn(cx, b, data + 3, len - 3);
    else if (!(enc = declared_encoding(cx, data, len)) || strncasecmp(enc, "utf-16", 6) == 0)
        pg_buf_putn(cx, b, data, len);
    else {
        for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++) {
            if (strcasecmp(enc, encodings[i].name) != 0)
                continue;
            if (encodings[i].enc == ENC_UTF8)
                pg_buf_putn(cx, b, data, len);
            else
                single_byte_to_utf8(cx, b, s, len, encodings[i].enc == ENC_CP1252);
            return 0;
        }
        pg_error(cx, (pg_loc){ path, 1 }, "encoding \"%s\" is not supported (UTF-8, UTF-16 with a BOM, "
                 "ISO-8859-1, US-ASCII and windows-1252 are)", enc);
        return -1;
    }
    return 0;
}

pg_manifest *pg_parse_buffer(pg_ctx *cx, const char *path, const char *data, size_t len)
{
    struct reader r = { .cx = cx };
    pg_buf text = { 0 };
    const char *base = strrchr(path, '/');

    r.m = pg_zalloc(cx, sizeof(*r.m));
    r.m->path = pg_strdup(cx, path);
    r.m->basename = pg_strdup(cx, base ? base + 1 : path);
    r.path = r.m->path;
    if (to_utf8(cx, r.path, &text, data, len) < 0)
        goto end;
    r.text = text.data ? text.data : "";
    r.text_len = text.len;
    r.xml = XML_ParserCreate("UTF-8");
    if (!r.xml) {
        pg_error(cx, (pg_loc){ r.path, 0 }, "cannot create an XML parser");
        goto end;
    }
    r.stack[0].ctx = C_ROOT;
    r.depth = 1;
    XML_SetUserData(r.xml, &r);
    XML_SetElementHandler(r.xml, on_start, on_end);
    if (XML_Parse(r.xml, r.text, (int)r.text_len, 1) == XML_STATUS_ERROR) {
        pg_loc loc = { r.path, (unsigned)XML_GetCurrentLineNumber(r.xml) };

        pg_error(cx, loc, "malformed XML: %s", XML_ErrorString(XML_GetErrorCode(r.xml)));
    }
    XML_ParserFree(r.xml);
end:
    return r.m;
}

pg_manifest *pg_parse_file(pg_ctx *cx, const char *path)
{
    FILE *f = fopen(path, "rb");
    pg_buf data = { 0 };
    char chunk[65536];
    size_t n;

    if (!f) {
        pg_error(cx, (pg_loc){ path, 0 }, "cannot open: %s", strerror(errno));
        return NULL;
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        pg_buf_putn(cx, &data, chunk, n);
    if (ferror(f)) {
        pg_error(cx, (pg_loc){ path, 0 }, "cannot read: %s", strerror(errno));
        fclose(f);
        return NULL;
    }
    fclose(f);
    return pg_parse_buffer(cx, path, data.data ? data.data : "", data.len);
}
