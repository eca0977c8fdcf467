/*  html_compare.c: iofleet compare --format html (html_report.h): the
    two runs side by side, per step the change of each figure as the
    controller judged it (controller/templates/compare_admin.c), the percentiles and
    latency histograms of A and B overlaid.
*/
#include "html_report.h"
#include "html_page.h"
#include "direction.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

/* metric's value v as text, in the unit the controller says it has. */
static const char *
metric_value (json_t *units, const char *metric, double v, char *buf, size_t cap)
{
    const char *unit = str (units, metric);
    if (!strcmp (unit, "ns"))
        return html_lat (v, buf, cap);
    if (!strcmp (unit, "bytes/s"))
        return html_bw (v, buf, cap);
    return html_iops (v, buf, cap);
}

/* The controller's verdict on row i: "regression", "better", "worse"
   (within the limit) or "" (compare_admin.h). */
static const char *
verdict_of (json_t *judged, size_t i)
{
    const char *v = json_string_value (json_array_get (json_object_get (judged, "rows"), i));
    return v ? v : "";
}

static void
run_cells (FILE *f, json_t *rep, const char *field)
{
    char b[64];
    fputs ("<td class=\"l\">", f);
    if (!strcmp (field, "run"))
        fputs (html_run_id (rep, b, sizeof b), f);
    else if (!strcmp (field, "plan")) {
        esc (f, str (rep, "plan"));
        if (isfinite (num (rep, "plan_version")))
            fprintf (f, " v%.0f", num (rep, "plan_version"));
    } else if (!strcmp (field, "status"))
        html_status_cell (f, str (rep, "status"));
    else if (!strcmp (field, "verdict"))
        html_verdict_badge (f, str (rep, "verdict"));
    else if (!strcmp (field, "started_at"))
        fputs (html_ns_time (num (rep, "started_at"), b, sizeof b), f);
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
    if (!html_has_ops (d[0]) || !html_has_ops (d[1]))
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
        size_t i;
        json_t *bin;
        snprintf (sname, sizeof sname, "%s (run %s)", k ? "B" : "A",
                  html_run_id (k ? b : a, b1, sizeof b1));
        svg_chart_series (c, sname);
        svg_chart_data (c, "bins", (double) json_array_size (h[k]));
        json_array_foreach (h[k], i, bin) {
            double lo = json_number_value (json_array_get (bin, 0));
            double hi = json_number_value (json_array_get (bin, 1));
            double n = json_number_value (json_array_get (bin, 2));
            double frac = json_number_value (json_array_get (bin, 3));  /* the controller's */
            snprintf (tip, sizeof tip, "%s %s: %s to %s: %.3f%% of the I/Os (%.0f)", sname, dn,
                      html_lat (lo, b1, sizeof b1), html_lat (hi, b2, sizeof b2), 100 * frac, n);
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

/* What every part of the page reads: the two runs' reports and the
   controller's rows and judgement of them. */
typedef struct {
    json_t *a, *b;              /* the runs' reports */
    json_t *rows;               /* compare.rows: one per step, group, metric */
    json_t *judged;             /* the verdict of each row, and the counts */
    json_t *units;              /* the unit of each metric */
} cmp_page_t;

/* The summary table of A and B, and what was forced, mapped or skipped. */
static void
s_summary_runs (FILE *f, const cmp_page_t *p, json_t *cmp)
{
    size_t k;
    json_t *r;
    static const char *fields[] = { "run", "plan", "labels", "status", "verdict", "started_at",
                                    "steps" };
    for (int i = 0; i < 7; i++) {
        fprintf (f, "<tr><td class=\"l\"><b>%s</b></td>", !strcmp (fields[i], "started_at")
                 ? "started" : !strcmp (fields[i], "verdict") ? "SLA verdict" : fields[i]);
        run_cells (f, p->a, fields[i]);
        run_cells (f, p->b, fields[i]);
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
        json_array_foreach (json_object_get (cmp, "skipped"), k, r) {
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
}

/* The step names of the rows, each once, in the rows' order: a new JSON
   array of strings (NULL when out of memory). */
static json_t *
s_step_names (json_t *rows)
{
    size_t i;
    json_t *r;
    json_t *steps = json_array (), *seen = json_object ();
    json_array_foreach (rows, i, r) {
        if (!json_object_get (seen, str (r, "step"))) {
            json_object_set_new (seen, str (r, "step"), json_true ());
            json_array_append_new (steps, json_string (str (r, "step")));
        }
    }
    json_decref (seen);
    return steps;
}

/* The counts of the summary and how to read a change. */
static void
s_summary_counts (FILE *f, const cmp_page_t *p, json_t *steps)
{
    double thr = num (p->judged, "threshold_pct");
    int nsig = (int) num (p->judged, "significant"), nreg = (int) num (p->judged, "regressions");
    int nbetter = (int) num (p->judged, "improvements");
    fprintf (f, "<p>%zu %s compared over %zu %s both runs have: <b>%d significant</b>, "
             "of which <span class=\"%s\">%d %s</span> beyond %.1f%% and %d %s.</p>\n",
             json_array_size (p->rows), plural ((long long) json_array_size (p->rows), "figure",
                                                "figures"),
             json_array_size (steps), plural ((long long) json_array_size (steps), "step", "steps"),
             nsig, nreg ? "fail" : "pass", nreg, plural (nreg, "regression", "regressions"), thr,
             nbetter, plural (nbetter, "improvement", "improvements"));
    fputs ("<p>A change is <i>significant</i> when it stands out of the runs' own "
           "interval-to-interval noise: on the ratio scale (the log of each second's figure), "
           "|mean B - mean A| exceeds 3 x sqrt(var A / n A + var B / n B), and is at least 2%. "
           "Not significant needs 4 intervals a side: with fewer, a change that does not stand "
           "out is not judged (n/a), as are p99.9, a step shorter than two intervals and a "
           "series with an interval that measured nothing. In the charts, significant "
           "changes are solid bars, the others hatched; regressions have a black outline. IOPS "
           "and bandwidth down, or latency up, is worse.</p>\n", f);
    if (!json_array_size (steps))
        fputs ("<p class=\"fail\">The two runs have no step name in common: nothing to "
               "compare.</p>\n", f);
}

/* The chart of step name's changes: categories are groups, series are
   metrics, in the order of the rows. */
static void
s_delta_chart (FILE *f, const cmp_page_t *p, const char *name)
{
    char title[512], b1[64], b2[64], b3[64];
    size_t j;
    json_t *r;
    snprintf (title, sizeof title, "Change B vs A per group: %s", name);
    svg_chart_t *c = svg_chart_new ("compare-delta", title, SVG_BARS);
    json_t *groups = json_object (), *metrics = json_array ();
    if (c) {
        svg_chart_axis (c, 'x', SVG_LINEAR, "group", NULL);
        svg_chart_axis (c, 'y', SVG_LINEAR, "change B vs A", html_axis_pct);
        json_array_foreach (p->rows, j, r) {
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
            json_array_foreach (p->rows, j, r) {
                if (strcmp (str (r, "step"), name) || strcmp (str (r, "metric"), metric))
                    continue;
                json_t *sig = json_object_get (r, "significant");
                char tip[512];
                snprintf (tip, sizeof tip, "%s %s: %s to %s (%s), %s", str (r, "group"), metric,
                          metric_value (p->units, metric, num (r, "a"), b1, sizeof b1),
                          metric_value (p->units, metric, num (r, "b"), b2, sizeof b2),
                          html_pct (num (r, "delta_pct"), b3, sizeof b3),
                          json_is_null (sig) || !sig ? "not judged"
                          : json_is_true (sig) ? "significant" : "not significant");
                int flags = (json_is_true (sig) ? SVG_PT_STRONG : 0)
                            | (!strcmp (verdict_of (p->judged, j), "regression") ? SVG_PT_ALERT
                                                                                 : 0);
                svg_chart_point (c, (double) json_integer_value (json_object_get (groups,
                                 str (r, "group"))), num (r, "delta_pct"), tip, flags);
            }
        }
        svg_chart_write (c, f, "no figure of this step has a value in both runs");
        svg_chart_destroy (&c);
    }
    json_decref (groups);
    json_decref (metrics);
}

/* Fleet latency percentiles of A and B overlaid, for step name. */
static void
s_percentile_chart (FILE *f, const cmp_page_t *p, const char *name)
{
    char title[512], b1[64];
    snprintf (title, sizeof title, "Fleet latency percentiles, A and B: %s", name);
    svg_chart_t *c = svg_chart_new ("compare-percentiles", title, SVG_LINES);
    if (!c)
        return;
    svg_chart_axis (c, 'x', SVG_NINES, "percentile (nines scale)", NULL);
    svg_chart_axis (c, 'y', SVG_LOG10, "completion latency", fmt_lat);
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < 2; k++) {
            const char *dn = dir_name (d);
            json_t *dj = json_object_get (json_object_get (
                step_named (k ? p->b : p->a, k ? b_step_of (p->rows, name) : name), "fleet"), dn);
            if (!html_has_ops (dj))
                continue;
            char sname[64];
            snprintf (sname, sizeof sname, "%s (run %s) %s", k ? "B" : "A",
                      html_run_id (k ? p->b : p->a, b1, sizeof b1), dn);
            html_percentile_series (c, sname, dj);
        }
    svg_chart_write (c, f, "neither run measured I/O in this step");
    svg_chart_destroy (&c);
}

/* The table of step name's rows, one per group and metric. */
static void
s_step_table (FILE *f, const cmp_page_t *p, const char *name)
{
    char b1[64], b2[64], b3[64];
    size_t j;
    json_t *r;
    fputs ("<table class=\"compare\"><thead><tr><th class=\"l\">group</th>"
           "<th class=\"l\">metric</th><th>A</th><th>B</th><th>change</th>"
           "<th class=\"l\">significant</th><th class=\"l\">verdict</th>"
           "<th>members A</th><th>members B</th></tr></thead>"
           "<tbody>\n", f);
    json_array_foreach (p->rows, j, r) {
        if (strcmp (str (r, "step"), name))
            continue;
        const char *metric = str (r, "metric");
        json_t *sig = json_object_get (r, "significant");
        bool reg = !strcmp (verdict_of (p->judged, j), "regression");
        bool better = !strcmp (verdict_of (p->judged, j), "better");
        fprintf (f, "<tr%s><td class=\"l\">", reg ? " class=\"regression\"" : better
                 ? " class=\"better\"" : "");
        esc (f, str (r, "group"));
        fputs ("</td><td class=\"l\">", f);
        esc (f, metric);
        fprintf (f, "</td><td>%s</td><td>%s</td><td>%s</td><td class=\"l\">%s</td>"
                 "<td class=\"l\">%s</td><td>%.0f agents, %.0f targets</td>"
                 "<td>%.0f agents, %.0f targets</td></tr>\n",
                 metric_value (p->units, metric, num (r, "a"), b1, sizeof b1),
                 metric_value (p->units, metric, num (r, "b"), b2, sizeof b2),
                 html_pct (num (r, "delta_pct"), b3, sizeof b3),
                 json_is_true (sig) ? "yes" : json_is_false (sig) ? "no"
                                             : "n/a (not judged)",
                 reg ? "<span class=\"fail\">REGRESSION</span>"
                     : better ? "better"
                     : !strcmp (verdict_of (p->judged, j), "worse") ? "worse, within the limit" : "",
                 num (r, "a_agents"), num (r, "a_targets"), num (r, "b_agents"),
                 num (r, "b_targets"));
    }
    fputs ("</tbody></table>\n", f);
}

/* Step name's section (the i-th): its heading, charts and table. */
static void
s_step_section (FILE *f, const cmp_page_t *p, size_t i, const char *name)
{
    json_t *a = p->a, *b = p->b;
    fprintf (f, "<section class=\"step\" id=\"step-%zu\"><h2>Step ", i);
    esc (f, name);
    if (strcmp (b_step_of (p->rows, name), name) || strcmp (str (a, "plan"), str (b, "plan"))
        || num (a, "plan_version") != num (b, "plan_version")) {
        fputs (" (A: ", f);
        esc (f, str (a, "plan"));
        fprintf (f, " v%.0f) against ", num (a, "plan_version"));
        esc (f, b_step_of (p->rows, name));
        fputs (" (B: ", f);
        esc (f, str (b, "plan"));
        fprintf (f, " v%.0f)", num (b, "plan_version"));
    }
    fputs ("</h2>\n<div class=\"charts\">\n", f);
    s_delta_chart (f, p, name);
    s_percentile_chart (f, p, name);
    for (int d = 0; d < DIR_COUNT; d++)
        compare_histogram (f, a, b, name, b_step_of (p->rows, name), dir_name (d));
    fputs ("</div>\n", f);
    s_step_table (f, p, name);
    fputs ("</section>\n", f);
}

void
html_compare (FILE *f, json_t *res)
{
    json_t *cmp = json_object_get (res, "compare");
    cmp_page_t p = {
        .a = json_array_get (json_object_get (res, "reports"), 0),
        .b = json_array_get (json_object_get (res, "reports"), 1),
        .rows = json_object_get (cmp, "rows"),
        .judged = json_object_get (res, "judged"),
        .units = json_object_get (res, "units"),
    };
    char title[512], b1[64], b2[64];
    snprintf (title, sizeof title, "iofleet compare: run %s (A) against run %s (B)",
              html_run_id (p.a, b1, sizeof b1), html_run_id (p.b, b2, sizeof b2));
    html_head (f, title);
    fputs ("<header><h1>", f);
    esc (f, title);
    fputs ("</h1><p class=\"meta\">iofleet compare, generated by iofleet " IOF_VERSION
           "</p></header>\n<section id=\"summary\"><h2>Summary</h2>\n<table><thead><tr>"
           "<th class=\"l\"></th><th class=\"l\">A</th><th class=\"l\">B</th></tr></thead>"
           "<tbody>\n", f);
    s_summary_runs (f, &p, cmp);
    json_t *steps = s_step_names (p.rows);
    s_summary_counts (f, &p, steps);
    fputs ("</section>\n", f);
    size_t i;
    json_t *st;
    json_array_foreach (steps, i, st)
        s_step_section (f, &p, i, json_string_value (st));
    json_decref (steps);
    html_footer (f);
}

int
html_compare_write (const char *path, json_t *res, char *err, size_t errlen)
{
    return html_write_doc (path, html_compare, res, err, errlen);
}
