/*  html_report.c: iofleet report --format html (html_report.h): summary,
    queue-depth curves, one section per step (its tables here, its charts
    in html_charts.c), inventory and method.

    One file, nothing fetched: the styles are inline, the charts are SVG
    written by svg.c (why not a charting library: see svg.h and the
    report's footer).  Every string from the report (step, agent, target
    and group names, messages, labels) comes from users or agents and goes
    through svg_esc.  A field that is missing (an imported run, a failed
    step, per-interval data removed by gc) is shown as a dash or as a chart
    that says it has no data: never as "nan".
*/
#include "html_report.h"
#include "html_gaps.h"
#include "html_page.h"
#include "outliers.h"
#include "direction.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
    return n + html_gaps_problems (f, s);
}

static void
fleet_p99 (FILE *f, json_t *s)
{
    json_t *fleet = json_object_get (s, "fleet");
    int shown = 0;
    for (int d = 0; d < DIR_COUNT; d++) {
        json_t *x = json_object_get (fleet, dir_name (d));
        if (!html_has_ops (x))
            continue;
        char b[32];
        /* R, W, T: the direction's initial. */
        fprintf (f, "%s%c %s", shown++ ? "<br>" : "", dir_name (d)[0] - 'a' + 'A',
                 html_lat (num (json_object_get (x, "percentiles"), "p99"), b, sizeof b));
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
                       "<th>group median</th><th>deviation</th><th class=\"l\">health cause"
                       "</th></tr></thead><tbody>\n", f);
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
            fprintf (f, "</td><td>%s</td><td>%s</td><td class=\"fail\">%s</td><td class=\"l\">",
                     lat ? html_lat (num (o, "value"), v, sizeof v) : html_iops (num (o, "value"), v, sizeof v),
                     lat ? html_lat (num (o, "group_median"), m, sizeof m)
                         : html_iops (num (o, "group_median"), m, sizeof m),
                     html_pct (num (o, "deviation_pct"), d, sizeof d));
            if (json_is_string (json_object_get (o, "health_cause")))
                esc (f, str (o, "health_cause"));
            else
                fputs (DASH, f);
            fputs ("</td></tr>\n", f);
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
    fprintf (f, "<dt>Run</dt><dd>%s</dd><dt>Plan</dt><dd>", html_run_id (rep, b, sizeof b));
    esc (f, str (rep, "plan"));
    if (isfinite (num (rep, "plan_version")))
        fprintf (f, " v%.0f", num (rep, "plan_version"));
    fputs ("</dd><dt>Status</dt><dd>", f);
    html_status_cell (f, str (rep, "status"));
    fputs ("</dd><dt>Verdict (SLA and steady state)</dt><dd>", f);
    html_verdict_badge (f, str (rep, "verdict"));
    if (!strcmp (str (rep, "verdict"), "none"))
        fputs (" (the plan sets no iofleet_sla and no steady_state)", f);
    fputs ("</dd>", f);
    if (str (rep, "origin")[0]) {
        fputs ("<dt>Origin</dt><dd>", f);
        esc (f, str (rep, "origin"));
        fputs ("</dd>", f);
    }
    fprintf (f, "<dt>Started</dt><dd>%s</dd>", html_ns_time (num (rep, "started_at"), b, sizeof b));
    fprintf (f, "<dt>Finished</dt><dd>%s", html_ns_time (num (rep, "finished_at"), b, sizeof b));
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
    if (html_grouped (s0)) {
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
        fputs ("<dt>Note</dt><dd>per-interval data was removed by the retention policy or "
               "iofleet gc: results and histograms are whole; per-second series, missing "
               "intervals and significance are not</dd>", f);
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
        fprintf (f, "<tr><td>%zu</td><td class=\"l\"><a href=\"#step-%zu\">", i + 1, i);
        esc (f, str (s, "name"));
        fputs ("</a></td><td class=\"l\">", f);
        html_workload (f, json_object_get (s, "job"));
        fputs ("</td><td class=\"l\">", f);
        html_status_cell (f, str (s, "status"));
        fputs ("</td><td class=\"l\">", f);
        json_t *sla = json_object_get (s, "sla");
        if (sla)
            html_verdict_badge (f, str (sla, "verdict"));
        else
            fputs (DASH, f);
        fprintf (f, "</td><td>%s</td><td>", html_iops (num (s, "fleet_iops"), b, sizeof b));
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
                  html_bytes (num (sw, "bs"), b1, sizeof b1));
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
                          num (p, "iodepth"), html_iops (num (p, "iops"), b1, sizeof b1),
                          html_lat (num (p, "p99"), b2, sizeof b2),
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
            snprintf (label, sizeof label, "p99 limit %s", html_lat (limit, b1, sizeof b1));
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
                         html_iops (num (cap, "iops"), b1, sizeof b1), Z (num (cap, "iodepth")),
                         html_lat (num (cap, "p99"), b2, sizeof b2),
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
             "<td>%s</td><td>%s</td><td>%s</td>", dir, html_iops (num (d, "iops"), b[0], 32),
             html_mib (num (d, "bw"), b[1], 32), html_lat (num (lat, "mean"), b[2], 32),
             html_lat (num (p, "p50"), b[3], 32), html_lat (num (p, "p99"), b[4], 32),
             html_lat (num (p, "p99.9"), b[5], 32), html_lat (num (lat, "max"), b[6], 32));
}

