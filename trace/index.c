/* SPDX-License-Identifier: MIT */
/* LTTng's CTF packet index (lttng-tools' ctf-index.h): DIR/index/NAME.idx lists each packet of
 * the stream file DIR/NAME (offset and size). babeltrace2 reads the stream files as they are, so
 * a file emptied, cut at a packet boundary or deleted loses events without a word: comparing
 * with the index finds them. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index.h"

#define INDEX_MAGIC 0xC1F1DCC1u
#define HEADER_SIZE 16              /* magic, major, minor, entry size: 4 x uint32, big-endian */
#define ENTRY_MIN 16                /* offset and packet size (bits): 2 x uint64, big-endian */

static uint64_t be(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

/* The packets of one index that the stream file of `size` bytes (-1: no file) lacks. */
static void check_one(FILE *f, int64_t size, pt_missing *m)
{
    unsigned char hdr[HEADER_SIZE], *entry;
    if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) || be(hdr, 4) != INDEX_MAGIC || be(hdr + 4, 4) != 1)
        return;     /* not an index this reads: nothing to compare */
    uint64_t len = be(hdr + 12, 4);
    if (len < ENTRY_MIN || len > 4096)
        return;
    entry = pt_xmalloc(len);
    while (fread(entry, 1, len, f) == len) {
        uint64_t offset = be(entry, 8), bytes = be(entry + 8, 8) / 8;
        if (size < 0 || offset > (uint64_t)size || bytes > (uint64_t)size - offset) {
            m->packets++;
            m->bytes += bytes;
        }
    }
    free(entry);
}

void pt__index_check(const char *dir, pt_missing **list, unsigned *n)
{
    char *index = pt_xasprintf("%s/index", dir);
    DIR *d = opendir(index);
    for (struct dirent *de; d && (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (len <= 4 || strcmp(de->d_name + len - 4, ".idx") != 0)
            continue;
        char *idx = pt_xasprintf("%s/%s", index, de->d_name);
        char *stream = pt_xasprintf("%s/%.*s", dir, (int)(len - 4), de->d_name);
        struct stat st;
        FILE *f = fopen(idx, "rb");
        pt_missing m = { .stream = stream };
        if (f) {
            check_one(f, stat(stream, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1, &m);
            fclose(f);
        }
        if (m.packets) {
            *list = pt_xrealloc(*list, (*n + 1) * sizeof(**list));
            (*list)[(*n)++] = m;
        } else {
            free(stream);
        }
        free(idx);
    }
    if (d)
        closedir(d);
    free(index);
}
