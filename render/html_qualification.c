/*  html_qualification.c: iofleet report --template qualification --format
    html: the controller's qualification report (controller/templates/qualification.h)
    as one self-contained page: its tables, the curves of IOPS and p99
    against depth per group with the SLA classes' limits, and each
    large-block step's bandwidth beside its paths' ceilings.  Rendering
    only. */
#include "html_page.h"
#include "html_report.h"

#include <errno.h>
#include <string.h>

static void
charts (FILE *f, json_t *q)
{
    json_t *curves = json_object_get (q, "curves");
    svg_chart_t *ci = svg_chart_new ("qual-iops", "IOPS against iodepth, per group", SVG_LINES);
    svg_chart_t *cl = svg_chart_new ("qual-p99", "p99 against iodepth, per group", SVG_LINES);
    if (!ci || !cl) {
        svg_chart_destroy (&ci);
        svg_chart_destroy (&cl);
        return;
    }
    svg_chart_axis (ci, 'x', SVG_LOG2, "iodepth", NULL);
    svg_chart_axis (ci, 'y', SVG_LINEAR, "IOPS", html_iops);
    svg_chart_axis (cl, 'x', SVG_LOG2, "iodepth", NULL);
    svg_chart_axis (cl, 'y', SVG_LOG10, "p99 latency", html_lat);
    size_t i, k;
    json_t *c, *p;
    json_array_foreach (curves, i, c) {
        if (json_array_size (json_object_get (c, "points")) < 2)
            continue;
        char name[128], b1[32], b2[32], b3[32];
        snprintf (name, sizeof name, "%s %s %s", str (c, "group"), str (c, "rw"),
                  html_bytes (num (c, "bs"), b1, sizeof b1));
        svg_chart_series (ci, name);
        svg_chart_series (cl, name);
        json_array_foreach (json_object_get (c, "points"), k, p) {
            char tip[256];
            snprintf (tip, sizeof tip, "%s iodepth %.0f: %s IOPS, p99 %s", name,
                      num (p, "iodepth"), html_iops (num (p, "iops"), b2, sizeof b2),
                      html_lat (num (p, "p99"), b3, sizeof b3));
            svg_chart_point (ci, num (p, "iodepth"), num (p, "iops"), tip, 0);
            svg_chart_point (cl, num (p, "iodepth"), num (p, "p99"), tip, 0);
        }
    }
    json_array_foreach (json_object_get (json_object_get (q, "options"), "sla_classes"), i, c) {
        char label[96], b[32];
        snprintf (label, sizeof label, "%s: p99 < %s", str (c, "name"),
                  html_lat (num (c, "p99_limit"), b, sizeof b));
        svg_chart_hline (cl, num (c, "p99_limit"), label);
    }
    fputs ("<div class=\"charts\">\n", f);
    svg_chart_write (ci, f, "the plan has no queue-depth sweep");
    svg_chart_write (cl, f, "the plan has no queue-depth sweep");
    fputs ("</div>\n", f);
    svg_chart_destroy (&ci);
    svg_chart_destroy (&cl);
}

#define PATHS_CHART_HOSTS 24     /* bars per chart; the table has every host */

/* Large blocks against the path's ceiling (controller/templates/paths.h): per step,
   each host's bandwidth beside its ceiling, and the tables. */
