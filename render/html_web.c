/*  html_web.c: the controller's web pages besides the report (html_web.h). */
#include "html_web.h"
#include "html_page.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The bar of links every one of these pages starts with. */
static void
site_nav (FILE *f)
{
    fputs ("<nav class=\"site\"><a href=\"/\">Runs</a><a href=\"/agents\">Agents</a>"
           "<a href=\"/schedules\">Schedules</a><a href=\"/history\">History</a>"
           "<a href=\"/metrics\">Metrics</a></nav>\n", f);
}

static void
page_head (FILE *f, const char *title, int refresh_s)
{
    html_head_refresh (f, title, refresh_s);
    site_nav (f);
    fputs ("<header><h1>", f);
    esc (f, title);
    fputs ("</h1></header>\n", f);
}

static void
page_foot (FILE *f)
{
    fputs ("<footer><p>Served by iofleet-controller " IOF_VERSION ", read-only. The same "
           "figures as JSON: /api/runs, /api/runs/ID, /api/compare?a=&amp;b=, /api/history, "
           "/api/plans, /api/inventory/AGENT. Nothing on these pages is fetched from "
           "anywhere else.</p></footer>\n</body>\n</html>\n", f);
}

/* k=v, k=v of a labels object. */
static void
labels_cell (FILE *f, json_t *labels)
{
    const char *k;
    json_t *v;
    bool first = true;
    fputs ("<td class=\"l\">", f);
    json_object_foreach (labels, k, v) {
        if (!first)
            fputs (", ", f);
        first = false;
        esc (f, k);
        fputc ('=', f);
        esc (f, json_is_string (v) ? json_string_value (v) : "?");
    }
    fputs ("</td>", f);
}

static void
time_cell (FILE *f, json_t *o, const char *key)
{
    char b[64];
    fprintf (f, "<td>%s</td>", html_ns_time (num (o, key), b, sizeof b));
}

/* A text input of a GET form, its value from query. */
static void
input (FILE *f, const char *name, const char *label, json_t *query, const char *hint)
{
    fprintf (f, "<label>%s <input name=\"%s\" size=\"14\" placeholder=\"", label, name);
    esc (f, hint);
    fputs ("\" value=\"", f);
    esc (f, str (query, name));
    fputs ("\"></label>", f);
}

static void
history_form (FILE *f, json_t *query)
{
    fputs ("<form class=\"q\" method=\"get\" action=\"/history\">", f);
    input (f, "plan", "plan", query, "all");
    input (f, "step", "step", query, "all");
    input (f, "metric", "metric", query, "p99");
    input (f, "by", "by", query, "drive.firmware");
    input (f, "direction", "direction", query, "all");
    fputs ("<button type=\"submit\">History</button></form>\n", f);
}

/* ---- / ---- */

