/* SPDX-License-Identifier: MIT */
/* The checker: resolve every reference, derive names, and report all errors with their lines. */
#include "model.h"
#include "lower.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers and names ---------------------------------------------------------------------- */

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

/* Identifiers that would break generated C or C++: keywords and macros of the C library. */
static const char *const reserved[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "co_await", "co_return",
    "co_yield", "compl", "concept", "const", "const_cast", "consteval", "constexpr", "constinit",
    "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
    "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline",
    "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
    "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "restrict", "return", "short", "signed", "sizeof", "static", "static_assert",
    "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true", "try",
    "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex",
    "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
    "NULL", "EOF", "errno", "stdin", "stdout", "stderr", "assert", "offsetof", "linux", "unix",
    "i386", "setjmp", "va_arg", "va_start", "va_end", "va_copy", "likely", "unlikely", "min",
    "max", "major", "minor", "makedev", "FILE", "BUFSIZ", "PATH_MAX", "CHAR_BIT",
    /* types generated code names */
    "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    "intptr_t", "uintptr_t", "size_t", "ssize_t", "ptrdiff_t", "palev_guid", "palev_systemtime",
    "palev_scratch", "palev_array_desc", "palev_event_descriptor", "palev_provider",
};

/* Object-like macros of the C library and POSIX headers a host may include before ours (errno
 * values, limits, signals, ...): a parameter named so would be replaced. Function-like macros are
 * harmless (a parameter name is not followed by '('). */
