/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the environment parsers of libpaleventing (pal/env.c) through
 * palev__config_parse() with a fuzzer-made environment. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input is the values of the variables, separated by '\n': the k-th distinct name asked for
 * gets the k-th value, so variables added to env.c's table are fuzzed without touching this file.
 * A value "\x01" stands for an unset variable. */
#define MAX_VARS 32

static struct {
    char *values[MAX_VARS];
    size_t nvalues;
    const char *names[MAX_VARS];
    size_t nnames;
} env;

static const char *fuzz_getenv(const char *name)
{
    size_t k;

    for (k = 0; k < env.nnames && strcmp(env.names[k], name) != 0; k++)
        ;
    if (k == env.nnames) {
        if (k == MAX_VARS)
            return NULL;
        env.names[env.nnames++] = name;
    }
    if (k >= env.nvalues || strcmp(env.values[k], "\x01") == 0)
        return NULL;
    return env.values[k];
}

static void split(const uint8_t *data, size_t size)
{
    size_t start = 0;

    env.nvalues = env.nnames = 0;
    for (size_t i = 0; i <= size && env.nvalues < MAX_VARS; i++) {
        if (i < size && data[i] != '\n')
            continue;
        env.values[env.nvalues] = malloc(i - start + 1);
        memcpy(env.values[env.nvalues], data + start, i - start);
        env.values[env.nvalues][i - start] = '\0';
        env.nvalues++;
        start = i + 1;
    }
}

/* PALEV_PROVIDER_PATH: the directories are the non-empty ':'-separated pieces, in order. */
static void check_path(const struct palev__config *cfg, const char *value)
{
    size_t n = 0;
    const char *p = value ? value : "";

    while (*p) {
        size_t len = strcspn(p, ":");

        if (len) {
            if (n >= cfg->path_count || strlen(cfg->path[n]) != len ||
                memcmp(cfg->path[n], p, len) != 0)
                __builtin_trap();
            n++;
        }
        p += len + (p[len] == ':');
    }
    if (n != cfg->path_count)
        __builtin_trap();
}

/* An EventSource filter: the non-blank ','-separated entries, blanks around them dropped,
 * lowercased (ASCII). */
static size_t ref_entries(const char *value, char ***out)
{
    char *copy = strdup(value ? value : ""), *p = copy;
    char **e = malloc((strlen(p) + 1) * sizeof(*e));
    size_t n = 0;

    for (;;) {
        size_t len = strcspn(p, ",");
        char *a = p, *z = p + len, last = *z;

        while (a < z && (*a == ' ' || *a == '\t'))
            a++;
        while (z > a && (z[-1] == ' ' || z[-1] == '\t'))
            z--;
        if (z > a) {
            e[n] = strndup(a, (size_t)(z - a));
            for (char *c = e[n]; *c; c++)
                *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
            n++;
        }
        if (!last)
            break;
        p += len + 1;
    }
    free(copy);
    *out = e;
    return n;
}

static int ref_match(char **e, size_t n, const char *s)
{
    char *low = strdup(s);
    int hit = n == 0;

    for (char *c = low; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    for (size_t i = 0; i < n && !hit; i++)
        hit = strstr(low, e[i]) != NULL;
    free(low);
    return hit;
}

static void check_filter(const struct palev__filter *f, const char *value)
{
    char **e;
    size_t n = ref_entries(value, &e);

    if (f->count != n)
        __builtin_trap();
    for (size_t i = 0; i < n; i++)
        if (strcmp(f->needle[i], e[i]) != 0)
            __builtin_trap();
    /* every value of the input as a subject, and the empty string */
    for (size_t k = 0; k <= env.nvalues; k++) {
        const char *s = k < env.nvalues ? env.values[k] : "";

        if (palev__filter_match(f, s) != ref_match(e, n, s))
            __builtin_trap();
    }
    for (size_t i = 0; i < n; i++)
        free(e[i]);
    free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct palev__config cfg;
    const char *path;

    split(data, size);
    if (palev__config_parse(&cfg, fuzz_getenv) == 0) {
        path = fuzz_getenv("PALEV_PROVIDER_PATH");
        check_path(&cfg, path);
        if (cfg.lttng != !(fuzz_getenv("PALEV_LTTNG") && !strcmp(fuzz_getenv("PALEV_LTTNG"), "0")))
            __builtin_trap();
        check_filter(&cfg.source_filter, fuzz_getenv("PALEV_EVENTSOURCE_FILTER"));
        check_filter(&cfg.name_filter, fuzz_getenv("PALEV_EVENTNAME_FILTER"));
        if (cfg.stack_depth < 1 || cfg.stack_depth > PALEV__STACK_DEPTH_MAX ||
            (cfg.stack != PALEV__STACK_FP && cfg.stack != PALEV__STACK_UNWIND))
            __builtin_trap();
    }
    palev__config_free(&cfg);
    for (size_t i = 0; i < env.nvalues; i++)
        free(env.values[i]);
    return 0;
}
