/*  html_pts.c: iofleet report --template pts --format html: the
    controller's PTS report (controller/templates/pts.h) as one self-contained page:
    each drive's steady state and window, its verification chart (the
    window's figures, line and bands), the test matrix (block size x
    mix) of the fleet's mean per drive as tables, and the write-saturation
    curves as charts.  Rendering only. */
#include "html_page.h"
#include "html_report.h"
#include "pts_matrix.h"

#include <errno.h>
#include <string.h>

/* One matrix of the fleet's cells, laid out as the controller says
   (matrix.rows: block sizes, matrix.columns: mixes). */
static void
matrix (FILE *f, json_t *q, const char *title, const char *key)
{
    json_t *m = json_object_get (q, "matrix");
    size_t r, k;
    json_t *row, *col;
    fprintf (f, "<h3>%s</h3>\n<table class=\"qual\" data-matrix=\"%s\"><thead><tr><th>bs</th>",
             title, key);
    json_array_foreach (json_object_get (m, "columns"), k, col) {
        fputs ("<th>", f);
        esc (f, json_string_value (col));
        fputs ("</th>", f);
    }
    fputs ("</tr></thead><tbody>\n", f);
    json_array_foreach (json_object_get (m, "rows"), r, row) {
        char b[32];
        fprintf (f, "<tr><td>%s</td>", html_bytes (json_number_value (row), b, sizeof b));
        json_array_foreach (json_object_get (m, "columns"), k, col) {
            char v[32] = DASH;
            json_t *c = pts_cell (q, row, col);
            if (c && isfinite (num (c, key))) {
                if (!strcmp (key, "iops"))
                    html_iops (num (c, key), v, sizeof v);
                else if (!strcmp (key, "mean"))
                    html_lat (num (c, key), v, sizeof v);
                else
                    html_bw (num (c, key), v, sizeof v);
            }
            fprintf (f, "<td>%s</td>", v);
        }
        fputs ("</tr>\n", f);
    }
    fputs ("</tbody></table>\n", f);
}

static void
wsat (FILE *f, json_t *ws)
{
    size_t i;
    json_t *w;
    json_array_foreach (ws, i, w) {
        char b1[32], b2[32];
        fputs ("<section class=\"wsat\"><h2>Write saturation: ", f);
        esc (f, str (w, "step"));
        fprintf (f, "</h2>\n<p>%.0f drive(s)", num (w, "drives"));
        if (isfinite (num (w, "change_pct")))
            fprintf (f, "; first minute %s IOPS per drive, last minute %s (%+.1f%%)",
                     html_iops (num (w, "first_minute_iops"), b1, sizeof b1),
                     html_iops (num (w, "last_minute_iops"), b2, sizeof b2),
                     num (w, "change_pct"));
        fputs (".</p>\n<div class=\"charts\">\n", f);
        json_t *iv = json_object_get (w, "intervals");
        const char *name = "IOPS per drive";
        html_wsat_charts (f, str (w, "step"), &iv, &name, 1);
        fputs ("</div></section>\n", f);
    }
}

#define VERIFY_CHARTS 8     /* drives drawn; the table above has them all */

/* svg_fmt_t of a verification's metric. */
static svg_fmt_t *
metric_fmt (const char *metric)
{
    return strcmp (metric, "mean") == 0 ? html_lat : strcmp (metric, "bw") == 0 ? html_bw
                                                                               : html_iops;
}

/* One drive's steady-state verification chart (the PTS's): the window's
   figures, their least-squares line, the mean and the two bands. */
static void
verify_chart (FILE *f, json_t *d)
{
    json_t *v = json_object_get (d, "verification");
    char title[256], tip[128], b1[32];
    snprintf (title, sizeof title, "%s %s: range %.1f%% %s, excursion %.1f%% %s",
              str (d, "agent"), html_base_name (str (d, "target")), num (v, "range_pct"),
              json_is_true (json_object_get (v, "range_ok")) ? "ok" : "FAIL",
              num (v, "excursion_pct"),
              json_is_true (json_object_get (v, "slope_ok")) ? "ok" : "FAIL");
    svg_chart_t *c = svg_chart_new ("pts-verify", title, SVG_LINES);
    if (!c)
        return;
    svg_fmt_t *fmt = metric_fmt (str (v, "metric"));
    svg_chart_axis (c, 'x', SVG_SPAN, "round", NULL);
    svg_chart_axis (c, 'y', SVG_SPAN, str (v, "metric"), fmt);
    svg_chart_series (c, str (v, "metric"));
    size_t k;
    json_t *r;
    json_t *vals = json_object_get (v, "values"), *rounds = json_object_get (v, "rounds");
    json_array_foreach (rounds, k, r) {
        double y = json_number_value (json_array_get (vals, k));
        snprintf (tip, sizeof tip, "round %.0f: %s", json_number_value (r),
                  fmt (y, b1, sizeof b1));
        svg_chart_point (c, json_number_value (r), y, tip, 0);
    }
    svg_chart_series (c, "least-squares line");
    json_t *fit = json_object_get (v, "fit");
    for (int e = 0; e < 2; e++) {
        double x = json_number_value (json_array_get (rounds, e ? json_array_size (rounds) - 1 : 0));
        double y = json_number_value (json_array_get (fit, (size_t) e));
        snprintf (tip, sizeof tip, "the line at round %.0f: %s", x, fmt (y, b1, sizeof b1));
        svg_chart_point (c, x, y, tip, 0);
    }
    static const char *const band[] = { "range_band", "slope_band" };
    static const char *const label[] = { "range band", "slope band" };
    svg_chart_hline (c, num (v, "mean"), "mean");
    for (int bnd = 0; bnd < 2; bnd++)
        for (int e = 0; e < 2; e++)
            svg_chart_hline (c, json_number_value (json_array_get (json_object_get (v, band[bnd]),
                                                                   (size_t) e)),
                             e ? label[bnd] : "");
    svg_chart_write (c, f, "no figures in the window");
    svg_chart_destroy (&c);
}

