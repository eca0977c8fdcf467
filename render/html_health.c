/*  html_health.c: a step's drive health in the HTML report (html_page.h):
    the temperature over the step (the fleet's highest and mean each
    interval, the hot drives' own, the warning threshold) under its IOPS
    and p99 charts, and a table of every drive the controller listed with
    what the step did to it (controller/report/step_health.c judged it).
*/
#include "html_page.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *
fmt_c (double v, char *buf, size_t cap)
{
    snprintf (buf, cap, "%.0f C", v);
    return buf;
}

void
html_health_chart (FILE *f, json_t *s)
{
    json_t *h = json_object_get (s, "health");
    if (!h || num (h, "not_sent") == num (h, "drives_total"))
        return;
    json_t *t = json_object_get (h, "temperature");
    char title[512];
    snprintf (title, sizeof title, "Drive temperature per interval: %s", str (s, "name"));
    svg_chart_t *c = svg_chart_new ("temperature", title, SVG_LINES);
    if (!c)
        return;
    svg_chart_axis (c, 'x', SVG_LINEAR, "time since the step's start", html_seconds);
    svg_chart_axis (c, 'y', SVG_LINEAR, "temperature", fmt_c);
    double step_s = num (t, "interval_s");
    if (!isfinite (step_s) || step_s <= 0)
        step_s = 1;
    static const char *const keys[2] = { "max_c", "mean_c" };
    static const char *const names[2] = { "fleet highest", "fleet mean" };
    for (int k = 0; k < 2 && json_is_object (t); k++) {
        svg_chart_series (c, names[k]);
        size_t i;
        json_t *v;
        json_array_foreach (json_object_get (t, keys[k]), i, v) {
            if (!json_is_number (v))
                continue;
            char tip[128];
            snprintf (tip, sizeof tip, "%s at %.1f s: %.1f C", names[k], (double) (i + 1) * step_s,
                      json_number_value (v));
            svg_chart_point (c, (double) (i + 1) * step_s, json_number_value (v), tip, 0);
        }
    }
    size_t di;
    json_t *d;
    json_array_foreach (json_object_get (t, "drives"), di, d) {
        char name[256];
        snprintf (name, sizeof name, "%s %s", str (d, "agent"), html_base_name (str (d, "target")));
        svg_chart_series (c, name);
        size_t i;
        json_t *v;
        json_array_foreach (json_object_get (d, "c"), i, v) {
            if (!json_is_number (v))
                continue;
            char tip[384];
            snprintf (tip, sizeof tip, "%s at %.1f s: %.1f C", name, (double) (i + 1) * step_s,
                      json_number_value (v));
            svg_chart_point (c, (double) (i + 1) * step_s, json_number_value (v), tip, 0);
        }
    }
    /* The lowest warning threshold of the drives listed. */
    double warn = INFINITY;
    json_array_foreach (json_object_get (h, "drives"), di, d) {
        double w = num (json_object_get (d, "judgement"), "warning_temp_c");
        if (isfinite (w) && w < warn)
            warn = w;
    }
    if (isfinite (warn) && json_is_object (t)) {
        char label[64];
        snprintf (label, sizeof label, "warning threshold %.0f C", warn);
        svg_chart_hline (c, warn, label);
    }
    svg_chart_write (c, f, "no drive of this step reported a temperature (loop, virtio or "
                     "simulated drives without --health have no sensor)");
    svg_chart_destroy (&c);
}

/* A judgement's integer figure, a dash where unknown. */
static void
cell_int (FILE *f, json_t *j, const char *key, bool bad_above_zero)
{
    double v = num (j, key);
    if (!isfinite (v))
        fprintf (f, "<td>%s</td>", DASH);
    else
        fprintf (f, "<td%s>%.0f</td>", bad_above_zero && v > 0 ? " class=\"fail\"" : "", v);
}

