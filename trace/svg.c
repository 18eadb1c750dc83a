/* SPDX-License-Identifier: MIT */
/* Inline SVG charts for the HTML report (no script, no external resource). */
#include <math.h>

#include "svg.h"

enum { W = 560, H = 190, L = 62, R = 8, T = 10, B = 26 };     /* size and margins */

static void frame(FILE *out, const char *cls)
{
    fprintf(out, "<svg class=\"%s\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n"
            "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
            "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
            cls, W, H, W, H, L, H - B, W - R, H - B, L, T, L, H - B);
}

static void xlabel(FILE *out, double x, const char *text)
{
    const char *anchor = x < L + 1 ? "start" : x > W - R - 1 ? "end" : "middle";
    fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>\n", x, H - B + 16,
            anchor, text);
}

static void ylabel(FILE *out, double y, const char *text)
{
    fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
            "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", L - 6, y + 4, text,
            L, y, W - R, y);
}

/* 105900 -> "105.9k"; beyond 1e12, scientific ("1.798e+308") */
static const char *compact(double v, const char *unit, char *buf, size_t size)
{
    double a = v < 0 ? -v : v;
    if (a >= 1e12)
        snprintf(buf, size, "%.4g%s", v, unit);
    else if (a >= 1e9)
        snprintf(buf, size, "%.4gG%s", v / 1e9, unit);
    else if (a >= 1e6)
        snprintf(buf, size, "%.4gM%s", v / 1e6, unit);
    else if (a >= 1e4)
        snprintf(buf, size, "%.4gk%s", v / 1e3, unit);
    else
        snprintf(buf, size, "%.4g%s", v, unit);
    return buf;
}

static void time_axis(FILE *out, int64_t t0, int64_t t1)
{
    char buf[32];
    for (int i = 0; i <= 4; i++)
        xlabel(out, L + (W - L - R) * i / 4.0, pt_fmt_ns((double)(t1 - t0) * i / 4.0, buf, sizeof(buf)));
}

/* The histogram's buckets drawn 8 per power of two (values below 8 one each): the display bin of
 * value v keeps its 4 leading bits. Every bucket lies within one display bin. */
static uint64_t display_lo(uint64_t v, uint64_t *hi)
{
    unsigned shift = v < 8 ? 0 : 63u - (unsigned)__builtin_clzll(v) - 3u;
    uint64_t lo = (v >> shift) << shift;
    *hi = lo + ((uint64_t)1 << shift) - 1;
    return lo;
}

static void bar(FILE *out, uint64_t lo, uint64_t hi, uint64_t n, uint64_t peak, double x0, double x1)
{
    char a[32], b[32];
    double xa = L + (W - L - R) * (log10((double)(lo > 0 ? lo : 1)) - x0) / (x1 - x0);
    double xb = L + (W - L - R) * (log10((double)hi + 1) - x0) / (x1 - x0);
    double y = (H - B - T) * (double)n / (double)peak;
    fprintf(out, "<rect class=\"bucket\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">"
            "<title>%s .. %s: %llu</title></rect>\n", xa, H - B - y, xb - xa > 2 ? xb - xa - 0.5 : 1.5, y,
            pt_fmt_ns((double)lo, a, sizeof(a)), pt_fmt_ns((double)hi, b, sizeof(b)), (unsigned long long)n);
}

/* Draws the display bins when out is set; returns the largest count. */
static uint64_t display_bins(const pt_hist *h, FILE *out, uint64_t peak, double x0, double x1)
{
    uint64_t lo, hi, n, cur_lo = 0, cur_hi = 0, cur_n = 0, best = 1;
    for (int b = pt_hist_next(h, -1, &lo, &hi, &n);; b = pt_hist_next(h, b, &lo, &hi, &n)) {
        uint64_t dhi, dlo = b >= 0 ? display_lo(lo, &dhi) : 0;
        if (cur_n && (b < 0 || dlo != cur_lo)) {
            if (out)
                bar(out, cur_lo, cur_hi, cur_n, peak, x0, x1);
            best = cur_n > best ? cur_n : best;
            cur_n = 0;
        }
        if (b < 0)
            return best;
        cur_lo = dlo;
        cur_hi = dhi;
        cur_n += n;
    }
}

