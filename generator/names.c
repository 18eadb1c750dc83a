/* SPDX-License-Identifier: MIT */
/* Names and identifiers: manifest names made C identifiers, and the generated C names checked unique. */
#include "model.h"

#include <ctype.h>
#include <string.h>

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

/* A manifest name in identifier characters: runs of other characters become one '_'; a leading
 * digit gets a '_' in front; nothing at all is "_". */
static char *ident_chars(pg_ctx *cx, const char *s)
{
    pg_buf b = { 0 };
    int gap = 0;

    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || *p == '_') {
            if (gap && b.len)
                pg_buf_putn(cx, &b, "_", 1);
            if (!b.len && isdigit(*p))
                pg_buf_putn(cx, &b, "_", 1);
            pg_buf_putn(cx, &b, (const char *)p, 1);
            gap = 0;
        } else {
            gap = 1;
        }
    }
    if (!b.len)
        pg_buf_puts(cx, &b, "_");
    return b.data;
}

/* The name in identifier characters; a keyword, libc macro, type or name of the implementation's
 * (__x, _X) gets a '_' after; a name starting with "palev_" (the prefix of generated locals) gets
 * a '_' in front. Stable: depends on s alone. */
char *pg_make_ident(pg_ctx *cx, const char *s)
{
    const char *b = ident_chars(cx, s);

    return pg_printf(cx, "%s%s%s", has_prefix(b, "palev_") ? "_" : "", b, is_reserved(b) ? "_" : "");
}

/* A host's macros and typedefs are spelled like its own words (LuaJIT's typedef TraceNo, a macro
 * Exit): a parameter named like a field would shadow the typedef (-Wshadow) or be replaced by the
 * macro. The parameters of the generated functions take the field's identifier with '_' after,
 * which no keyword, libc macro or host convention spells, and IDE hints still show the field's
 * name. Parameters do not meet one another where identifiers do not (the check names those), and
 * never meet generated locals ("palev_" names get '_' in front). */
char *pg_make_param(pg_ctx *cx, const char *s)
{
    const char *b = ident_chars(cx, s);

    return pg_printf(cx, "%s%s_", has_prefix(b, "palev_") ? "_" : "", b);
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

pg_loc pg_event_name_loc(const pg_event *e)
{
    return e->symbol ? e->symbol_loc : e->loc;
}

/* FireEvent<name> must be unique in the manifest: a host may include every provider's header in
 * one translation unit. Explicit symbols go first; a derived name that collides takes its
 * provider's name as a prefix. The same name twice in one provider was reported already.
 * --symbol-prefix then goes in front of every name, for hosts that include two manifests. */
void pg_assign_cnames(pg_ctx *cx, pg_manifest *m, const char *prefix)
{
    pg_index cnames = { 0 };
    pg_event *o;

    for (int derived = 0; derived <= 1; derived++) {
        PG_VEC_EACH(pg_provider, p, m->providers) {
            PG_VEC_EACH(pg_event, e, p->events) {
                if (e->derived_name != derived)
                    continue;
                if (derived && pg_index_get(&cnames, e->cname))
                    e->cname = pg_printf(cx, "%s_%s", p->lttng_name, e->lttng_name);
                o = pg_index_put(cx, &cnames, e->cname, e);
                if (o && (o->provider != e->provider || strcmp(o->lttng_name, e->lttng_name)))
                    pg_error(cx, pg_event_name_loc(e), "FireEvent%s would be defined twice (also for the event at %s:%u)",
                             e->cname, o->loc.file, o->loc.line);
            }
        }
    }
    PG_VEC_EACH(pg_provider, p, m->providers)
        PG_VEC_EACH(pg_event, e, p->events)
            if (prefix && e->cname)
                e->cname = pg_printf(cx, "%s%s", prefix, e->cname);
}

/* A name at file scope and what took it first. */
struct c_name {
    pg_loc loc;
    const char *owner;      /* "the event", "the struct", ... */
};

/* NULL when name is free (it is then taken), else what has it. */
static const struct c_name *claim(pg_ctx *cx, pg_index *names, const char *name, pg_loc loc,
                                  const char *owner)
{
    struct c_name *c = pg_zalloc(cx, sizeof(*c));

    c->loc = loc;
    c->owner = owner;
    return pg_index_put(cx, names, name, c);
}

static void claim_event(pg_ctx *cx, pg_index *names, const pg_event *e)
{
    const struct c_name *o;
    const char *P = e->provider->lttng_name;

    if ((o = claim(cx, names, e->emit_fn, e->loc, "the event")))
        pg_error(cx, pg_event_name_loc(e), "event \"%s\" of provider \"%s\" would get the C function "
                 "name %s of %s at %s:%u", e->lttng_name, P, e->emit_fn, o->owner, o->loc.file,
                 o->loc.line);
    if (e->semaphore && (o = claim(cx, names, e->semaphore, e->loc, "the USDT semaphore of the event")))
        pg_error(cx, pg_event_name_loc(e), "event \"%s\" of provider \"%s\" would get the USDT "
                 "semaphore name %s of %s at %s:%u", e->lttng_name, P, e->semaphore, o->owner,
                 o->loc.file, o->loc.line);
}

/* Other names generated at file scope for the host (emit functions, struct element types, USDT
 * semaphores) join provider, event, template and struct names with '_': different names can meet
 * ("A" + "B_C", "A_B" + "C"). Hosts include every header of a manifest together and link every
 * events unit: such a collision is an error naming both places. The names are those pg_lower gave. */
void pg_check_c_names(pg_ctx *cx, const pg_manifest *m)
{
    pg_index names = { 0 };
    const struct c_name *o;

    PG_VEC_EACH(const pg_provider, p, m->providers) {
        PG_VEC_EACH(const pg_event, e, p->events)
            claim_event(cx, &names, e);
        PG_VEC_EACH(const pg_template, t, p->templates)
            PG_VEC_EACH(const pg_field, f, t->fields)
                if (f->is_struct && (o = claim(cx, &names, f->struct_type, f->loc, "the struct")))
                    pg_error(cx, f->loc, "struct \"%s\" would get the C type name %s of %s at %s:%u",
                             f->name, f->struct_type, o->owner, o->loc.file, o->loc.line);
    }
}