/* The verification charts: the drives not steady first, then the others,
   VERIFY_CHARTS of them. */
static void
verification (FILE *f, json_t *q)
{
    json_t *drives = json_object_get (q, "drives");
    size_t i, n = 0;
    json_t *d;
    json_array_foreach (drives, i, d)
        n += json_object_get (d, "verification") != NULL;
    if (!n)
        return;
    fprintf (f, "<section id=\"verification\"><h2>Steady-state verification</h2>\n<p>Per drive "
             "(%s), the tracked figure over its measurement window, the window's least-squares "
             "line and mean, and two bands around the mean: the range band, half the range limit "
             "each way (the "
             "PTS's 90%% and 110%% of the average; the rule itself is max - min within the range "
             "limit), and the slope band, half the slope limit each way, which the line's ends "
             "stay within "
             "exactly when the slope rule holds.</p>\n<div class=\"charts\">\n",
             n > VERIFY_CHARTS ? "the first 8, drives not steady first" : "every drive");
    int drawn = 0;
    for (int pass = 0; pass < 2; pass++)
        json_array_foreach (drives, i, d) {
            bool steady = json_is_true (json_object_get (d, "steady"));
            if (drawn == VERIFY_CHARTS || steady != (pass == 1)
                || !json_object_get (d, "verification"))
                continue;
            verify_chart (f, d);
            drawn++;
        }
    fputs ("</div></section>\n", f);
}

static void
html_pts (FILE *f, json_t *q)
{
    char title[512];
    snprintf (title, sizeof title, "iofleet run %.0f: %s, SNIA PTS report", num (q, "run"),
              str (q, "plan"));
    html_head (f, title);
    fputs ("<header><h1>", f);
    esc (f, title);
    fputs ("</h1><p class=\"meta\">iofleet PTS report, generated by iofleet " IOF_VERSION
           "; every figure computed by the controller</p></header>\n", f);
    json_t *ro = json_object_get (q, "rounds"), *rule = json_object_get (ro, "steady_state");
    if (json_is_object (ro)) {
        fprintf (f, "<section id=\"steady\"><h2>Steady state</h2>\n<p>%.0f round(s) run, at "
                 "most %.0f.", num (ro, "rounds_run"), num (ro, "rounds_max"));
        if (rule) {
            fputs (" Tracked: ", f);
            esc (f, str (rule, "step"));
            fprintf (f, " %s over %.0f rounds (range within %g%%, slope excursion within %g%%): "
                     "%.0f drive(s) steady, %.0f not.", str (rule, "metric"), num (rule, "window"),
                     num (rule, "range_pct"), num (rule, "slope_pct"), num (ro, "steady"),
                     num (ro, "not_steady"));
        }
        fputs ("</p>\n<table class=\"qual\"><thead><tr><th>Agent</th><th>Target</th>"
               "<th>Steady</th><th>Measurement window</th></tr></thead><tbody>\n", f);
        size_t i;
        json_t *d;
        json_array_foreach (json_object_get (q, "drives"), i, d) {
            bool steady = json_is_true (json_object_get (d, "steady"));
            json_t *w = json_object_get (d, "window");
            fputs (steady || !rule ? "<tr><td>" : "<tr class=\"bad\"><td>", f);
            esc (f, str (d, "agent"));
            fputs ("</td><td>", f);
            esc (f, str (d, "target"));
            fprintf (f, "</td><td>%s</td><td>rounds %.0f-%.0f</td></tr>\n",
                     steady ? "yes" : rule ? "not steady" : DASH,
                     json_number_value (json_array_get (w, 0)),
                     json_number_value (json_array_get (w, 1)));
        }
        fputs ("</tbody></table></section>\n", f);
        verification (f, q);
        fputs ("<section id=\"matrix\"><h2>The test matrix</h2>\n<p>", f);
        json_t *fleet = json_object_get (q, "fleet");
        esc (f, str (fleet, "of"));
        fputs (".</p>\n", f);
        matrix (f, q, "IOPS per drive (all directions)", "iops");
        matrix (f, q, "Mean completion latency", "mean");
        matrix (f, q, "Bandwidth per drive", "bw");
        fputs ("</section>\n", f);
    }
    wsat (f, json_object_get (q, "write_saturation"));
    html_footer (f);
}

int
html_pts_write (const char *path, json_t *q, char *err, size_t errlen)
{
    return html_write_doc (path, html_pts, q, err, errlen);
}
