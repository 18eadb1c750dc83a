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

/* Each parser gets NULL when its variable is unset and must then leave the default alone. */
static const struct env_var {
    const char *name;
    int (*parse)(struct palev__config *cfg, const char *value);
} env_vars[] = {
    { "PALEV_LTTNG", parse_lttng },
    { "PALEV_DEBUG", parse_debug },
    { "PALEV_PROVIDER_PATH", parse_provider_path },
};

static int parse_lttng(struct palev__config *cfg, const char *value)
{
    if (value && strcmp(value, "0") == 0)
        cfg->lttng = 0;
    return 0;
}

static int parse_debug(struct palev__config *cfg, const char *value)
{
    cfg->debug = value && strcmp(value, "0") != 0;
    return 0;
}

/* One allocation holds the pointer array and a copy of the value, so one free() releases both. */
static int parse_provider_path(struct palev__config *cfg, const char *value)
{
    size_t len, slots = 1;
    char *copy, *dir, *save = NULL;

    if (!value)
        return 0;
    len = strlen(value);
    for (const char *c = value; *c; c++)
        slots += *c == ':';
    cfg->path = palev__malloc(slots * sizeof(char *) + len + 1);
    if (!cfg->path)
        return -ENOMEM;
    copy = memcpy((char *)(cfg->path + slots), value, len + 1);
    for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
        cfg->path[cfg->path_count++] = dir;
    return 0;
}

int palev__config_parse(struct palev__config *cfg, palev__getenv_fn *getenv_fn)
{
    int ret = 0;

    *cfg = (struct palev__config){ .lttng = 1 };
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