static void
step_table (FILE *f, json_t *s)
{
    json_t *sla = json_object_get (s, "sla");
    bool g = html_grouped (s);
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
                if (!html_has_ops (dj))
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
                    if (!html_has_ops (dj))
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
        if (!html_has_ops (dj))
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

/* ---- steps ---- */

static void
step_section (FILE *f, json_t *s, size_t i, size_t n)
{
    char b1[64], b2[64];
    fprintf (f, "<section class=\"step\" id=\"step-%zu\"><h2>Step %zu/%zu: ", i, i + 1, n);
    esc (f, str (s, "name"));
    fputs (" ", f);
    html_status_cell (f, str (s, "status"));
    fputs ("</h2>\n<p>", f);
    html_workload (f, json_object_get (s, "job"));
    double skew = num (s, "start_skew_ns");
    if (!isfinite (skew))
        skew = num (s, "skew_ns");
    if (isfinite (skew))
        fprintf (f, "; start skew %.3f ms", skew / 1e6);
    json_t *w = json_object_get (s, "window");
    if (isfinite (num (w, "first_seq")))
        fprintf (f, "; measured window: intervals %.0f-%.0f (%.1f s, from %s)", num (w, "first_seq"),
                 Z (num (w, "last_seq")), Z ((num (w, "end_ns") - num (w, "start_ns")) / 1e9),
                 html_ns_time (num (w, "start_ns"), b1, sizeof b1));
    fputs ("</p>\n", f);
    json_t *sla = json_object_get (s, "sla");
    if (sla) {
        fputs ("<p>SLA <code>", f);
        esc (f, str (sla, "conditions"));
        fputs ("</code>: ", f);
        html_verdict_badge (f, str (sla, "verdict"));
        size_t k;
        json_t *x;
        json_array_foreach (json_object_get (sla, "fleet"), k, x) {
            bool lat = str (x, "condition")[0] == 'p' || !strncmp (str (x, "condition"), "m", 1);
            fprintf (f, "%s<span class=\"%s\">", k ? ", " : " &#8212; fleet: ",
                     json_is_true (json_object_get (x, "pass")) ? "pass" : "fail");
            esc (f, str (x, "condition"));
            fputs (" ", f);
            esc (f, str (x, "direction"));
            fprintf (f, " %s</span>", lat ? html_lat (num (x, "value"), b2, sizeof b2)
                                           : html_iops (num (x, "value"), b2, sizeof b2));
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
                fprintf (f, ": %s</li>", lat ? html_lat (num (x, "value"), b2, sizeof b2)
                                              : html_iops (num (x, "value"), b2, sizeof b2));
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
    html_step_charts (f, s);
    html_health_chart (f, s);
    fputs ("</div>\n", f);
    html_health_table (f, s);
    fputs ("</section>\n", f);
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
           "agent's IOPS against its group, 0.6745 x (x - median) / MAD; flagged when |z| &gt; ", f);
    /* The rule's figures from common/outliers.h, where the controller takes them. */
    fprintf (f, "%g and more than %g%% off the median.</li>\n<li><b>Incomplete data</b>: ",
             OUTLIER_Z, OUTLIER_PCT);
    json_t *s0 = json_array_get (json_object_get (rep, "steps"), 0);
    if (str (s0, "incomplete_rule")[0])
        esc (f, str (s0, "incomplete_rule"));
    else
        fputs ("figures hold every interval that reached the controller; agents with missing "
               "intervals are included and listed", f);
    fputs (".</li>\n<li><b>Heatmaps</b>: each target's p99 against the median p99 of the "
           "targets of its own group when the report was made with --by (each cell's data-group "
           "and data-median say which), else against the median p99 of all the step's targets; "
           "clamped at &#177;", f);
    fprintf (f, "%g%% for the colour; the exact value is in each cell's tooltip.</li>\n</ul>\n",
             HEATMAP_CLAMP_PCT);
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
                     html_ns_time (num (w, "start_ns"), b1, sizeof b1),
                     isfinite (skew) ? (snprintf (b2, sizeof b2, "%.3f ms", skew / 1e6), b2) : DASH,
                     json_array_size (json_object_get (s, "intervals")));
        }
        fputs ("</tbody></table>\n", f);
    }
    fputs ("</section>\n", f);
}

