/* SPDX-License-Identifier: MIT */
/* minivm: the lexer and assembler: program text (see README.md) to a module of bytecode. */
#include "events.h"
#include "vm.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small containers ------------------------------------------------------------------- */

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fputs("minivm: out of memory while loading the program\n", stderr);
        exit(2);
    }
    return p;
}

static char *xstrndup(const char *s, size_t n)
{
    char *d = xrealloc(NULL, n + 1);

    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* Append one element of `size` bytes to a growable array (*n elements, *cap allocated). */
static void *push_elem(void *arr, uint32_t *n, uint32_t *cap, size_t size)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        arr = xrealloc(arr, (size_t)*cap * size);
    }
    memset((char *)arr + (size_t)(*n)++ * size, 0, size);
    return arr;
}

#define PUSH(arr, n, cap) ((arr) = push_elem((arr), &(n), &(cap), sizeof *(arr)), &(arr)[(n) - 1])

/* ---- lexer ------------------------------------------------------------------------------- */

enum tok_kind { T_END, T_IDENT, T_INT, T_STRING, T_PUNCT, T_BAD };

struct token {
    enum tok_kind kind;
    const char *start;
    size_t len;
    int64_t i;
    char *text; /* T_STRING: the unescaped bytes (owned by the token) */
};

struct lexer {
    const char *p, *end;
};

/* Identifiers: letters, digits, '_', '.', '$' and any non-ASCII UTF-8 byte (names like
 * "Grüße" are fine; they reach the trace as UTF-16). */
static int ident_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '$' || c >= 0x80;
}

static void skip_space(struct lexer *lx)
{
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r'))
        lx->p++;
    if (lx->p < lx->end && (*lx->p == ';' || *lx->p == '#'))
        lx->p = lx->end;
}

/* No "\0": strings are NUL-terminated in the module and on the heap. */
static const char escapes[][2] = { { 'n', '\n' }, { 't', '\t' }, { '\\', '\\' }, { '"', '"' } };

static int lex_string(struct lexer *lx, struct token *t)
{
    size_t n = 0;

    t->text = xrealloc(NULL, (size_t)(lx->end - lx->p) + 1);
    for (lx->p++; lx->p < lx->end && *lx->p != '"'; lx->p++) {
        char c = *lx->p;

        if (c == '\\' && lx->p + 1 < lx->end) {
            size_t e = 0;

            while (e < sizeof escapes / sizeof *escapes && escapes[e][0] != lx->p[1])
                e++;
            if (e == sizeof escapes / sizeof *escapes)
                return T_BAD;
            c = escapes[e][1];
            lx->p++;
        }
        t->text[n++] = c;
    }
    t->text[n] = '\0';
    t->len = n;
    if (lx->p >= lx->end)
        return T_BAD;
    lx->p++;
    return T_STRING;
}

static int lex_int(struct lexer *lx, struct token *t)
{
    char buf[32];
    char *end;
    size_t n = 0;

    while (lx->p < lx->end && n < sizeof buf - 1 &&
           (isalnum((unsigned char)*lx->p) || *lx->p == '-'))
        buf[n++] = *lx->p++;
    buf[n] = '\0';
    errno = 0;
    t->i = strtoll(buf, &end, 0);
    return *end || errno ? T_BAD : T_INT;
}

static void next_token(struct lexer *lx, struct token *t)
{
    free(t->text);
    memset(t, 0, sizeof *t);
    skip_space(lx);
    t->start = lx->p;
    if (lx->p >= lx->end)
        t->kind = T_END;
    else if (*lx->p == '"')
        t->kind = lex_string(lx, t);
    else if (isdigit((unsigned char)*lx->p) || (*lx->p == '-' && lx->p + 1 < lx->end &&
                                                 isdigit((unsigned char)lx->p[1])))
        t->kind = lex_int(lx, t);
    else if (ident_char((unsigned char)*lx->p)) {
        while (lx->p < lx->end && ident_char((unsigned char)*lx->p))
            lx->p++;
        t->kind = T_IDENT;
    } else {
        lx->p++;
        t->kind = strchr("(),:*", *t->start) ? T_PUNCT : T_BAD;
    }
    if (t->kind != T_STRING)
        t->len = (size_t)(lx->p - t->start);
}

