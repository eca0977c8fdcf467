/*  pts_print.c: iofleet report --template pts as text: the controller's
    PTS report (controller/templates/pts.h): the steady state of each drive, then
    the test matrix (block size x read/write mix) of the fleet's mean per
    drive over the measurement windows: IOPS, mean latency, bandwidth.
    Every figure is the controller's; this file only lays them out. */
#include "cli.h"
#include "pts_matrix.h"
#define JSON_GET_SHORT     /* num () and str () */
#include "json_get.h"
#include "util.h"


#include <math.h>
#include <string.h>

/* One matrix of the fleet's cells, laid out as the controller says
   (matrix.rows: block sizes, matrix.columns: mixes). */
static void
matrix (FILE *f, json_t *q, const char *title, const char *key)
{
    json_t *m = json_object_get (q, "matrix");
    size_t r, k;
    json_t *row, *col;
    fprintf (f, "\n%s\n  %-6s", title, "BS");
    json_array_foreach (json_object_get (m, "columns"), k, col)
        fprintf (f, " %10s", json_string_value (col));
    fputc ('\n', f);
    json_array_foreach (json_object_get (m, "rows"), r, row) {
        char b[16];
        fprintf (f, "  %-6s", fmt_size_option ((uint64_t) json_number_value (row), b, sizeof b));
        json_array_foreach (json_object_get (m, "columns"), k, col) {
            char v[32] = "-";
            json_t *c = pts_cell (q, row, col);
            if (c && isfinite (num (c, key))) {
                if (!strcmp (key, "iops"))
                    fmt_iops (num (c, key), v, sizeof v);
                else if (!strcmp (key, "mean"))
                    fmt_lat (num (c, key), v, sizeof v);
                else
                    snprintf (v, sizeof v, "%.1f", num (c, key) / (1 << 20));
            }
            fprintf (f, " %10s", v);
        }
        fputc ('\n', f);
    }
}

/* The write-saturation curves: per step, the first and last minute and
   up to WSAT_ROWS intervals taken evenly. */
#define WSAT_ROWS 30
static void
wsat_print (FILE *f, json_t *ws)
{
    size_t i;
    json_t *w;
    json_array_foreach (ws, i, w) {
        json_t *pts = json_object_get (w, "intervals");
        size_t n = json_array_size (pts);
        char a[32], b[32];
        fprintf (f, "\nwrite saturation: %s on %.0f drive(s)", str (w, "step"), num (w, "drives"));
        if (isfinite (num (w, "change_pct")))
            fprintf (f, ": first minute %s IOPS per drive, last minute %s (%+.1f%%)",
                     fmt_iops (num (w, "first_minute_iops"), a, sizeof a),
                     fmt_iops (num (w, "last_minute_iops"), b, sizeof b), num (w, "change_pct"));
        fprintf (f, "\n  %8s %12s %10s %10s %14s\n", "T (S)", "IOPS/DRIVE", "MEAN", "P99",
                 "WRITTEN/DRIVE");
        size_t step = n > WSAT_ROWS ? (n + WSAT_ROWS - 1) / WSAT_ROWS : 1;
        for (size_t k = 0; k < n; k += step) {
            json_t *p = json_array_get (pts, k);
            char c[32] = "-", d[32] = "-", e[32];
            if (isfinite (num (p, "mean")))
                fmt_lat (num (p, "mean"), c, sizeof c);
            if (isfinite (num (p, "p99")))
                fmt_lat (num (p, "p99"), d, sizeof d);
            fmt_size ((uint64_t) num (p, "written_per_drive"), e, sizeof e);
            fprintf (f, "  %8.0f %12s %10s %10s %14s\n", num (p, "t_s"),
                     fmt_iops (num (p, "iops_per_drive"), a, sizeof a), c, d, e);
        }
    }
}

/* A tracked figure of verification v, as its metric reads. */
static const char *
figure_of (json_t *v, double x, char *buf, size_t cap)
{
    const char *m = str (v, "metric");
    if (!isfinite (x))
        return "-";
    return strcmp (m, "mean") == 0 ? fmt_lat (x, buf, cap)
         : strcmp (m, "bw") == 0 ? fmt_bw (x, buf, cap) : fmt_iops (x, buf, cap);
}

static const char *
figure (json_t *v, const char *key, char *buf, size_t cap)
{
    return figure_of (v, num (v, key), buf, cap);
}

void
pts_print (FILE *f, json_t *q)
{
    json_t *ro = json_object_get (q, "rounds"), *rule = json_object_get (ro, "steady_state");
    fprintf (f, "run %.0f: %s (%s), SNIA PTS report\n", num (q, "run"), str (q, "plan"),
             str (q, "status"));
    if (!json_is_object (ro)) {
        wsat_print (f, json_object_get (q, "write_saturation"));
        return;
    }
    fprintf (f, "rounds: %.0f run, at most %.0f", num (ro, "rounds_run"), num (ro, "rounds_max"));
    if (rule)
        fprintf (f, "; steady state of %s %s over %.0f rounds (range <= %g%%, slope excursion "
                 "<= %g%%): %.0f drive(s) steady, %.0f not\n", str (rule, "step"),
                 str (rule, "metric"), num (rule, "window"), num (rule, "range_pct"),
                 num (rule, "slope_pct"), num (ro, "steady"), num (ro, "not_steady"));
    else
        fputs ("; no steady_state=: every round is the measurement window\n", f);
    fprintf (f, "\n  %-16s %-36s %-12s %-14s %s\n", "AGENT", "TARGET", "STEADY", "WINDOW",
             rule ? "VERIFICATION (mean; range, excursion against the limits; the line)" : "");
    size_t i;
    json_t *d;
    json_array_foreach (json_object_get (q, "drives"), i, d) {
        json_t *w = json_object_get (d, "window"), *v = json_object_get (d, "verification");
        char win[32];
        snprintf (win, sizeof win, "rounds %.0f-%.0f", json_number_value (json_array_get (w, 0)),
                  json_number_value (json_array_get (w, 1)));
        fprintf (f, "  %-16s %-36s %-12s %-14s", str (d, "agent"), str (d, "target"),
                 json_is_true (json_object_get (d, "steady")) ? "yes" : rule ? "NOT STEADY" : "-",
                 win);
        if (v) {
            char a[32], b[32], c[32];
            json_t *fit = json_object_get (v, "fit");
            fprintf (f, " %s; range %.1f%% %s, excursion %.1f%% %s; line %s -> %s",
                     figure (v, "mean", a, sizeof a), num (v, "range_pct"),
                     json_is_true (json_object_get (v, "range_ok")) ? "ok" : "FAIL",
                     num (v, "excursion_pct"),
                     json_is_true (json_object_get (v, "slope_ok")) ? "ok" : "FAIL",
                     figure_of (v, json_number_value (json_array_get (fit, 0)), b, sizeof b),
                     figure_of (v, json_number_value (json_array_get (fit, 1)), c, sizeof c));
        }
        fputc ('\n', f);
    }
    fprintf (f, "\nthe fleet: %s\n", str (json_object_get (q, "fleet"), "of"));
    matrix (f, q, "IOPS (all directions), per drive", "iops");
    matrix (f, q, "mean completion latency", "mean");
    matrix (f, q, "bandwidth, MiB/s per drive", "bw");
    wsat_print (f, json_object_get (q, "write_saturation"));
}