static void
paths_section (FILE *f, json_t *q)
{
    json_t *paths = json_object_get (q, "paths");
    if (!json_array_size (paths))
        return;
    fputs ("<section id=\"paths\"><h2>Large blocks against the path's ceiling</h2>\n<p>", f);
    esc (f, str (json_object_get (q, "rules"), "paths"));
    fputs (".</p>\n", f);
    size_t i, k;
    json_t *p, *r;
    char b[4][32];
    json_array_foreach (paths, i, p) {
        json_t *lim = json_object_get (p, "limited_by");
        fputs ("<h3>", f);
        esc (f, str (p, "step"));
        fprintf (f, " (%s, %s, QD%.0f)</h3>\n<p>Hosts limited by the HBA's PCIe link: %.0f, by "
                 "an expander uplink: %.0f, by the drives' links: %.0f, unknown: %.0f.</p>\n",
                 str (p, "rw"), html_bytes (num (p, "bs"), b[0], sizeof b[0]), num (p, "iodepth"),
                 num (lim, "hba"), num (lim, "uplink"), num (lim, "drives"), num (lim, "unknown"));
        char title[256];
        size_t nh = json_array_size (json_object_get (p, "hosts"));
        snprintf (title, sizeof title, "%s: bandwidth and ceiling per host%s", str (p, "step"),
                  nh > PATHS_CHART_HOSTS ? " (the first 24; the table has all)" : "");
        svg_chart_t *c = svg_chart_new ("qual-paths", title, SVG_BARS);
        if (c) {
            svg_chart_axis (c, 'y', SVG_LINEAR, "bytes/s", html_bw);
            json_array_foreach (json_object_get (p, "hosts"), k, r) {
                if (k == PATHS_CHART_HOSTS)
                    break;
                char name[160];
                snprintf (name, sizeof name, "%s %s", str (r, "agent"), str (r, "controller"));
                svg_chart_category (c, name);
            }
            static const char *const series[] = { "bandwidth", "ceiling" };
            static const char *const keys[] = { "bw", "ceiling_bps" };
            for (int sidx = 0; sidx < 2; sidx++) {
                svg_chart_series (c, series[sidx]);
                json_array_foreach (json_object_get (p, "hosts"), k, r) {
                    if (k == PATHS_CHART_HOSTS)
                        break;
                    char tip[256];
                    snprintf (tip, sizeof tip, "%s %s: %s %s (%s)", str (r, "agent"),
                              str (r, "controller"), series[sidx],
                              html_bw (num (r, keys[sidx]), b[1], sizeof b[1]),
                              str (r, "limit"));
                    if (isfinite (num (r, keys[sidx])))
                        svg_chart_point (c, (double) k, num (r, keys[sidx]), tip,
                                         sidx == 0 ? SVG_PT_STRONG : 0);
                }
            }
            fputs ("<div class=\"charts\">\n", f);
            svg_chart_write (c, f, "no host has a known ceiling");
            fputs ("</div>\n", f);
            svg_chart_destroy (&c);
        }
        fputs ("<table class=\"qual\"><thead><tr><th>Group</th><th>Drives</th><th>Bandwidth</th>"
               "<th>Their links</th><th>Used</th></tr></thead><tbody>\n", f);
        json_array_foreach (json_object_get (p, "groups"), k, r) {
            fputs ("<tr>", f);
            html_td (f, str (r, "group"));
            fprintf (f, "<td>%.0f</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                     num (r, "targets"), html_bw (num (r, "bw"), b[0], sizeof b[0]),
                     html_bw (num (r, "drive_links_bps"), b[1], sizeof b[1]),
                     html_share (num (r, "used_pct"), b[2], sizeof b[2]));
        }
        fputs ("</tbody></table>\n<table class=\"qual\"><thead><tr><th>Agent</th>"
               "<th>Controller</th><th>Drives</th><th>Bandwidth</th><th>Ceiling</th><th>Used</th>"
               "<th>Limited by</th></tr></thead><tbody>\n", f);
        json_array_foreach (json_object_get (p, "hosts"), k, r) {
            fputs ("<tr>", f);
            html_td (f, str (r, "agent"));
            html_td (f, str (r, "controller")[0] ? str (r, "controller") : "-");
            fprintf (f, "<td>%.0f</td><td>%s</td><td>%s</td><td>%s</td>", num (r, "targets"),
                     html_bw (num (r, "bw"), b[0], sizeof b[0]),
                     html_bw (num (r, "ceiling_bps"), b[1], sizeof b[1]),
                     html_share (num (r, "used_pct"), b[2], sizeof b[2]));
            char lim_text[160];
            snprintf (lim_text, sizeof lim_text, "%s: %s", str (r, "limited_by"), str (r, "limit"));
            html_td (f, lim_text);
            fputs ("</tr>\n", f);
        }
        fputs ("</tbody></table>\n", f);
    }
    fputs ("</section>\n", f);
}

