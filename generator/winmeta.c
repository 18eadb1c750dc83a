/* SPDX-License-Identifier: MIT */
/* The winmeta tables: inTypes and outTypes (how each ETW type is passed and recorded), and the
 * built-in levels, opcodes, tasks, keywords and channels a manifest may name without defining. */
#include "model.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* TDH_INTYPE numbers are those of winmeta.xml / tdh.h; a manifest may name a type by them too. */
static const pg_intype intypes[] = {
    /* name                 tdh kind            ctype        size sgn hex cnt bool ptr */
    { "UnicodeString",        1, PG_K_UTF16,      NULL,        0,  0,  0,  0,  0,  0 },
    { "AnsiString",           2, PG_K_ANSI,       NULL,        0,  0,  0,  0,  0,  0 },
    { "Int8",                 3, PG_K_INT,        "int8_t",    1,  1,  0,  0,  0,  0 },
    { "UInt8",                4, PG_K_INT,        "uint8_t",   1,  0,  0,  0,  0,  0 },
    { "Int16",                5, PG_K_INT,        "int16_t",   2,  1,  0,  0,  0,  0 },
    { "UInt16",               6, PG_K_INT,        "uint16_t",  2,  0,  0,  0,  0,  0 },
    { "Int32",                7, PG_K_INT,        "int32_t",   4,  1,  0,  0,  0,  0 },
    { "UInt32",               8, PG_K_INT,        "uint32_t",  4,  0,  0,  0,  0,  0 },
    { "Int64",                9, PG_K_INT,        "int64_t",   8,  1,  0,  0,  0,  0 },
    { "UInt64",              10, PG_K_INT,        "uint64_t",  8,  0,  0,  0,  0,  0 },
    { "Float",               11, PG_K_FLOAT,      "float",     4,  1,  0,  0,  0,  0 },
    { "Double",              12, PG_K_FLOAT,      "double",    8,  1,  0,  0,  0,  0 },
    { "Boolean",             13, PG_K_INT,        "int32_t",   4,  1,  0,  0,  1,  0 },
    { "Binary",              14, PG_K_BINARY,     NULL,        0,  0,  1,  0,  0,  0 },
    { "GUID",                15, PG_K_GUID,       NULL,       16,  0,  0,  0,  0,  0 },
    { "Pointer",             16, PG_K_INT,        "uintptr_t", 8,  0,  1,  0,  0,  1 },
    { "FILETIME",            17, PG_K_INT,        "uint64_t",  8,  0,  0,  0,  0,  0 },
    { "SYSTEMTIME",          18, PG_K_SYSTEMTIME, NULL,       16,  0,  0,  0,  0,  0 },
    { "SID",                 19, PG_K_SID,        NULL,        0,  0,  0,  0,  0,  0 },
    { "HexInt32",            20, PG_K_INT,        "uint32_t",  4,  0,  1,  0,  0,  0 },
    { "HexInt64",            21, PG_K_INT,        "uint64_t",  8,  0,  1,  0,  0,  0 },
    { "CountedUnicodeString",22, PG_K_UTF16,      NULL,        0,  0,  0,  1,  0,  0 },
    { "CountedAnsiString",   23, PG_K_ANSI,       NULL,        0,  0,  0,  1,  0,  0 },
    { "CountedBinary",       25, PG_K_BINARY,     NULL,        0,  0,  1,  1,  0,  0 },
    /* Aliases and TDH-only names seen in hand-written manifests. */
    { "CountedString",       22, PG_K_UTF16,      NULL,        0,  0,  0,  1,  0,  0 },
    { "SizeT",               -1, PG_K_INT,        "size_t",    8,  0,  0,  0,  0,  0 },
    { "HexInt8",             -1, PG_K_INT,        "uint8_t",   1,  0,  1,  0,  0,  0 },
    { "HexInt16",            -1, PG_K_INT,        "uint16_t",  2,  0,  1,  0,  0,  0 },
    /* XML Schema names some manifests use as inTypes where they are unambiguous. */
    { "byte",                -1, PG_K_INT,        "int8_t",    1,  1,  0,  0,  0,  0 },
    { "unsignedByte",        -1, PG_K_INT,        "uint8_t",   1,  0,  0,  0,  0,  0 },
    { "short",               -1, PG_K_INT,        "int16_t",   2,  1,  0,  0,  0,  0 },
    { "unsignedShort",       -1, PG_K_INT,        "uint16_t",  2,  0,  0,  0,  0,  0 },
    { "int",                 -1, PG_K_INT,        "int32_t",   4,  1,  0,  0,  0,  0 },
    { "unsignedInt",         -1, PG_K_INT,        "uint32_t",  4,  0,  0,  0,  0,  0 },
    { "long",                -1, PG_K_INT,        "int64_t",   8,  1,  0,  0,  0,  0 },
    { "unsignedLong",        -1, PG_K_INT,        "uint64_t",  8,  0,  0,  0,  0,  0 },
};

static const char *local_name(const char *qname)
{
    const char *colon = strrchr(qname, ':');

    return colon ? colon + 1 : qname;
}

/* A numeric form ("win:8") names a TDH number; only the numbers above mean something. */
static const pg_intype *lookup_number(const char *s)
{
    char *end;
    long n;

    if (*s < '0' || *s > '9')
        return NULL;
    n = strtol(s, &end, 10);
    if (*end)
        return NULL;
    for (size_t i = 0; i < sizeof(intypes) / sizeof(intypes[0]); i++)
        if (intypes[i].tdh == n)
            return &intypes[i];
    return NULL;
}

