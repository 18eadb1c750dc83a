/* SPDX-License-Identifier: MIT */
/* Life cycle, error strings, and loading each registered probe provider exactly once. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define PROVIDER_NAME_MAX 255
/* Status of a registry entry whose probe provider one thread is loading right now. */
#define LOADING 1

/* One per provider name ever registered: the outcome of its only load attempt. */
struct entry {
    struct entry *next;
    int status;             /* LOADING, 0 or a negative errno */
    pthread_t loader;       /* the thread loading it, while LOADING */
    char name[];
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t loaded;  /* broadcast when an entry leaves LOADING */
    struct entry *entries;
    int finished;
} registry = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0 };

static const struct {
    int err;
    const char *text;
} error_texts[] = {
    { 0, "success" },
    { -EINVAL, "invalid provider: NULL, too small struct_size, or a name that is not 1 to 255 "
               "characters of [A-Za-z0-9_]" },
    { -ENOENT, "probe provider could not be loaded; tracing of this provider is off" },
    { -ECANCELED, "loading probe providers is disabled (PALEV_LTTNG=0, or palev_fini() was "
                  "called)" },
    { -ENOMEM, "out of memory" },
    { -EDEADLK, "provider registered again by the thread loading it (from a constructor of its "
                "probe provider)" },
};

PALEV_API const char *palev_strerror(int err)
{
    for (size_t i = 0; i < sizeof(error_texts) / sizeof(error_texts[0]); i++)
        if (error_texts[i].err == err)
            return error_texts[i].text;
    return "unknown paleventing error";
}

/* Registration loads at once (initialising lazily, since generated constructors may run before
 * ours), so there is never a registered provider left to load here: init only reads the env. */
PALEV_API int palev_init(void)
{
    return palev__config_status();
}

PALEV_API void palev_fini(void)
{
    pthread_mutex_lock(&registry.lock);
    registry.finished = 1;
    pthread_mutex_unlock(&registry.lock);
}

__attribute__((constructor)) static void palev_constructor(void)
{
    (void)palev_init();
}

/* ---- validation ------------------------------------------------------------------------- */

static int valid_name(const char *name)
{
    size_t len;

    if (!name)
        return 0;
    len = strnlen(name, PROVIDER_NAME_MAX + 1);
    if (len == 0 || len > PROVIDER_NAME_MAX)
        return 0;
    return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

/* struct_size first: an older, smaller struct must not be read past its end. */
static int validate(const palev_provider *p)
{
    if (!p) {
        palev__debug("invalid provider: NULL");
        return -EINVAL;
    }
    if (p->struct_size < offsetof(palev_provider, event_states) + sizeof(p->event_states)) {
        palev__debug("invalid provider: struct_size=%u", (unsigned)p->struct_size);
        return -EINVAL;
    }
    if (!valid_name(p->name)) {
        palev__debug("invalid provider: name=\"%.*s\"", p->name ? PROVIDER_NAME_MAX + 1 : 6,
                     p->name ? p->name : "(null)");
        return -EINVAL;
    }
    return 0;
}

/* ---- loading ---------------------------------------------------------------------------- */

/* RTLD_NODELETE and no dlclose: call sites keep pointers into the probe provider forever. */
static int try_load(const char *name, const char *path)
{
    const char *reason;

    if (dlopen(path, RTLD_NOW | RTLD_NODELETE)) {
        palev__debug("loaded provider: name=\"%s\", path=\"%s\"", name, path);
        return 0;
    }
    reason = dlerror();
    palev__debug("failed to load provider: path=\"%s\", reason=\"%s\"", path,
                 reason ? reason : "unknown");
    return -ENOENT;
}

static int try_dir(const char *name, const char *dir)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s/lib%s-lttng.so", dir, name);

    if (n < 0 || (size_t)n >= sizeof(path)) {
        palev__debug("failed to load provider: path=\"%s/lib%s-lttng.so\", reason=\"path too "
                     "long\"", dir, name);
        return -ENOENT;
    }
    return try_load(name, path);
}

