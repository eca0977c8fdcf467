/*  html_charts.c: the charts of one step of the HTML report
    (html_page.h): latency percentiles, per-interval IOPS and latency,
    and the hosts x targets heatmap.
*/
#include "html_page.h"
#include "direction.h"
#include "util.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The latency percentiles of one direction's figures as a series. */
void
html_percentile_series (svg_chart_t *c, const char *name, json_t *d)
{
    static const char *key[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
    static const double at[] = { 50, 90, 99, 99.9, 99.99 };
    json_t *p = json_object_get (d, "percentiles");
    svg_chart_series (c, name);
    for (int i = 0; i < 5; i++) {
        char tip[320], b[32];
        snprintf (tip, sizeof tip, "%s %s: %s", name, key[i], html_lat (num (p, key[i]), b, sizeof b));
        svg_chart_point (c, at[i], num (p, key[i]), tip, 0);
    }
}

static void
percentile_chart (FILE *f, json_t *s)
{
    char title[512];
    snprintf (title, sizeof title, "Latency percentiles: %s", str (s, "name"));
    svg_chart_t *c = svg_chart_new ("percentiles", title, SVG_LINES);
    if (!c)
        return;
    svg_chart_axis (c, 'x', SVG_NINES, "percentile (nines scale)", NULL);
    svg_chart_axis (c, 'y', SVG_LOG10, "completion latency", fmt_lat);
    json_t *fleet = json_object_get (s, "fleet");
    /* Series are named by direction when the step has more than one. */
    int ndirs = 0;
    for (int d = 0; d < DIR_COUNT; d++)
        ndirs += html_has_ops (json_object_get (fleet, dir_name (d)));
    bool named = ndirs > 1;
    size_t i;
    json_t *g;
    if (html_grouped (s))
        json_array_foreach (json_object_get (s, "groups"), i, g)
            for (int d = 0; d < DIR_COUNT; d++) {
                json_t *dj = json_object_get (g, dir_name (d));
                if (!html_has_ops (dj))
                    continue;
                char name[300];
                snprintf (name, sizeof name, "%s%s%s", str (g, "value"), named ? " " : "",
                          named ? dir_name (d) : "");
                html_percentile_series (c, name, dj);
            }
    else
        for (int d = 0; d < DIR_COUNT; d++) {
            json_t *dj = json_object_get (fleet, dir_name (d));
            char name[32];
            snprintf (name, sizeof name, "fleet%s%s", named ? " " : "", named ? dir_name (d) : "");
            if (html_has_ops (dj))
                html_percentile_series (c, name, dj);
        }
    svg_chart_write (c, f, "no I/O measured in this step");
    svg_chart_destroy (&c);
}

void
html_interval_charts (FILE *f, json_t *s)
{
    json_t *iv = json_object_get (s, "intervals");
    char t1[512], t2[512], b1[32], b2[32];
    snprintf (t1, sizeof t1, "Fleet IOPS per interval: %s", str (s, "name"));
    snprintf (t2, sizeof t2, "Fleet p99 per interval: %s", str (s, "name"));
    svg_chart_t *ci = svg_chart_new ("intervals-iops", t1, SVG_LINES);
    svg_chart_t *cl = svg_chart_new ("intervals-p99", t2, SVG_LINES);
    if (!ci || !cl) {
        svg_chart_destroy (&ci);
        svg_chart_destroy (&cl);
        return;
    }
    svg_chart_axis (ci, 'x', SVG_LINEAR, "time since the step's start", html_seconds);
    bool trims = html_has_ops (json_object_get (json_object_get (s, "fleet"), dir_name (DIR_TRIM)));
    svg_chart_axis (ci, 'y', SVG_LINEAR, trims ? "IOPS (read + write + trim)"
                                               : "IOPS (read + write)", fmt_iops);
    svg_chart_axis (cl, 'x', SVG_LINEAR, "time since the step's start", html_seconds);
    svg_chart_axis (cl, 'y', SVG_LINEAR, "p99 latency", fmt_lat);
    double t0 = num (s, "start_at");
    if (!isfinite (t0))
        t0 = num (json_array_get (iv, 0), "start_ns");
    json_t *w = json_object_get (s, "window");
    double wlo = NAN, whi = NAN;
    size_t i;
    json_t *x;
    svg_chart_series (ci, "fleet");
    /* The x of an interval: its end in s since the step's start, else seq + 1. */
#define XOF(x) (isfinite ((num (x, "end_ns") - t0) / 1e9) ? (num (x, "end_ns") - t0) / 1e9 \
                                                          : num (x, "seq") + 1)
    json_array_foreach (iv, i, x) {
        char tip[256];
        double iops = num (x, "iops");  /* over every direction: the controller's */
        double nag = isfinite (num (x, "agents")) ? num (x, "agents") : 0;
        snprintf (tip, sizeof tip, "interval %.0f (to %.1f s): %s IOPS, %s, %.0f %s",
                  Z (num (x, "seq")), Z (XOF (x)), html_iops (iops, b1, sizeof b1),
                  html_bw (num (x, "bw"), b2, sizeof b2), nag, plural ((long long) nag, "agent", "agents"));
        svg_chart_point (ci, XOF (x), iops, tip, 0);
        if (num (x, "seq") == num (w, "first_seq"))
            wlo = isfinite ((num (x, "start_ns") - t0) / 1e9) ? (num (x, "start_ns") - t0) / 1e9
                                                             : num (x, "seq");
        if (num (x, "seq") == num (w, "last_seq"))
            whi = XOF (x);
    }
    for (int d = 0; d < DIR_COUNT; d++) {
        const char *dn = dir_name (d);
        /* A direction any interval moved data in (the step's "fleet"
           comes at its end; the live page draws it before). */
        bool moved = false;
        json_array_foreach (iv, i, x)
            moved |= html_has_ops (json_object_get (x, dn));
        if (!moved)
            continue;
        char name[16];
        snprintf (name, sizeof name, "%s p99", dn);
        svg_chart_series (cl, name);
        json_array_foreach (iv, i, x) {
            json_t *dj = json_object_get (x, dn);
            if (!html_has_ops (dj))
                continue;
            char tip[256];
            snprintf (tip, sizeof tip, "interval %.0f: %s p99 %s, p50 %s", Z (num (x, "seq")), dn,
                      html_lat (num (dj, "p99"), b1, sizeof b1), html_lat (num (dj, "p50"), b2, sizeof b2));
            svg_chart_point (cl, XOF (x), num (dj, "p99"), tip, 0);
        }
    }
#undef XOF
    if (isfinite (wlo) && isfinite (whi) && json_array_size (iv) > 1) {
        svg_chart_vband (ci, wlo, whi, "measured window");
        svg_chart_vband (cl, wlo, whi, "measured window");
    }
    const char *why = json_array_size (iv) ? "no interval has I/O"
                      : "no per-interval data: an imported run, a failed step or data removed by gc";
    svg_chart_write (ci, f, why);
    svg_chart_write (cl, f, why);
    svg_chart_destroy (&ci);
    svg_chart_destroy (&cl);
}

