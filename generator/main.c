/* SPDX-License-Identifier: MIT */
/* palev-gen command line: arguments and files only; the work is in the library around model.h. */
#include "cli.h"
#include "model.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define EXIT_MANIFEST 1
#define EXIT_USAGE 2

static const char usage[] =
    "usage: palev-gen generate [--usdt] [--provider-name ETWNAME=LTTNGNAME]... [--symbol-prefix P] -o OUTDIR MANIFEST\n"
    "       palev-gen check [--provider-name ETWNAME=LTTNGNAME]... [--symbol-prefix P] MANIFEST\n"
    "       palev-gen selftest [--provider-name ETWNAME=LTTNGNAME]... [--symbol-prefix P] -o OUTDIR MANIFEST\n"
    "       palev-gen enable-list [--keywords HEXMASK|NAME,...] [--level N] [--provider NAME] MANIFEST\n"
    "       palev-gen providers [--provider-name ETWNAME=LTTNGNAME]... MANIFEST\n"
    "       palev-gen usdt-args [--provider-name ETWNAME=LTTNGNAME]... MANIFEST\n"
    "Exit status: 0 success, 1 manifest errors, 2 usage errors.\n";

struct args {
    const char *command;
    const char *outdir;
    const char *manifest;
    const char *keywords;
    const char *level;
    const char *provider;
    pg_options opt;
};

/* "palev-gen: message", the usage, and EXIT_USAGE (common/cli.c). */
#define usage_error(...) pcm_usage_error("palev-gen", usage, EXIT_USAGE, __VA_ARGS__)

static int add_rename(pg_ctx *cx, struct args *a, const char *spec)
{
    pg_buf why = { 0 };

    if (pg_options_rename(cx, &a->opt, spec, &why))
        return usage_error("--provider-name %s", why.data);
    return 0;
}

/* Options that take a value, each stored into one field of struct args. */
static const char **option_slot(struct args *a, const char *name)
{
    static const struct {
        const char *name;
        size_t offset;
    } table[] = {
        { "-o", offsetof(struct args, outdir) },
        { "--keywords", offsetof(struct args, keywords) },
        { "--level", offsetof(struct args, level) },
        { "--provider", offsetof(struct args, provider) },
        { "--symbol-prefix", offsetof(struct args, opt.symbol_prefix) },
    };

    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strcmp(table[i].name, name) == 0)
            return (const char **)((char *)a + table[i].offset);
    return NULL;
}

static int parse_args(pg_ctx *cx, struct args *a, int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "no command given");
    a->command = argv[1];
    for (int i = 2; i < argc; i++) {
        const char **slot = option_slot(a, argv[i]);

        if (strcmp(argv[i], "--usdt") == 0) {
            a->opt.usdt = 1;
        } else if (strcmp(argv[i], "--provider-name") == 0 && i + 1 < argc) {
            if (add_rename(cx, a, argv[++i]))
                return EXIT_USAGE;
        } else if (slot && i + 1 < argc) {
            *slot = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("unknown or incomplete option \"%s\"", argv[i]);
        } else if (a->manifest) {
            return usage_error("more than one manifest given (\"%s\")", argv[i]);
        } else {
            a->manifest = argv[i];
        }
    }
    if (!a->manifest)
        return usage_error("%s", "no manifest given");
    if (a->opt.symbol_prefix && !pg_is_identifier(a->opt.symbol_prefix))
        return usage_error("--symbol-prefix wants a C identifier, not \"%s\"", a->opt.symbol_prefix);
    return 0;
}

static int make_dirs(pg_ctx *cx, const char *dir)
{
    char *path = pg_strdup(cx, dir);

    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(path, 0777) && errno != EEXIST ? -1 : 0;
}

static int write_output(pg_ctx *cx, const char *dir, pg_vec *files)
{
    if (make_dirs(cx, dir)) {
        pg_error(cx, (pg_loc){ dir, 0 }, "cannot create directory: %s", strerror(errno));
        return EXIT_MANIFEST;
    }
    return pg_write_files(cx, dir, files) ? EXIT_MANIFEST : 0;
}

