/* SPDX-License-Identifier: MIT */
/* Finding a provider's probe provider and loading it: the directories searched in order, and
 * what dlopen() cannot survive refused before it opens a file (docs/architecture.md, "Loading").
 * provider.c decides when, once per provider, and records what became of it. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define ELF_CLASS (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32)

/* Does the file hold `text`? Read in blocks that overlap by the text's length. */
static int file_holds(int fd, const char *text)
{
    char block[16384];
    size_t len = strlen(text), have = 0;
    off_t at = 0;
    ssize_t n;

    if (len == 0 || len >= sizeof(block) / 2)
        return 0;
    while ((n = pread(fd, block + have, sizeof(block) - have, at)) > 0) {
        at += n;
        have += (size_t)n;
        if (memmem(block, have, text, len))
            return 1;
        if (have >= len) {
            memmove(block, block + have - (len - 1), len - 1);
            have = len - 1;
        }
    }
    return 0;
}

/* What dlopen cannot survive, found before it opens the file: something else than a regular
 * file (opening a FIFO nobody writes blocks forever), or a shared object cut short (the loader
 * maps its segments without checking that the file holds them, and the first touch of a page
 * past the end raises SIGBUS in the host); and a probe provider of another version of the
 * manifest. Anything else is left to dlopen, which refuses bad files cleanly. NULL when nothing
 * is wrong. */
static const char *unloadable(const char *path, const char *layout)
{
    struct stat st;
    ElfW(Ehdr) eh;
    ElfW(Phdr) ph;
    const char *why = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0)
        return strerror(errno);
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        why = "not a regular file";
        goto end;
    }
    if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELF_CLASS ||
        eh.e_phentsize != sizeof(ph))
        goto end;       /* not an ELF file of ours: dlopen refuses it */
    for (unsigned i = 0; i < eh.e_phnum && !why; i++) {
        if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
            why = "program headers past the end of the file";
        else if (ph.p_type == PT_LOAD && (ph.p_offset > (uint64_t)st.st_size ||
                                          ph.p_filesz > (uint64_t)st.st_size - ph.p_offset))
            why = "a segment past the end of the file (cut short?)";
    }
    /* Loaded, LTTng would not connect its probes to our call sites (their arguments differ) and
     * would keep any other provider of that name from loading: skip it, try the next. */
    if (!why && layout && !file_holds(fd, layout))
        why = "built from another version of the manifest: its layout is not the host's";
end:
    close(fd);
    return why;
}

/* A file found on the default search path could not be read before: say if it is of another
 * version, now that it is loaded. */
static void check_loaded_layout(void *handle, const char *name, const char *path,
                                const char *layout)
{
    char symbol[PALEV__PROVIDER_NAME_MAX + sizeof("palev_layout_")];
    const char *found;

    if (!layout || strchr(path, '/'))
        return;
    snprintf(symbol, sizeof(symbol), "palev_layout_%s", name);
    found = dlsym(handle, symbol);
    if (!found || strcmp(found, layout) != 0)
        palev__debug("provider %s from \"%s\" was built from another version of the manifest "
                     "(%s, the host has %s): its events will not be recorded", name, path,
                     found ? found : "no layout", layout);
}

/* Add "WHERE (WHY)" to the places tried; a list too long to hold ends in "...". */
static void note_tried(struct palev__tried *t, const char *where, const char *why)
{
    size_t room = sizeof(t->text) - t->len;
    int n = snprintf(t->text + t->len, room, "%s%s (%s)", t->len ? "; " : "", where, why);

    if (n < 0 || (size_t)n >= room) {
        strcpy(t->text + sizeof(t->text) - 4, "...");
        t->len = sizeof(t->text) - 1;
    } else {
        t->len += (size_t)n;
    }
}

/* dlerror() repeats the file name first ("libX.so: cannot open shared object file: ..."). */
static const char *dl_reason(const char *path)
{
    const char *err = dlerror(), *rest;
    size_t len = strlen(path);

    if (!err)
        return "unknown";
    rest = err + len;
    return strncmp(err, path, len) == 0 && rest[0] == ':' && rest[1] == ' ' ? rest + 2 : err;
}