static const char *const libc_macros[] = {
    "NAN", "INFINITY", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "L_tmpnam", "TMP_MAX", "MB_CUR_MAX",
    "CLOCKS_PER_SEC", "PIPE_BUF", "NAME_MAX", "BYTE_ORDER", "LITTLE_ENDIAN", "BIG_ENDIAN",
    "PDP_ENDIAN", "FLT_EVAL_METHOD", "DECIMAL_DIG", "FLT_RADIX", "MAP_FAILED", "RTLD_LAZY",
    "RTLD_NOW", "RTLD_GLOBAL", "RTLD_LOCAL", "RTLD_DEFAULT", "RTLD_NEXT", "EOF", "BUFSIZ",
    "FOPEN_MAX", "L_ctermid", "P_tmpdir", "NSIG", "MINSIGSTKSZ", "SIGSTKSZ", "PAGE_SIZE",
    "PAGESIZE", "IOV_MAX", "NGROUPS_MAX", "ARG_MAX", "HOST_NAME_MAX", "LINE_MAX", "NZERO",
    "TZNAME_MAX", "STDIN_FILENO", "STDOUT_FILENO", "STDERR_FILENO", "F_OK", "R_OK", "W_OK", "X_OK",
    "F_GETFL", "F_SETFL", "F_GETFD", "F_SETFD", "F_DUPFD", "F_GETLK", "F_SETLK", "F_SETLKW",
    "AT_FDCWD", "MAP_SHARED", "MAP_PRIVATE", "MAP_ANONYMOUS", "MAP_ANON", "MAP_FIXED",
    "PROT_READ", "PROT_WRITE", "PROT_EXEC", "PROT_NONE", "CHAR_MAX", "CHAR_MIN",
    "POLLIN", "POLLPRI", "POLLOUT", "POLLERR", "POLLHUP", "POLLNVAL", "POLLRDNORM", "POLLRDBAND",
    "POLLWRNORM", "POLLWRBAND", "POLLMSG", "POLLREMOVE", "POLLRDHUP", "WNOHANG", "WUNTRACED",
    "WCONTINUED", "WEXITED", "WSTOPPED", "WNOWAIT",
    /* signals */
    "SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCLD", "SIGCONT", "SIGFPE", "SIGHUP", "SIGILL",
    "SIGINT", "SIGIO", "SIGIOT", "SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", "SIGPWR", "SIGQUIT",
    "SIGRTMAX", "SIGRTMIN", "SIGSEGV", "SIGSTKFLT", "SIGSTOP", "SIGSYS", "SIGTERM", "SIGTRAP",
    "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGUSR1", "SIGUSR2", "SIGVTALRM", "SIGWINCH",
    "SIGXCPU", "SIGXFSZ",
    /* errno values (Linux's, which include POSIX's) */
    "E2BIG", "EACCES", "EADDRINUSE", "EADDRNOTAVAIL", "EADV", "EAFNOSUPPORT", "EAGAIN", "EALREADY",
    "EBADE", "EBADF", "EBADFD", "EBADMSG", "EBADR", "EBADRQC", "EBADSLT", "EBFONT", "EBUSY",
    "ECANCELED", "ECHILD", "ECHRNG", "ECOMM", "ECONNABORTED", "ECONNREFUSED", "ECONNRESET",
    "EDEADLK", "EDEADLOCK", "EDESTADDRREQ", "EDOM", "EDOTDOT", "EDQUOT", "EEXIST", "EFAULT",
    "EFBIG", "EHOSTDOWN", "EHOSTUNREACH", "EHWPOISON", "EIDRM", "EILSEQ", "EINPROGRESS", "EINTR",
    "EINVAL", "EIO", "EISCONN", "EISDIR", "EISNAM", "EKEYEXPIRED", "EKEYREJECTED", "EKEYREVOKED",
    "EL2HLT", "EL2NSYNC", "EL3HLT", "EL3RST", "ELIBACC", "ELIBBAD", "ELIBEXEC", "ELIBMAX",
    "ELIBSCN", "ELNRNG", "ELOOP", "EMEDIUMTYPE", "EMFILE", "EMLINK", "EMSGSIZE", "EMULTIHOP",
    "ENAMETOOLONG", "ENAVAIL", "ENETDOWN", "ENETRESET", "ENETUNREACH", "ENFILE", "ENOANO",
    "ENOBUFS", "ENOCSI", "ENODATA", "ENODEV", "ENOENT", "ENOEXEC", "ENOKEY", "ENOLCK", "ENOLINK",
    "ENOMEDIUM", "ENOMEM", "ENOMSG", "ENONET", "ENOPKG", "ENOPROTOOPT", "ENOSPC", "ENOSR",
    "ENOSTR", "ENOSYS", "ENOTBLK", "ENOTCONN", "ENOTDIR", "ENOTEMPTY", "ENOTNAM",
    "ENOTRECOVERABLE", "ENOTSOCK", "ENOTSUP", "ENOTTY", "ENOTUNIQ", "ENXIO", "EOPNOTSUPP",
    "EOVERFLOW", "EOWNERDEAD", "EPERM", "EPFNOSUPPORT", "EPIPE", "EPROTO", "EPROTONOSUPPORT",
    "EPROTOTYPE", "ERANGE", "EREMCHG", "EREMOTE", "EREMOTEIO", "ERESTART", "ERFKILL", "EROFS",
    "ESHUTDOWN", "ESOCKTNOSUPPORT", "ESPIPE", "ESRCH", "ESRMNT", "ESTALE", "ESTRPIPE", "ETIME",
    "ETIMEDOUT", "ETOOMANYREFS", "ETXTBSY", "EUCLEAN", "EUNATCH", "EUSERS", "EWOULDBLOCK", "EXDEV",
    "EXFULL",
};

/* Families of such macros, when the name is all capitals, digits and '_'. */
static const char *const macro_suffixes[] = {
    "_MAX", "_MIN", "_BIT", "_WIDTH", "_EPSILON", "_DIG", "_MANT_DIG",
};
static const char *const macro_prefixes[] = {
    "SEEK_", "EXIT_", "O_", "S_I", "SIG_", "SA_", "CLOCK_", "FD_", "EAI_", "AF_", "PF_", "SOCK_",
    "SOL_", "SO_", "IPPROTO_", "MSG_", "EPOLL", "LC_", "FE_", "FP_", "M_", "PTHREAD_", "SCHED_",
    "RLIMIT_", "RUSAGE_", "_IO",
};

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int has_suffix(const char *s, const char *x)
{
    size_t n = strlen(s), m = strlen(x);

    return n > m && strcmp(s + n - m, x) == 0;
}