static int tok_is(const struct token *t, const char *s)
{
    return t->kind != T_STRING && t->len == strlen(s) && memcmp(t->start, s, t->len) == 0;
}

/* ---- assembler state --------------------------------------------------------------------- */

struct label {
    char *name;
    uint32_t offset;
    unsigned line;
};

struct fixup {
    char *name;
    uint32_t method; /* index of the method whose bytecode holds the slot */
    uint32_t at;     /* offset of the 4-byte slot */
    unsigned line;
};

struct pending_catch {
    char *from, *to, *handler;
    int32_t type;
    unsigned line;
};

struct assembler {
    const char *path;
    unsigned line;
    int errors;
    struct module *mod;
    uint32_t methods_cap, strings_cap, globals_cap;
    struct method *m;                   /* being assembled, or NULL */
    uint8_t *code;
    uint32_t ncode, code_cap;
    char **locals;
    uint32_t nlocals, locals_cap;
    struct label *labels;
    uint32_t nlabels, labels_cap;
    struct fixup *jumps;                /* label operands of the current method */
    uint32_t njumps, jumps_cap;
    struct fixup *calls;                /* method operands, resolved at the end */
    uint32_t ncalls, calls_cap;
    struct pending_catch *catches;
    uint32_t ncatches, catches_cap;
};