void
html_runs_page (FILE *f, json_t *runs)
{
    page_head (f, "iofleet runs", 0);
    fputs ("<form class=\"q\" method=\"get\" action=\"/compare\"><label>run A <input name=\"a\" "
           "size=\"6\"></label><label>run B <input name=\"b\" size=\"6\"></label><label>by "
           "<input name=\"by\" size=\"14\" placeholder=\"agent\"></label>"
           "<button type=\"submit\">Compare</button></form>\n", f);
    history_form (f, NULL);
    size_t n = json_array_size (runs);
    fprintf (f, "<table id=\"runs\"><thead><tr><th>run</th><th class=\"l\">status</th>"
             "<th class=\"l\">plan</th><th>version</th><th class=\"l\">labels</th>"
             "<th class=\"l\">schedule</th><th class=\"l\">verdict</th><th>agents</th>"
             "<th>created</th><th>started</th><th>finished</th><th class=\"l\">note</th>"
             "</tr></thead><tbody>\n");
    size_t shown = 0;
    for (size_t i = n; i-- > 0 && shown < HTML_RUNS_MAX; shown++) {
        json_t *r = json_array_get (runs, i);
        double id = num (r, "id");
        const char *st = str (r, "status");
        bool live = !strcmp (st, "running") || !strcmp (st, "queued");
        fprintf (f, "<tr data-run=\"%.0f\"><td><a href=\"/runs/%.0f\">%.0f</a></td>"
                 "<td class=\"l\">", Z (id), Z (id), Z (id));
        html_status_cell (f, st);
        if (live)
            fprintf (f, " <a href=\"/runs/%.0f/live\">live</a>", Z (id));
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (r, "plan"));
        fprintf (f, "</td><td>%.0f</td>", Z (num (r, "plan_version")));
        labels_cell (f, json_object_get (r, "labels"));
        fputs ("<td class=\"l\">", f);
        esc (f, str (r, "schedule"));
        fputs ("</td><td class=\"l\">", f);
        const char *v = str (r, "verdict");
        html_verdict_badge (f, !strcmp (v, "regressed") || !strcmp (v, "failed") ? "fail" : v);
        if (!strcmp (v, "regressed") || !strcmp (v, "failed")) {
            fputs (" ", f);
            esc (f, v);
        }
        fprintf (f, "</td><td>%.0f</td>", Z (num (r, "agents")));
        time_cell (f, r, "created_at");
        time_cell (f, r, "started_at");
        time_cell (f, r, "finished_at");
        fputs ("<td class=\"l\">", f);
        esc (f, str (r, "note"));
        fputs ("</td></tr>\n", f);
    }
    fputs ("</tbody></table>\n", f);
    if (!n)
        fputs ("<p class=\"muted\">No run yet: iofleet run PLAN starts one.</p>\n", f);
    else if (shown < n)
        fprintf (f, "<p class=\"muted\">The newest %zu of %zu runs; /api/runs lists them "
                 "all.</p>\n", shown, n);
    fputs ("<p class=\"muted\">Verdict: a scheduled run's, against its schedule's baseline "
           "(iofleet regressions); a run's SLA verdict is in its report.</p>\n", f);
    page_foot (f);
}

/* ---- /runs/ID/live ---- */