/* A figure of the tracked metric (common/rounds.h) as text. */
static const char *
html_figure (const char *metric, double v, char *buf, size_t cap)
{
    if (!strcmp (metric, "mean"))
        return html_lat (v, buf, cap);
    if (!strcmp (metric, "bw"))
        return html_bytes (v, buf, cap);
    return html_iops (v, buf, cap);
}

/* The rounds (the report's "rounds", controller/report/rounds_steady.c): the rule,
   the tracked figure of each drive per round as a chart (its steady
   window shaded for the first drive that has one), and a table with
   each drive's steady round and window. */
#define ROUNDS_CHART_DRIVES 24
static void
rounds_section (FILE *f, json_t *rep)
{
    json_t *ro = json_object_get (rep, "rounds");
    if (!json_is_object (ro))
        return;
    json_t *rule = json_object_get (ro, "steady_state");
    fprintf (f, "<section id=\"rounds\"><h2>Rounds and steady state</h2>\n<p>The plan's steps "
             "ran as rounds: %.0f run, at most %.0f.", num (ro, "rounds_run"),
             num (ro, "rounds_max"));
    if (!rule) {
        fputs (" The plan tracks no figure (no steady_state=): every round is reported."
               "</p></section>\n", f);
        return;
    }
    const char *metric = str (rule, "metric");
    fputs (" Steady state of ", f);
    esc (f, str (rule, "step"));
    fprintf (f, " %s per drive (the SNIA PTS rule): over a window of %.0f rounds, max - min "
             "within %g%% of the window's mean and the least-squares line's excursion within "
             "%g%%. %.0f drive(s) steady, %.0f not.</p>\n", metric, num (rule, "window"),
             num (rule, "range_pct"), num (rule, "slope_pct"), num (ro, "steady"),
             num (ro, "not_steady"));
    char title[256];
    snprintf (title, sizeof title, "%s per round and drive", metric);
    svg_chart_t *c = svg_chart_new ("rounds", title, SVG_LINES);
    json_t *drives = json_object_get (ro, "drives");
    size_t i, k;
    json_t *d, *v;
    if (c) {
        svg_chart_axis (c, 'x', SVG_LINEAR, "round", NULL);
        svg_chart_axis (c, 'y', SVG_LINEAR, metric, !strcmp (metric, "mean") ? fmt_lat
                                                  : !strcmp (metric, "bw") ? NULL : fmt_iops);
        bool band = false;
        json_array_foreach (drives, i, d) {
            if (i == ROUNDS_CHART_DRIVES)
                break;
            char name[300], tip[400], b[32];
            snprintf (name, sizeof name, "%s %s", str (d, "agent"), str (d, "target"));
            svg_chart_series (c, name);
            json_array_foreach (json_object_get (d, "figures"), k, v) {
                if (!json_is_number (v))
                    continue;
                snprintf (tip, sizeof tip, "%s round %zu: %s", name, k + 1,
                          html_figure (metric, json_number_value (v), b, sizeof b));
                svg_chart_point (c, (double) k + 1, json_number_value (v), tip, 0);
            }
            json_t *w = json_object_get (d, "window");
            if (!band && json_is_true (json_object_get (d, "steady"))) {
                json_t *r = json_object_get (w, "rounds");
                char label[320];
                snprintf (label, sizeof label, "steady window of %s", name);
                svg_chart_vband (c, json_number_value (json_array_get (r, 0)),
                                 json_number_value (json_array_get (r, 1)), label);
                band = true;
            }
        }
        fputs ("<div class=\"charts\">\n", f);
        svg_chart_write (c, f, "no drive has a figure yet");
        fputs ("</div>\n", f);
        svg_chart_destroy (&c);
    }
    if (json_array_size (drives) > ROUNDS_CHART_DRIVES)
        fprintf (f, "<p>The chart shows the first %d drives; the table lists all %zu.</p>\n",
                 ROUNDS_CHART_DRIVES, json_array_size (drives));
    fputs ("<table class=\"rounds\"><thead><tr><th>Agent</th><th>Target</th><th>Steady</th>"
           "<th>Window</th><th>Mean</th><th>Range</th><th>Slope excursion</th>"
           "<th>Per round</th></tr></thead><tbody>\n", f);
    json_array_foreach (drives, i, d) {
        bool steady = json_is_true (json_object_get (d, "steady"));
        json_t *w = json_object_get (d, steady ? "window" : "last_window");
        char b[32];
        fputs (steady ? "<tr>" : "<tr class=\"bad\">", f);
        fputs ("<td>", f);
        esc (f, str (d, "agent"));
        fputs ("</td><td>", f);
        esc (f, str (d, "target"));
        if (steady)
            fprintf (f, "</td><td>round %.0f</td><td>rounds %.0f-%.0f</td>",
                     num (d, "steady_round"),
                     json_number_value (json_array_get (json_object_get (w, "rounds"), 0)),
                     json_number_value (json_array_get (json_object_get (w, "rounds"), 1)));
        else
            fputs ("</td><td>not steady</td><td>last window</td>", f);
        if (json_object_get (w, "mean"))
            fprintf (f, "<td>%s</td><td>%.1f%%</td><td>%.1f%%</td>",
                     html_figure (metric, num (w, "mean"), b, sizeof b), num (w, "range_pct"),
                     num (w, "excursion_pct"));
        else
            fputs ("<td>-</td><td>-</td><td>-</td>", f);
        fputs ("<td>", f);
        json_array_foreach (json_object_get (d, "figures"), k, v)
            fprintf (f, "%s%s", k ? " " : "", json_is_number (v)
                     ? html_figure (metric, json_number_value (v), b, sizeof b) : "-");
        fputs ("</td></tr>\n", f);
    }
    fputs ("</tbody></table></section>\n", f);
}