/* RTLD_NODELETE and no dlclose: call sites keep pointers into the probe provider forever. */
static int try_load(const struct palev__provider_want *w, const char *path, struct palev__tried *t)
{
    const char *name = w->name, *layout = w->layout;
    const char *reason = strchr(path, '/') ? unloadable(path, layout) : NULL;
    void *handle;

    if (reason) {
        note_tried(t, path, reason);
        return -ENOENT;
    }
    if ((handle = dlopen(path, RTLD_NOW | RTLD_NODELETE))) {
        check_loaded_layout(handle, name, path, layout);
        palev__ust_loaded();
        palev__dyn_ust_loaded();
        return 0;
    }
    note_tried(t, strchr(path, '/') ? path : "the default search path", dl_reason(path));
    return -ENOENT;
}

static int try_dir(const struct palev__provider_want *w, const char *dir, char path[PATH_MAX],
                   struct palev__tried *t)
{
    int n = snprintf(path, PATH_MAX, "%s/lib%s-lttng.so", dir, w->name);

    if (n < 0 || n >= PATH_MAX) {
        note_tried(t, dir, "path too long");
        return -ENOENT;
    }
    return try_load(w, path, t);
}

/* Cut `path` to the directory of the file it names ("/" for "/f"); -ENOENT without a slash. */
static int dir_of(char *path)
{
    char *slash = strrchr(path, '/');

    if (!slash)
        return -ENOENT;
    slash[slash == path] = '\0';
    return 0;
}

/* The directory of the executable, so a host finds the providers installed next to it. */
static int exe_dir(char dir[PATH_MAX], const struct palev__provider_want *w)
{
    ssize_t n = readlink("/proc/self/exe", dir, PATH_MAX - 1);

    if (n < 0) {
        palev__debug("cannot find the executable's directory: readlink(\"/proc/self/exe\"): %s",
                     strerror(errno));
        return -errno;
    }
    (void)w;
    dir[n] = '\0';
    return dir_of(dir);
}

/* The directory of `addr`'s module (realpath: the loader may have recorded a relative or
 * symlinked name). `in_module`: addr must be in a module, else it is worth a debug message. */
static int module_dir(char dir[PATH_MAX], const void *addr, const char *what, int in_module)
{
    Dl_info info;

    if (!dladdr(addr, &info) || !info.dli_fname) {
        if (in_module)
            palev__debug("cannot find %s's directory: dladdr() failed", what);
        return -ENOENT;
    }
    if (!realpath(info.dli_fname, dir)) {
        palev__debug("cannot find %s's directory: realpath(\"%s\"): %s", what, info.dli_fname,
                     strerror(errno));
        return -errno;
    }
    return dir_of(dir);
}

/* The directory of the module that registered the provider (its P-events.c and so the
 * descriptor live there): a plugin the host dlopens finds the probe provider built beside it.
 * Nothing to say when the descriptor is in no module (built at run time, on the heap or the
 * stack, or in a module unloaded before a background load). */
static int registrant_dir(char dir[PATH_MAX], const struct palev__provider_want *w)
{
    return module_dir(dir, w->where, "the registering module", 0);
}

/* The directory libpaleventing was loaded from, so providers installed beside the library (its
 * own libPaleventing-lttng.so first) are found whatever the executable and its rpath. realpath:
 * the loader may have recorded a relative or symlinked name. */
static int lib_dir(char dir[PATH_MAX], const struct palev__provider_want *w)
{
    (void)w;
    return module_dir(dir, (const void *)palev_provider_register, "libpaleventing", 1);
}

static int seen_before(char (*dirs)[PATH_MAX], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(dirs[i], dirs[n]) == 0)
            return 1;
    return 0;
}

/* The directories searched after PALEV_PROVIDER_PATH, in order. */
static int (*const dir_steps[])(char dir[PATH_MAX], const struct palev__provider_want *w) = {
    exe_dir, registrant_dir, lib_dir,
};
#define DIR_STEPS (sizeof(dir_steps) / sizeof(dir_steps[0]))

/* In the order internal.h gives. A directory found twice (the library linked statically, or
 * installed beside the executable) is tried once. */
int palev__provider_search(const struct palev__config *cfg, const struct palev__provider_want *w,
                           char path[PATH_MAX], struct palev__tried *t)
{
    char dirs[DIR_STEPS][PATH_MAX];

    for (size_t i = 0; i < cfg->path_count; i++)
        if (try_dir(w, cfg->path[i], path, t) == 0)
            return 0;
    for (size_t i = 0; i < DIR_STEPS; i++) {
        if (dir_steps[i](dirs[i], w) != 0)
            dirs[i][0] = '\0';
        else if (!seen_before(dirs, i) && try_dir(w, dirs[i], path, t) == 0)
            return 0;
    }
    snprintf(path, PATH_MAX, "lib%s-lttng.so", w->name);
    return try_load(w, path, t);
}
