/* SPDX-License-Identifier: MIT */
/* Every environment variable libpaleventing reads, in one table, read once per process. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int parse_lttng(struct palev__config *cfg, const char *value);
static int parse_debug(struct palev__config *cfg, const char *value);
static int parse_provider_path(struct palev__config *cfg, const char *value);
static int parse_source_filter(struct palev__config *cfg, const char *value);
static int parse_name_filter(struct palev__config *cfg, const char *value);
static int parse_perfmap(struct palev__config *cfg, const char *value);
static int parse_perfmap_dir(struct palev__config *cfg, const char *value);
static int parse_fork_hooks(struct palev__config *cfg, const char *value);
static int parse_load(struct palev__config *cfg, const char *value);
static int parse_stack(struct palev__config *cfg, const char *value);
static int parse_stack_depth(struct palev__config *cfg, const char *value);

/* Each parser gets NULL when its variable is unset and must then leave the default alone. */
static const struct env_var {
    const char *name;
    int (*parse)(struct palev__config *cfg, const char *value);
} env_vars[] = {
    { "PALEV_LTTNG", parse_lttng },
    { "PALEV_DEBUG", parse_debug },
    { "PALEV_PROVIDER_PATH", parse_provider_path },
    { "PALEV_EVENTSOURCE_FILTER", parse_source_filter },
    { "PALEV_EVENTNAME_FILTER", parse_name_filter },
    { "PALEV_PERFMAP", parse_perfmap },
    { "PALEV_PERFMAP_DIR", parse_perfmap_dir },
    { "PALEV_FORK_HOOKS", parse_fork_hooks },
    { "PALEV_LOAD", parse_load },
    { "PALEV_STACK", parse_stack },
    { "PALEV_STACK_DEPTH", parse_stack_depth },
};

static int parse_lttng(struct palev__config *cfg, const char *value)
{
    if (value && strcmp(value, "0") == 0)
        cfg->lttng = 0;
    return 0;
}

/* "0": the host calls liblttng-ust's fork hooks itself (calling them twice would deadlock). */
static int parse_fork_hooks(struct palev__config *cfg, const char *value)
{
    if (value && strcmp(value, "0") == 0)
        cfg->fork_hooks = 0;
    return 0;
}

/* "background": probe providers (and liblttng-ust with them) loaded on a thread of the library,
 * off the host's start-up; anything else loads them at registration. */
static int parse_load(struct palev__config *cfg, const char *value)
{
    if (value && strcmp(value, "background") == 0)
        cfg->load_background = 1;
    return 0;
}

static int parse_debug(struct palev__config *cfg, const char *value)
{
    cfg->debug = value && strcmp(value, "0") != 0;
    return 0;
}

static int parse_provider_path(struct palev__config *cfg, const char *value)
{
    return palev__split(value, ':', &cfg->path, &cfg->path_count);
}

/* Parsed here, once, so that the EventSource fast path only compares. */
static int parse_source_filter(struct palev__config *cfg, const char *value)
{
    return palev__filter_parse(&cfg->source_filter, value);
}

static int parse_name_filter(struct palev__config *cfg, const char *value)
{
    return palev__filter_parse(&cfg->name_filter, value);
}

/* "1" perf map, "2" jitdump, "3" both; anything else leaves them off: a typo touches no file. */
static int parse_perfmap(struct palev__config *cfg, const char *value)
{
    if (value && value[0] >= '0' && value[0] <= '3' && value[1] == '\0')
        cfg->perfmap = value[0] - '0';
    return 0;
}

static int parse_perfmap_dir(struct palev__config *cfg, const char *value)
{
    size_t len;

    if (!value || !*value)
        return 0;
    len = strlen(value);
    cfg->perfmap_dir = palev__malloc(len + 1);
    if (!cfg->perfmap_dir)
        return -ENOMEM;
    memcpy(cfg->perfmap_dir, value, len + 1);
    return 0;
}

/* "fp" (the default) or "unwind"; anything else keeps frame pointers. */
static int parse_stack(struct palev__config *cfg, const char *value)
{
    if (value && strcmp(value, "unwind") == 0)
        cfg->stack = PALEV__STACK_UNWIND;
    return 0;
}

/* 1 to PALEV__STACK_DEPTH_MAX frames; anything else keeps the default. */
static int parse_stack_depth(struct palev__config *cfg, const char *value)
{
    char *end;
    unsigned long n;

    if (!value || !*value)
        return 0;
    errno = 0;
    n = strtoul(value, &end, 10);
    if (errno == 0 && *end == '\0' && value[0] != '-' && n >= 1 && n <= PALEV__STACK_DEPTH_MAX)
        cfg->stack_depth = n;
    return 0;
}

int palev__config_parse(struct palev__config *cfg, palev__getenv_fn *getenv_fn)
{
    int ret = 0;

    *cfg = (struct palev__config){ .lttng = 1, .fork_hooks = 1,
                                   .stack_depth = PALEV__STACK_DEPTH_DEFAULT };
    for (size_t i = 0; i < sizeof(env_vars) / sizeof(env_vars[0]); i++) {
        int err = env_vars[i].parse(cfg, getenv_fn(env_vars[i].name));

        if (err && !ret)
            ret = err;
    }
    return ret;
}

void palev__config_free(struct palev__config *cfg)
{
    free(cfg->path);
    cfg->path = NULL;
    cfg->path_count = 0;
    palev__filter_free(&cfg->source_filter);
    palev__filter_free(&cfg->name_filter);
    free(cfg->perfmap_dir);
    cfg->perfmap_dir = NULL;
}

/* secure_getenv: in a setuid program PALEV_PROVIDER_PATH must not choose the code we dlopen. */
static const char *process_getenv(const char *name)
{
    return secure_getenv(name);
}

static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static struct palev__config config;
static int config_status;

static void config_read(void)
{
    config_status = palev__config_parse(&config, process_getenv);
}

const struct palev__config *palev__config(void)
{
    pthread_once(&config_once, config_read);
    return &config;
}

int palev__config_status(void)
{
    pthread_once(&config_once, config_read);
    return config_status;
}
