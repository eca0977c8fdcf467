/*  svg.c: small inline-SVG charts (why SVG written by hand: see svg.h). */
#include "svg.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 640.0
#define H 300.0
#define ML 70.0     /* left margin: y tick labels */
#define MR 20.0
#define MB 44.0     /* bottom: x tick labels and the axis label */
#define TITLE_H 22.0
#define LEGEND_ROW 16.0

/* Okabe-Ito: told apart by people with colour vision deficiencies. */
static const char *s_colour[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                  "#56B4E9", "#000000", "#F0E442" };
static const char *s_dash[] = { "", "6 3", "2 2", "8 3 2 3" };
#define NCOLOUR (sizeof s_colour / sizeof s_colour[0])
#define NDASH (sizeof s_dash / sizeof s_dash[0])

typedef struct {
    double x, y;
    double x0, x1;      /* steps: the bin [x0, x1) */
    char *tip;
    int flags;
    char *dname;        /* svg_chart_data: data-DNAME="dval" (NULL: none) */
    double dval;
} point_t;

typedef struct {
    char *name;
    point_t *pt;
    size_t n, cap;
    char *dname;
    double dval;
} series_t;

typedef enum { ANN_MARK, ANN_HLINE, ANN_VBAND } ann_kind_t;

typedef struct {
    ann_kind_t kind;
    double x, y, x1;
    char *label;
} ann_t;

typedef struct {
    svg_scale_t scale;
    char *label;
    svg_fmt_t *fmt;
    double lo, hi;      /* the drawn range, in data units */
} axis_t;

struct _svg_chart_t {
    char *kind, *title;
    svg_style_t style;
    axis_t ax[2];
    series_t *series;
    size_t nseries;
    char **cat;
    size_t ncat;
    ann_t *ann;
    size_t nann;
    unsigned id;        /* tells apart the hatch patterns of bar charts in one page */
};

static char *
dup (const char *s)
{
    return s ? strdup (s) : NULL;
}

svg_chart_t *
svg_chart_new (const char *kind, const char *title, svg_style_t style)
{
    svg_chart_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->kind = dup (kind);
    self->title = dup (title);
    self->style = style;
    if (!self->kind || !self->title)
        svg_chart_destroy (&self);
    return self;
}

void
svg_chart_destroy (svg_chart_t **self_p)
{
    svg_chart_t *self = *self_p;
    if (!self)
        return;
    for (size_t i = 0; i < self->nseries; i++) {
        for (size_t k = 0; k < self->series[i].n; k++) {
            free (self->series[i].pt[k].tip);
            free (self->series[i].pt[k].dname);
        }
        free (self->series[i].pt);
        free (self->series[i].dname);
        free (self->series[i].name);
    }
    for (size_t i = 0; i < self->ncat; i++)
        free (self->cat[i]);
    for (size_t i = 0; i < self->nann; i++)
        free (self->ann[i].label);
    free (self->series);
    free (self->cat);
    free (self->ann);
    free (self->ax[0].label);
    free (self->ax[1].label);
    free (self->kind);
    free (self->title);
    free (self);
    *self_p = NULL;
}

void
svg_chart_axis (svg_chart_t *self, char axis, svg_scale_t scale, const char *label,
                svg_fmt_t *fmt)
{
    IOF_ASSERT (axis == 'x' || axis == 'y');
    axis_t *a = &self->ax[axis == 'y'];
    a->scale = scale;
    free (a->label);
    a->label = dup (label);
    a->fmt = fmt;
}

/* The hatch patterns' ids, per document (svg_doc_begin) and per thread:
   the controller renders pages on several, and a page must be the same
   bytes whatever was rendered before it. */
static _Thread_local unsigned s_next_id;

void
svg_doc_begin (void)
{
    s_next_id = 0;
}

int
svg_chart_category (svg_chart_t *self, const char *name)
{
    char **c = realloc (self->cat, (self->ncat + 1) * sizeof *c);
    if (!c)
        return -ENOMEM;
    self->cat = c;
    if (!(c[self->ncat] = dup (name ? name : "")))
        return -ENOMEM;
    self->ncat++;
    return 0;
}