static int write_providers(pg_ctx *cx, const struct args *a, const pg_manifest *m, int selftest)
{
    pg_vec files = { 0 };

    if (!a->outdir)
        return usage_error("%s needs -o OUTDIR", a->command);
    PG_VEC_EACH(const pg_provider, p, m->providers) {
        if (!p->events.len) {
            pg_warning(cx, p->loc, "provider \"%s\" has no events: nothing generated", p->name);
            continue;
        }
        if (selftest)
            pg_emit_selftest(cx, m, p, &files);
        else
            pg_emit_provider(cx, m, p, &files);
    }
    return write_output(cx, a->outdir, &files);
}

static int run_generate(pg_ctx *cx, const struct args *a, const pg_manifest *m)
{
    return write_providers(cx, a, m, 0);
}

static int run_selftest(pg_ctx *cx, const struct args *a, const pg_manifest *m)
{
    return write_providers(cx, a, m, 1);
}

/* Checking is what every command does first. */
static int run_check(pg_ctx *cx, const struct args *a, const pg_manifest *m)
{
    (void)cx, (void)a, (void)m;
    return 0;
}

/* The comma-separated P:Event list, for lttng enable-event. */
static int run_enable_list(pg_ctx *cx, const struct args *a, const pg_manifest *m)
{
    pg_enable_query q = { a->keywords, a->level, a->provider };
    pg_vec events = { 0 };
    pg_buf err = { 0 };

    if (pg_enable_list(cx, m, &q, &events, &err)) {
        fprintf(stderr, "palev-gen: %s\n", err.data);
        return EXIT_USAGE;
    }
    PG_VEC_EACH(const pg_event, e, events)
        printf("%s%s:%s", e_i ? "," : "", e->provider->lttng_name, e->lttng_name);
    printf("\n");
    return 0;
}

/* The LTTng names generate would use, one per line (for build systems). */
static int run_providers(pg_ctx *cx, const struct args *a, const pg_manifest *m)
{
    (void)cx, (void)a;
    PG_VEC_EACH(const pg_provider, p, m->providers)
        if (p->events.len)
            printf("%s\n", p->lttng_name);
    return 0;
}

static int run_usdt_args(pg_ctx *cx, const struct args *a, const pg_manifest *m)
{
    pg_buf out = { 0 };

    (void)a;
    pg_usdt_list(cx, m, &out);
    fputs(out.data ? out.data : "", stdout);
    return 0;
}

static const struct command {
    const char *name;
    int (*run)(pg_ctx *cx, const struct args *a, const pg_manifest *m);
} commands[] = {
    { "generate", run_generate },
    { "check", run_check },
    { "selftest", run_selftest },
    { "enable-list", run_enable_list },
    { "providers", run_providers },
    { "usdt-args", run_usdt_args },
};

/* Every command parses, checks and lowers the manifest, then does its own part. */
static int run(pg_ctx *cx, const struct args *a)
{
    const struct command *cmd = NULL;
    pg_manifest *m;

    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, a->command) == 0)
            cmd = &commands[i];
    if (!cmd)
        return usage_error("unknown command \"%s\"", a->command);
    m = pg_parse_file(cx, a->manifest);
    /* Checking a document that did not parse would only add noise to the real error. */
    if (pg_error_count(cx) || pg_check(cx, m, &a->opt))
        return EXIT_MANIFEST;
    if (pg_lower(cx, m, &a->opt))
        return EXIT_MANIFEST;
    return cmd->run(cx, a, m);
}

int main(int argc, char **argv)
{
    struct args a = { 0 };
    pg_ctx cx;
    int rc;

    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    pg_ctx_init(&cx);
    rc = parse_args(&cx, &a, argc, argv);
    if (!rc)
        rc = run(&cx, &a);
    pg_ctx_fini(&cx);
    return rc;
}
