/* SPDX-License-Identifier: MIT */
/* A flame graph as inline SVG (flamegraph.pl's layout): the root at the bottom, each frame as
 * wide as its samples, callees above their caller sorted by name; a label where the frame holds
 * one (cut with an ellipsis), the full name, weight and share in its tooltip; colours stable per
 * name, a hue family per kind of code. No script. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

enum { WIDTH = 1160, ROW = 17, PAD = 4, LEGEND = 22 };
#define FONT 11.0
#define CHAR_W (FONT * 0.61)    /* a monospace character's advance at FONT px */
#define MIN_W 1.0               /* narrower frames are left out (and their callees) */

typedef struct flame {
    FILE *out;
    const pt_cpu *c;
    const pt_profile *p;
    int measure;
    double scale;               /* px per unit of weight */
    unsigned rows;              /* the graph's height in rows */
} flame;

/* FNV-1a of the name: the same name gets the same colour in every graph. */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

/* flamegraph.pl's families: native code warm (red to yellow), JIT code green; the kernel
 * lavender, unknown addresses grey, the root, processes and threads pale blue. */
static void colour(const char *name, pt_frame_kind kind, char *buf, size_t size)
{
    uint32_t h = name_hash(name);
    double v = (double)(h & 0xffff) / 65535.0, w = (double)(h >> 16) / 65535.0;
    switch (kind) {
    case PT_FRAME_JIT: snprintf(buf, size, "hsl(%.0f,%.0f%%,%.0f%%)", 95 + 45 * v, 45 + 20 * w, 52 + 10 * w); break;
    case PT_FRAME_KERNEL: snprintf(buf, size, "hsl(265,40%%,72%%)"); break;
    case PT_FRAME_UNKNOWN: snprintf(buf, size, "hsl(0,0%%,72%%)"); break;
    case PT_FRAME_ROOT: snprintf(buf, size, "hsl(210,35%%,82%%)"); break;
    default: snprintf(buf, size, "hsl(%.0f,%.0f%%,%.0f%%)", 5 + 50 * v, 75 + 20 * w, 55 + 8 * w); break;
    }
}

static unsigned depth_of(const pt_profile *p, uint32_t node, double scale)
{
    unsigned best = 0;
    for (uint32_t k = p->nodes[node].child; k; k = p->nodes[k].sibling)
        if ((double)p->nodes[k].total * scale >= MIN_W) {
            unsigned d = depth_of(p, k, scale);
            best = d > best ? d : best;
        }
    return best + 1;
}

/* The label a frame of width w holds: the name, or its start and an ellipsis, or nothing. */
static void label(FILE *out, const char *name, double w)
{
    size_t fit = w > 2 * PAD ? (size_t)((w - PAD) / CHAR_W) : 0, len = strlen(name);
    if (fit < 3)
        return;
    if (len <= fit) {
        pt_html_text(out, name);
        return;
    }
    size_t keep = fit - 1;
    while (keep && (name[keep] & 0xC0) == 0x80)   /* a cut at a UTF-8 character's start */
        keep--;
    char *part = pt_xstrndup(name, keep);
    pt_html_text(out, part);
    fputs("\xe2\x80\xa6", out);     /* U+2026 */
    free(part);
}

static void frame_rect(flame *f, uint32_t node, double x, unsigned row)
{
    const pt_cnode *n = &f->p->nodes[node];
    const char *name = pt_cpu_name(f->c, n->name);
    double w = (double)n->total * f->scale, y = (double)(f->rows - 1 - row) * ROW + PAD;
    char fill[48], amount[32];
    colour(name, pt_cpu_kind(f->c, n->name), fill, sizeof(fill));
    fprintf(f->out, "<g class=\"f\"><title>");
    pt_html_text(f->out, name);
    if (f->measure == PT_ON_CPU)
        fprintf(f->out, " (%" PRIu64 " samples, %.2f%%, %s of CPU)", n->total_n,
                100.0 * (double)n->total / (double)f->p->nodes[0].total, pt_fmt_ns((double)n->total, amount, sizeof(amount)));
    else
        fprintf(f->out, " (%s blocked, %.2f%%, %" PRIu64 " blocks)", pt_fmt_ns((double)n->total, amount, sizeof(amount)),
                100.0 * (double)n->total / (double)f->p->nodes[0].total, n->total_n);
    fprintf(f->out, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>", x, y, w, ROW - 1, fill);
    if (w >= 3 * CHAR_W + PAD) {
        fprintf(f->out, "<text x=\"%.2f\" y=\"%.1f\">", x + PAD / 2.0, y + ROW - 5);
        label(f->out, name, w);
        fputs("</text>", f->out);
    }
    fputs("</g>\n", f->out);
}

/* The node's frame, then its callees left to right by name (flamegraph.pl's order). */
static void draw(flame *f, uint32_t node, double x, unsigned row)
{
    size_t n;
    frame_rect(f, node, x, row);
    uint32_t *kids = pt_cpu_children(f->c, f->p, node, &n);
    for (size_t i = 0; i < n; i++) {
        double w = (double)f->p->nodes[kids[i]].total * f->scale;
        if (w >= MIN_W)
            draw(f, kids[i], x, row + 1);
        x += w;
    }
    free(kids);
}

static void legend(FILE *out, double y)
{
    static const struct { pt_frame_kind kind; const char *name, *text; } keys[] = {
        { PT_FRAME_NATIVE, "native", "native code (a binary's symbol)" },
        { PT_FRAME_JIT, "jit", "JIT code (CodeLoad)" },
        { PT_FRAME_KERNEL, "[kernel]", "in the kernel" },
        { PT_FRAME_UNKNOWN, "[unknown]", "an address nothing names" },
    };
    double x = PAD;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        char fill[48];
        colour(keys[i].name, keys[i].kind, fill, sizeof(fill));
        fprintf(out, "<rect x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text class=\"key\" x=\"%.0f\" y=\"%.1f\">%s</text>\n", x, y, fill, x + 16, y + 10, keys[i].text);
        x += 30 + (double)strlen(keys[i].text) * CHAR_W;
    }
}

void pt_svg_flame(FILE *out, const pt_cpu *c, const pt_profile *p, int measure)
{
    flame f = { .out = out, .c = c, .p = p, .measure = measure };
    if (!p->nodes[0].total)
        return;
    f.scale = (double)(WIDTH - 2 * PAD) / (double)p->nodes[0].total;
    f.rows = depth_of(p, 0, f.scale);
    double height = (double)f.rows * ROW + 2 * PAD + LEGEND;
    fprintf(out, "<svg class=\"flame\" viewBox=\"0 0 %d %.0f\" width=\"%d\" height=\"%.0f\" role=\"img\" "
            "font-family=\"monospace\" font-size=\"%.0f\">\n", WIDTH, height, WIDTH, height, FONT);
    draw(&f, 0, PAD, 0);
    legend(out, (double)f.rows * ROW + 2 * PAD + 4);
    fputs("</svg>\n", out);
}