int
svg_chart_series (svg_chart_t *self, const char *name)
{
    series_t *s = realloc (self->series, (self->nseries + 1) * sizeof *s);
    if (!s)
        return -ENOMEM;
    self->series = s;
    memset (&s[self->nseries], 0, sizeof *s);
    if (!(s[self->nseries].name = dup (name ? name : "")))
        return -ENOMEM;
    self->nseries++;
    return 0;
}

/* Writes ' data-NAME="V"' (nothing when name is NULL). */
static void
data_attr (FILE *f, const char *name, double v)
{
    if (!name)
        return;
    fputs (" data-", f);
    svg_esc (f, name);
    fprintf (f, "=\"%.9g\"", v);
}

/* Can v be placed on an axis of this scale? */
static bool
drawable (svg_scale_t scale, double v)
{
    if (!isfinite (v))
        return false;
    if (scale == SVG_NINES)
        return v > 0 && v < 100;
    return scale == SVG_LINEAR || scale == SVG_SPAN || v > 0;
}

static int
add_point (svg_chart_t *self, double x, double y, double x0, double x1, const char *tip,
           int flags)
{
    if (!self->nseries)
        return -EINVAL;
    if (!drawable (self->style == SVG_BARS ? SVG_LINEAR : self->ax[0].scale, x)
        || !drawable (self->ax[1].scale, y))
        return -EDOM;
    series_t *s = &self->series[self->nseries - 1];
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        point_t *p = realloc (s->pt, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        s->pt = p;
        s->cap = cap;
    }
    point_t *p = &s->pt[s->n];
    memset (p, 0, sizeof *p);
    p->x = x;
    p->y = y;
    p->x0 = x0;
    p->x1 = x1;
    p->flags = flags;
    p->tip = dup (tip);
    if (tip && !p->tip)
        return -ENOMEM;
    s->n++;
    return 0;
}

int
svg_chart_point (svg_chart_t *self, double x, double y, const char *tip, int flags)
{
    return add_point (self, x, y, x, x, tip, flags);
}

int
svg_chart_bin (svg_chart_t *self, double x0, double x1, double y, const char *tip)
{
    if (!drawable (self->ax[0].scale, x0) || !drawable (self->ax[0].scale, x1) || !(x1 > x0))
        return -EDOM;
    double x = self->ax[0].scale == SVG_LINEAR || self->ax[0].scale == SVG_SPAN
               ? (x0 + x1) / 2 : sqrt (x0 * x1);
    return add_point (self, x, y, x0, x1, tip, 0);
}

int
svg_chart_data (svg_chart_t *self, const char *name, double v)
{
    if (!self->nseries)
        return -EINVAL;
    series_t *s = &self->series[self->nseries - 1];
    char **dn = s->n ? &s->pt[s->n - 1].dname : &s->dname;
    char *d = dup (name);
    if (!d)
        return -ENOMEM;
    free (*dn);
    *dn = d;
    if (s->n)
        s->pt[s->n - 1].dval = v;
    else
        s->dval = v;
    return 0;
}

static int
annotate (svg_chart_t *self, ann_kind_t kind, double x, double y, double x1, const char *label)
{
    ann_t *a = realloc (self->ann, (self->nann + 1) * sizeof *a);
    if (!a)
        return -ENOMEM;
    self->ann = a;
    a[self->nann] = (ann_t) { kind, x, y, x1, dup (label ? label : "") };
    if (!a[self->nann].label)
        return -ENOMEM;
    self->nann++;
    return 0;
}

int
svg_chart_mark (svg_chart_t *self, double x, double y, const char *label)
{
    if (!drawable (self->ax[0].scale, x) || !drawable (self->ax[1].scale, y))
        return -EDOM;
    return annotate (self, ANN_MARK, x, y, 0, label);
}

int
svg_chart_hline (svg_chart_t *self, double y, const char *label)
{
    if (!drawable (self->ax[1].scale, y))
        return -EDOM;
    return annotate (self, ANN_HLINE, 0, y, 0, label);
}

int
svg_chart_vband (svg_chart_t *self, double x0, double x1, const char *label)
{
    if (!drawable (self->ax[0].scale, x0) || !drawable (self->ax[0].scale, x1) || x1 < x0)
        return -EDOM;
    return annotate (self, ANN_VBAND, x0, 0, x1, label);
}