void
html_live_page (FILE *f, json_t *status, json_t *step)
{
    const char *st = str (status, "status");
    bool live = !strcmp (st, "running") || !strcmp (st, "queued");
    char title[160], b1[32], b2[32];
    double run = num (status, "run");
    snprintf (title, sizeof title, "Run %.0f of %s: %s", Z (run), str (status, "plan"),
              live ? "live" : st);
    page_head (f, title, live ? HTML_LIVE_REFRESH_S : 0);
    fputs ("<dl class=\"kv\" id=\"live\">", f);
    fputs ("<dt>status</dt><dd id=\"status\">", f);
    html_status_cell (f, st);
    if (str (status, "message")[0]) {
        fputs (": ", f);
        esc (f, str (status, "message"));
    }
    fputs ("</dd>", f);
    /* Why the run does not move, while the database cannot be written. */
    const char *held = str (json_object_get (status, "held"), "message");
    if (held[0]) {
        fputs ("<dt>database</dt><dd id=\"held\">", f);
        esc (f, held);
        fputs ("</dd>", f);
    }
    if (live && isfinite (num (status, "steps"))) {
        fprintf (f, "<dt>step</dt><dd id=\"step\">%.0f of %.0f: ", Z (num (status, "step")) + 1,
                 Z (num (status, "steps")));
        esc (f, str (status, "step_name"));
        if (str (status, "phase")[0]) {
            fputs (" (", f);
            esc (f, str (status, "phase"));
            fputs (")", f);
        }
        fputs ("</dd>", f);
    }
    double p = num (status, "progress");
    if (isfinite (p))
        fprintf (f, "<dt>progress</dt><dd><progress id=\"progress\" max=\"1\" value=\"%.4f\">"
                 "</progress> <span id=\"progress-pct\" data-progress=\"%.4f\">%.0f%%</span>"
                 "</dd>", p, p, 100 * p);
    if (isfinite (num (status, "elapsed_s")))
        fprintf (f, "<dt>elapsed</dt><dd id=\"elapsed\" data-s=\"%.3f\">%.1f s%s</dd>",
                 num (status, "elapsed_s"), num (status, "elapsed_s"),
                 isfinite (num (status, "left_s"))
                     ? (snprintf (b1, sizeof b1, ", %.0f s left", num (status, "left_s")), b1) : "");
    json_t *ags = json_object_get (status, "agents");
    if (json_object_size (ags)) {
        fputs ("<dt>agents</dt><dd id=\"agents\">", f);
        const char *k;
        json_t *v;
        bool first = true;
        json_object_foreach (ags, k, v) {
            fprintf (f, "%s<span data-state=\"", first ? "" : ", ");
            esc (f, k);
            fprintf (f, "\">%.0f ", Z (json_number_value (v)));
            esc (f, k);
            fputs ("</span>", f);
            first = false;
        }
        fputs ("</dd>", f);
    }
    json_t *li = json_object_get (status, "last_interval");
    if (li)
        fprintf (f, "<dt>last interval</dt><dd id=\"last-interval\" data-seq=\"%.0f\" "
                 "data-iops=\"%.0f\" data-p99=\"%.0f\">interval %.0f: %s IOPS, p99 %s</dd>",
                 Z (num (li, "seq")), Z (num (li, "iops")), Z (num (li, "p99")),
                 Z (num (li, "seq")), html_iops (num (li, "iops"), b1, sizeof b1),
                 html_lat (num (li, "p99"), b2, sizeof b2));
    fputs ("</dl>\n", f);
    json_t *outl = json_object_get (li, "outliers");
    if (json_array_size (outl)) {
        fputs ("<h2>Outliers in the last interval</h2>\n<table id=\"outliers\"><thead><tr>"
               "<th class=\"l\">agent</th><th>IOPS</th><th>the median</th><th>change</th>"
               "</tr></thead><tbody>\n", f);
        size_t i;
        json_t *o;
        json_array_foreach (outl, i, o) {
            char b3[32];
            fputs ("<tr><td class=\"l\">", f);
            esc (f, str (o, "agent"));
            fprintf (f, "</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                     html_iops (num (o, "iops"), b1, sizeof b1),
                     html_iops (num (o, "median_iops"), b2, sizeof b2),
                     html_pct (num (o, "delta_pct"), b3, sizeof b3));
        }
        fputs ("</tbody></table>\n", f);
    }
    fprintf (f, "<p><a href=\"/runs/%.0f\">The report%s</a></p>\n", Z (run),
             live ? " so far" : "");
    /* The step in hand's intervals so far. */
    json_t *s = step;
    if (s) {
        fputs ("<h2>", f);
        esc (f, str (s, "name"));
        fputs (": fleet IOPS and p99 per interval</h2>\n<div class=\"charts\">", f);
        html_interval_charts (f, s);
        fputs ("</div>\n", f);
    }
    if (live)
        fprintf (f, "<p class=\"muted\">This page reloads itself every %d s while the run "
                 "is queued or running.</p>\n", HTML_LIVE_REFRESH_S);
    page_foot (f);
}

/* ---- /history ---- */

static const char *
fmt_date (double s, char *buf, size_t cap)
{
    time_t t = (time_t) s;
    struct tm tm;
    if (!gmtime_r (&t, &tm) || !strftime (buf, cap, "%m-%d %H:%M", &tm))
        snprintf (buf, cap, "?");
    return buf;
}

static const char *
fmt_count (double v, char *buf, size_t cap)
{
    snprintf (buf, cap, "%.0f", v);
    return buf;
}