void
html_health_table (FILE *f, json_t *s)
{
    json_t *h = json_object_get (s, "health");
    if (!h || num (h, "drives_total") <= 0 || num (h, "not_sent") == num (h, "drives_total"))
        return;
    fprintf (f, "<h3>Drive health</h3>\n<p>%.0f of %.0f drives report their health", num (h, "reporting"),
             num (h, "drives_total"));
    const char *reason;
    json_t *c;
    json_object_foreach (json_object_get (h, "unavailable"), reason, c) {
        fprintf (f, "; %lld unavailable: ", (long long) json_integer_value (c));
        esc (f, reason);
    }
    if (num (h, "not_sent") > 0)
        fprintf (f, "; %.0f not sent (agents of a release before health records)",
                 num (h, "not_sent"));
    fprintf (f, ".%s</p>\n", strcmp (str (h, "listed"), "all") == 0 ? ""
             : " The table lists the drives with a finding.");
    json_t *rule = json_object_get (h, "rule");
    if (rule) {
        fputs ("<p>Health rule <code>", f);
        esc (f, str (rule, "conditions"));
        fputs ("</code>: ", f);
        html_verdict_badge (f, json_is_true (json_object_get (rule, "pass")) ? "pass" : "fail");
        if (num (rule, "drives_not_judged") > 0)
            fprintf (f, " (%.0f drive(s) without the figures it needs, not judged)",
                     num (rule, "drives_not_judged"));
        fputs ("</p>\n", f);
        size_t k;
        json_t *x;
        if (json_array_size (json_object_get (rule, "failures"))) {
            fputs ("<ul class=\"problems\">", f);
            json_array_foreach (json_object_get (rule, "failures"), k, x) {
                fputs ("<li class=\"fail\">FAIL ", f);
                esc (f, str (x, "agent"));
                fputs (" ", f);
                esc (f, str (x, "target"));
                fputs (" ", f);
                esc (f, str (x, "condition"));
                fputs (": ", f);
                esc (f, str (x, "why"));
                fputs ("</li>", f);
            }
            fputs ("</ul>\n", f);
        }
    }
    json_t *drives = json_object_get (h, "drives");
    if (!json_array_size (drives))
        return;
    fputs ("<table class=\"health\"><thead><tr><th class=\"l\">agent</th><th class=\"l\">target"
           "</th><th class=\"l\">drive</th><th>max temp</th><th>above warning</th>"
           "<th>throttle transitions</th><th>new media errors</th><th>new error-log entries"
           "</th><th>write amplification</th><th class=\"l\">findings</th></tr></thead><tbody>\n",
           f);
    size_t i;
    json_t *d;
    json_array_foreach (drives, i, d) {
        json_t *j = json_object_get (d, "judgement"), *dr = json_object_get (d, "drive");
        fputs ("<tr><td class=\"l\">", f);
        esc (f, str (d, "agent"));
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (d, "target"));
        fputs ("</td><td class=\"l\">", f);
        if (json_is_object (dr)) {
            esc (f, str (dr, "model"));
            fputs (" ", f);
            esc (f, str (dr, "serial"));
        } else
            fputs (DASH, f);
        fputs ("</td>", f);
        double tmax = num (j, "temperature_max_c");
        bool hot = json_is_true (json_object_get (j, "hot"));
        if (isfinite (tmax))
            fprintf (f, "<td%s>%.1f C</td>", hot ? " class=\"fail\"" : "", tmax);
        else
            fprintf (f, "<td>%s</td>", DASH);
        double above = num (j, "above_warning_s");
        if (isfinite (above))
            fprintf (f, "<td%s>%.0f s</td>", above > 0 ? " class=\"fail\"" : "", above);
        else
            fprintf (f, "<td>%s</td>", DASH);
        cell_int (f, j, "throttle_transitions", true);
        cell_int (f, j, "media_errors_delta", true);
        cell_int (f, j, "error_log_entries_delta", true);
        double waf = num (j, "waf");
        if (isfinite (waf))
            fprintf (f, "<td>%.2f</td>", waf);
        else
            fprintf (f, "<td>%s</td>", DASH);
        fputs ("<td class=\"l\">", f);
        if (!json_is_true (json_object_get (j, "available"))) {
            fputs ("unavailable: ", f);
            esc (f, str (j, "reason"));
        }
        size_t k;
        json_t *x;
        json_array_foreach (json_object_get (j, "findings"), k, x) {
            fputs (k || !json_is_true (json_object_get (j, "available")) ? "; " : "", f);
            esc (f, json_string_value (x));
        }
        fputs ("</td></tr>\n", f);
    }
    fputs ("</tbody></table>\n", f);
}
