/* SPDX-License-Identifier: MIT */
/* Registration of generated providers: each one's probe provider searched for and loaded at
 * most once, what became of it recorded (Paleventing:ProviderStatus, PALEV_DEBUG). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "Paleventing-events.h"

/* Status of a registry entry whose probe provider one thread is loading right now, and of one
 * waiting for the background loader (PALEV_LOAD=background). */
#define LOADING 1
#define QUEUED 2

/* One per provider name ever registered: the outcome of its only load attempt, and what that
 * attempt needs from the descriptor (copied: the background loader runs after registration
 * returned, and a descriptor may be gone by then). */
struct entry {
    struct entry *next;
    int status;             /* QUEUED, LOADING, 0 or a negative errno */
    pthread_t loader;       /* the thread loading it, while LOADING */
    const char *reason;     /* "from PATH", or why not and where it looked; NULL if no memory */
    int reported;           /* recorded as Paleventing:ProviderStatus */
    const void *where;      /* the descriptor's address, only for dladdr: its module's directory */
    const char *layout;     /* the descriptor's layout (copied after the name), or NULL */
    char name[];
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t loaded;  /* broadcast when an entry leaves QUEUED or LOADING */
    struct entry *entries;  /* in registration order */
    struct entry **tail;
    int finished;
    int loader_running;     /* the background loader thread exists */
    pthread_t loader;       /* that thread */
} registry = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, &registry.entries, 0,
               0, 0 };

static struct entry *find(const char *name);

int palev__provider_known(const char *name)
{
    int known;

    pthread_mutex_lock(&registry.lock);
    known = find(name) != NULL;
    pthread_mutex_unlock(&registry.lock);
    return known;
}

int palev__finished(void)
{
    int finished;

    pthread_mutex_lock(&registry.lock);
    finished = registry.finished;
    pthread_mutex_unlock(&registry.lock);
    return finished;
}

/* palev_fini(): registrations from now on are refused; under the lock, so none is half-way. */
void palev__registry_finish(void)
{
    pthread_mutex_lock(&registry.lock);
    registry.finished = 1;
    pthread_mutex_unlock(&registry.lock);
}

/* ---- validation ------------------------------------------------------------------------- */

static int valid_name(const char *name)
{
    size_t len;

    if (!name)
        return 0;
    len = strnlen(name, PALEV__PROVIDER_NAME_MAX + 1);
    if (len == 0 || len > PALEV__PROVIDER_NAME_MAX)
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
        palev__debug("invalid provider: name=\"%.*s\"", p->name ? PALEV__PROVIDER_NAME_MAX + 1 : 6,
                     p->name ? p->name : "(null)");
        return -EINVAL;
    }
    if (palev__provider_reserved(p->name)) {
        palev__debug("invalid provider: name=\"%s\", reason=\"%s\"", p->name,
                     palev__provider_reserved(p->name));
        return -EINVAL;
    }
    return 0;
}

/* ---- loading (the search: provider_search.c) ---------------------------------------------- */

/* The reason a ProviderStatus event gives, on the heap; NULL when out of memory (the event
 * then says so). */
static char *status_reason(int ret, const char *name, const char *path,
                           const struct palev__tried *t)
{
    const char *part[4] = { "from ", path, "", "" };
    int n;
    char *reason;

    if (ret != 0) {
        part[0] = "no loadable lib";
        part[1] = name;
        part[2] = "-lttng.so; tried ";
        part[3] = t->text;
    }
    n = snprintf(NULL, 0, "%s%s%s%s", part[0], part[1], part[2], part[3]);
    reason = n < 0 ? NULL : palev__malloc((size_t)n + 1);
    if (reason)
        snprintf(reason, (size_t)n + 1, "%s%s%s%s", part[0], part[1], part[2], part[3]);
    return reason;
}

/* One debug line per provider: the outcome and every place tried. */
static int load(const struct palev__config *cfg, const struct entry *e, const char **reason)
{
    const char *name = e->name;
    const struct palev__provider_want w = { e->name, e->layout, e->where };
    char path[PATH_MAX];
    struct palev__tried t = { 0, "" };
    int ret = palev__provider_search(cfg, &w, path, &t);

    if (ret == 0)
        palev__debug("loaded provider: name=\"%s\", path=\"%s\"%s%s%s", name, path,
                     t.len ? ", after=\"" : "", t.text, t.len ? "\"" : "");
    else
        palev__debug("provider not loaded: name=\"%s\", reason=\"no loadable lib%s-lttng.so\", "
                     "tried=\"%s\"", name, name, t.text);
    *reason = status_reason(ret, name, path, &t);
    return ret;
}