void
html_history_page (FILE *f, json_t *h, json_t *query)
{
    page_head (f, "iofleet history", 0);
    history_form (f, query);
    const char *unit = str (h, "unit"), *metric = str (h, "metric");
    svg_fmt_t *fmt = !strcmp (unit, "ns") ? fmt_lat : !strcmp (metric, "iops") ? fmt_iops
                     : !strcmp (metric, "bw") ? fmt_bw : fmt_count;
    json_t *rows = json_object_get (h, "rows");
    /* The rows by step and direction (a chart each), then by group (a
       line each), in the order they first come (jansson keeps it). */
    json_t *charts = json_object ();
    size_t i;
    json_t *r;
    json_array_foreach (rows, i, r) {
        char key[512];
        snprintf (key, sizeof key, "%s\n%s", str (r, "step"), str (r, "direction"));
        json_t *c = json_object_get (charts, key);
        if (!c)
            json_object_set_new (charts, key, c = json_object ());
        json_t *line = json_object_get (c, str (r, "group"));
        if (!line)
            json_object_set_new (c, str (r, "group"), line = json_array ());
        json_array_append (line, r);
    }
    fputs ("<div class=\"charts\">", f);
    const char *key, *group;
    json_t *c, *line;
    json_object_foreach (charts, key, c) {
        json_t *first = json_array_get (json_object_iter_value (json_object_iter (c)), 0);
        char title[512];
        snprintf (title, sizeof title, "%s of %s, %s, over time", metric, str (first, "step"),
                  str (first, "direction"));
        svg_chart_t *ch = svg_chart_new ("history", title, SVG_LINES);
        if (!ch)
            break;
        svg_chart_axis (ch, 'x', SVG_SPAN, "run start (UTC)", fmt_date);
        svg_chart_axis (ch, 'y', SVG_LINEAR, metric, fmt);
        json_object_foreach (c, group, line) {
            svg_chart_series (ch, group);
            json_array_foreach (line, i, r) {
                char tip[256], b[32];
                snprintf (tip, sizeof tip, "run %.0f (%s), %s: %s", Z (num (r, "run")),
                          str (r, "time"), group, fmt (num (r, "value"), b, sizeof b));
                /* The exact value on the point; its run in the tooltip. */
                if (svg_chart_point (ch, num (r, "time_ns") / 1e9, num (r, "value"), tip, 0) == 0)
                    svg_chart_data (ch, "value", num (r, "value"));
            }
        }
        svg_chart_write (ch, f, "no value");
        svg_chart_destroy (&ch);
    }
    json_decref (charts);
    fputs ("</div>\n", f);
    if (!json_array_size (rows))
        fputs ("<p class=\"muted\">No run matches: widen the plan or step, or check the names "
               "(iofleet plan list).</p>\n", f);
    fprintf (f, "<p class=\"muted\">%zu row(s); groups by ", json_array_size (rows));
    esc (f, str (h, "by")[0] ? str (h, "by") : "the fleet");
    fputs (", from merged histograms as in reports. The same as JSON: /api/history with these "
           "arguments.</p>\n", f);
    page_foot (f);
}

/* ---- /agents ---- */