static void error(struct assembler *as, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void error(struct assembler *as, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s:%u: error: ", as->path, as->line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    as->errors++;
}

static void emit_byte(struct assembler *as, uint8_t b)
{
    *PUSH(as->code, as->ncode, as->code_cap) = b;
}

static void emit_uleb(struct assembler *as, uint64_t v)
{
    do {
        uint8_t b = v & 0x7f;

        v >>= 7;
        emit_byte(as, (uint8_t)(b | (v ? 0x80 : 0)));
    } while (v);
}

static void emit_sleb(struct assembler *as, int64_t v)
{
    emit_uleb(as, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); /* zigzag */
}

static uint32_t emit_slot(struct assembler *as)
{
    uint32_t at = as->ncode;

    for (int i = 0; i < 4; i++)
        emit_byte(as, 0);
    return at;
}

static void patch_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int32_t intern(struct assembler *as, const char *s, size_t len)
{
    struct module *mod = as->mod;

    for (uint32_t i = 0; i < mod->nstrings; i++)
        if (strlen(mod->strings[i]) == len && memcmp(mod->strings[i], s, len) == 0)
            return (int32_t)i;
    *PUSH(mod->strings, mod->nstrings, as->strings_cap) = xstrndup(s, len);
    return (int32_t)mod->nstrings - 1;
}

static int find_name(char *const *names, uint32_t n, const struct token *t)
{
    for (uint32_t i = 0; i < n; i++)
        if (tok_is(t, names[i]))
            return (int)i;
    return -1;
}

/* ---- directives -------------------------------------------------------------------------- */

static void dir_end(struct assembler *as);

/* "a, b, c" up to the end of the line (or a closing parenthesis) into a list of names. */
static void parse_names(struct assembler *as, struct lexer *lx, struct token *t, char ***names,
                        uint32_t *n, uint32_t *cap)
{
    for (next_token(lx, t); t->kind == T_IDENT; next_token(lx, t)) {
        if (find_name(*names, *n, t) >= 0)
            error(as, "\"%.*s\" declared twice", (int)t->len, t->start);
        *PUSH(*names, *n, *cap) = xstrndup(t->start, t->len);
        next_token(lx, t);
        if (!tok_is(t, ","))
            break;
    }
}

static void dir_global(struct assembler *as, struct lexer *lx, struct token *t)
{
    struct module *mod = as->mod;

    parse_names(as, lx, t, &mod->global_names, &mod->nglobals, &as->globals_cap);
    if (t->kind != T_END)
        error(as, "expected global names separated by commas");
}

static void check_unique(struct assembler *as, const struct method *m)
{
    for (const struct method *o = as->mod->methods; o < m; o++)
        if (strcmp(o->ns, m->ns) == 0 && strcmp(o->name, m->name) == 0)
            error(as, "method %s.%s defined twice (first on line %u)", m->ns, m->name, o->line);
}

/* ".method Demo.Math.fib(n)": namespace "Demo.Math", name "fib", signature "(n)". */
static void dir_method(struct assembler *as, struct lexer *lx, struct token *t)
{
    struct module *mod = as->mod;
    const char *dot, *name, *sig;

    if (as->m) {
        error(as, "\".method\" inside method %s.%s (missing \".end\")", as->m->ns, as->m->name);
        dir_end(as);
    }
    next_token(lx, t);
    if (t->kind != T_IDENT) {
        error(as, "expected a method name after \".method\"");
        return;
    }
    as->m = PUSH(mod->methods, mod->nmethods, as->methods_cap);
    dot = memrchr(t->start, '.', t->len);
    name = dot ? dot + 1 : t->start;
    as->m->ns = xstrndup(t->start, dot ? (size_t)(dot - t->start) : 0);
    as->m->name = xstrndup(name, t->len - (size_t)(name - t->start));
    as->m->sig = xstrndup("", 0);
    as->m->line = as->line;
    if (!*as->m->name)
        error(as, "no method name after the namespace \"%s\"", as->m->ns);
    check_unique(as, as->m);
    next_token(lx, t);
    sig = t->start;
    if (!tok_is(t, "(")) {
        error(as, "expected \"(\" after the method name");
        return;
    }
    parse_names(as, lx, t, &as->locals, &as->nlocals, &as->locals_cap);
    if (!tok_is(t, ")"))
        error(as, "expected \")\" closing the parameters");
    free(as->m->sig);
    as->m->sig = xstrndup(sig, (size_t)(lx->p - sig));
    as->m->nargs = as->nlocals;
}

static void dir_locals(struct assembler *as, struct lexer *lx, struct token *t)
{
    parse_names(as, lx, t, &as->locals, &as->nlocals, &as->locals_cap);
    if (t->kind != T_END)
        error(as, "expected local names separated by commas");
}

static char *expect_ident(struct assembler *as, struct lexer *lx, struct token *t, const char *what)
{
    next_token(lx, t);
    if (t->kind == T_IDENT || tok_is(t, "*"))
        return xstrndup(t->start, t->len);
    error(as, "expected %s", what);
    return xstrndup("", 0);
}

/* ".catch FROM TO HANDLER TYPE": exceptions of TYPE ("*": any) thrown in [FROM, TO) go to
 * HANDLER with the exception object as the only value on the stack. */
static void dir_catch(struct assembler *as, struct lexer *lx, struct token *t)
{
    struct pending_catch *c = PUSH(as->catches, as->ncatches, as->catches_cap);
    char *type;

    c->line = as->line;
    c->from = expect_ident(as, lx, t, "the label starting the protected range");
    c->to = expect_ident(as, lx, t, "the label ending the protected range");
    c->handler = expect_ident(as, lx, t, "the handler label");
    type = expect_ident(as, lx, t, "an exception type or \"*\"");
    c->type = strcmp(type, "*") ? intern(as, type, strlen(type)) : -1;
    free(type);
}

static int resolve_label(struct assembler *as, const char *name, unsigned line, uint32_t *offset)
{
    for (uint32_t i = 0; i < as->nlabels; i++)
        if (strcmp(as->labels[i].name, name) == 0) {
            *offset = as->labels[i].offset;
            return 0;
        }
    as->line = line;
    error(as, "unknown label \"%s\"", name);
    return -1;
}

static void finish_catches(struct assembler *as)
{
    struct method *m = as->m;

    m->catches = xrealloc(NULL, as->ncatches * sizeof *m->catches);
    m->ncatches = as->ncatches;
    for (uint32_t i = 0; i < as->ncatches; i++) {
        struct pending_catch *p = &as->catches[i];
        struct catch_clause *c = &m->catches[i];

        resolve_label(as, p->from, p->line, &c->from);
        resolve_label(as, p->to, p->line, &c->to);
        resolve_label(as, p->handler, p->line, &c->handler);
        c->type = p->type;
        free(p->from);
        free(p->to);
        free(p->handler);
    }
    as->ncatches = 0;
}

static void clear_method_state(struct assembler *as)
{
    for (uint32_t i = 0; i < as->nlocals; i++)
        free(as->locals[i]);
    for (uint32_t i = 0; i < as->nlabels; i++)
        free(as->labels[i].name);
    for (uint32_t i = 0; i < as->njumps; i++)
        free(as->jumps[i].name);
    as->nlocals = as->nlabels = as->njumps = as->ncode = 0;
    as->m = NULL;
}

static void dir_end(struct assembler *as)
{
    struct method *m = as->m;
    unsigned line = as->line;

    for (uint32_t i = 0; i < as->njumps; i++) {
        uint32_t off = 0;

        if (resolve_label(as, as->jumps[i].name, as->jumps[i].line, &off) == 0)
            patch_u32(as->code + as->jumps[i].at, off);
    }
    finish_catches(as);
    as->line = line;
    m->nlocals = as->nlocals;
    m->bytecode = xrealloc(NULL, as->ncode);
    memcpy(m->bytecode, as->code, as->ncode);
    m->bytecode_size = as->ncode;
    as->mod->bytecode_size += as->ncode;
    clear_method_state(as);
}

/* ---- instructions ------------------------------------------------------------------------ */

static void define_label(struct assembler *as, const struct token *t)
{
    struct label *l;

    for (uint32_t i = 0; i < as->nlabels; i++)
        if (tok_is(t, as->labels[i].name))
            error(as, "label \"%.*s\" defined twice (first on line %u)", (int)t->len, t->start,
                  as->labels[i].line);
    l = PUSH(as->labels, as->nlabels, as->labels_cap);
    l->name = xstrndup(t->start, t->len);
    l->offset = as->ncode;
    l->line = as->line;
}

static void add_fixup(struct assembler *as, int call, const struct token *t)
{
    struct fixup *f = call ? PUSH(as->calls, as->ncalls, as->calls_cap)
                           : PUSH(as->jumps, as->njumps, as->jumps_cap);

    f->name = xstrndup(t->start, t->len);
    f->method = (uint32_t)(as->m - as->mod->methods);
    f->at = emit_slot(as);
    f->line = as->line;
}

static int emit_slot_operand(struct assembler *as, enum operand_kind kind, const struct token *t)
{
    const struct module *mod = as->mod;
    int i = kind == OPD_LOCAL ? find_name(as->locals, as->nlocals, t)
                              : find_name(mod->global_names, mod->nglobals, t);

    if (i < 0)
        return -1;
    emit_uleb(as, (uint64_t)i);
    return 0;
}

static void emit_operand(struct assembler *as, enum operand_kind kind, const struct token *t)
{
    if (kind == OPD_INT && t->kind == T_INT)
        emit_sleb(as, t->i);
    else if (kind == OPD_STR && t->kind == T_STRING)
        emit_uleb(as, (uint64_t)intern(as, t->text, t->len));
    else if (kind == OPD_STR && t->kind == T_IDENT)
        emit_uleb(as, (uint64_t)intern(as, t->start, t->len));
    else if ((kind == OPD_LABEL || kind == OPD_METHOD) && t->kind == T_IDENT)
        add_fixup(as, kind == OPD_METHOD, t);
    else if ((kind == OPD_LOCAL || kind == OPD_GLOBAL) && t->kind == T_IDENT) {
        if (emit_slot_operand(as, kind, t) < 0)
            error(as, "unknown %s \"%.*s\"", kind == OPD_LOCAL ? "local" : "global",
                  (int)t->len, t->start);
    } else
        error(as, "bad operand \"%.*s\"", (int)t->len, t->start);
}

static int find_opcode(const struct token *t)
{
    for (int op = 0; op < OP_COUNT; op++)
        if (tok_is(t, opcode_table[op].mnemonic))
            return op;
    return -1;
}

/* "call std.print" calls the standard library; any other target is a method of the module. */
static void emit_call(struct assembler *as, const struct token *t)
{
    char *name;
    int n;

    if (t->kind != T_IDENT || strncmp(t->start, "std.", 4) != 0) {
        emit_byte(as, OP_CALL);
        emit_operand(as, OPD_METHOD, t);
        return;
    }
    name = xstrndup(t->start, t->len);
    n = native_find(name);
    free(name);
    if (n < 0) {
        error(as, "unknown library function \"%.*s\"", (int)t->len, t->start);
        return;
    }
    emit_byte(as, OP_CALLN);
    emit_uleb(as, (uint64_t)n);
}

static void instruction(struct assembler *as, struct lexer *lx, struct token *t)
{
    int op = find_opcode(t);

    if (op < 0) {
        error(as, "unknown instruction \"%.*s\"", (int)t->len, t->start);
        return;
    }
    if (!as->m) {
        error(as, "instruction outside a method");
        return;
    }
    if (opcode_table[op].operand != OPD_NONE) {
        next_token(lx, t);
        if (t->kind == T_END) {
            error(as, "\"%s\" needs an operand", opcode_table[op].mnemonic);
            return;
        }
    }
    if (op == OP_CALL)
        emit_call(as, t);
    else {
        emit_byte(as, (uint8_t)op);
        if (opcode_table[op].operand != OPD_NONE)
            emit_operand(as, opcode_table[op].operand, t);
    }
    next_token(lx, t);
    if (t->kind != T_END)
        error(as, "unexpected \"%.*s\" after the instruction", (int)t->len, t->start);
}

/* ---- lines and the module ---------------------------------------------------------------- */

struct directive {
    const char *name;
    int in_method; /* 1: only inside a method, 0: only outside, -1: anywhere */
    void (*parse)(struct assembler *as, struct lexer *lx, struct token *t);
};

static void dir_end_line(struct assembler *as, struct lexer *lx, struct token *t)
{
    (void)lx;
    (void)t;
    dir_end(as);
}

static const struct directive directives[] = {
    { ".global", 0, dir_global },
    { ".method", -1, dir_method },
    { ".locals", 1, dir_locals },
    { ".catch", 1, dir_catch },
    { ".end", 1, dir_end_line },
};

static void directive(struct assembler *as, struct lexer *lx, struct token *t)
{
    for (size_t i = 0; i < sizeof directives / sizeof *directives; i++) {
        const struct directive *d = &directives[i];

        if (!tok_is(t, d->name))
            continue;
        if (d->in_method >= 0 && d->in_method != (as->m != NULL))
            error(as, "\"%s\" %s a method", d->name, d->in_method ? "outside" : "inside");
        else
            d->parse(as, lx, t);
        return;
    }
    error(as, "unknown directive \"%.*s\"", (int)t->len, t->start);
}

static void line(struct assembler *as, const char *p, const char *end)
{
    struct lexer lx = { p, end };
    struct token t = { 0 };
    struct lexer after;

    next_token(&lx, &t);
    after = lx;
    if (t.kind == T_IDENT && t.start[0] != '.') {
        struct token colon = { 0 };

        next_token(&after, &colon);
        free(colon.text);
        if (tok_is(&colon, ":")) {
            if (as->m)
                define_label(as, &t);
            else
                error(as, "label outside a method");
            lx = after;
            next_token(&lx, &t);
        }
    }
    if (t.kind == T_IDENT && t.start[0] == '.')
        directive(as, &lx, &t);
    else if (t.kind == T_IDENT)
        instruction(as, &lx, &t);
    else if (t.kind != T_END)
        error(as, "unexpected \"%.*s\"", (int)t.len, t.start);
    free(t.text);
}

static void resolve_calls(struct assembler *as)
{
    struct module *mod = as->mod;

    for (uint32_t i = 0; i < as->ncalls; i++) {
        struct fixup *f = &as->calls[i];
        const struct method *target = module_find_method(mod, f->name);

        if (target)
            patch_u32(mod->methods[f->method].bytecode + f->at, (uint32_t)(target - mod->methods));
        else {
            as->line = f->line;
            error(as, "unknown method \"%s\"", f->name);
        }
        free(f->name);
    }
    free(as->calls);
}

/* Two FNV-1a passes over the source give a stable 128-bit identity, stamped as an RFC 9562
 * version 8 (custom) UUID: the same program always loads with the same GUID. */
static void module_guid(struct module *mod, const char *text, size_t size)
{
    uint64_t h[2] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };

    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < size; i++)
            h[k] = (h[k] ^ (unsigned char)text[i]) * 0x100000001b3ull;
    for (int i = 0; i < 16; i++)
        mod->guid[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
    mod->guid[6] = (uint8_t)((mod->guid[6] & 0x0f) | 0x80);
    mod->guid[8] = (uint8_t)((mod->guid[8] & 0x3f) | 0x80);
}