void
html_report (FILE *f, json_t *rep)
{
    json_t *inv = json_object_get (rep, "inventories");
    char title[512], rb[32];
    snprintf (title, sizeof title, "iofleet run %s: %s", html_run_id (rep, rb, sizeof rb),
              str (rep, "plan"));
    html_head (f, title);
    fputs ("<header><h1>", f);
    esc (f, title);
    fputs (" ", f);
    html_verdict_badge (f, str (rep, "verdict"));
    fputs ("</h1><p class=\"meta\">iofleet report, generated by iofleet " IOF_VERSION
           "</p></header>\n", f);
    json_t *steps = json_object_get (rep, "steps");
    size_t n = json_array_size (steps), i;
    json_t *s;
    fputs ("<nav><ol><li><a href=\"#summary\">Summary</a></li>", f);
    if (json_array_size (json_object_get (rep, "sweeps")))
        fputs ("<li><a href=\"#sweeps\">Queue-depth curves</a></li>", f);
    if (json_is_object (json_object_get (rep, "rounds")))
        fputs ("<li><a href=\"#rounds\">Rounds and steady state</a></li>", f);
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
    rounds_section (f, rep);
    json_array_foreach (steps, i, s)
        step_section (f, s, i, n);
    inventory (f, inv);
    method (f, rep);
    html_footer (f);
}

/* ---- files ---- */

int
html_report_write (const char *path, json_t *report, char *err, size_t errlen)
{
    FILE *f = html_open_out (path, err, errlen);
    if (!f)
        return -errno;
    errno = 0;
    html_report (f, report);
    return html_close_out (f, path, err, errlen);
}
