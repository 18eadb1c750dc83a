/* SPDX-License-Identifier: MIT */
/* The trace directory: a new or empty one, locked for the run. A directory that already holds
 * anything is never written into: a trace in it is replaced only on --replace, and only when
 * everything in it belongs to a trace. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"

/* What a trace directory may hold besides CTF traces: palev-collect's own files. */
static const struct {
    const char *name;
    mode_t type;
} own_entries[] = {
    { "palev-manifests", S_IFDIR },     /* the manifests and provider names, regular files */
    { "perf", S_IFDIR },                /* perf.data and its CTF conversion (--cpu) */
    { "relayd.log", S_IFREG },          /* the log of the relayd palev-collect started */
};

static int file_type(const char *path, mode_t *type)
{
    struct stat st;
    if (lstat(path, &st))
        return -1;
    *type = st.st_mode & S_IFMT;
    return 0;
}

static int has_metadata(const char *dir)
{
    char *p = pc_printf("%s/metadata", dir);
    mode_t t = 0;
    int yes = file_type(p, &t) == 0 && t == S_IFREG;
    free(p);
    return yes;
}

/* NULL when everything below dir is files of CTF traces (each regular file in a directory holding
 * a "metadata" file, or in its index/ directory) or of palev-collect's own directories (files
 * only, or CTF); else the first path that is not (to free). */
static char *not_trace(const char *dir, int depth, int files_ok)
{
    DIR *d = opendir(dir);
    char *bad = d && depth < 16 ? NULL : pc_strdup(dir);
    int meta = has_metadata(dir);
    for (struct dirent *de; !bad && d && (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *p = pc_printf("%s/%s", dir, de->d_name);
        mode_t t = 0;
        if (file_type(p, &t) || (t != S_IFREG && t != S_IFDIR) || (t == S_IFREG && !meta && !files_ok))
            bad = pc_strdup(p);
        else if (t == S_IFDIR)
            bad = not_trace(p, depth + 1, meta && !strcmp(de->d_name, "index"));
        free(p);
    }
    if (d)
        closedir(d);
    return bad;
}

/* The first thing in dir that is not part of a trace (NULL: it holds a trace, or nothing);
 * *any is set when it holds anything. */
static char *foreign_entry(const char *dir, int *any)
{
    DIR *d = opendir(dir);
    char *bad = d ? NULL : pc_strdup(dir);
    *any = 0;
    for (struct dirent *de; !bad && d && (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *p = pc_printf("%s/%s", dir, de->d_name);
        mode_t t = 0;
        int own = -1;
        *any = 1;
        for (size_t i = 0; i < sizeof(own_entries) / sizeof(own_entries[0]); i++)
            if (!strcmp(de->d_name, own_entries[i].name))
                own = (int)i;
        if (file_type(p, &t) || (own >= 0 && t != own_entries[own].type) || (own < 0 && t != S_IFDIR))
            bad = pc_strdup(p);
        else if (t == S_IFDIR)
            bad = not_trace(p, 1, own >= 0);
        free(p);
    }
    if (d)
        closedir(d);
    return bad;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    return ftw->level > 0 && remove(path) ? -1 : 0;
}

/* One run per directory: a second palev-collect given the same -o is refused. */
static int lock(pc_ctx *c)
{
    c->out_fd = open(c->out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c->out_fd < 0)
        return pc_fail(PC_EXIT_USAGE, "cannot use %s: %s", c->out, strerror(errno));
    if (flock(c->out_fd, LOCK_EX | LOCK_NB))
        return pc_fail(PC_EXIT_USAGE, "%s is in use by another palev-collect: not touched", c->out);
    return 0;
}

/* An existing directory: empty, or a trace to replace on --replace. */
static int check_existing(pc_ctx *c)
{
    int any, rc = 0;
    char *bad = foreign_entry(c->out, &any);
    if (!any && !bad)
        return 0;
    if (bad && !c->o.replace)
        rc = pc_fail(PC_EXIT_USAGE, "%s is not empty (it holds %s): not touched; give a new or empty "
                     "directory", c->out, bad);
    else if (bad)
        rc = pc_fail(PC_EXIT_USAGE, "%s holds more than a trace (%s): not replaced", c->out, bad);
    else if (!c->o.replace)
        rc = pc_fail(PC_EXIT_USAGE, "%s already holds a trace: not touched; give another -o DIR, "
                     "or --replace to replace that trace", c->out);
    else if (nftw(c->out, remove_entry, 16, FTW_DEPTH | FTW_PHYS))
        rc = pc_fail(PC_EXIT_SETUP, "cannot remove the trace in %s: %s", c->out, strerror(errno));
    else
        pc_say("replacing the trace in %s", c->out);
    free(bad);
    return rc;
}

/* -o DIR: its parent is created; DIR itself must be new, or a directory. */
static int given_dir(pc_ctx *c)
{
    char parent[PATH_MAX];
    char *copy = pc_strdup(c->o.out);
    for (size_t n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
        copy[n - 1] = '\0';
    char *slash = strrchr(copy, '/');
    const char *base = slash ? slash + 1 : copy, *up = !slash ? "." : slash == copy ? "/" : copy;
    if (slash && slash != copy)
        *slash = '\0';
    int ok = *base && strcmp(base, ".") && strcmp(base, "..") && pc_mkdirs(up, 0777) == 0 &&
             realpath(up, parent);
    if (ok)
        c->out = pc_printf("%s%s%s", parent, strcmp(parent, "/") ? "/" : "", base);
    free(copy);
    if (!ok)
        return pc_fail(PC_EXIT_USAGE, "cannot use %s: %s", c->o.out, *base ? strerror(errno) : "not a directory name");
    if (mkdir(c->out, 0777) == 0) {
        c->out_created = 1;
        return lock(c);
    }
    mode_t t = 0;
    if (errno != EEXIST || file_type(c->out, &t) || t != S_IFDIR)
        return pc_fail(PC_EXIT_USAGE, "cannot use %s: %s", c->out, errno == EEXIST ? "not a directory" : strerror(errno));
    int rc = lock(c);
    return rc ? rc : check_existing(c);
}

/* ./palev-trace-DATE-TIME, then -2, -3, ...: mkdir is atomic, so two runs started in the same
 * second get two directories. */
static int default_dir(pc_ctx *c)
{
    char name[80], base[64], cwd[PATH_MAX];
    time_t now = time(NULL);
    if (!getcwd(cwd, sizeof(cwd)))
        return pc_fail(PC_EXIT_USAGE, "cannot use the current directory: %s", strerror(errno));
    strftime(base, sizeof(base), "palev-trace-%Y%m%d-%H%M%S", localtime(&now));
    for (int i = 1; i < 1000; i++) {
        if (i == 1)
            snprintf(name, sizeof(name), "%s", base);
        else
            snprintf(name, sizeof(name), "%s-%d", base, i);
        if (mkdir(name, 0777) == 0) {
            c->out = pc_printf("%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", name);
            c->out_created = 1;
            return lock(c);
        }
        if (errno != EEXIST)
            break;
    }
    return pc_fail(PC_EXIT_USAGE, "cannot create %s in %s: %s", base, cwd, strerror(errno));
}

/* A CTF trace (a directory holding a "metadata" file) at dir or below it. */
static int holds_ctf(const char *dir, int depth)
{
    DIR *d = depth < 16 ? opendir(dir) : NULL;
    int found = has_metadata(dir);
    for (struct dirent *de; d && !found && (de = readdir(d));) {
        mode_t t = 0;
        char *p = pc_printf("%s/%s", dir, de->d_name);
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && file_type(p, &t) == 0 && t == S_IFDIR)
            found = holds_ctf(p, depth + 1);
        free(p);
    }
    if (d)
        closedir(d);
    return found;
}

/* lttng creates ust/ even when no process registered: only a metadata file says a trace. The
 * LTTng traces only: perf/ holds perf's CTF conversion, which is not one of them. */
void pc_outdir_traces(const pc_ctx *c, pc_strv *out)
{
    DIR *d = opendir(c->out);
    for (struct dirent *de; d && (de = readdir(d));) {
        int own = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
        for (size_t i = 0; !own && i < sizeof(own_entries) / sizeof(own_entries[0]); i++)
            own = strcmp(de->d_name, own_entries[i].name) == 0;
        char *p = own ? NULL : pc_printf("%s/%s", c->out, de->d_name);
        if (p && holds_ctf(p, 1))
            pc_strv_push(out, p);
        free(p);
    }
    if (d)
        closedir(d);
}

/* ---- what palev-collect keeps in it ------------------------------------------------------- */

static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    ssize_t n = 0;
    int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
    if (in >= 0)
        out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n)
            break;
    if (out >= 0 && n == 0)
        rc = close(out);
    else if (out >= 0)
        close(out);
    if (in >= 0)
        close(in);
    return rc;
}