size_t
svg_chart_points (svg_chart_t *self)
{
    size_t n = 0;
    for (size_t i = 0; i < self->nseries; i++)
        n += self->series[i].n;
    return n;
}

void
svg_esc (FILE *f, const char *s)
{
    if (!s)
        return;
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        switch (c) {
        case '&': fputs ("&amp;", f); break;
        case '<': fputs ("&lt;", f); break;
        case '>': fputs ("&gt;", f); break;
        case '"': fputs ("&quot;", f); break;
        case '\'': fputs ("&#39;", f); break;
        default:
            /* XML 1.0 has no place for C0 controls but tab and newline. */
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
                fputc ('?', f);
            else
                fputc (c, f);
        }
    }
}

/* The scale's transform of a data value (monotonic). */
static double
tf (svg_scale_t scale, double v)
{
    switch (scale) {
    case SVG_LOG2: return log2 (v);
    case SVG_LOG10: return log10 (v);
    case SVG_NINES: return -log10 (1 - v / 100);
    default: return v;
    }
}

/* A round step near range / n: 1, 2 or 5 times a power of ten. */
static double
nice_step (double range, int n)
{
    double raw = range / n, p = pow (10, floor (log10 (raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* Sets a->lo, a->hi around [lo, hi] (data units) for the axis' scale. */
static void
fit (axis_t *a, double lo, double hi, bool bars)
{
    switch (a->scale) {
    case SVG_LOG2:
        a->lo = exp2 (floor (log2 (lo)));
        a->hi = exp2 (ceil (log2 (hi)));
        if (a->hi <= a->lo)
            a->hi = a->lo * 2;
        break;
    case SVG_LOG10:
        a->lo = pow (10, floor (log10 (lo)));
        a->hi = pow (10, ceil (log10 (hi)));
        if (a->hi <= a->lo)
            a->hi = a->lo * 10;
        break;
    case SVG_NINES:
        a->lo = 40;
        a->hi = 99.995;
        break;
    default: {
        if (a->scale == SVG_SPAN && hi > lo) {
            double pad = (hi - lo) * 0.1;   /* nothing on the frame's edge */
            lo -= pad;
            hi += pad;
        } else if (bars || lo > 0)
            lo = lo > 0 ? 0 : lo;
        if (bars && hi < 0)
            hi = 0;
        if (hi <= lo)
            hi = lo + (lo ? fabs (lo) : 1);
        double step = nice_step (hi - lo, 5);
        a->lo = floor (lo / step) * step;
        a->hi = ceil (hi / step) * step;
        break;
    }
    }
}

/* Ticks of the axis into t (at most cap).  Returns how many. */
static int
ticks (const axis_t *a, double *t, int cap)
{
    int n = 0;
    switch (a->scale) {
    case SVG_LOG2: {
        int k0 = (int) lround (log2 (a->lo)), k1 = (int) lround (log2 (a->hi));
        int every = (k1 - k0) / 10 + 1;
        for (int k = k0; k <= k1 && n < cap; k += every)
            t[n++] = exp2 (k);
        break;
    }
    case SVG_LOG10: {
        int d0 = (int) lround (log10 (a->lo)), d1 = (int) lround (log10 (a->hi));
        static const double m[] = { 1, 2, 5 };
        for (int d = d0; d <= d1 && n < cap; d++)
            for (int i = 0; i < (d1 - d0 <= 3 ? 3 : 1) && n < cap; i++) {
                double v = m[i] * pow (10, d);
                if (v <= a->hi * 1.0001)
                    t[n++] = v;
            }
        break;
    }
    case SVG_NINES: {
        static const double p[] = { 50, 90, 99, 99.9, 99.99 };
        for (int i = 0; i < 5 && n < cap; i++)
            t[n++] = p[i];
        break;
    }
    default: {
        double step = nice_step (a->hi - a->lo, 5);
        for (double v = a->lo; v <= a->hi + step / 1000 && n < cap; v += step)
            t[n++] = fabs (v) < step / 1e6 ? 0 : v;
        break;
    }
    }
    return n;
}

static const char *
tick_label (const axis_t *a, double v, char *buf, size_t cap)
{
    if (a->scale == SVG_NINES)
        snprintf (buf, cap, "p%g", v);
    else if (a->fmt)
        a->fmt (v, buf, cap);
    else
        snprintf (buf, cap, "%g", v);
    return buf;
}

typedef struct {
    double x0, y0, w, h;    /* the plot area */
} frame_t;

static double
px (const svg_chart_t *self, const frame_t *fr, double x)
{
    if (self->style == SVG_BARS)
        return fr->x0 + (x + 0.5) * fr->w / (double) (self->ncat ? self->ncat : 1);
    const axis_t *a = &self->ax[0];
    return fr->x0 + (tf (a->scale, x) - tf (a->scale, a->lo))
                    / (tf (a->scale, a->hi) - tf (a->scale, a->lo)) * fr->w;
}

static double
py (const svg_chart_t *self, const frame_t *fr, double y)
{
    const axis_t *a = &self->ax[1];
    double v = fr->y0 + fr->h - (tf (a->scale, y) - tf (a->scale, a->lo))
                              / (tf (a->scale, a->hi) - tf (a->scale, a->lo)) * fr->h;
    return v;
}

/* One marker of series index i at (x, y), with its tooltip. */
static void
marker (FILE *f, size_t i, double x, double y, const point_t *p, const char *series)
{
    double r = p->flags & SVG_PT_STRONG ? 4.5 : 3.5;
    const char *col = s_colour[i % NCOLOUR];
    const char *alert = p->flags & SVG_PT_ALERT ? " stroke=\"#000\" stroke-width=\"2.5\"" : "";
    switch (i % 4) {
    case 0:
        fprintf (f, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"%s",
                 x, y, r, col, alert);
        break;
    case 1:
        fprintf (f, "<rect class=\"pt\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                 "fill=\"%s\"%s", x - r, y - r, 2 * r, 2 * r, col, alert);
        break;
    case 2:
        fprintf (f, "<path class=\"pt\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"%s",
                 x, y - r * 1.2, x + r * 1.2, y + r, x - r * 1.2, y + r, col, alert);
        break;
    default:
        fprintf (f, "<path class=\"pt\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" "
                 "fill=\"#fff\" stroke=\"%s\" stroke-width=\"%s\"", x, y - r * 1.3, x + r * 1.3, y,
                 x, y + r * 1.3, x - r * 1.3, y, col, p->flags & SVG_PT_ALERT ? "3" : "1.8");
        break;
    }
    data_attr (f, p->dname, p->dval);
    fputs ("><title>", f);
    svg_esc (f, p->tip ? p->tip : series);
    fputs ("</title>", f);
    fputs (i % 4 == 0 ? "</circle>" : i % 4 == 1 ? "</rect>" : "</path>", f);
}

/* The legend's item width for a series name (a rough text measure). */
static double
legend_w (const char *name)
{
    size_t n = strlen (name);
    return 30 + 6.2 * (double) (n > 40 ? 40 : n);
}

static void
write_axes (svg_chart_t *self, FILE *f, const frame_t *fr)
{
    char buf[64];
    double t[64];
    /* y ticks and grid */
    int n = ticks (&self->ax[1], t, 64);
    for (int i = 0; i < n; i++) {
        double y = py (self, fr, t[i]);
        fprintf (f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                 fr->x0, y, fr->x0 + fr->w, y);
        fprintf (f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", fr->x0 - 5,
                 y + 4);
        svg_esc (f, tick_label (&self->ax[1], t[i], buf, sizeof buf));
        fputs ("</text>", f);
    }
    if (self->style == SVG_BARS) {
        double band = fr->w / (double) (self->ncat ? self->ncat : 1);
        size_t maxc = (size_t) (band / 6.2);
        for (size_t i = 0; i < self->ncat; i++) {
            fprintf (f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                     px (self, fr, (double) i), fr->y0 + fr->h + 15);
            if (strlen (self->cat[i]) > maxc && maxc > 3) {
                snprintf (buf, sizeof buf, "%.*s~", (int) (maxc - 1 < sizeof buf - 2 ? maxc - 1
                                                                     : sizeof buf - 2), self->cat[i]);
                svg_esc (f, buf);
            } else
                svg_esc (f, self->cat[i]);
            fputs ("<title>", f);
            svg_esc (f, self->cat[i]);
            fputs ("</title></text>", f);
        }
        double y0 = py (self, fr, 0);
        fprintf (f, "<line class=\"zero\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                 fr->x0, y0, fr->x0 + fr->w, y0);
    } else {
        n = ticks (&self->ax[0], t, 64);
        for (int i = 0; i < n; i++) {
            double x = px (self, fr, t[i]);
            fprintf (f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                     x, fr->y0, x, fr->y0 + fr->h);
            fprintf (f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x,
                     fr->y0 + fr->h + 15);
            svg_esc (f, tick_label (&self->ax[0], t[i], buf, sizeof buf));
            fputs ("</text>", f);
        }
    }
    fprintf (f, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
             fr->x0, fr->y0, fr->w, fr->h);
    fprintf (f, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
             fr->x0 + fr->w / 2, fr->y0 + fr->h + 34);
    svg_esc (f, self->ax[0].label);
    fprintf (f, "</text><text class=\"axis\" transform=\"translate(14 %.1f) rotate(-90)\" "
             "text-anchor=\"middle\">", fr->y0 + fr->h / 2);
    svg_esc (f, self->ax[1].label);
    fputs ("</text>", f);
}

static void
write_annotations (svg_chart_t *self, FILE *f, const frame_t *fr, bool bands)
{
    for (size_t i = 0; i < self->nann; i++) {
        ann_t *a = &self->ann[i];
        if ((a->kind == ANN_VBAND) != bands)
            continue;
        if (a->kind == ANN_VBAND) {
            double x0 = px (self, fr, a->x), x1 = px (self, fr, a->x1);
            fprintf (f, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                     "height=\"%.1f\"><title>", x0, fr->y0, x1 - x0, fr->h);
            svg_esc (f, a->label);
            fprintf (f, "</title></rect><text class=\"note\" x=\"%.1f\" y=\"%.1f\">", x0 + 3,
                     fr->y0 + 11);
        } else if (a->kind == ANN_HLINE) {
            double y = py (self, fr, a->y);
            fprintf (f, "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                     "<text class=\"note\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                     fr->x0, y, fr->x0 + fr->w, y, fr->x0 + fr->w - 3, y - 4);
        } else {
            double x = px (self, fr, a->x), y = py (self, fr, a->y);
            fprintf (f, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"8\"/>"
                     "<text class=\"note\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y,
                     x > fr->x0 + fr->w * 0.8 ? x - 11 : x + 11, y - 9,
                     x > fr->x0 + fr->w * 0.8 ? "end" : "start");
        }
        svg_esc (f, a->label);
        fputs ("</text>", f);
    }
}

void
svg_chart_write (svg_chart_t *self, FILE *f, const char *nodata)
{
    if (svg_chart_points (self) == 0) {
        fputs ("<figure class=\"fig nodata\"><p><b>", f);
        svg_esc (f, self->title);
        fputs (":</b> no data", f);
        if (nodata && *nodata) {
            fputs (" (", f);
            svg_esc (f, nodata);
            fputs (")", f);
        }
        fputs (".</p></figure>\n", f);
        return;
    }
    /* Data ranges. */
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < self->nseries; i++)
        for (size_t k = 0; k < self->series[i].n; k++) {
            point_t *p = &self->series[i].pt[k];
            xlo = fmin (xlo, fmin (p->x, p->x0)), xhi = fmax (xhi, fmax (p->x, p->x1));
            ylo = fmin (ylo, p->y), yhi = fmax (yhi, p->y);
        }
    for (size_t i = 0; i < self->nann; i++) {
        ann_t *a = &self->ann[i];
        if (a->kind == ANN_HLINE)
            ylo = fmin (ylo, a->y), yhi = fmax (yhi, a->y);
        else if (a->kind == ANN_VBAND)
            xlo = fmin (xlo, a->x), xhi = fmax (xhi, a->x1);
    }
    if (self->style != SVG_BARS)
        fit (&self->ax[0], xlo, xhi, false);
    fit (&self->ax[1], ylo, yhi, self->style == SVG_BARS);
    /* The legend, in rows above the plot. */
    int rows = 1;
    double lx = ML;
    for (size_t i = 0; i < self->nseries; i++) {
        double w = legend_w (self->series[i].name);
        if (lx + w > W - MR && lx > ML)
            rows++, lx = ML;
        lx += w;
    }
    if (self->nseries == 1 && self->style != SVG_BARS)
        rows = 0;
    double top = TITLE_H + rows * LEGEND_ROW + 8;
    frame_t fr = { ML, top, W - ML - MR, H - top - MB };
    fprintf (f, "<figure class=\"fig\"><svg class=\"chart\" data-chart=\"");
    svg_esc (f, self->kind);
    fprintf (f, "\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
             "aria-label=\"", W, H, W, H);
    svg_esc (f, self->title);
    fputs ("\">\n<title>", f);
    svg_esc (f, self->title);
    fprintf (f, "</title><text class=\"title\" x=\"%.1f\" y=\"15\" text-anchor=\"middle\">", W / 2);
    svg_esc (f, self->title);
    fputs ("</text>\n", f);
    /* Bars that are not significant are hatched: visible on a print. */
    if (self->style == SVG_BARS) {
        self->id = s_next_id++;
        fputs ("<defs>", f);
        for (size_t i = 0; i < self->nseries && i < NCOLOUR; i++)
            fprintf (f, "<pattern id=\"h%zu-%u\" width=\"5\" height=\"5\" "
                     "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
                     "<rect width=\"5\" height=\"5\" fill=\"#fff\"/>"
                     "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\" stroke=\"%s\" stroke-width=\"3\"/>"
                     "</pattern>", i, self->id, s_colour[i]);
        fputs ("</defs>\n", f);
    }
    write_annotations (self, f, &fr, true);
    write_axes (self, f, &fr);
    fputs ("\n", f);
    /* Legend. */
    if (rows) {
        int row = 0;
        lx = ML;
        for (size_t i = 0; i < self->nseries; i++) {
            double w = legend_w (self->series[i].name);
            if (lx + w > W - MR && lx > ML)
                row++, lx = ML;
            double ly = TITLE_H + row * LEGEND_ROW + 6;
            fprintf (f, "<g class=\"legend\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"%s\" stroke-width=\"%s\" stroke-dasharray=\"%s\"/>", lx, ly, lx + 22,
                     ly, s_colour[i % NCOLOUR], self->style == SVG_BARS ? "8" : "2",
                     self->style == SVG_BARS ? ""
                     : s_dash[(self->style == SVG_STEPS ? i : i / 2) % NDASH]);
            if (self->style != SVG_BARS) {
                point_t p;
                memset (&p, 0, sizeof p);
                fputs ("<g class=\"key\">", f);
                marker (f, i, lx + 11, ly, &p, self->series[i].name);
                fputs ("</g>", f);
            }
            fprintf (f, "<text x=\"%.1f\" y=\"%.1f\">", lx + 26, ly + 4);
            char name[48];
            snprintf (name, sizeof name, "%.40s", self->series[i].name);
            svg_esc (f, name);
            fputs ("</text></g>\n", f);
            lx += w;
        }
    }
    /* Series. */
    double band = fr.w / (double) (self->ncat ? self->ncat : 1);
    double bw = band * 0.8 / (double) (self->nseries ? self->nseries : 1);
    for (size_t i = 0; i < self->nseries; i++) {
        series_t *s = &self->series[i];
        fputs ("<g class=\"series\" data-series=\"", f);
        svg_esc (f, s->name);
        fputs ("\"", f);
        data_attr (f, s->dname, s->dval);
        fputs (">", f);
        if (self->style == SVG_BARS) {
            for (size_t k = 0; k < s->n; k++) {
                point_t *p = &s->pt[k];
                double x = fr.x0 + p->x * band + band * 0.1 + (double) i * bw;
                double y0 = py (self, &fr, 0), y1 = py (self, &fr, p->y);
                char fill[64];
                if (p->flags & SVG_PT_STRONG)
                    snprintf (fill, sizeof fill, "%s", s_colour[i % NCOLOUR]);
                else if (i < NCOLOUR)
                    snprintf (fill, sizeof fill, "url(#h%zu-%u)", i, self->id);
                else
                    snprintf (fill, sizeof fill, "#ccc");
                fprintf (f, "<rect class=\"pt\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                         "height=\"%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\">"
                         "<title>", x, fmin (y0, y1), bw * 0.92, fmax (fabs (y1 - y0), 0.5), fill,
                         p->flags & SVG_PT_ALERT ? "#000" : s_colour[i % NCOLOUR],
                         p->flags & SVG_PT_ALERT ? "2" : "0.8");
                svg_esc (f, p->tip ? p->tip : s->name);
                fputs ("</title></rect>", f);
            }
        } else if (self->style == SVG_STEPS) {
            /* The outline of each bin; down to 0 where bins are not adjacent. */
            double y0 = py (self, &fr, fmax (0, self->ax[1].lo));
            fprintf (f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                     "stroke-dasharray=\"%s\" d=\"", s_colour[i % NCOLOUR], s_dash[i % NDASH]);
            for (size_t k = 0; k < s->n; k++) {
                point_t *p = &s->pt[k];
                double ya = py (self, &fr, p->y);
                if (k == 0 || s->pt[k - 1].x1 != p->x0)
                    fprintf (f, "M%.1f %.1fL%.1f %.1f", px (self, &fr, p->x0), y0,
                             px (self, &fr, p->x0), ya);
                else
                    fprintf (f, "L%.1f %.1f", px (self, &fr, p->x0), ya);
                fprintf (f, "L%.1f %.1f", px (self, &fr, p->x1), ya);
                if (k + 1 == s->n || s->pt[k + 1].x0 != p->x1)
                    fprintf (f, "L%.1f %.1f", px (self, &fr, p->x1), y0);
            }
            fputs ("\"/>", f);
            for (size_t k = 0; k < s->n; k++)
                marker (f, i, px (self, &fr, s->pt[k].x), py (self, &fr, s->pt[k].y), &s->pt[k],
                        s->name);
        } else {
            if (s->n > 1) {
                fprintf (f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                         "stroke-dasharray=\"%s\" points=\"", s_colour[i % NCOLOUR],
                         s_dash[(i / 2) % NDASH]);
                for (size_t k = 0; k < s->n; k++)
                    fprintf (f, "%s%.1f,%.1f", k ? " " : "", px (self, &fr, s->pt[k].x),
                             py (self, &fr, s->pt[k].y));
                fputs ("\"/>", f);
            }
            for (size_t k = 0; k < s->n; k++)
                marker (f, i, px (self, &fr, s->pt[k].x), py (self, &fr, s->pt[k].y), &s->pt[k],
                        s->name);
        }
        fputs ("</g>\n", f);
    }
    write_annotations (self, f, &fr, false);
    fputs ("</svg></figure>\n", f);
}

/* The colour of t in [-1, 1]: blue, white, red. */
static void
diverging (double t, char *buf, size_t cap)
{
    t = t < -1 ? -1 : t > 1 ? 1 : t;
    /* #2166ac (faster) .. #ffffff .. #b2182b (slower) */
    double r, g, b;
    if (t < 0)
        r = 255 + (0x21 - 255) * -t, g = 255 + (0x66 - 255) * -t, b = 255 + (0xac - 255) * -t;
    else
        r = 255 + (0xb2 - 255) * t, g = 255 + (0x18 - 255) * t, b = 255 + (0x2b - 255) * t;
    snprintf (buf, cap, "#%02x%02x%02x", (int) lround (r), (int) lround (g), (int) lround (b));
}

/* s cut to n characters (with '~' when cut) into buf. */
static const char *
cut (const char *s, size_t n, char *buf, size_t cap)
{
    if (strlen (s) <= n || n < 3)
        return s;
    snprintf (buf, cap, "%.*s~", (int) (n - 1 < cap - 2 ? n - 1 : cap - 2), s);
    return buf;
}

void
svg_heatmap (FILE *f, const char *kind, const char *title, size_t nrows,
             const char *const *rows, size_t ncols, const char *const *cols, const double *v,
             const char *const *tips, const char *const *groups, const double *refs,
             double clamp, const char *unit, const char *legend)
{
    size_t cells = 0;
    for (size_t i = 0; i < nrows * ncols; i++)
        cells += isfinite (v[i]);
    if (!cells) {
        fputs ("<figure class=\"fig nodata\"><p><b>", f);
        svg_esc (f, title);
        fputs (":</b> no data (no target has latency figures).</p></figure>\n", f);
        return;
    }
    size_t maxrow = 0;
    for (size_t r = 0; r < nrows; r++)
        maxrow = strlen (rows[r]) > maxrow ? strlen (rows[r]) : maxrow;
    double left = 10 + 6.2 * (double) (maxrow > 28 ? 28 : maxrow);
    double cw = (W - left - MR) / (double) ncols;
    cw = cw > 110 ? 110 : cw < 44 ? 44 : cw;
    double ch = 22, top = TITLE_H + 22;
    double w = fmax (W, left + cw * (double) ncols + MR);
    double h = top + ch * (double) nrows + 46;
    char buf[64], col[16];
    fputs ("<figure class=\"fig\"><svg class=\"chart\" data-chart=\"", f);
    svg_esc (f, kind);
    fprintf (f, "\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
             "aria-label=\"", w, h, w, h);
    svg_esc (f, title);
    fputs ("\">\n<title>", f);
    svg_esc (f, title);
    fprintf (f, "</title><text class=\"title\" x=\"%.1f\" y=\"15\" text-anchor=\"middle\">", w / 2);
    svg_esc (f, title);
    fputs ("</text>\n", f);
    for (size_t c = 0; c < ncols; c++) {
        fprintf (f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                 left + cw * ((double) c + 0.5), top - 6);
        svg_esc (f, cut (cols[c], (size_t) (cw / 6.2), buf, sizeof buf));
        fputs ("<title>", f);
        svg_esc (f, cols[c]);
        fputs ("</title></text>", f);
    }
    fputs ("\n", f);
    for (size_t r = 0; r < nrows; r++) {
        double y = top + ch * (double) r;
        fprintf (f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 6,
                 y + ch / 2 + 4);
        svg_esc (f, cut (rows[r], 28, buf, sizeof buf));
        fputs ("<title>", f);
        svg_esc (f, rows[r]);
        fputs ("</title></text><g class=\"series\" data-series=\"", f);
        svg_esc (f, rows[r]);
        fputs ("\">", f);
        for (size_t c = 0; c < ncols; c++) {
            double x = left + cw * (double) c, val = v[r * ncols + c];
            if (!isfinite (val)) {
                fprintf (f, "<rect class=\"empty\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                         "height=\"%.1f\"/>", x + 1, y + 1, cw - 2, ch - 2);
                continue;
            }
            double t = clamp > 0 ? val / clamp : 0;
            diverging (t, col, sizeof col);
            fprintf (f, "<rect class=\"pt cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                     "height=\"%.1f\" fill=\"%s\"", x + 1, y + 1, cw - 2, ch - 2, col);
            if (groups && groups[r * ncols + c]) {
                fputs (" data-group=\"", f);
                svg_esc (f, groups[r * ncols + c]);
                fputs ("\"", f);
            }
            if (refs)
                data_attr (f, "median", refs[r * ncols + c]);
            fputs ("><title>", f);
            svg_esc (f, tips && tips[r * ncols + c] ? tips[r * ncols + c] : rows[r]);
            fprintf (f, "</title></rect><text class=\"cellv\" x=\"%.1f\" y=\"%.1f\" "
                     "text-anchor=\"middle\" fill=\"%s\">%+.0f", x + cw / 2, y + ch / 2 + 4,
                     fabs (t) > 0.6 ? "#fff" : "#000", val);
            svg_esc (f, unit);
            fputs ("</text>", f);
        }
        fputs ("</g>\n", f);
    }
    /* Legend: five swatches from -clamp to +clamp. */
    double ly = top + ch * (double) nrows + 14, lx = left;
    fprintf (f, "<g class=\"legend\"><text x=\"%.1f\" y=\"%.1f\">", lx, ly + 24);
    svg_esc (f, legend);
    fputs ("</text>", f);
    for (int i = 0; i < 5; i++) {
        double t = -1 + 0.5 * i;
        diverging (t, col, sizeof col);
        fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"44\" height=\"12\" fill=\"%s\" "
                 "stroke=\"#888\" stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" "
                 "text-anchor=\"middle\" class=\"tick\">%s%.0f", w - MR - 5 * 46 + 46 * i, ly, col,
                 w - MR - 5 * 46 + 46 * i + 22, ly + 24, t * clamp > 0 ? "+" : "",
                 t * clamp + 0.0);
        svg_esc (f, unit);
        fputs ("</text>", f);
    }
    fputs ("</g></svg></figure>\n", f);
}
