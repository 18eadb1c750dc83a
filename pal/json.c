/* SPDX-License-Identifier: MIT */
/* A non-allocating JSON text validator (RFC 8259, strict UTF-8) and whitespace compaction. */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* Parsing state. Nesting is an explicit bit stack, not recursion: deep input cannot overflow
 * the host's stack, and nothing is allocated. */
struct parser {
    const unsigned char *s;
    size_t len, pos;
    size_t ws;              /* whitespace bytes outside strings */
    unsigned depth;
    uint8_t objects[PALEV__JSON_MAX_DEPTH / 8];     /* bit set: that level is an object */
};

/* 1 means "a value must follow", 0 "a value is complete"; errors are negative. */
#define EXPECT_VALUE 1

static int peek(const struct parser *p)
{
    return p->pos < p->len ? p->s[p->pos] : -1;
}

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(struct parser *p)
{
    while (is_space(peek(p))) {
        p->pos++;
        p->ws++;
    }
}

static int top_is_object(const struct parser *p)
{
    unsigned d = p->depth - 1;

    return p->objects[d / 8] >> (d % 8) & 1;
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(int c)
{
    if (is_digit(c))
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* ---- scalars ---------------------------------------------------------------------------- */

static size_t digits(struct parser *p)
{
    size_t start = p->pos;

    while (is_digit(peek(p)))
        p->pos++;
    return p->pos - start;
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?  -- any magnitude: JSON sets no limit. */
static int number(struct parser *p)
{
    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0')
        p->pos++;
    else if (digits(p) == 0)
        return -EINVAL;
    if (peek(p) == '.') {
        p->pos++;
        if (digits(p) == 0)
            return -EINVAL;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (digits(p) == 0)
            return -EINVAL;
    }
    return 0;
}

static int literal(struct parser *p)
{
    static const char *const words[] = { "true", "false", "null" };

    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        size_t n = strlen(words[i]);

        if (p->len - p->pos >= n && memcmp(p->s + p->pos, words[i], n) == 0) {
            p->pos += n;
            return 0;
        }
    }
    return -EINVAL;
}

/* The 4 hex digits after "\u", or -1. */
static long hex4(struct parser *p)
{
    long v = 0;

    if (p->len - p->pos < 4)
        return -1;
    for (int k = 0; k < 4; k++) {
        int h = hex_value(p->s[p->pos++]);

        if (h < 0)
            return -1;
        v = v << 4 | h;
    }
    return v;
}

/* After "\u": a BMP character, or a high surrogate followed by "\u" and a low one. Unpaired
 * surrogates are refused: they are not Unicode text, and consumers differ on them (RFC 7493). */
static int unicode_escape(struct parser *p)
{
    long hi = hex4(p), lo;

    if (hi < 0 || (hi >= 0xDC00 && hi <= 0xDFFF))
        return -EINVAL;
    if (hi < 0xD800 || hi > 0xDBFF)
        return 0;
    if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
        return -EINVAL;
    p->pos += 2;
    lo = hex4(p);
    return lo >= 0xDC00 && lo <= 0xDFFF ? 0 : -EINVAL;
}

/* At the backslash. */
static int escape(struct parser *p)
{
    int c;

    p->pos++;
    c = peek(p);
    p->pos++;
    if (c == 'u')
        return unicode_escape(p);
    return c > 0 && strchr("\"\\/bfnrt", c) ? 0 : -EINVAL;
}

/* One non-ASCII character: well-formed UTF-8 only (no overlongs, surrogates or > U+10FFFF).
 * pcm_utf8_next consumes 3 bytes for a real U+FFFD and 1 for an invalid sequence. */
static int utf8_char(struct parser *p)
{
    size_t start = p->pos;
    int32_t cp = pcm_utf8_next(p->s, p->len, &p->pos);

    return cp == PCM_REPLACEMENT_CHAR && p->pos - start != 3 ? -EINVAL : 0;
}

/* At the opening quote. Control characters must be escaped. */
static int string(struct parser *p)
{
    int ret = 0;

    p->pos++;
    for (int c = peek(p); c != '"' && ret == 0; c = peek(p)) {
        if (c < 0x20) /* also the end of the input (-1) */
            ret = -EINVAL;
        else if (c == '\\')
            ret = escape(p);
        else if (c >= 0x80)
            ret = utf8_char(p);
        else
            p->pos++;
    }
    if (ret == 0)
        p->pos++;
    return ret;
}

static int scalar(struct parser *p)
{
    int c = peek(p);

    if (c == '"')
        return string(p);
    if (c == '-' || is_digit(c))
        return number(p);
    return literal(p);
}

/* ---- structure -------------------------------------------------------------------------- */

/* A member name and its colon: then the member's value must follow. */
static int member_key(struct parser *p)
{
    skip_ws(p);
    if (peek(p) != '"' || string(p) != 0)
        return -EINVAL;
    skip_ws(p);
    if (peek(p) != ':')
        return -EINVAL;
    p->pos++;
    return EXPECT_VALUE;
}

static int open_container(struct parser *p, int object)
{
    unsigned d = p->depth;

    if (d == PALEV__JSON_MAX_DEPTH)
        return -EINVAL;
    p->objects[d / 8] = (uint8_t)((p->objects[d / 8] & ~(1u << d % 8)) | (unsigned)object << d % 8);
    p->depth++;
    p->pos++;
    skip_ws(p);
    if (peek(p) == (object ? '}' : ']')) {
        p->pos++;
        p->depth--;
        return 0;
    }
    return object ? member_key(p) : EXPECT_VALUE;
}

/* The start of a value: a scalar is complete after it, a non-empty container expects more. */
static int value(struct parser *p)
{
    int c;

    skip_ws(p);
    c = peek(p);
    if (c == '{' || c == '[')
        return open_container(p, c == '{');
    return scalar(p);
}

/* After a complete value: close containers until a comma asks for the next value. */
static int after_value(struct parser *p)
{
    for (;;) {
        int c;

        skip_ws(p);
        if (p->depth == 0)
            return 0;
        c = peek(p);
        if (c == ',') {
            p->pos++;
            return top_is_object(p) ? member_key(p) : EXPECT_VALUE;
        }
        if (c != (top_is_object(p) ? '}' : ']'))
            return -EINVAL;
        p->pos++;
        p->depth--;
    }
}

int palev__json_check(const char *text, size_t len, struct palev__json_info *info)
{
    struct parser p = { .s = (const unsigned char *)text, .len = len };
    int ret;

    do {
        ret = value(&p);
        if (ret == 0)
            ret = after_value(&p);
    } while (ret == EXPECT_VALUE);
    if (ret == 0 && p.pos != p.len)
        ret = -EINVAL;
    info->ws = p.ws;
    info->error_at = ret ? (p.pos < p.len ? p.pos : p.len) : 0;
    return ret;
}

/* Valid JSON has a quote only at string boundaries and a backslash only before an escaped
 * character, so tracking those two is enough to know which whitespace is insignificant. */
size_t palev__json_compact(char *dst, const char *src, size_t len)
{
    size_t n = 0;
    int in_string = 0, escaped = 0;

    for (size_t i = 0; i < len; i++) {
        char c = src[i];

        if (!in_string && is_space(c))
            continue;
        dst[n++] = c;
        if (escaped)
            escaped = 0;
        else if (c == '\\')
            escaped = in_string;
        else if (c == '"')
            in_string = !in_string;
    }
    dst[n] = '\0';
    return n;
}