static void finish_module(struct assembler *as)
{
    struct module *mod = as->mod;

    if (as->m) {
        error(as, "method %s.%s has no \".end\"", as->m->ns, as->m->name);
        dir_end(as);
    }
    resolve_calls(as);
    mod->globals = xrealloc(NULL, mod->nglobals * sizeof *mod->globals);
    for (uint32_t i = 0; i < mod->nglobals; i++)
        mod->globals[i] = v_nil();
    for (uint32_t i = 0; i < mod->nmethods && !mod->entry; i++)
        if (strcmp(mod->methods[i].name, "main") == 0)
            mod->entry = &mod->methods[i];
    if (!mod->entry)
        error(as, "no method named \"main\"");
    else if (mod->entry->nargs > 1)
        error(as, "main takes at most one argument (the array of program arguments)");
    for (uint32_t i = 0; i < mod->nmethods; i++) {
        struct method *m = &mod->methods[i];

        m->module = mod;
        m->ns16 = ev_u16dup(m->ns);
        m->name16 = ev_u16dup(m->name);
        m->sig16 = ev_u16dup(m->sig);
    }
}

struct module *asm_module(const char *path, const char *text, size_t size, uint32_t kind)
{
    struct assembler as = { .path = path };
    const char *p = text, *end = text + size;

