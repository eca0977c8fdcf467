/*  html_page.h: the pieces of the CLI's HTML pages (html_report.c,
    html_charts.c, html_compare.c): the page's frame, cell formats that
    show a dash for what is not a number, the run's badges, and the file
    written.  Rendering only: every figure comes from the controller.
*/
#ifndef IOF_HTML_PAGE_H
#define IOF_HTML_PAGE_H

#include "json_get.h"
#include "svg.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#define DASH "&#8211;"
/* The heatmaps' colour scale ends at +-this percent (html_charts.c; the
   method section says so). */
#define HEATMAP_CLAMP_PCT 50.0
/* Every string from a report comes from users or agents. */
#define esc svg_esc

static inline double
num (json_t *o, const char *key)
{
    return json_get_num (o, key);
}

/* 0 for what is not a number: figures that must print as a number. */
static inline double
Z (double v)
{
    return isfinite (v) ? v : 0;
}

static inline const char *
str (json_t *o, const char *key)
{
    return json_get_str_or (o, key, "");
}

/* Axis and cell formats into buf, a dash for what is not a number.
   Return buf.  Can't fail. */
const char *html_lat (double v, char *buf, size_t cap);
const char *html_iops (double v, char *buf, size_t cap);
const char *html_bw (double v, char *buf, size_t cap);
const char *html_mib (double v, char *buf, size_t cap);
const char *html_pct (double v, char *buf, size_t cap);     /* a change: "+4.0%" */
const char *html_share (double v, char *buf, size_t cap);   /* a share: "90%" */
const char *html_axis_pct (double v, char *buf, size_t cap);
const char *html_seconds (double v, char *buf, size_t cap);
const char *html_ns_time (double ns, char *buf, size_t cap);
/* A block size as fio writes it ("4k", "1m"). */
const char *html_bytes (double b, char *buf, size_t cap);
/* A run id, "?" when the report has none. */
const char *html_run_id (json_t *rep, char *buf, size_t cap);
/* The last path component: a drive or file name the same on every host. */
const char *html_base_name (const char *path);
/* Does the step carry groups made with --by (not the one "all" group)? */
bool html_grouped (json_t *s);
/* Did these figures (one direction's) count any I/O? */
bool html_has_ops (json_t *d);

/* The page's head (title, inline styles) and footer.  Can't fail. */
void html_head (FILE *f, const char *title);
/* The same, reloading itself every refresh_s seconds (0: never). */
void html_head_refresh (FILE *f, const char *title, int refresh_s);
void html_footer (FILE *f);
/* "randread bs=4k iodepth=1 numjobs=1, 4 s" of a step's job. */
void html_workload (FILE *f, json_t *job);
void html_verdict_badge (FILE *f, const char *v);
void html_status_cell (FILE *f, const char *status);

/* html_charts.c: the latency percentiles of one direction's figures as
   a series of c. */
void html_percentile_series (svg_chart_t *c, const char *name, json_t *d);
/* html_charts.c: a step's fleet IOPS and p99 per interval (two charts). */
void html_interval_charts (FILE *f, json_t *s);
/* html_charts.c: a step's charts: percentiles, intervals, heatmap. */
void html_step_charts (FILE *f, json_t *s);
/* A step's drive health (html_health.c): its temperature chart, and its
   table of drives with the health rule's verdict. */
void html_health_chart (FILE *f, json_t *s);
void html_health_table (FILE *f, json_t *s);
/* html_charts.c: a write-saturation step's IOPS per drive and writes' p99
   over time, one series per side (n; the intervals of pts.h's and ab.h's
   write_saturation: t_s, iops_per_drive, p99), named names[k]. */
void html_wsat_charts (FILE *f, const char *step, json_t *const *sides, const char *const *names,
                       int n);

/* The page's file at path ("-": stdout), created or overwritten; NULL
   with errno and a message naming the file in err. */
FILE *html_open_out (const char *path, char *err, size_t errlen);
/* Closes it (not stdout, flushed).  Returns 0, or -errno with err. */
int html_close_out (FILE *f, const char *path, char *err, size_t errlen);

/* A page of doc by render into the file at path ("-": stdout), from
   html_open_out to html_close_out.  Returns 0, or -errno with a message
   naming the file in err. */
int html_write_doc (const char *path, void (*render) (FILE *, json_t *), json_t *doc, char *err,
                    size_t errlen);

/* A table cell of text, escaped. */
void html_td (FILE *f, const char *s);

#endif
