/*  svg.h: small inline-SVG charts for the HTML report (html_report.c).

    Why iofleet draws its own SVG instead of using a charting library: the
    report must be one file that opens anywhere, offline, years later; a
    chart library means JavaScript (or a dependency at build time), needs a
    browser that runs it, prints badly and makes two reports hard to diff.
    Inline SVG is text iofleet writes itself: no dependency, no network, no
    JavaScript, it prints as vectors, and two reports diff line by line.

    Every chart is an <svg class="chart" data-chart="KIND">; every series a
    <g class="series" data-series="NAME"> holding one element of class "pt"
    per point (with a <title> tooltip), so tests can count series and points.
    Series differ by colour, dash pattern and marker shape, so they stay
    apart on a black-and-white print.
*/
#ifndef IOF_SVG_H
#define IOF_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct _svg_chart_t svg_chart_t;

typedef enum {
    SVG_LINEAR,     /* y starts at 0 (or below, for negative values) */
    SVG_LOG2,       /* powers of two: iodepth */
    SVG_LOG10,      /* decades with 1-2-5 ticks: latency */
    SVG_NINES,      /* percentiles: p50, p90, p99, p99.9, p99.99 evenly apart */
    SVG_SPAN        /* linear over the data's span, not from 0: a figure's
                       few percent of change around its mean */
} svg_scale_t;

typedef enum {
    SVG_LINES,      /* a polyline and a marker per point */
    SVG_BARS,       /* grouped bars; x is the category index (svg_chart_category) */
    SVG_STEPS       /* histograms: the outline of each bin (svg_chart_bin), a marker
                       at each bin's middle */
} svg_style_t;

/* Point flags. */
#define SVG_PT_STRONG 1  /* bars: solid (else hatched); lines: a bigger marker */
#define SVG_PT_ALERT  2  /* a heavy outline: a regression, a missed SLA */

/* Formats an axis value into buf (e.g. fmt_lat). */
typedef const char *(svg_fmt_t) (double v, char *buf, size_t cap);

/* A new empty chart of kind (data-chart) with a title.  Returns NULL when
   out of memory. */
svg_chart_t *svg_chart_new (const char *kind, const char *title, svg_style_t style);

/* Frees the chart and NULLs *self_p.  Can't fail. */
void svg_chart_destroy (svg_chart_t **self_p);

/* Sets axis 'x' or 'y': its scale, its label and how ticks are written
   (NULL: %g).  Can't fail. */
void svg_chart_axis (svg_chart_t *self, char axis, svg_scale_t scale, const char *label,
                     svg_fmt_t *fmt);

/* Bars: appends a category of the x axis; points use its index as x.
   Returns 0 or -ENOMEM. */
int svg_chart_category (svg_chart_t *self, const char *name);

/* Starts a new series: the points that follow belong to it.  Returns 0 or
   -ENOMEM. */
int svg_chart_series (svg_chart_t *self, const char *name);

/* Appends a point to the last series, with its tooltip text (NULL: none).
   Points that cannot be drawn (not finite, or <= 0 on a log scale) are
   left out and return -EDOM; no series yet is -EINVAL.  Returns 0 or
   -ENOMEM. */
int svg_chart_point (svg_chart_t *self, double x, double y, const char *tip, int flags);

/* Steps: appends the bin [x0, x1) of height y to the last series; its
   point (marker) is at the bin's middle (geometric on a log scale).
   Returns 0, -EDOM (x0 or x1 cannot be drawn, x1 <= x0), -EINVAL or
   -ENOMEM. */
int svg_chart_bin (svg_chart_t *self, double x0, double x1, double y, const char *tip);

/* Writes data-NAME="v" (%.9g) on the last point of the last series, or on
   the series itself while it has no point: figures for tests and tools.
   Returns 0, -EINVAL (no series) or -ENOMEM. */
int svg_chart_data (svg_chart_t *self, const char *name, double v);

/* An annotation: a ring around (x, y) with a label (a knee, a capacity).
   Returns 0, -EDOM or -ENOMEM. */
int svg_chart_mark (svg_chart_t *self, double x, double y, const char *label);

/* A dashed horizontal line at y with a label (a limit).  Returns 0, -EDOM
   or -ENOMEM. */
int svg_chart_hline (svg_chart_t *self, double y, const char *label);

/* A shaded band from x0 to x1 with a label (a measurement window).
   Returns 0, -EDOM or -ENOMEM. */
int svg_chart_vband (svg_chart_t *self, double x0, double x1, const char *label);

/* How many points the chart holds.  Can't fail. */
size_t svg_chart_points (svg_chart_t *self);

/* Writes the chart as a <figure> holding the <svg>.  A chart without points
   is written as a paragraph saying so, with nodata as the reason.  Can't
   fail (write errors show in ferror (f)). */
void svg_chart_write (svg_chart_t *self, FILE *f, const char *nodata);

/* A heatmap: nrows x ncols cells, value v[r * ncols + c] (NAN: no cell),
   its tooltip tips[r * ncols + c] (may be NULL), coloured from blue
   (-clamp) through white to red (+clamp); each row is a series, each cell
   a point.  groups[r * ncols + c] (NULL, or NULL entries: none) becomes
   the cell's data-group, refs[r * ncols + c] (NULL: none) its data-median:
   what the cell was measured against.  unit follows the value in cells and
   the legend ("%").  Can't fail. */
void svg_heatmap (FILE *f, const char *kind, const char *title, size_t nrows,
                  const char *const *rows, size_t ncols, const char *const *cols,
                  const double *v, const char *const *tips, const char *const *groups,
                  const double *refs, double clamp, const char *unit, const char *legend);

/* A new document begins: ids of its charts' patterns count from 0 again
   (html_head does it).  Can't fail. */
void svg_doc_begin (void);

/* Writes s escaped for HTML and XML text or attributes (& < > " '),
   control characters replaced by '?'.  NULL writes nothing.  Can't fail. */
void svg_esc (FILE *f, const char *s);

#endif