/* Hosts x targets, coloured by each target's p99 against the median p99 of
   its group's targets ("group" on each target, with --by), else against
   the median of all targets of the step: the step's "heatmap" as the
   controller made it (controller/serve/html_figures.h). */
static void
heatmap (FILE *f, json_t *s)
{
    json_t *hm = json_object_get (s, "heatmap");
    const char *dn = json_string_value (json_object_get (hm, "direction"));
    if (!dn)
        dn = dir_name (DIR_READ);
    json_t *agents = json_object_get (s, "agents");
    size_t nr = json_array_size (agents), nc = 0, i, k;
    json_t *a, *t;
    json_t *colidx = json_object ();
    json_t *cols = json_array ();
    bool by_group = false;
    json_array_foreach (agents, i, a)
        json_array_foreach (json_object_get (a, "targets"), k, t) {
            const char *bn = html_base_name (str (t, "target"));
            if (!json_object_get (colidx, bn)) {
                json_object_set_new (colidx, bn, json_integer ((json_int_t) nc++));
                json_array_append_new (cols, json_string (bn));
            }
            by_group |= json_is_string (json_object_get (t, "group"));
        }
    const char *by = str (json_array_get (json_object_get (s, "groups"), 0), "by");
    char title[512];
    snprintf (title, sizeof title, "p99 (%s) per host and target against %s: %s", dn,
              by_group ? "its group's median" : "the step's median", str (s, "name"));
    if (!nr || !nc) {
        fputs ("<figure class=\"fig nodata\"><p><b>", f);
        esc (f, title);
        fputs (":</b> no data (no agent reported targets in this step).</p></figure>\n", f);
        json_decref (colidx);
        json_decref (cols);
        return;
    }
    double *v = malloc (nr * nc * sizeof *v), *refs = malloc (nr * nc * sizeof *refs);
    char **tips = calloc (nr * nc, sizeof *tips), **rows = calloc (nr, sizeof *rows);
    char **groups = calloc (nr * nc, sizeof *groups);
    const char **colv = calloc (nc, sizeof *colv);
    if (!v || !refs || !tips || !groups || !rows || !colv)
        goto done;
    for (size_t c = 0; c < nr * nc; c++)
        v[c] = refs[c] = NAN;
    double step_med = num (hm, "median_p99");
    json_array_foreach (agents, i, a) {
        const char *host = str (a, "hostname"), *ag = str (a, "agent");
        char row[512];
        if (*host && strcmp (host, ag))
            snprintf (row, sizeof row, "%s/%s", host, ag);
        else
            snprintf (row, sizeof row, "%s", ag);
        rows[i] = strdup (row);
    }
    for (size_t r = 0; r < nr; r++)
        if (!rows[r])
            goto done;
    json_t *cell;
    json_array_foreach (json_object_get (hm, "cells"), k, cell) {
        i = (size_t) json_integer_value (json_object_get (cell, "agent"));
        t = json_array_get (json_object_get (json_array_get (agents, i), "targets"),
                            (size_t) json_integer_value (json_object_get (cell, "target")));
        if (!t)
            continue;
        double p99 = num (json_object_get (json_object_get (t, dn), "percentiles"), "p99");
        size_t c = (size_t) json_integer_value (json_object_get (colidx, html_base_name (str (t, "target"))));
        const char *g = json_string_value (json_object_get (cell, "group"));
        double med = num (cell, "median_p99"), dev = num (cell, "deviation_pct");
        char tip[1024], b1[32], b2[32], ref[320];
        if (g)
            snprintf (ref, sizeof ref, "median of group %s=%s", by, g);
        else
            snprintf (ref, sizeof ref, "median of the step's targets");
        snprintf (tip, sizeof tip, "%s %s: p99 %s, %s %s, %+.1f%%", rows[i], str (t, "target"),
                  html_lat (p99, b1, sizeof b1), ref, html_lat (med, b2, sizeof b2), dev);
        v[i * nc + c] = dev;
        refs[i * nc + c] = med;
        free (tips[i * nc + c]);
        tips[i * nc + c] = strdup (tip);
        free (groups[i * nc + c]);
        groups[i * nc + c] = g ? strdup (g) : NULL;
    }
    for (size_t c = 0; c < nc; c++)
        colv[c] = json_string_value (json_array_get (cols, c));
    char legend[400], b[32];
    if (by_group)
        snprintf (legend, sizeof legend, "p99 vs the median of its group (--by %.200s) (blue: "
                  "faster, red: slower; %% shown)", by);
    else
        snprintf (legend, sizeof legend, "p99 vs the step's median %s (no --by) (blue: faster, "
                  "red: slower; %% shown)", html_lat (step_med, b, sizeof b));
    svg_heatmap (f, "heatmap", title, nr, (const char *const *) rows, nc, colv, v,
                 (const char *const *) tips, (const char *const *) groups, refs,
                 HEATMAP_CLAMP_PCT, "%", legend);
done:
    for (size_t c = 0; c < nr * nc; c++) {
        if (tips)
            free (tips[c]);
        if (groups)
            free (groups[c]);
    }
    if (rows)
        for (size_t r = 0; r < nr; r++)
            free (rows[r]);
    free (tips);
    free (groups);
    free (rows);
    free (colv);
    free (v);
    free (refs);
    json_decref (colidx);
    json_decref (cols);
}

