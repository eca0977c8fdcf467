/*  html_report.c: the HTML form of reports and comparisons (html_report.h).

    One file, nothing fetched: the styles are inline, the charts are SVG
    written by svg.c (why not a charting library: see svg.h and the
    report's footer).  Every string from the report (step, agent, target
    and group names, messages, labels) comes from users or agents and goes
    through svg_esc.  A field that is missing (an imported run, a failed
    step, per-interval data removed by gc) is shown as a dash or as a chart
    that says it has no data: never as "nan".
*/
#include "html_report.h"
#include "json_get.h"
#include "outliers.h"
#include "compare.h"
#include "direction.h"
#include "svg.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DASH "&#8211;"
#define HEATMAP_CLAMP_PCT 50.0

static double
num (json_t *o, const char *key)
{
    return json_get_num (o, key);
}

/* 0 for what is not a number: figures that must print as a number. */
static double
Z (double v)
{
    return isfinite (v) ? v : 0;
}

static const char *
str (json_t *o, const char *key)
{
    return json_get_str_or (o, key, "");
}

#define esc svg_esc

/* Axis and cell formats: a dash for what is not a number. */
static const char *
f_lat (double v, char *buf, size_t cap)
{
    return isfinite (v) && v >= 0 ? fmt_lat (v, buf, cap) : (snprintf (buf, cap, DASH), buf);
}

static const char *
f_iops (double v, char *buf, size_t cap)
{
    return isfinite (v) && v >= 0 ? fmt_iops (v, buf, cap) : (snprintf (buf, cap, DASH), buf);
}

static const char *
f_bw (double v, char *buf, size_t cap)
{
    return isfinite (v) && v >= 0 ? fmt_bw (v, buf, cap) : (snprintf (buf, cap, DASH), buf);
}

static const char *
f_mib (double v, char *buf, size_t cap)
{
    if (isfinite (v) && v >= 0)
        snprintf (buf, cap, "%.1f", v / (1 << 20));
    else
        snprintf (buf, cap, DASH);
    return buf;
}

static const char *
f_pct (double v, char *buf, size_t cap)
{
    if (isfinite (v))
        snprintf (buf, cap, "%+.1f%%", v);
    else
        snprintf (buf, cap, DASH);
    return buf;
}

/* A run id, "?" when the report has none. */
static const char *
run_id (json_t *rep, char *buf, size_t cap)
{
    double v = num (rep, "run");
    if (isfinite (v))
        snprintf (buf, cap, "%.0f", v);
    else
        snprintf (buf, cap, "?");
    return buf;
}

static const char *
f_axis_pct (double v, char *buf, size_t cap)
{
    snprintf (buf, cap, "%+g%%", v);
    return buf;
}

static const char *
f_seconds (double v, char *buf, size_t cap)
{
    snprintf (buf, cap, "%g s", v);
    return buf;
}