/* ---- the registry ----------------------------------------------------------------------- */

static struct entry *find(const char *name)
{
    for (struct entry *e = registry.entries; e; e = e->next)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

/* The layout the descriptor expects its probe provider to hold, or NULL (no check: a
 * descriptor from before the field, or none given). */
static const char *expected_layout(const palev_provider *p)
{
    if (p->struct_size < offsetof(palev_provider, layout) + sizeof(p->layout))
        return NULL;
    return p->layout;
}

/* Under the registry lock: a new entry, LOADING by the calling thread or QUEUED for the
 * background loader. */
static int add_entry(const palev_provider *p, int status, struct entry **out)
{
    const char *layout = expected_layout(p);
    size_t len = strlen(p->name), llen = layout ? strlen(layout) + 1 : 0;
    struct entry *e;

    if (registry.finished) {
        palev__debug("provider not loaded: name=\"%s\", reason=\"palev_fini() was called\"",
                     p->name);
        return -ECANCELED;
    }
    e = palev__malloc(sizeof(*e) + len + 1 + llen);
    if (!e) {
        palev__debug("provider not loaded: name=\"%s\", reason=\"out of memory\"", p->name);
        return -ENOMEM;
    }
    memcpy(e->name, p->name, len + 1);
    e->layout = layout ? memcpy(e->name + len + 1, layout, llen) : NULL;
    e->where = p;
    e->status = status;
    e->loader = pthread_self();
    e->reason = NULL;
    e->reported = 0;
    e->next = NULL;
    *registry.tail = e;
    registry.tail = &e->next;
    *out = e;
    return status;
}

static int busy(const struct entry *e)
{
    return e->status == LOADING || e->status == QUEUED;
}

static int loading_here(const struct entry *e)
{
    return e->status == LOADING && pthread_equal(e->loader, pthread_self());
}

/* Returns LOADING when the caller must load the provider and then call publish(), QUEUED when
 * the background loader is to, else the outcome of the one attempt: waited for while another
 * thread makes it, or -EINPROGRESS in the background mode, which never waits. The thread making
 * it may come back here from a constructor of the provider it is loading: it must not wait for
 * itself. Entries are never freed, so a waiter's pointer stays valid. */
static int claim(const palev_provider *p, int background, struct entry **out)
{
    struct entry *e;
    int ret;

    pthread_mutex_lock(&registry.lock);
    e = find(p->name);
    while (!background && e && busy(e) && !loading_here(e))
        pthread_cond_wait(&registry.loaded, &registry.lock);
    if (!e) {
        ret = add_entry(p, background ? QUEUED : LOADING, out);
    } else if (loading_here(e)) {
        palev__debug("provider not loaded: name=\"%s\", reason=\"registered again by the thread "
                     "loading it\"", p->name);
        ret = -EDEADLK;
    } else {
        ret = busy(e) ? -EINPROGRESS : e->status;
    }
    pthread_mutex_unlock(&registry.lock);
    return ret;
}

/* Under the registry lock: an outcome to record as ProviderStatus, marked recorded, or NULL.
 * Only once the library's own provider is loaded (whichever provider was registered first). */
static struct entry *next_status(void)
{
    struct entry *own = find(PCM_OWN_PROVIDER);