/* The tuning checklist (controller/templates/checklist.h). */
static void
checklist_section (FILE *f, json_t *q)
{
    fputs ("<section id=\"checklist\"><h2>Tuning checklist</h2>\n<p>", f);
    esc (f, str (json_object_get (q, "rules"), "checklist"));
    fputs (".</p>\n<table class=\"qual\"><thead><tr><th>Rule</th><th>Group</th><th>Verdict</th>"
           "<th>Failing / checked</th><th>Example</th></tr></thead><tbody>\n", f);
    size_t i, k;
    json_t *r, *g;
    json_array_foreach (json_object_get (q, "checklist"), i, r)
        json_array_foreach (json_object_get (r, "groups"), k, g) {
            bool checked = num (g, "checked") > 0, bad = num (g, "failing") > 0;
            fputs (bad ? "<tr class=\"bad\">" : "<tr>", f);
            html_td (f, str (r, "advice"));
            html_td (f, str (g, "group"));
            fputs ("<td>", f);
            if (checked)
                html_verdict_badge (f, bad ? "fail" : "pass");
            else
                fputs ("not known", f);
            fprintf (f, "</td><td>%.0f / %.0f</td>", num (g, "failing"), num (g, "checked"));
            html_td (f, str (g, "example"));
            fputs ("</tr>\n", f);
        }
    fputs ("</tbody></table></section>\n", f);
}