/* The directory of the executable, so a host finds the providers installed next to it. */
static int exe_dir(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    char *slash;

    if (n < 0) {
        palev__debug("cannot find the executable's directory: readlink(\"/proc/self/exe\"): %s",
                     strerror(errno));
        return -errno;
    }
    buf[n] = '\0';
    slash = strrchr(buf, '/');
    if (!slash)
        return -ENOENT;
    /* An executable in "/" keeps "/" as its directory. */
    slash[slash == buf] = '\0';
    return 0;
}

/* Search order: PALEV_PROVIDER_PATH, the executable's directory, the default search path. */
static int load(const struct palev__config *cfg, const char *name)
{
    char dir[PATH_MAX], file[PROVIDER_NAME_MAX + sizeof("lib-lttng.so")];

    for (size_t i = 0; i < cfg->path_count; i++)
        if (try_dir(name, cfg->path[i]) == 0)
            return 0;
    if (exe_dir(dir, sizeof(dir)) == 0 && try_dir(name, dir) == 0)
        return 0;
    snprintf(file, sizeof(file), "lib%s-lttng.so", name);
    if (try_load(name, file) == 0)
        return 0;
    palev__debug("provider not loaded: name=\"%s\", reason=\"no loadable %s\"", name, file);
    return -ENOENT;
}

/* ---- the registry ----------------------------------------------------------------------- */

static struct entry *find(const char *name)
{
    for (struct entry *e = registry.entries; e; e = e->next)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

/* Under the registry lock: a new entry that the calling thread is to load. */
static int add_entry(const char *name, struct entry **out)
{
    size_t len = strlen(name);
    struct entry *e;

    if (registry.finished) {
        palev__debug("provider not loaded: name=\"%s\", reason=\"palev_fini() was called\"",
                     name);
        return -ECANCELED;
    }
    e = palev__malloc(sizeof(*e) + len + 1);
    if (!e) {
        palev__debug("provider not loaded: name=\"%s\", reason=\"out of memory\"", name);
        return -ENOMEM;
    }
    memcpy(e->name, name, len + 1);
    e->status = LOADING;
    e->loader = pthread_self();
    e->next = registry.entries;
    registry.entries = e;
    *out = e;
    return LOADING;
}

/* Returns LOADING when the caller must load `name` and then call publish(), else the outcome
 * of the one attempt, waiting for it while another thread makes it. The thread making it may
 * come back here from a constructor of the provider it is loading: it must not wait for itself.
 * Entries are never freed, so a waiter's pointer stays valid. */
static int claim(const char *name, struct entry **out)
{
    struct entry *e;
    int ret;

    pthread_mutex_lock(&registry.lock);
    e = find(name);
    while (e && e->status == LOADING && !pthread_equal(e->loader, pthread_self()))
        pthread_cond_wait(&registry.loaded, &registry.lock);
    if (!e) {
        ret = add_entry(name, out);
    } else if (e->status == LOADING) {
        palev__debug("provider not loaded: name=\"%s\", reason=\"registered again by the thread "
                     "loading it\"", name);
        ret = -EDEADLK;
    } else {
        ret = e->status;
    }
    pthread_mutex_unlock(&registry.lock);
    return ret;
}

static void publish(struct entry *e, int status)
{
    pthread_mutex_lock(&registry.lock);
    e->status = status;
    pthread_cond_broadcast(&registry.loaded);
    pthread_mutex_unlock(&registry.lock);
}

/* dlopen runs outside the registry lock: the loader's own lock is held by whoever is in a
 * constructor, and a constructor may be registering another provider right now. */
PALEV_API int palev_provider_register(const palev_provider *provider)
{
    const struct palev__config *cfg;
    struct entry *e = NULL;
    int ret = validate(provider);

    if (ret)
        return ret;
    cfg = palev__config();
    if (!cfg->lttng) {
        palev__debug("provider not loaded: name=\"%s\", reason=\"PALEV_LTTNG=0\"",
                     provider->name);
        return -ECANCELED;
    }
    ret = claim(provider->name, &e);
    if (ret != LOADING)
        return ret;
    ret = load(cfg, provider->name);
    publish(e, ret);
    return ret;
}