/* All capitals, digits and '_': the shape of a macro. */
static int macro_shaped(const char *s)
{
    for (; *s; s++)
        if (!isupper((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static int is_libc_macro(const char *s)
{
    for (size_t i = 0; i < sizeof(libc_macros) / sizeof(libc_macros[0]); i++)
        if (strcmp(libc_macros[i], s) == 0)
            return 1;
    if (!macro_shaped(s))
        return 0;
    /* limits (INT_MAX, SIZE_MAX, CHAR_BIT, ...), signals, open/seek/exit constants, ... */
    for (size_t i = 0; i < sizeof(macro_suffixes) / sizeof(macro_suffixes[0]); i++)
        if (has_suffix(s, macro_suffixes[i]))
            return 1;
    for (size_t i = 0; i < sizeof(macro_prefixes) / sizeof(macro_prefixes[0]); i++)
        if (has_prefix(s, macro_prefixes[i]))
            return 1;
    return 0;
}

/* Identifiers C reserves for the implementation (__x, _X): __VA_ARGS__, __func__, __LINE__ ... */
static int reserved_namespace(const char *s)
{
    return s[0] == '_' && (s[1] == '_' || isupper((unsigned char)s[1]));
}

static int is_reserved(const char *s)
{
    if (reserved_namespace(s))
        return 1;
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
        if (strcmp(reserved[i], s) == 0)
            return 1;
    return is_libc_macro(s);
}

/* A manifest name as an identifier: runs of other characters become one '_'; a leading digit
 * gets a '_' in front; a keyword, libc macro, type or name of the implementation's (__x, _X)
 * gets a '_' after; a name starting with
 * "palev_" (the prefix of generated locals) gets a '_' in front. Stable: depends on s alone. */
static char *make_ident(const char *s)
{
    pg_buf b = { 0 };
    char *id;
    int gap = 0;

    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || *p == '_') {
            if (gap && b.len)
                pg_buf_putn(&b, "_", 1);
            if (!b.len && isdigit(*p))
                pg_buf_putn(&b, "_", 1);
            pg_buf_putn(&b, (const char *)p, 1);
            gap = 0;
        } else {
            gap = 1;
        }
    }
    if (!b.len)
        pg_buf_puts(&b, "_");
    if (is_reserved(b.data))
        pg_buf_puts(&b, "_");
    id = pg_printf("%s%s", strncmp(b.data, "palev_", 6) ? "" : "_", b.data);
    pg_buf_free(&b);
    return id;
}

/* ---- built-in (winmeta) levels, tasks, opcodes, keywords ------------------------------------- */

struct builtin {
    const char *name;
    uint64_t value;
};

static const struct builtin builtin_levels[] = {
    { "win:LogAlways", 0 }, { "win:Critical", 1 }, { "win:Error", 2 }, { "win:Warning", 3 },
    { "win:Informational", 4 }, { "win:Verbose", 5 },
};
static const struct builtin builtin_opcodes[] = {
    { "win:Info", 0 }, { "win:Start", 1 }, { "win:Stop", 2 }, { "win:DC_Start", 3 },
    { "win:DC_Stop", 4 }, { "win:Extension", 5 }, { "win:Reply", 6 }, { "win:Resume", 7 },
    { "win:Suspend", 8 }, { "win:Send", 9 }, { "win:Receive", 240 },
};
static const struct builtin builtin_tasks[] = { { "win:None", 0 } };
static const struct builtin builtin_keywords[] = {
    { "win:ResponseTime", 0x0001000000000000ULL }, { "win:WDIContext", 0x0002000000000000ULL },
    { "win:WDIDiag", 0x0004000000000000ULL }, { "win:SQM", 0x0008000000000000ULL },
    { "win:AuditFailure", 0x0010000000000000ULL }, { "win:AuditSuccess", 0x0020000000000000ULL },
    { "win:CorrelationHint", 0x0040000000000000ULL }, { "win:EventlogClassic", 0x0080000000000000ULL },
};
/* Well-known channels an <importChannel> may name, with their ETW channel numbers. */
static const struct builtin builtin_channels[] = {
    { "TraceClassic", 0 }, { "System", 8 }, { "Application", 9 }, { "Security", 10 },
    { "TraceLogging", 11 }, { "ProviderMetadata", 12 },
};

/* "win:Start" also matches "Start" with another prefix bound to the same namespace. */
static int builtin_match(const char *builtin, const char *name)
{
    const char *a = strchr(builtin, ':') + 1, *b = strrchr(name, ':');

    return b && strcmp(a, b + 1) == 0;
}

static pg_named *find_builtin(const struct builtin *table, size_t n, const char *name, pg_loc loc)
{
    for (size_t i = 0; i < n; i++) {
        if (builtin_match(table[i].name, name)) {
            pg_named *b = pg_alloc(sizeof(*b));

            b->loc = loc;
            b->name = pg_strdup(strchr(table[i].name, ':') + 1);
            b->value = table[i].value;
            b->builtin = 1;
            return b;
        }
    }
    return NULL;
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
        const struct builtin *known = NULL;

        if (!c->chid || c->value_str)
            continue;
        for (size_t i = 0; c->imported && c->name && i < sizeof(builtin_channels) / sizeof(builtin_channels[0]); i++)
            if (strcmp(builtin_channels[i].name, c->name) == 0)
                known = &builtin_channels[i];
        if (known) {
            c->value = known->value;
        } else {
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
        map->ident = pg_printf("map_%s", make_ident(map->name));
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
        f->ident = make_ident(f->name);
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
        t->ident = make_ident(t->tid);
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

static pg_named *resolve(const pg_vec *defined, const struct builtin *table, size_t n,
                         const char *name, pg_loc loc, const char *what)
{
    pg_named *found;

    if (!name)
        return NULL;
    found = find_named(defined, name);
    if (!found)
        found = find_builtin(table, n, name, loc);
    if (!found)
        pg_error(loc, "%s \"%s\" is not defined", what, name);
    return found;
}

#define RESOLVE(defined, table, name, loc, what) \
    resolve(defined, table, sizeof(table) / sizeof(table[0]), name, loc, what)

static void resolve_opcode(pg_provider *p, pg_event *e)
{
    if (!e->opcode_name)
        return;
    if (e->task && !e->task->builtin)
        e->opcode = find_named(&e->task->opcodes, e->opcode_name);
    if (!e->opcode)
        e->opcode = RESOLVE(&p->opcodes, builtin_opcodes, e->opcode_name, e->opcode_loc, "opcode");
}

static void resolve_keywords(pg_provider *p, pg_event *e)
{
    char *list, *save = NULL;

    if (!e->keywords_attr)
        return;
    list = pg_strdup(e->keywords_attr);
    for (char *k = strtok_r(list, " \t\r\n", &save); k; k = strtok_r(NULL, " \t\r\n", &save)) {
        pg_named *kw = RESOLVE(&p->keywords, builtin_keywords, k, e->keywords_loc, "keyword");

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
    e->level = RESOLVE(&p->levels, builtin_levels, e->level_name, e->level_loc, "level");
    e->task = RESOLVE(&p->tasks, builtin_tasks, e->task_name, e->task_loc, "task");
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
        pg_buf_puts(&b, make_ident(e->task->name));
    if (b.len && e->opcode && e->opcode->value)
        pg_buf_puts(&b, make_ident(e->opcode->name));
    if (!b.len)
        pg_buf_printf(&b, "Event%llu", (unsigned long long)e->value);
    if (e->version || by_id == 2)
        pg_buf_printf(&b, "_V%llu", (unsigned long long)e->version);
    name = pg_strdup(b.data);
    pg_buf_free(&b);
    return name;
}

static pg_loc name_loc(const pg_event *e)
{
    return e->symbol ? e->symbol_loc : e->loc;
}

/* Explicit symbols are named first: a derived name yields to them, then to earlier events. */
static void name_events(pg_provider *p)
{
    pg_index names = { 0 };
    pg_event *o;

    PG_VEC_EACH(pg_event, e, p->events) {
        if (!e->symbol)
            continue;
        e->lttng_name = make_ident(e->symbol);
        if ((o = pg_index_put(&names, e->lttng_name, e)))
            pg_error(name_loc(e), "event name \"%s\" is used twice (first at %s:%u)",
                     e->lttng_name, name_loc(o).file, name_loc(o).line);
    }
    PG_VEC_EACH(pg_event, e, p->events) {
        if (e->symbol)
            continue;
        e->derived_name = 1;
        for (int by_id = 0; by_id <= 2; by_id++)
            if (!pg_index_get(&names, e->lttng_name = derive_name(e, by_id)))
                break;
        if ((o = pg_index_put(&names, e->lttng_name, e)))
            pg_error(name_loc(e), "event name \"%s\" is used twice (first at %s:%u)",
                     e->lttng_name, name_loc(o).file, name_loc(o).line);
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
    return make_ident(*n ? n : p->name);
}

int pg_is_identifier(const char *s)
{
    if (!*s || isdigit((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
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

/* FireEvent<name> must be unique in the manifest: a host may include every provider's header in
 * one translation unit. Explicit symbols go first; a derived name that collides takes its
 * provider's name as a prefix. The same name twice in one provider was reported already.
 * --symbol-prefix then goes in front of every name, for hosts that include two manifests. */
static void check_cnames(pg_manifest *m, const char *prefix)
{
    pg_index cnames = { 0 };
    pg_event *o;

    for (int derived = 0; derived <= 1; derived++) {
        PG_VEC_EACH(pg_provider, p, m->providers) {
            PG_VEC_EACH(pg_event, e, p->events) {
                if (e->derived_name != derived)
                    continue;
                if (derived && pg_index_get(&cnames, e->cname))
                    e->cname = pg_printf("%s_%s", p->lttng_name, e->lttng_name);
                o = pg_index_put(&cnames, e->cname, e);
                if (o && (o->provider != e->provider || strcmp(o->lttng_name, e->lttng_name)))
                    pg_error(name_loc(e), "FireEvent%s would be defined twice (also for the event at %s:%u)",
                             e->cname, o->loc.file, o->loc.line);
            }
        }
    }
    PG_VEC_EACH(pg_provider, p, m->providers)
        PG_VEC_EACH(pg_event, e, p->events)
            if (prefix && e->cname)
                e->cname = pg_printf("%s%s", prefix, e->cname);
}

/* Other names generated at file scope for the host (emit functions, struct element types) join
 * provider, event, template and struct names with '_': different names can meet ("A" + "B_C",
 * "A_B" + "C"). Hosts include every header of a manifest together and link every events unit:
 * such a collision is an error naming both places. */
static void check_c_names(pg_manifest *m)
{
    pg_index names = { 0 };
    const pg_loc *o;

    PG_VEC_EACH(pg_provider, p, m->providers) {
        PG_VEC_EACH(pg_event, e, p->events) {
            const char *fn;

            if (!e->lttng_name)
                continue;
            fn = pg_emit_fn_name(p, e);
            if ((o = pg_index_put(&names, fn, &e->loc)))
                pg_error(name_loc(e), "event \"%s\" of provider \"%s\" would get the C function "
                         "name %s of the event at %s:%u", e->lttng_name, p->lttng_name, fn,
                         o->file, o->line);
        }
        PG_VEC_EACH(pg_template, t, p->templates) {
            if (!t->ident)
                continue;
            PG_VEC_EACH(pg_field, f, t->fields) {
                const char *type;

                if (!f->is_struct || !f->tname)
                    continue;
                type = pg_struct_typename(p, t, f);
                if ((o = pg_index_put(&names, type, &f->loc)))
                    pg_error(f->loc, "struct \"%s\" would get the C type name %s of the struct at "
                             "%s:%u", f->name, type, o->file, o->line);
            }
        }
    }
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
    check_cnames(m, opt ? opt->symbol_prefix : NULL);
    if (!pg_error_count())
        check_c_names(m);
    return pg_error_count();
}