void pt_svg_histogram(FILE *out, const pt_hist *h)
{
    char buf[32];
    uint64_t peak = display_bins(h, NULL, 1, 0, 1);
    double x0 = log10((double)(h->min > 0 ? h->min : 1)), x1 = log10((double)h->max + 1);
    if (x1 - x0 < 1)
        x0 = x1 - 1;
    frame(out, "histogram");
    for (int i = 0; i <= 4; i++)
        xlabel(out, L + (W - L - R) * i / 4.0, pt_fmt_ns(pow(10, x0 + (x1 - x0) * i / 4.0), buf, sizeof(buf)));
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)peak);
    ylabel(out, T, buf);
    display_bins(h, out, peak, x0, x1);
    fputs("</svg>\n", out);
}

static double bin_x(const pt_series *s, unsigned i, int64_t t0, int64_t t1)
{
    double span = t1 > t0 ? (double)(t1 - t0) : 1.0;
    return L + (W - L - R) * (double)(s->t0 + (int64_t)i * s->width - t0) / span;
}

void pt_svg_timeline(FILE *out, const pt_series *s, int64_t t0, int64_t t1)
{
    char buf[32];
    double peak = s->vmax > 0 ? s->vmax : 1;
    frame(out, "timeline");
    time_axis(out, t0, t1);
    ylabel(out, T, pt_fmt_ns(peak, buf, sizeof(buf)));
    for (unsigned i = 0; i < s->used; i++) {
        if (!s->count[i])
            continue;
        double x = bin_x(s, i, t0, t1), w = bin_x(s, i + 1, t0, t1) - x, y = (H - B - T) * s->max[i] / peak;
        fprintf(out, "<rect class=\"pause\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>%llu, "
                "longest %s</title></rect>\n", x, H - B - y, w > 1 ? w : 1, y > 1 ? y : 1,
                (unsigned long long)s->count[i], pt_fmt_ns(s->max[i], buf, sizeof(buf)));
    }
    fputs("</svg>\n", out);
}

static double point(const pt_series *s, unsigned i, int per_second)
{
    if (per_second)
        return (double)s->count[i] * 1e9 / (double)s->width;
    return s->count[i] ? (double)(s->sum[i] / (long double)s->count[i]) : NAN;
}

/* Where v sits between lo and hi, 0 to 1: in long double, as hi - lo of +-1e308 overflows. */
static double scale(double v, double lo, double hi)
{
    return (double)(((long double)v - lo) / ((long double)hi - lo));
}

void pt_svg_line(FILE *out, const pt_series *s, int64_t t0, int64_t t1, int per_second, const char *unit)
{
    double lo = 0, hi = 0;
    char buf[48];
    for (unsigned i = 0; i < s->used; i++) {
        double v = point(s, i, per_second);
        if (isnan(v))
            continue;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (hi <= lo)
        hi = lo + 1;    /* lo <= 0 <= hi: equal only when every point is 0 */
    frame(out, "line");
    time_axis(out, t0, t1);
    ylabel(out, T, compact(hi, unit, buf, sizeof(buf)));
    ylabel(out, H - B, compact(lo, unit, buf, sizeof(buf)));
    fputs("<polyline class=\"series\" points=\"", out);
    for (unsigned i = 0; i < s->used; i++) {
        double v = point(s, i, per_second);
        if (!isnan(v))
            fprintf(out, "%.1f,%.1f ", (bin_x(s, i, t0, t1) + bin_x(s, i + 1, t0, t1)) / 2,
                    H - B - (H - B - T) * scale(v, lo, hi));
    }
    fputs("\"/>\n</svg>\n", out);
}