static void
html_qualification (FILE *f, json_t *q)
{
    char title[512], b[6][32];
    snprintf (title, sizeof title, "iofleet run %.0f: %s, qualification by %s", num (q, "run"),
              str (q, "plan"), str (q, "by"));
    html_head (f, title);
    fputs ("<header><h1>", f);
    esc (f, title);
    fputs (" ", f);
    html_verdict_badge (f, str (q, "verdict"));
    fputs ("</h1><p class=\"meta\">iofleet qualification report, generated by iofleet "
           IOF_VERSION "; every figure computed by the controller</p></header>\n", f);
    size_t i;
    json_t *r;

    fputs ("<section id=\"latency\"><h2>Latency of random reads</h2>\n<p>Completion latency per "
           "group, percentiles from the group's merged histograms.</p>\n<table class=\"qual\">"
           "<thead><tr><th>Group</th><th>Step</th><th>bs</th><th>QD</th><th>IOPS</th>"
           "<th>Mean</th><th>p95</th><th>p99</th><th>p99.9</th></tr></thead><tbody>\n", f);
    json_array_foreach (json_object_get (q, "latency"), i, r) {
        fputs ("<tr>", f);
        html_td (f, str (r, "group"));
        html_td (f, str (r, "step"));
        fprintf (f, "<td>%s</td><td>%.0f</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                 "<td>%s</td></tr>\n", html_bytes (num (r, "bs"), b[0], sizeof b[0]),
                 num (r, "iodepth"), html_iops (num (r, "iops"), b[1], sizeof b[1]),
                 html_lat (num (r, "mean"), b[2], sizeof b[2]),
                 html_lat (num (r, "p95"), b[3], sizeof b[3]),
                 html_lat (num (r, "p99"), b[4], sizeof b[4]),
                 html_lat (num (r, "p99.9"), b[5], sizeof b[5]));
    }
    fputs ("</tbody></table></section>\n", f);

    fputs ("<section id=\"curves\"><h2>Peak IOPS and the knee</h2>\n<p>Knee: ", f);
    esc (f, str (json_object_get (q, "rules"), "knee"));
    fputs (".</p>\n", f);
    charts (f, q);
    fputs ("<table class=\"qual\"><thead><tr><th>Group</th><th>rw</th><th>bs</th>"
           "<th>Peak IOPS</th><th>at QD</th><th>per drive</th><th>Knee</th></tr></thead>"
           "<tbody>\n", f);
    json_array_foreach (json_object_get (q, "curves"), i, r) {
        fputs ("<tr>", f);
        html_td (f, str (r, "group"));
        html_td (f, str (r, "rw"));
        fprintf (f, "<td>%s</td><td>%s</td><td>%.0f</td><td>%s</td>",
                 html_bytes (num (r, "bs"), b[0], sizeof b[0]),
                 html_iops (num (r, "peak_iops"), b[1], sizeof b[1]), num (r, "peak_iodepth"),
                 html_iops (num (r, "peak_iops_per_target"), b[2], sizeof b[2]));
        if (isfinite (num (r, "knee_iodepth")))
            fprintf (f, "<td>QD%.0f</td></tr>\n", num (r, "knee_iodepth"));
        else
            fputs ("<td>" DASH "</td></tr>\n", f);
    }
    fputs ("</tbody></table></section>\n", f);

    if (json_array_size (json_object_get (q, "mixed"))) {
        fputs ("<section id=\"mixed\"><h2>Mixed workload against pure reads</h2>\n<p>", f);
        esc (f, str (json_object_get (q, "rules"), "mixed"));
        fputs (".</p>\n<table class=\"qual\"><thead><tr><th>Group</th><th>bs</th><th>Reads</th>"
               "<th>Read peak</th><th>Mixed peak</th><th>Penalty</th></tr></thead><tbody>\n", f);
        json_array_foreach (json_object_get (q, "mixed"), i, r) {
            fputs ("<tr>", f);
            html_td (f, str (r, "group"));
            fprintf (f, "<td>%s</td><td>%.0f%%</td><td>%s</td><td>%s</td><td>%.1f%%</td></tr>\n",
                     html_bytes (num (r, "bs"), b[0], sizeof b[0]), num (r, "rwmixread"),
                     html_iops (num (r, "read_peak_iops"), b[1], sizeof b[1]),
                     html_iops (num (r, "mixed_peak_iops"), b[2], sizeof b[2]),
                     num (r, "penalty_pct"));
        }
        fputs ("</tbody></table></section>\n", f);
    }

    fputs ("<section id=\"classes\"><h2>SLA classes</h2>\n<p>", f);
    esc (f, str (json_object_get (q, "rules"), "sla_classes"));
    fputs (".</p>\n<table class=\"qual\"><thead><tr><th>Class</th><th>p99 below</th>"
           "<th>Group</th><th>bs</th><th>Verdict</th><th>IOPS</th><th>per drive</th>"
           "<th>at QD</th><th>p99</th></tr></thead><tbody>\n", f);
    json_array_foreach (json_object_get (q, "sla_classes"), i, r) {
        bool pass = json_is_true (json_object_get (r, "pass"));
        fputs (pass ? "<tr>" : "<tr class=\"bad\">", f);
        html_td (f, str (r, "class"));
        fprintf (f, "<td>%s</td>", html_lat (num (r, "p99_limit"), b[0], sizeof b[0]));
        html_td (f, str (r, "group"));
        fprintf (f, "<td>%s</td><td>", html_bytes (num (r, "bs"), b[1], sizeof b[1]));
        html_verdict_badge (f, pass ? "pass" : "fail");
        fprintf (f, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                 html_iops (num (r, "capacity_iops"), b[2], sizeof b[2]),
                 html_iops (num (r, "capacity_iops_per_target"), b[3], sizeof b[3]),
                 isfinite (num (r, "iodepth")) ? (snprintf (b[4], sizeof b[4], "%.0f",
                                                            num (r, "iodepth")), b[4]) : DASH,
                 html_lat (num (r, "p99"), b[5], sizeof b[5]));
    }
    fputs ("</tbody></table></section>\n", f);

    paths_section (f, q);
    checklist_section (f, q);

    json_t *o = json_object_get (q, "options");
    fprintf (f, "<section id=\"capacity\"><h2>Capacity advice</h2>\n<p>Drives of each group "
             "for %s IOPS, each keeping %.0f%% p99 headroom under its class's limit. ",
             html_iops (num (o, "target_iops"), b[0], sizeof b[0]), num (o, "headroom_pct"));
    esc (f, str (json_object_get (q, "rules"), "capacity"));
    fputs (".</p>\n<table class=\"qual\"><thead><tr><th>Class</th><th>Group</th><th>bs</th>"
           "<th>p99 at most</th><th>per drive</th><th>at QD</th><th>p99</th><th>Drives</th>"
           "</tr></thead><tbody>\n", f);
    json_array_foreach (json_object_get (q, "capacity"), i, r) {
        fputs ("<tr>", f);
        html_td (f, str (r, "class"));
        html_td (f, str (r, "group"));
        fprintf (f, "<td>%s</td><td>%s</td><td>%s</td>",
                 html_bytes (num (r, "bs"), b[0], sizeof b[0]),
                 html_lat (num (r, "p99_at_most"), b[1], sizeof b[1]),
                 html_iops (num (r, "per_target_iops"), b[2], sizeof b[2]));
        if (isfinite (num (r, "iodepth")))
            fprintf (f, "<td>%.0f</td><td>%s</td><td>%.0f</td></tr>\n", num (r, "iodepth"),
                     html_lat (num (r, "p99"), b[3], sizeof b[3]), num (r, "targets_needed"));
        else
            fputs ("<td>" DASH "</td><td>" DASH "</td><td>none meets it</td></tr>\n", f);
    }
    fputs ("</tbody></table></section>\n", f);
    html_footer (f);
}

int
html_qualification_write (const char *path, json_t *q, char *err, size_t errlen)
{
    return html_write_doc (path, html_qualification, q, err, errlen);
}