void
html_step_charts (FILE *f, json_t *s)
{
    percentile_chart (f, s);
    html_interval_charts (f, s);
    heatmap (f, s);
}

void
html_wsat_charts (FILE *f, const char *step, json_t *const *sides, const char *const *names,
                  int n)
{
    char title[256];
    snprintf (title, sizeof title, "IOPS per drive over time: %s", step);
    svg_chart_t *ci = svg_chart_new ("wsat-iops", title, SVG_LINES);
    snprintf (title, sizeof title, "p99 of the writes over time: %s", step);
    svg_chart_t *cl = svg_chart_new ("wsat-p99", title, SVG_LINES);
    if (ci && cl) {
        svg_chart_axis (ci, 'x', SVG_LINEAR, "seconds", NULL);
        svg_chart_axis (ci, 'y', SVG_LINEAR, "IOPS per drive", html_iops);
        svg_chart_axis (cl, 'x', SVG_LINEAR, "seconds", NULL);
        svg_chart_axis (cl, 'y', SVG_LOG10, "p99 latency", html_lat);
        for (int k = 0; k < n; k++) {
            svg_chart_series (ci, names[k]);
            svg_chart_series (cl, names[k]);
            size_t i;
            json_t *p;
            json_array_foreach (sides[k], i, p) {
                char tip[192], b1[32], b2[32];
                snprintf (tip, sizeof tip, "%s%s%.0f s: %s IOPS per drive, p99 %s", n > 1
                          ? names[k] : "", n > 1 ? " " : "", num (p, "t_s"),
                          html_iops (num (p, "iops_per_drive"), b1, sizeof b1),
                          html_lat (num (p, "p99"), b2, sizeof b2));
                svg_chart_point (ci, num (p, "t_s"), num (p, "iops_per_drive"), tip, 0);
                svg_chart_point (cl, num (p, "t_s"), num (p, "p99"), tip, 0);
            }
        }
        svg_chart_write (ci, f, "no interval");
        svg_chart_write (cl, f, "no interval");
    }
    svg_chart_destroy (&ci);
    svg_chart_destroy (&cl);
}
