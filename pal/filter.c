/* SPDX-License-Identifier: MIT */
/* EventSource name filters: comma-separated, case-insensitive substrings, parsed once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ASCII only: names are compared byte for byte beyond ASCII, whatever the process locale. */
static char fold(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Lowercase one entry in place and drop the blanks around it ("Foo, Bar" means "foo","bar"). */
static char *clean_entry(char *entry)
{
    char *end = entry + strlen(entry);

    while (blank(*entry))
        entry++;
    while (end > entry && blank(end[-1]))
        *--end = '\0';
    for (char *c = entry; *c; c++)
        *c = fold(*c);
    return entry;
}

/* Entries are cleaned in place; those left empty are dropped: "a, ,b" must not match everything
 * through its empty middle. */
int palev__filter_parse(struct palev__filter *f, const char *value)
{
    size_t n;
    int ret;

    *f = (struct palev__filter){ 0 };
    ret = palev__split(value, ',', &f->needle, &n);
    for (size_t i = 0; i < n; i++) {
        char *entry = clean_entry(f->needle[i]);

        if (*entry)
            f->needle[f->count++] = entry;
    }
    return ret;
}

void palev__filter_free(struct palev__filter *f)
{
    free(f->needle);
    *f = (struct palev__filter){ 0 };
}

/* Is the lowercase `needle` a substring of `s`, ignoring ASCII case? */
static int contains(const char *s, const char *needle)
{
    for (; *s; s++) {
        size_t k = 0;

        while (needle[k] && fold(s[k]) == needle[k])
            k++;
        if (!needle[k])
            return 1;
    }
    return 0;
}

int palev__filter_match(const struct palev__filter *f, const char *s)
{
    if (f->count == 0)
        return 1;
    for (size_t i = 0; i < f->count; i++)
        if (contains(s, f->needle[i]))
            return 1;
    return 0;
}