    if (!own || own->status != 0)
        return NULL;
    for (struct entry *e = registry.entries; e; e = e->next)
        if (!busy(e) && !e->reported) {
            e->reported = 1;
            return e;
        }
    return NULL;
}

/* Each outcome once per process. Fired outside the lock: an event may take liblttng-ust's
 * locks, which the fork handler may hold while it waits for this one (fork.c). */
static void record_statuses(void)
{
    struct entry *e;

    for (;;) {
        pthread_mutex_lock(&registry.lock);
        e = next_status();
        pthread_mutex_unlock(&registry.lock);
        if (!e)
            return;
        FireEventProviderStatus(e->name, e->status == 0, e->reason ? e->reason : "out of memory");
    }
}

static void publish(struct entry *e, int status, const char *reason)
{
    pthread_mutex_lock(&registry.lock);
    e->status = status;
    e->reason = reason;
    pthread_cond_broadcast(&registry.loaded);
    pthread_mutex_unlock(&registry.lock);
    record_statuses();
}

/* ---- fork ------------------------------------------------------------------------------- */

/* Under the registry lock: is a provider being loaded by another thread, or waiting for the
 * background loader? */
static int foreign_load(void)
{
    for (struct entry *e = registry.entries; e; e = e->next)
        if (busy(e) && !loading_here(e))
            return 1;
    return 0;
}

/* A child must not inherit a load another thread was making: it would never finish there. A
 * fork from a constructor of the provider being loaded (the loading thread itself) goes on. */
void palev__registry_fork_wait(void)
{
    pthread_mutex_lock(&registry.lock);
    while (foreign_load())
        pthread_cond_wait(&registry.loaded, &registry.lock);
    pthread_mutex_unlock(&registry.lock);
}

int palev__registry_fork_prepare(int ours)
{
    pthread_mutex_lock(&registry.lock);
    if (ours && foreign_load()) {
        pthread_mutex_unlock(&registry.lock);
        return -EAGAIN;
    }
    return 0;
}

void palev__registry_fork_parent(void)
{
    pthread_mutex_unlock(&registry.lock);
}

/* Only when the fork hooks are not ours can a load of another thread be under way here (and
 * then there is no background loader): it failed, for this process. The threads that waited on
 * the condition, and the background loader if it had not exited yet, are gone. */
void palev__registry_fork_child(int ours)
{
    for (struct entry *e = registry.entries; !ours && e; e = e->next)
        if (busy(e) && !loading_here(e)) {
            e->status = -ENOENT;
            e->reason = "the process forked while another thread loaded it";
        }
    registry.loader_running = 0;
    pthread_cond_init(&registry.loaded, NULL);
    pthread_mutex_unlock(&registry.lock);
}

/* ---- the background loader (PALEV_LOAD=background) ----------------------------------------- */

/* Loading liblttng-ust is most of a traced host's start-up: its constructor maps its libraries,
 * reads every loaded module for the statedump, starts its listener threads and waits for the
 * session daemons to register the process. In the background mode the registering thread only
 * queues the provider; one thread loads the queue in registration order and exits when it is
 * empty. Until a provider is loaded its call sites' state is 0: its events are not recorded. */
static void *loader_main(void *arg)
{
    const struct palev__config *cfg = palev__config();
    const char *reason;
    struct entry *e;
    int ret;

    for (;;) {
        pthread_mutex_lock(&registry.lock);
        for (e = registry.entries; e && e->status != QUEUED; e = e->next)
            ;
        if (!e) {
            registry.loader_running = 0;
            pthread_mutex_unlock(&registry.lock);
            return arg;
        }
        e->status = LOADING;
        e->loader = pthread_self();
        ret = registry.finished;
        pthread_mutex_unlock(&registry.lock);
        if (ret) {
            palev__debug("provider not loaded: name=\"%s\", reason=\"palev_fini() was called\"",
                         e->name);
            publish(e, -ECANCELED, "palev_fini() was called");
            continue;
        }
        ret = load(cfg, e, &reason);
        publish(e, ret, reason);
    }
}

/* Under the registry lock: the loader thread, unless it runs already. It takes no signal of the
 * host's. Returns 0 or a positive errno from pthread_create. */
static int start_loader(void)
{
    sigset_t all, old;
    pthread_attr_t attr;
    int ret;

    if (registry.loader_running)
        return 0;
    sigfillset(&all);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    ret = pthread_create(&registry.loader, &attr, loader_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (ret == 0) {
        pthread_setname_np(registry.loader, "palev-load");
        registry.loader_running = 1;
    }
    return ret;
}

/* Queued: hand the entry to the loader thread, or load it here if no thread can be started. */
static int queue(const struct palev__config *cfg, struct entry *e)
{
    const char *reason;
    int ret;

    pthread_mutex_lock(&registry.lock);
    ret = start_loader();
    if (ret) {
        palev__debug("background loading: pthread_create: %s: loading %s now", strerror(ret),
                     e->name);
        e->status = LOADING;
        e->loader = pthread_self();
    }
    pthread_mutex_unlock(&registry.lock);
    if (!ret)
        return -EINPROGRESS;
    ret = load(cfg, e, &reason);
    publish(e, ret, reason);
    return ret;
}

/* The background mode asked for, and possible: a fork waits for a load under way only when the
 * library calls liblttng-ust's fork hooks itself (fork.c); otherwise a child could inherit a
 * half-loaded liblttng-ust. */
static int background(const struct palev__config *cfg)
{
    static int said;

    if (!cfg->load_background)
        return 0;
    if (palev__fork_hooks_ours())
        return 1;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        palev__debug("PALEV_LOAD=background ignored: liblttng-ust's fork hooks are called by "
                     "liblttng-ust-fork.so or by the host (PALEV_FORK_HOOKS=0), so a fork "
                     "could not wait for the load: loading at once");
    return 0;
}

PALEV_API int palev_provider_wait(unsigned timeout_ms)
{
    struct timespec deadline;
    int ret = 0;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&registry.lock);
    if (registry.loader_running && pthread_equal(registry.loader, pthread_self()))
        ret = -EDEADLK;
    for (struct entry *e = registry.entries; e && !ret; e = e->next) {
        if (loading_here(e))
            ret = -EDEADLK;
        while (!ret && busy(e))
            if (pthread_cond_clockwait(&registry.loaded, &registry.lock, CLOCK_MONOTONIC,
                                       &deadline) == ETIMEDOUT && busy(e))
                ret = -ETIMEDOUT;
    }
    pthread_mutex_unlock(&registry.lock);
    return ret;
}

/* ---- the host's ABI --------------------------------------------------------------------- */

/* The PALEV_ABI_VERSION of the headers the descriptor's module was compiled with. */
static uint32_t abi_of(const palev_provider *p)
{
    if (p->struct_size < offsetof(palev_provider, abi_version) + sizeof(p->abi_version))
        return 1;       /* a descriptor from before the field: the layouts of version 1 */
    return p->abi_version;
}

static char *copy(const char *text)
{
    size_t len = strlen(text) + 1;
    char *s = palev__malloc(len);

    return s ? memcpy(s, text, len) : NULL;
}

/* A module compiled against other headers reads and passes layouts the library does not have:
 * tracing of its provider stays off. The name is recorded as not loaded (ProviderStatus says
 * why), so no later registration loads a probe its call sites would connect to. */
static int refuse_abi(const struct palev__config *cfg, const palev_provider *p)
{
    char reason[200];
    struct entry *e;

    snprintf(reason, sizeof(reason), "compiled with paleventing headers of ABI version %u "
             "(PALEV_ABI_VERSION), libpaleventing has %u: rebuild it against these headers",
             (unsigned)abi_of(p), (unsigned)PALEV_ABI_VERSION);
    palev__debug("provider not loaded: name=\"%s\", reason=\"%s\"", p->name, reason);
    if (cfg->lttng && claim(p, 0, &e) == LOADING)
        publish(e, -EPROTO, copy(reason));
    return -EPROTO;
}

/* dlopen runs outside the registry lock: the loader's own lock is held by whoever is in a
 * constructor, and a constructor may be registering another provider right now. */
PALEV_API int palev_provider_register(const palev_provider *provider)
{
    const struct palev__config *cfg;
    struct entry *e = NULL;
    const char *reason;
    int ret = validate(provider);

    if (ret)
        return ret;
    palev__fork_init();
    cfg = palev__config();
    if (abi_of(provider) != PALEV_ABI_VERSION)
        return refuse_abi(cfg, provider);
    if (!cfg->lttng) {
        palev__debug("provider not loaded: name=\"%s\", reason=\"PALEV_LTTNG=0\"",
                     provider->name);
        return -ECANCELED;
    }
    ret = claim(provider, background(cfg), &e);
    if (ret == QUEUED)
        return queue(cfg, e);
    if (ret != LOADING)
        return ret;
    ret = load(cfg, e, &reason);
    publish(e, ret, reason);
    return ret;
}