void
html_agents_page (FILE *f, json_t *agents)
{
    page_head (f, "iofleet agents", 0);
    size_t i, n = json_array_size (agents), up = 0;
    json_t *a;
    json_array_foreach (agents, i, a)
        up += json_is_true (json_object_get (a, "connected"));
    fprintf (f, "<p>%zu agent(s), %zu connected.</p>\n", n, up);
    fputs ("<table id=\"agents\"><thead><tr><th class=\"l\">agent</th><th class=\"l\">state</th>"
           "<th class=\"l\">host</th><th class=\"l\">kernel</th><th class=\"l\">iofleet</th>"
           "<th class=\"l\">labels</th><th>clock offset</th><th>last seen</th>"
           "<th class=\"l\">drives</th><th class=\"l\">inventory</th></tr></thead><tbody>\n", f);
    json_array_foreach (agents, i, a) {
        bool c = json_is_true (json_object_get (a, "connected"));
        char b[64];
        fputs ("<tr data-agent=\"", f);
        esc (f, str (a, "name"));
        fputs ("\"><td class=\"l\">", f);
        esc (f, str (a, "name"));
        fprintf (f, "</td><td class=\"l\"><span class=\"%s\">%s</span></td><td class=\"l\">",
                 c ? "pass" : "fail", c ? "connected" : "disconnected");
        esc (f, str (a, "hostname"));
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (a, "kernel"));
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (a, "version"));
        fputs ("</td>", f);
        labels_cell (f, json_object_get (a, "labels"));
        fprintf (f, "<td>%s</td>", isfinite (num (a, "clock_offset_ns"))
                 ? html_lat (fabs (num (a, "clock_offset_ns")), b, sizeof b) : DASH);
        time_cell (f, a, "last_seen");
        json_t *drives = json_object_get (json_object_get (a, "inventory"), "drives");
        fputs ("<td class=\"l\">", f);
        if (json_array_size (drives)) {
            fprintf (f, "<details><summary>%zu drive(s)</summary><ul>", json_array_size (drives));
            size_t k;
            json_t *d;
            json_array_foreach (drives, k, d) {
                if (k >= 64)
                    break;
                fputs ("<li>", f);
                esc (f, str (d, "path")[0] ? str (d, "path") : str (d, "name"));
                fputs (": ", f);
                esc (f, str (d, "model"));
                fputs (", firmware ", f);
                esc (f, str (d, "firmware"));
                fputs (", ", f);
                esc (f, str (d, "transport"));
                if (isfinite (num (d, "size_bytes")))
                    fprintf (f, ", %.1f GiB", num (d, "size_bytes") / (1 << 30));
                fputs ("</li>", f);
            }
            fputs ("</ul></details>", f);
        } else
            fputs (DASH, f);
        fputs ("</td><td class=\"l\"><code>", f);
        esc (f, str (a, "inventory_hash"));
        fputs ("</code></td></tr>\n", f);
    }
    fputs ("</tbody></table>\n", f);
    page_foot (f);
}

/* ---- /schedules ---- */

void
html_schedules_page (FILE *f, json_t *sch)
{
    page_head (f, "iofleet schedules", 0);
    fputs ("<table id=\"schedules\"><thead><tr><th class=\"l\">schedule</th>"
           "<th class=\"l\">cron</th><th class=\"l\">plan</th><th class=\"l\">agents</th>"
           "<th class=\"l\">by</th><th class=\"l\">baseline</th><th>fails beyond</th>"
           "<th class=\"l\">overlap</th><th class=\"l\">catch-up</th><th>next fire</th>"
           "</tr></thead><tbody>\n", f);
    size_t i;
    json_t *s;
    json_array_foreach (sch, i, s) {
        char b[64];
        fputs ("<tr><td class=\"l\">", f);
        esc (f, str (s, "name"));
        fputs ("</td><td class=\"l\"><code>", f);
        esc (f, str (s, "cron"));
        fputs ("</code> ", f);
        esc (f, str (s, "tz"));
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (s, "plan"));
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (s, "agents")[0] ? str (s, "agents") : "all");
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (s, "by"));
        fputs ("</td><td class=\"l\">", f);
        esc (f, str (s, "baseline"));
        fprintf (f, "</td><td>%s</td><td class=\"l\">", html_share (num (s, "fail_on_regression"),
                                                                b, sizeof b));
        esc (f, str (s, "overlap"));
        fprintf (f, "</td><td class=\"l\">%s</td><td>%s</td></tr>\n",
                 json_is_true (json_object_get (s, "catch_up")) ? "yes" : "no",
                 html_ns_time (num (s, "next_fire") * 1e9, b, sizeof b));
    }
    fputs ("</tbody></table>\n", f);
    if (!json_array_size (sch))
        fputs ("<p class=\"muted\">No schedule: iofleet schedule add NAME --cron ... --plan "
               "PLAN makes one.</p>\n", f);
    fputs ("<p class=\"muted\">Their runs, with each one's verdict against its baseline, are "
           "on the <a href=\"/\">runs</a> page.</p>\n", f);
    page_foot (f);
}

void
html_error_page (FILE *f, unsigned status, const char *what)
{
    char title[64];
    snprintf (title, sizeof title, "iofleet: %u", status);
    page_head (f, title, 0);
    fputs ("<p class=\"fail\">", f);
    esc (f, what);
    fputs ("</p>\n", f);
    page_foot (f);
}