const pg_intype *pg_intype_lookup(const char *qname)
{
    const char *name = local_name(qname);

    /* The namespace prefix is not checked: manifests bind win: and xs: to varying prefixes. */
    for (size_t i = 0; i < sizeof(intypes) / sizeof(intypes[0]); i++)
        if (strcasecmp(intypes[i].name, name) == 0)
            return &intypes[i];
    return lookup_number(name);
}

/* The table's spelling of a type named with other letter cases ("Uint32" -> "UInt32"), or NULL
 * when it is spelled so already, named by number or unknown. */
const char *pg_intype_spelling(const char *qname)
{
    const pg_intype *t = pg_intype_lookup(qname);
    const char *name = local_name(qname);

    return t && t->tdh != atoi(name) && strcmp(t->name, name) != 0 ? t->name : NULL;
}

/* outTypes only change how a value is displayed; the hex ones become LTTng hex integers. */
static const struct {
    const char *name;
    int hex;
} outtypes[] = {
    { "HexInt8", 1 }, { "HexInt16", 1 }, { "HexInt32", 1 }, { "HexInt64", 1 },
    { "ErrorCode", 1 }, { "Win32Error", 1 }, { "NTSTATUS", 1 }, { "HResult", 1 },
    { "CodePointer", 1 }, { "hexBinary", 1 },
    { "string", 0 }, { "datetime", 0 }, { "byte", 0 }, { "unsignedByte", 0 }, { "short", 0 },
    { "unsignedShort", 0 }, { "int", 0 }, { "unsignedInt", 0 }, { "long", 0 },
    { "unsignedLong", 0 }, { "float", 0 }, { "double", 0 }, { "boolean", 0 }, { "GUID", 0 },
    { "PID", 0 }, { "TID", 0 }, { "Port", 0 }, { "IPv4", 0 }, { "IPv6", 0 },
    { "SocketAddress", 0 }, { "CIMDateTime", 0 }, { "ETWTIME", 0 }, { "Xml", 0 },
    { "DateTimeCultureInsensitive", 0 }, { "Json", 0 }, { "Utf8", 0 }, { "Pkcs7WithTypeInfo", 0 },
    { "DateTime", 0 }, { "SizeT", 0 }, { "NOPRINT", 0 }, { "Pointer", 1 },
};

int pg_outtype_hex(const char *qname)
{
    const char *name = local_name(qname);

    for (size_t i = 0; i < sizeof(outtypes) / sizeof(outtypes[0]); i++)
        if (strcasecmp(outtypes[i].name, name) == 0)
            return outtypes[i].hex;
    return -1;
}

/* ETW level -> LTTng log level, monotonic so that --loglevel=L keeps what an ETW session at the
 * matching level keeps. Levels above Verbose (custom ones) share DEBUG with Verbose. */
static const struct {
    int lttng;
    const char *name;   /* LTTNG_UST_TRACEPOINT_LOGLEVEL_<name> */
} loglevels[] = {
    { 0, "EMERG" }, { 2, "CRIT" }, { 3, "ERR" }, { 4, "WARNING" }, { 6, "INFO" }, { 14, "DEBUG" },
};
#define N_LOGLEVELS (sizeof(loglevels) / sizeof(loglevels[0]))

int pg_lttng_loglevel(uint64_t etw_level)
{
    return loglevels[etw_level < N_LOGLEVELS ? etw_level : N_LOGLEVELS - 1].lttng;
}

const char *pg_loglevel_name(int lttng_level)
{
    for (size_t i = 0; i < N_LOGLEVELS; i++)
        if (loglevels[i].lttng == lttng_level)
            return loglevels[i].name;
    return "DEBUG";
}

/* ---- built-in (winmeta) levels, tasks, opcodes, keywords, channels ------------------------- */

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

static pg_named *find_builtin(pg_ctx *cx, const struct builtin *table, size_t n, const char *name,
                              pg_loc loc)
{
    for (size_t i = 0; i < n; i++) {
        if (builtin_match(table[i].name, name)) {
            pg_named *b = pg_zalloc(cx, sizeof(*b));

            b->loc = loc;
            b->name = pg_strdup(cx, strchr(table[i].name, ':') + 1);
            b->value = table[i].value;
            b->builtin = 1;
            return b;
        }
    }
    return NULL;
}

#define N(table) (sizeof(table) / sizeof(table[0]))

pg_named *pg_builtin_find(pg_ctx *cx, enum pg_builtin_kind kind, const char *name, pg_loc loc)
{
    static const struct {
        const struct builtin *table;
        size_t n;
    } tables[] = {
        [PG_BUILTIN_LEVEL] = { builtin_levels, N(builtin_levels) },
        [PG_BUILTIN_TASK] = { builtin_tasks, N(builtin_tasks) },
        [PG_BUILTIN_OPCODE] = { builtin_opcodes, N(builtin_opcodes) },
        [PG_BUILTIN_KEYWORD] = { builtin_keywords, N(builtin_keywords) },
    };

    return find_builtin(cx, tables[kind].table, tables[kind].n, name, loc);
}

int pg_builtin_channel(const char *name, uint64_t *value)
{
    for (size_t i = 0; i < N(builtin_channels); i++)
        if (strcmp(builtin_channels[i].name, name) == 0) {
            *value = builtin_channels[i].value;
            return 1;
        }
    return 0;
}