    as.mod = xrealloc(NULL, sizeof *as.mod);
    memset(as.mod, 0, sizeof *as.mod);
    as.mod->path = xstrndup(path, strlen(path));
    as.mod->path16 = ev_u16dup(path);
    as.mod->kind = kind;
    as.mod->source_size = size;
    module_guid(as.mod, text, size);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));

        as.line++;
        line(&as, p, nl ? nl : end);
        p = nl ? nl + 1 : end;
    }
    as.line++;
    finish_module(&as);
    free(as.code);
    free(as.locals);
    free(as.labels);
    free(as.jumps);
    free(as.catches);
    if (as.errors) {
        module_free(as.mod);
        return NULL;
    }
    return as.mod;
}

const struct method *module_find_method(const struct module *mod, const char *qualified)
{
    for (uint32_t i = 0; i < mod->nmethods; i++) {
        const struct method *m = &mod->methods[i];
        size_t nslen = strlen(m->ns);

        if (nslen == 0 && strcmp(m->name, qualified) == 0)
            return m;
        if (nslen && strncmp(qualified, m->ns, nslen) == 0 && qualified[nslen] == '.' &&
            strcmp(qualified + nslen + 1, m->name) == 0)
            return m;
    }
    return NULL;
}

static void method_free(struct method *m)
{
    method_free_code(m);
    free(m->ns);
    free(m->name);
    free(m->sig);
    free(m->ns16);
    free(m->name16);
    free(m->sig16);
    free(m->bytecode);
    free(m->catches);
}

void module_free(struct module *mod)
{
    if (!mod)
        return;
    for (uint32_t i = 0; i < mod->nmethods; i++)
        method_free(&mod->methods[i]);
    for (uint32_t i = 0; i < mod->nstrings; i++)
        free(mod->strings[i]);
    for (uint32_t i = 0; i < mod->nglobals; i++)
        free(mod->global_names[i]);
    free(mod->methods);
    free(mod->strings);
    free(mod->global_names);
    free(mod->globals);
    free(mod->path);
    free(mod->path16);
    free(mod);
}
