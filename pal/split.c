/* SPDX-License-Identifier: MIT */
/* Lists in environment variables (PALEV_PROVIDER_PATH, the EventSource filters), split once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One allocation holds the pointer array and the copy the entries point into, so one free()
 * releases both. strtok_r drops empty entries: "a,,b" is "a","b". */
int palev__split(const char *value, char sep, char ***entries, size_t *count)
{
    const char seps[2] = { sep, '\0' };
    size_t len, slots = 1;
    char *copy, *entry, *save = NULL;

    *entries = NULL;
    *count = 0;
    if (!value)
        return 0;
    len = strlen(value);
    for (const char *c = value; *c; c++)
        slots += *c == sep;
    *entries = palev__malloc(slots * sizeof(char *) + len + 1);
    if (!*entries)
        return -ENOMEM;
    copy = memcpy((char *)(*entries + slots), value, len + 1);
    for (entry = strtok_r(copy, seps, &save); entry; entry = strtok_r(NULL, seps, &save))
        (*entries)[(*count)++] = entry;
    return 0;
}