/* --provider-name's renames, one ETWNAME=LTTNGNAME a line: what palev-trace needs to match the
 * manifests to a trace of renamed providers. */
static int keep_renames(const pc_ctx *c, const char *dir)
{
    if (!c->o.renames.n)
        return 0;
    char *path = pc_printf("%s/provider-names", dir);
    FILE *f = fopen(path, "wx");
    int rc = !f;
    for (size_t i = 0; f && i < c->o.renames.n; i++)
        rc |= fprintf(f, "%s\n", c->o.renames.v[i]) < 0;
    if (f)
        rc |= fclose(f) != 0;
    if (rc)
        pc_fail(PC_EXIT_SETUP, "cannot write %s", path);
    free(path);
    return rc ? PC_EXIT_SETUP : 0;
}

/* The manifests beside the trace, for the tools reading it (palev-trace), with the renames. */
int pc_outdir_keep_manifests(const pc_ctx *c)
{
    char *dir = pc_printf("%s/palev-manifests", c->out);
    int rc = pc_mkdirs(dir, 0777) ? pc_fail(PC_EXIT_SETUP, "cannot create %s", dir) : keep_renames(c, dir);
    for (size_t i = 0; i < c->o.manifests.n && !rc; i++) {
        const char *m = c->o.manifests.v[i], *slash = strrchr(m, '/');
        const char *base = slash ? slash + 1 : m;
        size_t len = strlen(base);
        if (len > 4 && strcmp(base + len - 4, ".man") == 0)
            len -= 4;
        char *dest = pc_printf("%s/%.*s.man", dir, (int)len, base);
        if (access(dest, F_OK) == 0) {
            free(dest);
            dest = pc_printf("%s/%.*s-%zu.man", dir, (int)len, base, i);
        }
        if (copy_file(m, dest))
            rc = pc_fail(PC_EXIT_SETUP, "cannot copy %s to %s", m, dir);
        free(dest);
    }
    free(dir);
    return rc;
}

int pc_outdir_prepare(pc_ctx *c)
{
    return c->o.out ? given_dir(c) : default_dir(c);
}

void pc_outdir_release(pc_ctx *c, int failed)
{
    if (c->out_fd > 0)
        close(c->out_fd);
    c->out_fd = -1;
    /* Nothing recorded: a directory we created goes again (rmdir: only when empty). */
    if (failed && c->out_created && c->out)
        rmdir(c->out);
}