static const char *
f_ns_time (double ns, char *buf, size_t cap)
{
    if (!isfinite (ns) || ns <= 0) {
        snprintf (buf, cap, DASH);
        return buf;
    }
    time_t t = (time_t) (ns / 1e9);
    struct tm tm;
    if (!gmtime_r (&t, &tm) || !strftime (buf, cap, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf (buf, cap, DASH);
    return buf;
}

static const char *
fmt_bytes (double b, char *buf, size_t cap)
{
    if (!isfinite (b))
        snprintf (buf, cap, "?");
    else if (b >= 1 << 20 && (long long) b % (1 << 20) == 0)
        snprintf (buf, cap, "%.0fm", b / (1 << 20));
    else if (b >= 1024 && (long long) b % 1024 == 0)
        snprintf (buf, cap, "%.0fk", b / 1024);
    else
        snprintf (buf, cap, "%.0f", b);
    return buf;
}

/* The last path component: a drive or file name the same on every host. */
static const char *
base_name (const char *path)
{
    const char *s = strrchr (path, '/');
    return s && s[1] ? s + 1 : path;
}

/* Does the step carry groups made with --by (not the one "all" group)? */
static bool
grouped (json_t *s)
{
    json_t *g = json_object_get (s, "groups");
    return json_array_size (g) > 1
           || (json_array_size (g) == 1 && strcmp (str (json_array_get (g, 0), "by"), "all") != 0);
}

static bool
has_ops (json_t *d)
{
    return num (d, "ops") > 0;
}

static const char s_css[] =
":root{color-scheme:light}\n"
"body{font:14px/1.45 \"DejaVu Sans\",\"Liberation Sans\",Arial,sans-serif;color:#111;"
"background:#fff;margin:0 auto;max-width:1340px;padding:16px 24px}\n"
"h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;border-bottom:2px solid #111;"
"padding-bottom:2px;margin:30px 0 8px}h3{font-size:15px;margin:18px 0 6px}\n"
"p.meta,.muted{color:#555}\n"
"table{border-collapse:collapse;margin:8px 0 12px;font-variant-numeric:tabular-nums}\n"
"th,td{border:1px solid #bbb;padding:3px 8px;text-align:right;white-space:nowrap;"
"vertical-align:top}\n"
"th{background:#eee}td.l,th.l{text-align:left;white-space:normal}\n"
"tr.fleet td{font-weight:bold;border-top:2px solid #555}\n"
".pass{color:#116329;font-weight:bold}.fail{color:#b2182b;font-weight:bold}\n"
".badge{display:inline-block;border:2px solid currentColor;border-radius:4px;"
"padding:0 8px;font-weight:bold}\n"
"tr.regression td{background:#fde0dc;font-weight:bold}"
"tr.regression td:first-child{border-left:5px solid #b2182b}\n"
"tr.better td:first-child{border-left:5px solid #2166ac}\n"
"dl.kv{display:grid;grid-template-columns:max-content auto;gap:2px 16px;margin:8px 0}"
"dl.kv dt{font-weight:bold}dl.kv dd{margin:0}\n"
".charts{display:flex;flex-wrap:wrap;gap:14px;margin:8px 0}\n"
"figure.fig{margin:0;flex:0 1 600px;max-width:100%}\n"
"figure.fig svg{width:100%;height:auto;border:1px solid #ddd;background:#fff}\n"
"figure.nodata p{border:1px dashed #999;padding:10px;color:#444;margin:0}\n"
"svg text{font:11px \"DejaVu Sans\",Arial,sans-serif;fill:#111}"
"svg .title{font-size:13px;font-weight:bold}svg .axis{font-size:11px;fill:#333}"
"svg .tick{font-size:10px;fill:#333}svg .note{font-size:10px;font-style:italic}"
"svg .cellv{font-size:10px}\n"
"svg .grid{stroke:#e2e2e2;stroke-width:1}svg .frame{fill:none;stroke:#333}"
"svg .zero{stroke:#000;stroke-width:1.2}svg .band{fill:#efefef}"
"svg .limit{stroke:#b2182b;stroke-width:1.5;stroke-dasharray:7 4}"
"svg .mark{fill:none;stroke:#000;stroke-width:1.6}"
"svg .empty{fill:#f7f7f7;stroke:#ddd}svg .cell{stroke:#999;stroke-width:.5}\n"
"nav ol{columns:3;margin:4px 0}\n"
"ul.lint li,ul.problems li{margin:2px 0}\n"
"footer{margin-top:36px;border-top:1px solid #999;padding-top:8px;color:#444;font-size:12px}\n"
"@page{size:A4;margin:12mm}\n"
"@media print{body{max-width:none;padding:0;font-size:9.5pt}"
"nav{display:none}"
"section.step{break-before:page;page-break-before:always}"
"figure.fig,tr,dl.kv{break-inside:avoid;page-break-inside:avoid}"
"thead{display:table-header-group}"
"h2,h3{break-after:avoid;page-break-after:avoid}"
"figure.fig{flex-basis:48%}figure.fig svg{border:none}"
"a{color:inherit;text-decoration:none}"
"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

static void
head (FILE *f, const char *title)
{
    fputs ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta name=\"generator\" content=\"iofleet " IOF_VERSION "\">\n<title>", f);
    esc (f, title);
    fprintf (f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", s_css);
}

static void
footer (FILE *f)
{
    fputs ("<footer><p>Written by iofleet " IOF_VERSION ". This file is self-contained: no "
           "script, no font, no style sheet and no image is fetched from anywhere. The charts "
           "are inline SVG that iofleet writes itself rather than drawn by a charting library: "
           "no dependency to build or ship, no JavaScript to run, they print sharp (as vectors, "
           "told apart by dash and marker shape as well as colour), and two reports can be "
           "compared with diff. Hover a point for its value.</p></footer>\n</body>\n</html>\n",
           f);
}

/* "randread bs=4k iodepth=1 numjobs=1, 4 s" */
static void
workload (FILE *f, json_t *job)
{
    char bs[16];
    if (!job) {
        fputs ("<span class=\"muted\">job not recorded</span>", f);
        return;
    }
    esc (f, str (job, "rw"));
    fprintf (f, " bs=%s", fmt_bytes (num (job, "bs"), bs, sizeof bs));
    if (isfinite (num (job, "iodepth")))
        fprintf (f, " iodepth=%.0f", num (job, "iodepth"));
    if (isfinite (num (job, "numjobs")))
        fprintf (f, " numjobs=%.0f", num (job, "numjobs"));
    if ((!strcmp (str (job, "rw"), "randrw") || !strcmp (str (job, "rw"), "rw"))
        && isfinite (num (job, "rwmixread")))
        fprintf (f, " rwmixread=%.0f", num (job, "rwmixread"));
    if (num (job, "runtime_ns") > 0)
        fprintf (f, ", %.0f s", num (job, "runtime_ns") / 1e9);
}

static void
verdict_badge (FILE *f, const char *v)
{
    if (!strcmp (v, "pass"))
        fputs ("<span class=\"badge pass\">PASS</span>", f);
    else if (!strcmp (v, "fail"))
        fputs ("<span class=\"badge fail\">FAIL</span>", f);
    else if (*v) {
        fputs ("<span class=\"badge\">", f);
        esc (f, v);
        fputs ("</span>", f);
    } else
        fputs (DASH, f);
}

static void
status_cell (FILE *f, const char *status)
{
    bool good = !strcmp (status, "complete") || !strcmp (status, "done");
    fprintf (f, "<span class=\"%s\">", good ? "pass" : *status ? "fail" : "muted");
    esc (f, *status ? status : "unknown");
    fputs ("</span>", f);
}

/* ---- summary ---- */

static void
missing_list (FILE *f, json_t *miss)
{
    size_t k = 0, nm = json_array_size (miss), shown = 0;
    while (k < nm && shown < 20) {
        long long lo = (long long) json_integer_value (json_array_get (miss, k)), hi = lo;
        while (k + 1 < nm && json_integer_value (json_array_get (miss, k + 1)) == hi + 1)
            hi = (long long) json_integer_value (json_array_get (miss, ++k));
        k++;
        fprintf (f, hi > lo ? "%s%lld-%lld" : "%s%lld", shown++ ? ", " : "", lo, hi);
    }
    if (k < nm)
        fputs (", ...", f);
}

/* Agents of step s that need a reader's attention, as <li>.  Returns how many. */
static int
step_problems (FILE *f, json_t *s)
{
    int n = 0;
    size_t j;
    json_t *a;
    json_array_foreach (json_object_get (s, "agents"), j, a) {
        const char *status = str (a, "status");
        if (strcmp (status, "done") != 0 || str (a, "message")[0]) {
            fputs ("<li><b>", f);
            esc (f, str (a, "agent"));
            fputs ("</b>: ", f);
            esc (f, *status ? status : "no status");
            if (str (a, "message")[0]) {
                fputs (": ", f);
                esc (f, str (a, "message"));
            }
            fputs ("</li>\n", f);
            n++;
        }
        if (json_is_true (json_object_get (a, "incomplete")) && strcmp (status, "refused") != 0) {
            fputs ("<li><b>", f);
            esc (f, str (a, "agent"));
            fprintf (f, "</b> INCOMPLETE: missing %s ",
                     plural ((long long) json_array_size (json_object_get (a, "missing_intervals")),
                             "interval", "intervals"));
            missing_list (f, json_object_get (a, "missing_intervals"));
            if (isfinite (num (a, "intervals_expected")))
                fprintf (f, " of 0-%.0f", num (a, "intervals_expected") - 1);
            fputs ("; its other intervals are counted</li>\n", f);
            n++;
        }
        if (num (a, "spool_dropped") > 0) {
            fputs ("<li><b>", f);
            esc (f, str (a, "agent"));
            fprintf (f, "</b>: spool overflowed, %.0f %s let go before the controller "
                     "acknowledged them</li>\n", num (a, "spool_dropped"),
                     plural ((long long) num (a, "spool_dropped"), "snapshot", "snapshots"));
            n++;
        }
    }
    json_array_foreach (json_object_get (s, "outside_window"), j, a) {
        if (!strcmp (str (a, "status"), "refused"))
            continue;           /* named once above, with its reason */
        fputs ("<li><b>", f);
        esc (f, json_is_string (a) ? json_string_value (a) : str (a, "agent"));
        fputs ("</b> is outside the measured window (refused, lost or late)</li>\n", f);
        n++;
    }
    return n;
}

static void
fleet_p99 (FILE *f, json_t *s)
{
    json_t *fleet = json_object_get (s, "fleet");
    int shown = 0;
    for (int d = 0; d < DIR_COUNT; d++) {
        json_t *x = json_object_get (fleet, dir_name (d));
        if (!has_ops (x))
            continue;
        char b[32];
        /* R, W, T: the direction's initial. */
        fprintf (f, "%s%c %s", shown++ ? "<br>" : "", dir_name (d)[0] - 'a' + 'A',
                 f_lat (num (json_object_get (x, "percentiles"), "p99"), b, sizeof b));
    }
    if (!shown)
        fputs (DASH, f);
}

static void
outliers_table (FILE *f, json_t *steps, json_t *only)
{
    size_t i, k;
    json_t *s, *o;
    int n = 0;
    json_array_foreach (steps, i, s) {
        if (only && s != only)
            continue;
        json_array_foreach (json_object_get (s, "outliers"), k, o) {
            if (!n++)
                fputs ("<table class=\"outliers\"><thead><tr><th class=\"l\">step</th>"
                       "<th class=\"l\">group</th><th class=\"l\">agent</th>"
                       "<th class=\"l\">target</th><th>metric</th><th>value</th>"
                       "<th>group median</th><th>deviation</th></tr></thead><tbody>\n", f);
            const char *metric = str (o, "metric");
            bool lat = metric[0] == 'p';
            char v[32], m[32], d[32];
            fputs ("<tr><td class=\"l\">", f);
            esc (f, str (s, "name"));
            fputs ("</td><td class=\"l\">", f);
            esc (f, str (o, "group"));
            fputs ("</td><td class=\"l\">", f);
            esc (f, str (o, "agent"));
            fputs ("</td><td class=\"l\">", f);
            if (json_is_string (json_object_get (o, "target")))
                esc (f, str (o, "target"));
            else
                fputs ("(host)", f);
            fputs ("</td><td>", f);
            esc (f, metric);
            fprintf (f, "</td><td>%s</td><td>%s</td><td class=\"fail\">%s</td></tr>\n",
                     lat ? f_lat (num (o, "value"), v, sizeof v) : f_iops (num (o, "value"), v, sizeof v),
                     lat ? f_lat (num (o, "group_median"), m, sizeof m)
                         : f_iops (num (o, "group_median"), m, sizeof m),
                     f_pct (num (o, "deviation_pct"), d, sizeof d));
        }
    }
    if (n)
        fputs ("</tbody></table>\n", f);
    else if (!only)
        fprintf (f, "<p>No outliers: no target or agent stands out of its group (|z| &gt; %g "
                 "and more than %g%% off the median).</p>\n", OUTLIER_Z, OUTLIER_PCT);
}

static void
summary (FILE *f, json_t *rep)
{
    json_t *steps = json_object_get (rep, "steps");
    char b[64];
    fputs ("<section id=\"summary\"><h2>Summary</h2>\n<dl class=\"kv\">", f);
    fprintf (f, "<dt>Run</dt><dd>%s</dd><dt>Plan</dt><dd>", run_id (rep, b, sizeof b));
    esc (f, str (rep, "plan"));
    if (isfinite (num (rep, "plan_version")))
        fprintf (f, " v%.0f", num (rep, "plan_version"));
    fputs ("</dd><dt>Status</dt><dd>", f);
    status_cell (f, str (rep, "status"));
    fputs ("</dd><dt>SLA verdict</dt><dd>", f);
    verdict_badge (f, str (rep, "verdict"));
    if (!strcmp (str (rep, "verdict"), "none"))
        fputs (" (the plan sets no iofleet_sla)", f);
    fputs ("</dd>", f);
    if (str (rep, "origin")[0]) {
        fputs ("<dt>Origin</dt><dd>", f);
        esc (f, str (rep, "origin"));
        fputs ("</dd>", f);
    }
    fprintf (f, "<dt>Started</dt><dd>%s</dd>", f_ns_time (num (rep, "started_at"), b, sizeof b));
    fprintf (f, "<dt>Finished</dt><dd>%s", f_ns_time (num (rep, "finished_at"), b, sizeof b));
    double dur = (num (rep, "finished_at") - num (rep, "started_at")) / 1e9;
    if (isfinite (dur) && dur >= 0)
        fprintf (f, " (%.1f s)", dur);
    fputs ("</dd>", f);
    json_t *labels = json_object_get (rep, "labels");
    if (json_object_size (labels)) {
        const char *k;
        json_t *v;
        int n = 0;
        fputs ("<dt>Labels</dt><dd>", f);
        json_object_foreach (labels, k, v) {
            fputs (n++ ? ", " : "", f);
            esc (f, k);
            fputs ("=", f);
            esc (f, json_is_string (v) ? json_string_value (v) : "?");
        }
        fputs ("</dd>", f);
    }
    json_t *s0 = json_array_get (steps, 0);
    json_t *where = json_object_get (rep, "where");
    if (json_array_size (where)) {
        size_t wi;
        json_t *w;
        fputs ("<dt>Selection</dt><dd>", f);
        json_array_foreach (where, wi, w) {
            fputs (wi ? " " : "", f);
            fputs ("--where ", f);
            esc (f, json_is_string (w) ? json_string_value (w) : "?");
        }
        json_t *sel = json_object_get (s0, "selected");
        if (sel)
            fprintf (f, " (step 1: %.0f of %.0f agents, %.0f of %.0f targets)",
                     num (sel, "agents"), num (sel, "agents_of"), num (sel, "targets"),
                     num (sel, "targets_of"));
        fputs (": every figure is of the selected targets only</dd>", f);
    }
    if (grouped (s0)) {
        fputs ("<dt>Grouped by</dt><dd>", f);
        esc (f, str (json_array_get (json_object_get (s0, "groups"), 0), "by"));
        fprintf (f, " (%zu groups)</dd>", json_array_size (json_object_get (s0, "groups")));
    }
    if (str (rep, "message")[0]) {
        fputs ("<dt>Message</dt><dd>", f);
        esc (f, str (rep, "message"));
        fputs ("</dd>", f);
    }
    if (json_object_get (rep, "intervals_dropped_at"))
        fputs ("<dt>Note</dt><dd>per-interval data was removed by iofleet gc: results and "
               "histograms are whole; per-second series, missing intervals and significance "
               "are not</dd>", f);
    fputs ("</dl>\n", f);

    if (!json_array_size (steps)) {
        fputs ("<p>This run has no steps with results.</p></section>\n", f);
        return;
    }
    fputs ("<table class=\"steps\"><thead><tr><th>#</th><th class=\"l\">step</th>"
           "<th class=\"l\">workload</th><th class=\"l\">status</th><th class=\"l\">SLA</th>"
           "<th>fleet IOPS</th><th>fleet p99</th><th>outliers</th>"
           "<th class=\"l\">agents refused or incomplete</th></tr></thead><tbody>\n", f);
    size_t i, k;
    json_t *s, *x;
    json_array_foreach (steps, i, s) {
        json_t *fleet = json_object_get (s, "fleet");
        double iops = 0;
        bool any = false;
        for (int d = 0; d < DIR_COUNT; d++) {
            json_t *dj = json_object_get (fleet, dir_name (d));
            if (isfinite (num (dj, "iops")))
                iops += num (dj, "iops"), any = true;
        }
        fprintf (f, "<tr><td>%zu</td><td class=\"l\"><a href=\"#step-%zu\">", i + 1, i);
        esc (f, str (s, "name"));
        fputs ("</a></td><td class=\"l\">", f);
        workload (f, json_object_get (s, "job"));
        fputs ("</td><td class=\"l\">", f);
        status_cell (f, str (s, "status"));
        fputs ("</td><td class=\"l\">", f);
        json_t *sla = json_object_get (s, "sla");
        if (sla)
            verdict_badge (f, str (sla, "verdict"));
        else
            fputs (DASH, f);
        fprintf (f, "</td><td>%s</td><td>", any ? f_iops (iops, b, sizeof b) : DASH);
        fleet_p99 (f, s);
        size_t no = json_array_size (json_object_get (s, "outliers"));
        fprintf (f, "</td><td%s>%zu</td><td class=\"l\">", no ? " class=\"fail\"" : "", no);
        /* Refused (measured nothing) and incomplete (missing intervals)
           are different things: each is named as what it is. */
        int n = 0, nr = 0;
        json_array_foreach (json_object_get (s, "refused_agents"), k, x) {
            fputs (nr++ ? ", " : "refused: ", f);
            esc (f, json_is_string (x) ? json_string_value (x) : str (x, "agent"));
        }
        json_array_foreach (json_object_get (s, "incomplete_agents"), k, x) {
            fputs (n++ ? ", " : nr ? "; incomplete: " : "incomplete: ", f);
            esc (f, json_is_string (x) ? json_string_value (x) : str (x, "agent"));
        }
        fputs (n + nr ? "</td></tr>\n" : "none</td></tr>\n", f);
    }
    fputs ("</tbody></table>\n<h3>Outliers</h3>\n", f);
    outliers_table (f, steps, NULL);
    fputs ("<h3>Agents that need attention</h3>\n<ul class=\"problems\">\n", f);
    int np = 0;
    json_array_foreach (steps, i, s) {
        int n = 0;
        /* Each step's problems under its name. */
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream (&buf, &len);
        if (m) {
            n = step_problems (m, s);
            fclose (m);
        }
        if (n) {
            fputs ("<li>step ", f);
            esc (f, str (s, "name"));
            fprintf (f, ":<ul>%s</ul></li>\n", buf);
        }
        free (buf);
        np += n;
    }
    if (!np)
        fputs ("<li>none: every agent finished every step, no interval is missing</li>\n", f);
    fputs ("</ul>\n", f);
    /* Tuning lint, once per distinct line. */
    json_t *seen = json_object ();
    json_array_foreach (steps, i, s)
        json_array_foreach (json_object_get (s, "lint"), k, x)
            if (json_is_string (x))
                json_object_set_new (seen, json_string_value (x), json_true ());
    fputs ("<h3>Tuning lint</h3>\n", f);
    if (json_object_size (seen)) {
        const char *line;
        json_t *v;
        fputs ("<ul class=\"lint\">\n", f);
        json_object_foreach (seen, line, v) {
            fputs ("<li>", f);
            esc (f, line);
            fputs ("</li>\n", f);
        }
        fputs ("</ul>\n", f);
    } else
        fputs ("<p>No tuning lint for the targets and jobs of this run.</p>\n", f);
    json_decref (seen);
    fputs ("</section>\n", f);
}

/* ---- queue-depth curves ---- */

/* The (sweep, rw, bs) of a curve: the key that its groups' curves share. */
static void
sweep_key (json_t *sw, char *buf, size_t cap)
{
    snprintf (buf, cap, "%s\x1f%s\x1f%.0f", str (sw, "sweep"), str (sw, "rw"), num (sw, "bs"));
}

static void
sweeps (FILE *f, json_t *rep)
{
    json_t *all = json_object_get (rep, "sweeps");
    if (!json_array_size (all))
        return;
    /* The knee's rule is the controller's (report.c), said with each curve. */
    fputs ("<section id=\"sweeps\"><h2>Queue-depth curves</h2>\n<p>IOPS and p99 against "
           "iodepth for each swept job (iodepth on a log-2 scale). A ring marks the knee (", f);
    esc (f, str (json_array_get (all, 0), "knee_rule"));
    fputs (") and the SLA capacity (the highest IOPS among the depths whose latency meets the "
           "SLA); a point with a heavy outline misses the SLA's latency conditions.</p>\n", f);
    json_t *done = json_object ();
    size_t i, j, k;
    json_t *sw, *o, *p;
    json_array_foreach (all, i, sw) {
        char key[512], b1[32], b2[32], b3[32];
        sweep_key (sw, key, sizeof key);
        if (json_object_get (done, key))
            continue;
        json_object_set_new (done, key, json_true ());
        /* The curves of this key: the groups' when there are, else the fleet's. */
        json_t *cur = json_array ();
        bool by_group = false;
        json_array_foreach (all, j, o) {
            char k2[512];
            sweep_key (o, k2, sizeof k2);
            if (!strcmp (k2, key) && json_object_get (o, "group"))
                by_group = true;
        }
        json_array_foreach (all, j, o) {
            char k2[512];
            sweep_key (o, k2, sizeof k2);
            if (!strcmp (k2, key) && (json_object_get (o, "group") != NULL) == by_group)
                json_array_append (cur, o);
        }
        char title[600];
        snprintf (title, sizeof title, "%s (%s bs=%s)", str (sw, "sweep"), str (sw, "rw"),
                  fmt_bytes (num (sw, "bs"), b1, sizeof b1));
        fputs ("<h3>", f);
        esc (f, title);
        fputs ("</h3>\n<div class=\"charts\">\n", f);
        char t1[700], t2[700];
        snprintf (t1, sizeof t1, "IOPS against iodepth: %s", title);
        snprintf (t2, sizeof t2, "p99 against iodepth: %s", title);
        svg_chart_t *ci = svg_chart_new ("sweep-iops", t1, SVG_LINES);
        svg_chart_t *cl = svg_chart_new ("sweep-p99", t2, SVG_LINES);
        if (!ci || !cl) {
            svg_chart_destroy (&ci);
            svg_chart_destroy (&cl);
            json_decref (cur);
            continue;
        }
        svg_chart_axis (ci, 'x', SVG_LOG2, "iodepth", NULL);
        svg_chart_axis (ci, 'y', SVG_LINEAR, "IOPS", fmt_iops);
        svg_chart_axis (cl, 'x', SVG_LOG2, "iodepth", NULL);
        svg_chart_axis (cl, 'y', SVG_LOG10, "p99 latency", fmt_lat);
        double limit = NAN;
        /* Marks, one per depth (curves of groups tend to share them). */
        double kd[2][32], ky[2][32];
        int kn[2][32], nk[2] = { 0, 0 };
        json_array_foreach (cur, j, o) {
            const char *name = by_group ? str (o, "group") : "fleet";
            svg_chart_series (ci, name);
            svg_chart_series (cl, name);
            json_array_foreach (json_object_get (o, "points"), k, p) {
                char tip[256];
                json_t *ok = json_object_get (p, "sla_latency_pass");
                int flags = json_is_false (ok) ? SVG_PT_ALERT : 0;
                snprintf (tip, sizeof tip, "%s iodepth %.0f: %s IOPS, p99 %s%s", name,
                          num (p, "iodepth"), f_iops (num (p, "iops"), b1, sizeof b1),
                          f_lat (num (p, "p99"), b2, sizeof b2),
                          !ok ? "" : json_is_true (ok) ? ", meets the SLA" : ", misses the SLA");
                svg_chart_point (ci, num (p, "iodepth"), num (p, "iops"), tip, flags);
                svg_chart_point (cl, num (p, "iodepth"), num (p, "p99"), tip, flags);
            }
            json_t *cap = json_object_get (o, "sla_capacity");
            if (isfinite (num (cap, "p99_limit")))
                limit = num (cap, "p99_limit");
            for (int m = 0; m < 2; m++) {
                double d = m ? num (cap, "iodepth") : num (o, "knee_iodepth");
                if (!isfinite (d) || (m && !isfinite (num (cap, "iops"))))
                    continue;
                double y = NAN;
                json_array_foreach (json_object_get (o, "points"), k, p)
                    if (num (p, "iodepth") == d)
                        y = num (p, "iops");
                int at = 0;
                while (at < nk[m] && kd[m][at] != d)
                    at++;
                if (at == nk[m]) {
                    if (nk[m] == 32)
                        continue;
                    kd[m][at] = d, ky[m][at] = y, kn[m][at] = 0, nk[m]++;
                }
                kn[m][at]++;
                if (isfinite (y) && !(ky[m][at] >= y))
                    ky[m][at] = y;
            }
        }
        for (int m = 0; m < 2; m++)
            for (int a = 0; a < nk[m]; a++) {
                char label[64];
                if (kn[m][a] > 1)
                    snprintf (label, sizeof label, "%s, QD%.0f (%d curves)", m ? "SLA capacity"
                              : "knee", kd[m][a], kn[m][a]);
                else
                    snprintf (label, sizeof label, "%s, QD%.0f", m ? "SLA capacity" : "knee",
                              kd[m][a]);
                svg_chart_mark (ci, kd[m][a], ky[m][a], label);
            }
        if (isfinite (limit)) {
            char label[64];
            snprintf (label, sizeof label, "p99 limit %s", f_lat (limit, b1, sizeof b1));
            svg_chart_hline (cl, limit, label);
        }
        svg_chart_write (ci, f, "the sweep has no points with IOPS");
        svg_chart_write (cl, f, "the sweep has no points with latency");
        svg_chart_destroy (&ci);
        svg_chart_destroy (&cl);
        fputs ("</div>\n<table><thead><tr><th class=\"l\">curve</th><th>knee</th>"
               "<th>SLA capacity</th><th>at iodepth</th><th>p99 there</th><th>p99 headroom</th>"
               "</tr></thead><tbody>\n", f);
        json_array_foreach (cur, j, o) {
            json_t *cap = json_object_get (o, "sla_capacity");
            fputs ("<tr><td class=\"l\">", f);
            esc (f, by_group ? str (o, "group") : "fleet");
            if (isfinite (num (o, "knee_iodepth")))
                fprintf (f, "</td><td>QD%.0f</td>", num (o, "knee_iodepth"));
            else
                fputs ("</td><td class=\"l\">none by the rule above</td>", f);
            if (isfinite (num (cap, "iops")))
                fprintf (f, "<td>%s IOPS</td><td>%.0f</td><td>%s</td><td>%s</td></tr>\n",
                         f_iops (num (cap, "iops"), b1, sizeof b1), Z (num (cap, "iodepth")),
                         f_lat (num (cap, "p99"), b2, sizeof b2),
                         isfinite (num (cap, "p99_headroom_pct"))
                             ? (snprintf (b3, sizeof b3, "%.0f%%", num (cap, "p99_headroom_pct")), b3)
                             : DASH);
            else if (json_is_object (cap)) {
                fputs ("<td colspan=\"4\" class=\"l\">none", f);
                if (str (cap, "note")[0]) {
                    fputs (": ", f);
                    esc (f, str (cap, "note"));
                }
                fputs ("</td></tr>\n", f);
            } else
                fputs ("<td colspan=\"4\" class=\"l\">no SLA on this job</td></tr>\n", f);
        }
        fputs ("</tbody></table>\n", f);
        json_decref (cur);
    }
    json_decref (done);
    fputs ("</section>\n", f);
}

/* ---- steps ---- */

/* The SLA cell of one target row: its failures in direction dir, if any. */
static void
sla_cell (FILE *f, json_t *sla, const char *agent, const char *target, const char *dir)
{
    if (!sla) {
        fputs ("<td>" DASH "</td>", f);
        return;
    }
    size_t i;
    json_t *x;
    int n = 0;
    json_array_foreach (json_object_get (sla, "failures"), i, x) {
        if (strcmp (str (x, "agent"), agent) || (target && strcmp (str (x, "target"), target))
            || (json_object_get (x, "direction") && strcmp (str (x, "direction"), dir)))
            continue;
        fputs (n++ ? ", " : "<td class=\"fail l\">FAIL ", f);
        esc (f, str (x, "condition"));
    }
    fputs (n ? "</td>" : "<td class=\"pass\">pass</td>", f);
}

/* One table row: who, target, direction, figures. */
static void
figures_row (FILE *f, const char *cls, const char *who, const char *target, const char *dir,
             json_t *d)
{
    json_t *lat = json_object_get (d, "lat_ns"), *p = json_object_get (d, "percentiles");
    char b[7][32];
    fprintf (f, "<tr%s%s%s><td class=\"l\">", cls ? " class=\"" : "", cls ? cls : "",
             cls ? "\"" : "");
    esc (f, who);
    fputs ("</td><td class=\"l\">", f);
    esc (f, target);
    fprintf (f, "</td><td class=\"l\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
             "<td>%s</td><td>%s</td><td>%s</td>", dir, f_iops (num (d, "iops"), b[0], 32),
             f_mib (num (d, "bw"), b[1], 32), f_lat (num (lat, "mean"), b[2], 32),
             f_lat (num (p, "p50"), b[3], 32), f_lat (num (p, "p99"), b[4], 32),
             f_lat (num (p, "p99.9"), b[5], 32), f_lat (num (lat, "max"), b[6], 32));
}

static void
step_table (FILE *f, json_t *s)
{
    json_t *sla = json_object_get (s, "sla");
    bool g = grouped (s);
    fputs ("<table class=\"figures\"><thead><tr>", f);
    fprintf (f, "<th class=\"l\">%s</th><th class=\"l\">%s</th>", g ? "group" : "agent",
             g ? "targets" : "target");
    fputs ("<th class=\"l\">dir</th><th>IOPS</th><th>MiB/s</th><th>mean</th><th>p50</th>"
           "<th>p99</th><th>p99.9</th><th>max</th><th class=\"l\">SLA</th></tr></thead>"
           "<tbody>\n", f);
    size_t i, k;
    json_t *x, *t;
    if (g)
        json_array_foreach (json_object_get (s, "groups"), i, x)
            for (int d = 0; d < DIR_COUNT; d++) {
                json_t *dj = json_object_get (x, dir_name (d));
                if (!has_ops (dj))
                    continue;
                char who[512], nt[32];
                snprintf (who, sizeof who, "%s=%s", str (x, "by"), str (x, "value"));
                snprintf (nt, sizeof nt, "%.0f merged", num (x, "targets"));
                figures_row (f, NULL, who, isfinite (num (x, "targets")) ? nt : "merged",
                             dir_name (d), dj);
                fputs ("<td>" DASH "</td></tr>\n", f);
            }
    else
        json_array_foreach (json_object_get (s, "agents"), i, x)
            json_array_foreach (json_object_get (x, "targets"), k, t)
                for (int d = 0; d < DIR_COUNT; d++) {
                    json_t *dj = json_object_get (t, dir_name (d));
                    if (!has_ops (dj))
                        continue;
                    const char *dir = dir_name (d);
                    figures_row (f, NULL, str (x, "agent"), str (t, "target"), dir, dj);
                    /* An SLA's latency rules do not judge trims (report.c). */
                    if (d == DIR_TRIM)
                        fputs ("<td>" DASH "</td>", f);
                    else
                        sla_cell (f, sla, str (x, "agent"), str (t, "target"), dir);
                    if (num (dj, "errors") > 0)
                        fprintf (f, "<td class=\"fail\">%.0f errors</td>", num (dj, "errors"));
                    fputs ("</tr>\n", f);
                }
    json_t *fleet = json_object_get (s, "fleet");
    int nf = 0;
    for (int d = 0; d < DIR_COUNT; d++) {
        json_t *dj = json_object_get (fleet, dir_name (d));
        if (!has_ops (dj))
            continue;
        char who[32];
        const char *dir = dir_name (d);
        snprintf (who, sizeof who, "FLEET (%.0f)", isfinite (num (dj, "agents")) ? num (dj, "agents") : 0);
        figures_row (f, "fleet", who, "merged histograms", dir, dj);
        int n = 0;
        json_array_foreach (json_object_get (sla, "fleet"), k, t) {
            if (json_object_get (t, "direction") && strcmp (str (t, "direction"), dir))
                continue;
            bool pass = json_is_true (json_object_get (t, "pass"));
            fprintf (f, "%s<span class=\"%s\">", n++ ? ", " : "<td class=\"l\">", pass ? "pass" : "fail");
            esc (f, str (t, "condition"));
            fputs (pass ? " ok</span>" : " FAIL</span>", f);
        }
        fputs (n ? "</td></tr>\n" : "<td>" DASH "</td></tr>\n", f);
        nf++;
    }
    if (!nf)
        fputs ("<tr><td class=\"l\" colspan=\"11\">no I/O measured in this step</td></tr>\n", f);
    fputs ("</tbody></table>\n", f);
}

/* The latency percentiles of one direction's figures as a series. */
static void
percentile_series (svg_chart_t *c, const char *name, json_t *d)
{
    static const char *key[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
    static const double at[] = { 50, 90, 99, 99.9, 99.99 };
    json_t *p = json_object_get (d, "percentiles");
    svg_chart_series (c, name);
    for (int i = 0; i < 5; i++) {
        char tip[320], b[32];
        snprintf (tip, sizeof tip, "%s %s: %s", name, key[i], f_lat (num (p, key[i]), b, sizeof b));
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
        ndirs += has_ops (json_object_get (fleet, dir_name (d)));
    bool named = ndirs > 1;
    size_t i;
    json_t *g;
    if (grouped (s))
        json_array_foreach (json_object_get (s, "groups"), i, g)
            for (int d = 0; d < DIR_COUNT; d++) {
                json_t *dj = json_object_get (g, dir_name (d));
                if (!has_ops (dj))
                    continue;
                char name[300];
                snprintf (name, sizeof name, "%s%s%s", str (g, "value"), named ? " " : "",
                          named ? dir_name (d) : "");
                percentile_series (c, name, dj);
            }
    else
        for (int d = 0; d < DIR_COUNT; d++) {
            json_t *dj = json_object_get (fleet, dir_name (d));
            char name[32];
            snprintf (name, sizeof name, "fleet%s%s", named ? " " : "", named ? dir_name (d) : "");
            if (has_ops (dj))
                percentile_series (c, name, dj);
        }
    svg_chart_write (c, f, "no I/O measured in this step");
    svg_chart_destroy (&c);
}

static void
interval_charts (FILE *f, json_t *s)
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
    svg_chart_axis (ci, 'x', SVG_LINEAR, "time since the step's start", f_seconds);
    bool trims = has_ops (json_object_get (json_object_get (s, "fleet"), dir_name (DIR_TRIM)));
    svg_chart_axis (ci, 'y', SVG_LINEAR, trims ? "IOPS (read + write + trim)"
                                               : "IOPS (read + write)", fmt_iops);
    svg_chart_axis (cl, 'x', SVG_LINEAR, "time since the step's start", f_seconds);
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
        double iops = num (x, "iops");
        if (!isfinite (iops)) {
            iops = num (json_object_get (x, "read"), "iops") + num (json_object_get (x, "write"), "iops");
            json_t *tx = json_object_get (x, dir_name (DIR_TRIM));
            if (tx)
                iops += num (tx, "iops");
        }
        double nag = isfinite (num (x, "agents")) ? num (x, "agents") : 0;
        snprintf (tip, sizeof tip, "interval %.0f (to %.1f s): %s IOPS, %s, %.0f %s",
                  Z (num (x, "seq")), Z (XOF (x)), f_iops (iops, b1, sizeof b1),
                  f_bw (num (x, "bw"), b2, sizeof b2), nag, plural ((long long) nag, "agent", "agents"));
        svg_chart_point (ci, XOF (x), iops, tip, 0);
        if (num (x, "seq") == num (w, "first_seq"))
            wlo = isfinite ((num (x, "start_ns") - t0) / 1e9) ? (num (x, "start_ns") - t0) / 1e9
                                                             : num (x, "seq");
        if (num (x, "seq") == num (w, "last_seq"))
            whi = XOF (x);
    }
    for (int d = 0; d < DIR_COUNT; d++) {
        const char *dn = dir_name (d);
        if (!has_ops (json_object_get (json_object_get (s, "fleet"), dn)))
            continue;
        char name[16];
        snprintf (name, sizeof name, "%s p99", dn);
        svg_chart_series (cl, name);
        json_array_foreach (iv, i, x) {
            json_t *dj = json_object_get (x, dn);
            if (!has_ops (dj))
                continue;
            char tip[256];
            snprintf (tip, sizeof tip, "interval %.0f: %s p99 %s, p50 %s", Z (num (x, "seq")), dn,
                      f_lat (num (dj, "p99"), b1, sizeof b1), f_lat (num (dj, "p50"), b2, sizeof b2));
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

static int
cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* The median of the p99 (direction dn) of the step's targets in group
   (NULL: of all of them).  NAN when none has one. */
static double
median_p99 (json_t *agents, const char *dn, const char *group)
{
    size_t i, k, n = 0, cap = 0;
    json_t *a, *t;
    json_array_foreach (agents, i, a)
        cap += json_array_size (json_object_get (a, "targets"));
    double *all = malloc ((cap + 1) * sizeof *all), med = NAN;
    if (!all)
        return NAN;
    json_array_foreach (agents, i, a)
        json_array_foreach (json_object_get (a, "targets"), k, t) {
            json_t *dj = json_object_get (t, dn);
            double p99 = num (json_object_get (dj, "percentiles"), "p99");
            if (group && strcmp (str (t, "group"), group))
                continue;
            if (has_ops (dj) && isfinite (p99) && p99 > 0)
                all[n++] = p99;
        }
    if (n) {
        qsort (all, n, sizeof *all, cmp_double);
        med = n % 2 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2;
    }
    free (all);
    return med;
}

/* Hosts x targets, coloured by each target's p99 against the median p99 of
   its group's targets ("group" on each target, with --by), else against
   the median of all targets of the step. */
static void
heatmap (FILE *f, json_t *s)
{
    json_t *fleet = json_object_get (s, "fleet");
    /* The first direction with ops (reads of a mixed step), else reads. */
    const char *dn = dir_name (DIR_READ);
    for (int d = DIR_COUNT - 1; d >= 0; d--)
        if (has_ops (json_object_get (fleet, dir_name (d))))
            dn = dir_name (d);
    json_t *agents = json_object_get (s, "agents");
    size_t nr = json_array_size (agents), nc = 0, i, k;
    json_t *a, *t;
    json_t *colidx = json_object ();
    json_t *cols = json_array ();
    bool by_group = false;
    json_array_foreach (agents, i, a)
        json_array_foreach (json_object_get (a, "targets"), k, t) {
            const char *bn = base_name (str (t, "target"));
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
    double step_med = median_p99 (agents, dn, NULL);
    json_array_foreach (agents, i, a) {
        const char *host = str (a, "hostname"), *ag = str (a, "agent");
        char row[512];
        if (*host && strcmp (host, ag))
            snprintf (row, sizeof row, "%s/%s", host, ag);
        else
            snprintf (row, sizeof row, "%s", ag);
        rows[i] = strdup (row);
        json_array_foreach (json_object_get (a, "targets"), k, t) {
            json_t *dj = json_object_get (t, dn);
            double p99 = num (json_object_get (dj, "percentiles"), "p99");
            size_t c = (size_t) json_integer_value (json_object_get (colidx, base_name (str (t, "target"))));
            const char *g = json_string_value (json_object_get (t, "group"));
            double med = g ? median_p99 (agents, dn, g) : step_med;
            if (!has_ops (dj) || !isfinite (p99) || p99 <= 0 || !(med > 0))
                continue;
            double dev = 100.0 * (p99 - med) / med;
            char tip[1024], b1[32], b2[32], ref[320];
            if (g)
                snprintf (ref, sizeof ref, "median of group %s=%s", by, g);
            else
                snprintf (ref, sizeof ref, "median of the step's targets");
            snprintf (tip, sizeof tip, "%s %s: p99 %s, %s %s, %+.1f%%", row, str (t, "target"),
                      f_lat (p99, b1, sizeof b1), ref, f_lat (med, b2, sizeof b2), dev);
            v[i * nc + c] = dev;
            refs[i * nc + c] = med;
            free (tips[i * nc + c]);
            tips[i * nc + c] = strdup (tip);
            free (groups[i * nc + c]);
            groups[i * nc + c] = g ? strdup (g) : NULL;
        }
    }
    for (size_t c = 0; c < nc; c++)
        colv[c] = json_string_value (json_array_get (cols, c));
    for (size_t r = 0; r < nr; r++)
        if (!rows[r])
            goto done;
    char legend[400], b[32];
    if (by_group)
        snprintf (legend, sizeof legend, "p99 vs the median of its group (--by %.200s) (blue: "
                  "faster, red: slower; %% shown)", by);
    else
        snprintf (legend, sizeof legend, "p99 vs the step's median %s (no --by) (blue: faster, "
                  "red: slower; %% shown)", f_lat (step_med, b, sizeof b));
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

static void
step_section (FILE *f, json_t *s, size_t i, size_t n)
{
    char b1[64], b2[64];
    fprintf (f, "<section class=\"step\" id=\"step-%zu\"><h2>Step %zu/%zu: ", i, i + 1, n);
    esc (f, str (s, "name"));
    fputs (" ", f);
    status_cell (f, str (s, "status"));
    fputs ("</h2>\n<p>", f);
    workload (f, json_object_get (s, "job"));
    double skew = num (s, "start_skew_ns");
    if (!isfinite (skew))
        skew = num (s, "skew_ns");
    if (isfinite (skew))
        fprintf (f, "; start skew %.3f ms", skew / 1e6);
    json_t *w = json_object_get (s, "window");
    if (isfinite (num (w, "first_seq")))
        fprintf (f, "; measured window: intervals %.0f-%.0f (%.1f s, from %s)", num (w, "first_seq"),
                 Z (num (w, "last_seq")), Z ((num (w, "end_ns") - num (w, "start_ns")) / 1e9),
                 f_ns_time (num (w, "start_ns"), b1, sizeof b1));
    fputs ("</p>\n", f);
    json_t *sla = json_object_get (s, "sla");
    if (sla) {
        fputs ("<p>SLA <code>", f);
        esc (f, str (sla, "conditions"));
        fputs ("</code>: ", f);
        verdict_badge (f, str (sla, "verdict"));
        size_t k;
        json_t *x;
        json_array_foreach (json_object_get (sla, "fleet"), k, x) {
            bool lat = str (x, "condition")[0] == 'p' || !strncmp (str (x, "condition"), "m", 1);
            fprintf (f, "%s<span class=\"%s\">", k ? ", " : " &#8212; fleet: ",
                     json_is_true (json_object_get (x, "pass")) ? "pass" : "fail");
            esc (f, str (x, "condition"));
            fputs (" ", f);
            esc (f, str (x, "direction"));
            fprintf (f, " %s</span>", lat ? f_lat (num (x, "value"), b2, sizeof b2)
                                           : f_iops (num (x, "value"), b2, sizeof b2));
        }
        fputs ("</p>\n", f);
        size_t nfail = json_array_size (json_object_get (sla, "failures"));
        if (nfail) {
            fputs ("<ul class=\"problems\">", f);
            json_array_foreach (json_object_get (sla, "failures"), k, x) {
                bool lat = str (x, "condition")[0] == 'p' || !strncmp (str (x, "condition"), "m", 1);
                fputs ("<li class=\"fail\">FAIL ", f);
                esc (f, json_object_get (x, "agent") ? str (x, "agent") : "fleet");
                fputs (" ", f);
                esc (f, str (x, "target"));
                fputs (" ", f);
                esc (f, str (x, "condition"));
                fputs (" ", f);
                esc (f, str (x, "direction"));
                fprintf (f, ": %s</li>", lat ? f_lat (num (x, "value"), b2, sizeof b2)
                                              : f_iops (num (x, "value"), b2, sizeof b2));
            }
            fputs ("</ul>\n", f);
        }
    }
    json_t *lint = json_object_get (s, "lint");
    if (json_array_size (lint)) {
        size_t k;
        json_t *x;
        fputs ("<ul class=\"lint\">", f);
        json_array_foreach (lint, k, x) {
            fputs ("<li>lint: ", f);
            esc (f, json_string_value (x));
            fputs ("</li>", f);
        }
        fputs ("</ul>\n", f);
    }
    fputs ("<ul class=\"problems\">", f);
    step_problems (f, s);
    fputs ("</ul>\n", f);
    step_table (f, s);
    json_t *one = json_array ();
    json_array_append (one, s);
    outliers_table (f, one, s);
    json_decref (one);
    fputs ("<div class=\"charts\">\n", f);
    percentile_chart (f, s);
    interval_charts (f, s);
    heatmap (f, s);
    fputs ("</div>\n</section>\n", f);
}

/* ---- inventory ---- */

static void
inventory (FILE *f, json_t *inv)
{
    if (!json_object_size (inv))
        return;
    fputs ("<section id=\"inventory\"><h2>Inventory</h2>\n<table><thead><tr>"
           "<th class=\"l\">agent</th><th class=\"l\">host</th><th class=\"l\">CPU</th>"
           "<th>memory</th><th class=\"l\">kernel</th><th class=\"l\">OS</th>"
           "<th class=\"l\">inventory</th></tr></thead><tbody>\n", f);
    const char *agent;
    json_t *r;
    json_object_foreach (inv, agent, r) {
        json_t *h = json_object_get (json_object_get (r, "inventory"), "host");
        char b[32];
        fputs ("<tr><td class=\"l\">", f);
        esc (f, agent);
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (h, "hostname"));
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (h, "cpu_model"));
        if (isfinite (num (h, "cpu_count")))
            fprintf (f, " x %.0f", num (h, "cpu_count"));
        fprintf (f, "</td><td>%s</td><td class=\"l\">", isfinite (num (h, "memory_bytes"))
                 ? (snprintf (b, sizeof b, "%.1f GiB", num (h, "memory_bytes") / (1 << 30)), b) : DASH);
        esc (f, str (h, "kernel"));
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (h, "os_release"));
        fputs ("</td><td class=\"l\"><code>", f);
        esc (f, str (r, "hash"));
        fputs ("</code></td></tr>\n", f);
    }
    fputs ("</tbody></table>\n<h3>Drives</h3>\n<table><thead><tr><th class=\"l\">agent</th>"
           "<th class=\"l\">drive</th><th class=\"l\">model</th><th class=\"l\">firmware</th>"
           "<th class=\"l\">transport</th><th>size</th><th class=\"l\">scheduler</th>"
           "<th>nr_requests</th><th class=\"l\">rotational</th><th class=\"l\">controller</th>"
           "</tr></thead><tbody>\n", f);
    json_object_foreach (inv, agent, r) {
        size_t i;
        json_t *d;
        json_array_foreach (json_object_get (json_object_get (r, "inventory"), "drives"), i, d) {
            if (i >= 64)
                break;
            char b[32];
            fputs ("<tr><td class=\"l\">", f);
            esc (f, agent);
            fputs ("</td><td class=\"l\">", f);
            esc (f, str (d, "path")[0] ? str (d, "path") : str (d, "name"));
            fputs ("</td><td class=\"l\">", f);
            esc (f, str (d, "model"));
            fputs ("</td><td class=\"l\">", f);
            esc (f, str (d, "firmware"));
            fputs ("</td><td class=\"l\">", f);
            esc (f, str (d, "transport"));
            fprintf (f, "</td><td>%s</td><td class=\"l\">", isfinite (num (d, "size_bytes"))
                     ? (snprintf (b, sizeof b, "%.1f GiB", num (d, "size_bytes") / (1 << 30)), b) : DASH);
            esc (f, str (d, "scheduler"));
            fprintf (f, "</td><td>%s</td><td class=\"l\">%s</td><td class=\"l\">",
                     isfinite (num (d, "nr_requests"))
                         ? (snprintf (b, sizeof b, "%.0f", num (d, "nr_requests")), b) : DASH,
                     json_is_true (json_object_get (d, "rotational")) ? "yes" : "no");
            esc (f, str (d, "controller"));
            fputs ("</td></tr>\n", f);
        }
    }
    fputs ("</tbody></table>\n</section>\n", f);
}

/* ---- how ---- */

static void
method (FILE *f, json_t *rep)
{
    fputs ("<section id=\"method\"><h2>How these figures were computed</h2>\n<ul>\n"
           "<li><b>IOPS and MiB/s</b>: ops (bytes) completed inside the measured window, divided "
           "by it; the fleet's and a group's are sums over agents and targets.</li>\n"
           "<li><b>Latency</b> is completion latency (clat, fio's default). min, max and mean "
           "are exact. Percentiles come from merged log-linear histograms (128 sub-buckets per "
           "power of two): the bucket where the cumulative count first reaches p% of all "
           "samples, reported as the bucket's midpoint, so within 0.4% of the value. A group's "
           "or the fleet's percentiles come from the merge of its targets' histograms, never "
           "from averaging percentiles.</li>\n"
           "<li><b>Measurement window</b>: per step, the snapshot intervals (1 s unless the "
           "controller's --interval says otherwise) in which every agent that measured took "
           "part, after ramp_time and before the end of runtime. Agents outside it are named "
           "in the step.</li>\n"
           "<li><b>Start skew</b>: the spread of the agents' actual start times in the "
           "controller's clock (each agent's clock offset estimated by the ping exchange).</li>\n"
           "<li><b>Outliers</b>: modified z-score of each target's IOPS and p99 and each "
           "agent's IOPS against its group, 0.6745 x (x - median) / MAD; flagged when |z| &gt; "
           "3.5 and more than 15% off the median.</li>\n<li><b>Incomplete data</b>: ", f);
    json_t *s0 = json_array_get (json_object_get (rep, "steps"), 0);
    if (str (s0, "incomplete_rule")[0])
        esc (f, str (s0, "incomplete_rule"));
    else
        fputs ("figures hold every interval that reached the controller; agents with missing "
               "intervals are included and listed", f);
    fputs (".</li>\n<li><b>Heatmaps</b>: each target's p99 against the median p99 of the "
           "targets of its own group when the report was made with --by (each cell's data-group "
           "and data-median say which), else against the median p99 of all the step's targets; "
           "clamped at &#177;50% for the colour; the exact value is in each cell's tooltip."
           "</li>\n</ul>\n", f);
    json_t *steps = json_object_get (rep, "steps");
    if (json_array_size (steps)) {
        fputs ("<table><thead><tr><th class=\"l\">step</th><th>window intervals</th>"
               "<th>window length</th><th class=\"l\">window start</th><th>start skew</th>"
               "<th>intervals</th></tr></thead><tbody>\n", f);
        size_t i;
        json_t *s;
        json_array_foreach (steps, i, s) {
            json_t *w = json_object_get (s, "window");
            char b1[64], b2[64];
            double skew = num (s, "start_skew_ns");
            fputs ("<tr><td class=\"l\">", f);
            esc (f, str (s, "name"));
            if (isfinite (num (w, "first_seq")))
                fprintf (f, "</td><td>%.0f-%.0f</td><td>%.1f s</td>", num (w, "first_seq"),
                         Z (num (w, "last_seq")), Z ((num (w, "end_ns") - num (w, "start_ns")) / 1e9));
            else
                fputs ("</td><td>" DASH "</td><td>" DASH "</td>", f);
            fprintf (f, "<td class=\"l\">%s</td><td>%s</td><td>%zu</td></tr>\n",
                     f_ns_time (num (w, "start_ns"), b1, sizeof b1),
                     isfinite (skew) ? (snprintf (b2, sizeof b2, "%.3f ms", skew / 1e6), b2) : DASH,
                     json_array_size (json_object_get (s, "intervals")));
        }
        fputs ("</tbody></table>\n", f);
    }
    fputs ("</section>\n", f);
}

void
html_report (FILE *f, json_t *rep, json_t *inv)
{
    char title[512], rb[32];
    snprintf (title, sizeof title, "iofleet run %s: %s", run_id (rep, rb, sizeof rb),
              str (rep, "plan"));
    head (f, title);
    fputs ("<header><h1>", f);
    esc (f, title);
    fputs (" ", f);
    verdict_badge (f, str (rep, "verdict"));
    fputs ("</h1><p class=\"meta\">iofleet report, generated by iofleet " IOF_VERSION
           "</p></header>\n", f);
    json_t *steps = json_object_get (rep, "steps");
    size_t n = json_array_size (steps), i;
    json_t *s;
    fputs ("<nav><ol><li><a href=\"#summary\">Summary</a></li>", f);
    if (json_array_size (json_object_get (rep, "sweeps")))
        fputs ("<li><a href=\"#sweeps\">Queue-depth curves</a></li>", f);
    json_array_foreach (steps, i, s) {
        fprintf (f, "<li><a href=\"#step-%zu\">", i);
        esc (f, str (s, "name"));
        fputs ("</a></li>", f);
    }
    if (json_object_size (inv))
        fputs ("<li><a href=\"#inventory\">Inventory</a></li>", f);
    fputs ("<li><a href=\"#method\">How these figures were computed</a></li></ol></nav>\n", f);
    summary (f, rep);
    sweeps (f, rep);
    json_array_foreach (steps, i, s)
        step_section (f, s, i, n);
    inventory (f, inv);
    method (f, rep);
    footer (f);
}

/* ---- compare ---- */

static json_t *
step_named (json_t *rep, const char *name)
{
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get (rep, "steps"), i, s)
        if (!strcmp (str (s, "name"), name))
            return s;
    return NULL;
}

static const char *
metric_value (const char *metric, double v, char *buf, size_t cap)
{
    if (metric[0] == 'p')
        return f_lat (v, buf, cap);
    if (!strncmp (metric, "bw", 2))
        return f_bw (v, buf, cap);
    return f_iops (v, buf, cap);
}

/* Better or worse: IOPS and bw up is better, latency up is worse. */
static bool
worse (json_t *row)
{
    const char *m = str (row, "metric");
    double d = num (row, "delta_pct");
    return (m[0] == 'p') ? d > 0 : d < 0;
}

static void
run_cells (FILE *f, json_t *rep, const char *field)
{
    char b[64];
    fputs ("<td class=\"l\">", f);
    if (!strcmp (field, "run"))
        fputs (run_id (rep, b, sizeof b), f);
    else if (!strcmp (field, "plan")) {
        esc (f, str (rep, "plan"));
        if (isfinite (num (rep, "plan_version")))
            fprintf (f, " v%.0f", num (rep, "plan_version"));
    } else if (!strcmp (field, "status"))
        status_cell (f, str (rep, "status"));
    else if (!strcmp (field, "verdict"))
        verdict_badge (f, str (rep, "verdict"));
    else if (!strcmp (field, "started_at"))
        fputs (f_ns_time (num (rep, "started_at"), b, sizeof b), f);
    else if (!strcmp (field, "labels")) {
        const char *k;
        json_t *v;
        int n = 0;
        json_object_foreach (json_object_get (rep, "labels"), k, v) {
            fputs (n++ ? ", " : "", f);
            esc (f, k);
            fputs ("=", f);
            esc (f, json_is_string (v) ? json_string_value (v) : "?");
        }
        if (!n)
            fputs ("none", f);
    } else
        fprintf (f, "%zu", json_array_size (json_object_get (rep, "steps")));
    fputs ("</td>", f);
}

/* The completion-latency histograms of A and B for direction dn of a step,
   overlaid: each bin as the fraction of that run's I/Os, so runs of
   different length compare.  Only when both runs measured dn. */
static void
compare_histogram (FILE *f, json_t *a, json_t *b, const char *name, const char *bname,
                   const char *dn)
{
    json_t *d[2], *h[2];
    for (int k = 0; k < 2; k++) {
        d[k] = json_object_get (json_object_get (step_named (k ? b : a, k ? bname : name),
                                                 "fleet"), dn);
        h[k] = json_object_get (d[k], "histogram");
    }
    if (!has_ops (d[0]) || !has_ops (d[1]))
        return;
    char title[512], b1[32], b2[32], sname[64], tip[256];
    snprintf (title, sizeof title, "Fleet %s latency histograms, A and B: %s", dn, name);
    svg_chart_t *c = svg_chart_new ("compare-histogram", title, SVG_STEPS);
    if (!c)
        return;
    svg_chart_axis (c, 'x', SVG_LOG10, "completion latency (8 bins an octave)", fmt_lat);
    svg_chart_axis (c, 'y', SVG_LINEAR, "fraction of the run's I/Os", NULL);
    bool both = json_array_size (h[0]) && json_array_size (h[1]);
    for (int k = 0; k < 2 && both; k++) {
        double total = 0;
        size_t i;
        json_t *bin;
        json_array_foreach (h[k], i, bin)
            total += Z (json_number_value (json_array_get (bin, 2)));
        snprintf (sname, sizeof sname, "%s (run %s)", k ? "B" : "A",
                  run_id (k ? b : a, b1, sizeof b1));
        svg_chart_series (c, sname);
        svg_chart_data (c, "bins", (double) json_array_size (h[k]));
        json_array_foreach (h[k], i, bin) {
            double lo = json_number_value (json_array_get (bin, 0));
            double hi = json_number_value (json_array_get (bin, 1));
            double n = json_number_value (json_array_get (bin, 2));
            double frac = total > 0 ? n / total : 0;
            snprintf (tip, sizeof tip, "%s %s: %s to %s: %.3f%% of the I/Os (%.0f)", sname, dn,
                      f_lat (lo, b1, sizeof b1), f_lat (hi, b2, sizeof b2), 100 * frac, n);
            /* A first bin from 0 ns cannot sit on a log scale: from hi / 2. */
            if (svg_chart_bin (c, lo > 0 ? lo : hi / 2, hi, frac, tip) == 0) {
                svg_chart_data (c, "frac", frac);
            }
        }
    }
    svg_chart_write (c, f, "a run has no latency histogram for this direction (an imported "
                     "run without fio's json+ bins, or a controller without histograms)");
    svg_chart_destroy (&c);
}

/* B's step compared with A's step name (--steps maps them), from the rows. */
static const char *
b_step_of (json_t *rows, const char *name)
{
    size_t i;
    json_t *r;
    json_array_foreach (rows, i, r)
        if (!strcmp (str (r, "step"), name) && str (r, "b_step")[0])
            return str (r, "b_step");
    return name;
}

void
html_compare (FILE *f, json_t *a, json_t *b, json_t *cmp, double fail_pct)
{
    json_t *rows = json_object_get (cmp, "rows");
    double thr = fail_pct >= 0 ? fail_pct : 0;
    char title[512], b1[64], b2[64], b3[64];
    size_t i, j;
    json_t *r;
    snprintf (title, sizeof title, "iofleet compare: run %s (A) against run %s (B)",
              run_id (a, b1, sizeof b1), run_id (b, b2, sizeof b2));
    head (f, title);
    fputs ("<header><h1>", f);
    esc (f, title);
    fputs ("</h1><p class=\"meta\">iofleet compare, generated by iofleet " IOF_VERSION
           "</p></header>\n<section id=\"summary\"><h2>Summary</h2>\n<table><thead><tr>"
           "<th class=\"l\"></th><th class=\"l\">A</th><th class=\"l\">B</th></tr></thead>"
           "<tbody>\n", f);
    static const char *fields[] = { "run", "plan", "labels", "status", "verdict", "started_at",
                                    "steps" };
    for (int i = 0; i < 7; i++) {
        fprintf (f, "<tr><td class=\"l\"><b>%s</b></td>", !strcmp (fields[i], "started_at")
                 ? "started" : !strcmp (fields[i], "verdict") ? "SLA verdict" : fields[i]);
        run_cells (f, a, fields[i]);
        run_cells (f, b, fields[i]);
        fputs ("</tr>\n", f);
    }
    fputs ("</tbody></table>\n", f);
    if (json_is_true (json_object_get (cmp, "forced")))
        fputs ("<p class=\"fail\">--force: steps of different plans (or of a run that failed) "
               "are compared by name; each row names the step of each plan.</p>\n", f);
    else if (json_is_array (json_object_get (cmp, "steps")))
        fputs ("<p>--steps: the steps compared are mapped by hand; each row names the step of "
               "each plan.</p>\n", f);
    if (json_array_size (json_object_get (cmp, "skipped"))) {
        fputs ("<p>Not compared:</p><ul class=\"problems\">\n", f);
        json_array_foreach (json_object_get (cmp, "skipped"), i, r) {
            fputs ("<li>step ", f);
            esc (f, str (r, "step"));
            if (json_object_get (r, "group")) {
                fputs (" ", f);
                esc (f, str (r, "group"));
            }
            fputs (": ", f);
            esc (f, str (r, "reason"));
            fputs ("</li>\n", f);
        }
        fputs ("</ul>\n", f);
    }
    int nsig = 0, nreg = 0, nbetter = 0;
    json_t *steps = json_array (), *seen = json_object ();
    json_array_foreach (rows, i, r) {
        bool sig = json_is_true (json_object_get (r, "significant"));
        nsig += sig;
        nreg += compare_is_regression (r, thr);
        nbetter += sig && !worse (r);
        if (!json_object_get (seen, str (r, "step"))) {
            json_object_set_new (seen, str (r, "step"), json_true ());
            json_array_append_new (steps, json_string (str (r, "step")));
        }
    }
    json_decref (seen);
    fprintf (f, "<p>%zu %s compared over %zu %s both runs have: <b>%d significant</b>, "
             "of which <span class=\"%s\">%d %s</span> beyond %.1f%% and %d %s.</p>\n",
             json_array_size (rows), plural ((long long) json_array_size (rows), "figure", "figures"),
             json_array_size (steps), plural ((long long) json_array_size (steps), "step", "steps"),
             nsig, nreg ? "fail" : "pass", nreg, plural (nreg, "regression", "regressions"), thr,
             nbetter, plural (nbetter, "improvement", "improvements"));
    fputs ("<p>A change is <i>significant</i> when it stands out of the runs' own "
           "interval-to-interval noise: |mean B - mean A| over the per-second series exceeds 3 x "
           "sqrt(var A / n A + var B / n B), and is at least 2%. p99.9, and a step shorter than "
           "two intervals, have no noise estimate (shown as n/a). In the charts, significant "
           "changes are solid bars, the others hatched; regressions have a black outline. IOPS "
           "and bandwidth down, or latency up, is worse.</p>\n", f);
    if (!json_array_size (steps))
        fputs ("<p class=\"fail\">The two runs have no step name in common: nothing to "
               "compare.</p>\n", f);
    fputs ("</section>\n", f);
    json_t *st;
    json_array_foreach (steps, i, st) {
        const char *name = json_string_value (st);
        fprintf (f, "<section class=\"step\" id=\"step-%zu\"><h2>Step ", i);
        esc (f, name);
        if (strcmp (b_step_of (rows, name), name) || strcmp (str (a, "plan"), str (b, "plan"))
            || num (a, "plan_version") != num (b, "plan_version")) {
            fputs (" (A: ", f);
            esc (f, str (a, "plan"));
            fprintf (f, " v%.0f) against ", num (a, "plan_version"));
            esc (f, b_step_of (rows, name));
            fputs (" (B: ", f);
            esc (f, str (b, "plan"));
            fprintf (f, " v%.0f)", num (b, "plan_version"));
        }
        fputs ("</h2>\n<div class=\"charts\">\n", f);
        /* Categories: groups; series: metrics, in the order of the rows. */
        snprintf (title, sizeof title, "Change B vs A per group: %s", name);
        svg_chart_t *c = svg_chart_new ("compare-delta", title, SVG_BARS);
        json_t *groups = json_object (), *metrics = json_array ();
        if (c) {
            svg_chart_axis (c, 'x', SVG_LINEAR, "group", NULL);
            svg_chart_axis (c, 'y', SVG_LINEAR, "change B vs A", f_axis_pct);
            json_array_foreach (rows, j, r) {
                if (strcmp (str (r, "step"), name))
                    continue;
                if (!json_object_get (groups, str (r, "group"))) {
                    json_object_set_new (groups, str (r, "group"),
                                         json_integer ((json_int_t) json_object_size (groups)));
                    svg_chart_category (c, str (r, "group"));
                }
                bool known = false;
                size_t m;
                json_t *mv;
                json_array_foreach (metrics, m, mv)
                    known |= !strcmp (json_string_value (mv), str (r, "metric"));
                if (!known)
                    json_array_append_new (metrics, json_string (str (r, "metric")));
            }
            size_t m;
            json_t *mv;
            json_array_foreach (metrics, m, mv) {
                const char *metric = json_string_value (mv);
                svg_chart_series (c, metric);
                json_array_foreach (rows, j, r) {
                    if (strcmp (str (r, "step"), name) || strcmp (str (r, "metric"), metric))
                        continue;
                    json_t *sig = json_object_get (r, "significant");
                    char tip[512];
                    snprintf (tip, sizeof tip, "%s %s: %s to %s (%s), %s", str (r, "group"), metric,
                              metric_value (metric, num (r, "a"), b1, sizeof b1),
                              metric_value (metric, num (r, "b"), b2, sizeof b2),
                              f_pct (num (r, "delta_pct"), b3, sizeof b3),
                              json_is_null (sig) || !sig ? "no noise estimate"
                              : json_is_true (sig) ? "significant" : "not significant");
                    int flags = (json_is_true (sig) ? SVG_PT_STRONG : 0)
                                | (compare_is_regression (r, thr) ? SVG_PT_ALERT : 0);
                    svg_chart_point (c, (double) json_integer_value (json_object_get (groups,
                                     str (r, "group"))), num (r, "delta_pct"), tip, flags);
                }
            }
            svg_chart_write (c, f, "no figure of this step has a value in both runs");
            svg_chart_destroy (&c);
        }
        json_decref (groups);
        json_decref (metrics);
        /* Fleet latency percentiles of A and B overlaid. */
        snprintf (title, sizeof title, "Fleet latency percentiles, A and B: %s", name);
        c = svg_chart_new ("compare-percentiles", title, SVG_LINES);
        if (c) {
            svg_chart_axis (c, 'x', SVG_NINES, "percentile (nines scale)", NULL);
            svg_chart_axis (c, 'y', SVG_LOG10, "completion latency", fmt_lat);
            for (int d = 0; d < DIR_COUNT; d++)
                for (int k = 0; k < 2; k++) {
                    const char *dn = dir_name (d);
                    json_t *dj = json_object_get (json_object_get (
                        step_named (k ? b : a, k ? b_step_of (rows, name) : name), "fleet"), dn);
                    if (!has_ops (dj))
                        continue;
                    char sname[64];
                    snprintf (sname, sizeof sname, "%s (run %s) %s", k ? "B" : "A",
                              run_id (k ? b : a, b1, sizeof b1), dn);
                    percentile_series (c, sname, dj);
                }
            svg_chart_write (c, f, "neither run measured I/O in this step");
            svg_chart_destroy (&c);
        }
        for (int d = 0; d < DIR_COUNT; d++)
            compare_histogram (f, a, b, name, b_step_of (rows, name), dir_name (d));
        fputs ("</div>\n<table class=\"compare\"><thead><tr><th class=\"l\">group</th>"
               "<th class=\"l\">metric</th><th>A</th><th>B</th><th>change</th>"
               "<th class=\"l\">significant</th><th class=\"l\">verdict</th>"
               "<th>members A</th><th>members B</th></tr></thead>"
               "<tbody>\n", f);
        json_array_foreach (rows, j, r) {
            if (strcmp (str (r, "step"), name))
                continue;
            const char *metric = str (r, "metric");
            json_t *sig = json_object_get (r, "significant");
            bool reg = compare_is_regression (r, thr);
            bool better = json_is_true (sig) && !worse (r);
            fprintf (f, "<tr%s><td class=\"l\">", reg ? " class=\"regression\"" : better
                     ? " class=\"better\"" : "");
            esc (f, str (r, "group"));
            fputs ("</td><td class=\"l\">", f);
            esc (f, metric);
            fprintf (f, "</td><td>%s</td><td>%s</td><td>%s</td><td class=\"l\">%s</td>"
                     "<td class=\"l\">%s</td><td>%.0f agents, %.0f targets</td>"
                     "<td>%.0f agents, %.0f targets</td></tr>\n",
                     metric_value (metric, num (r, "a"), b1, sizeof b1),
                     metric_value (metric, num (r, "b"), b2, sizeof b2),
                     f_pct (num (r, "delta_pct"), b3, sizeof b3),
                     json_is_true (sig) ? "yes" : json_is_false (sig) ? "no"
                                                 : "n/a (no noise estimate)",
                     reg ? "<span class=\"fail\">REGRESSION</span>"
                         : better ? "better" : json_is_true (sig) ? "worse, within the limit" : "",
                     num (r, "a_agents"), num (r, "a_targets"), num (r, "b_agents"),
                     num (r, "b_targets"));
        }
        fputs ("</tbody></table>\n</section>\n", f);
    }
    json_decref (steps);
    footer (f);
}

/* ---- files ---- */

static FILE *
open_out (const char *path, char *err, size_t errlen)
{
    if (!strcmp (path, "-"))
        return stdout;
    FILE *f = fopen (path, "w");
    if (!f) {
        int e = errno;
        snprintf (err, errlen, "cannot write '%s': %s", path, strerror (e));
        errno = e;
    }
    return f;
}

static int
close_out (FILE *f, const char *path, char *err, size_t errlen)
{
    int rc = 0;
    if (ferror (f))
        rc = errno ? -errno : -EIO;
    if (f == stdout) {
        if (fflush (f) != 0 && !rc)
            rc = -errno;
    } else if (fclose (f) != 0 && !rc)
        rc = -errno;
    if (rc)
        snprintf (err, errlen, "writing '%s': %s", strcmp (path, "-") ? path : "stdout",
                  strerror (-rc));
    return rc;
}

int
html_report_write (const char *path, json_t *report, json_t *inventories, char *err,
                   size_t errlen)
{
    FILE *f = open_out (path, err, errlen);
    if (!f)
        return -errno;
    errno = 0;
    html_report (f, report, inventories);
    return close_out (f, path, err, errlen);
}

int
html_compare_write (const char *path, json_t *a, json_t *b, json_t *cmp, double fail_pct,
                    char *err, size_t errlen)
{
    FILE *f = open_out (path, err, errlen);
    if (!f)
        return -errno;
    errno = 0;
    html_compare (f, a, b, cmp, fail_pct);
    return close_out (f, path, err, errlen);
}
