/*  html_page.c: what the HTML report and the HTML compare share
    (html_page.h): the page's head, styles and footer, the cell formats,
    the run's badges, and the file the page goes to.
*/
#include "html_page.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Axis and cell formats: a dash for what is not a number. */
const char *
html_lat (double v, char *buf, size_t cap)
{
    return isfinite (v) && v >= 0 ? fmt_lat (v, buf, cap) : (snprintf (buf, cap, DASH), buf);
}

const char *
html_iops (double v, char *buf, size_t cap)
{
    return isfinite (v) && v >= 0 ? fmt_iops (v, buf, cap) : (snprintf (buf, cap, DASH), buf);
}

const char *
html_bw (double v, char *buf, size_t cap)
{
    return isfinite (v) && v >= 0 ? fmt_bw (v, buf, cap) : (snprintf (buf, cap, DASH), buf);
}

const char *
html_mib (double v, char *buf, size_t cap)
{
    if (isfinite (v) && v >= 0)
        snprintf (buf, cap, "%.1f", v / (1 << 20));
    else
        snprintf (buf, cap, DASH);
    return buf;
}

const char *
html_pct (double v, char *buf, size_t cap)
{
    if (isfinite (v))
        snprintf (buf, cap, "%+.1f%%", v);
    else
        snprintf (buf, cap, DASH);
    return buf;
}

/* A run id, "?" when the report has none. */
const char *
html_run_id (json_t *rep, char *buf, size_t cap)
{
    double v = num (rep, "run");
    if (isfinite (v))
        snprintf (buf, cap, "%.0f", v);
    else
        snprintf (buf, cap, "?");
    return buf;
}

const char *
html_share (double v, char *buf, size_t cap)
{
    if (isfinite (v))
        snprintf (buf, cap, "%.0f%%", v);
    else
        snprintf (buf, cap, DASH);
    return buf;
}

const char *
html_axis_pct (double v, char *buf, size_t cap)
{
    snprintf (buf, cap, "%+g%%", v);
    return buf;
}

const char *
html_seconds (double v, char *buf, size_t cap)
{
    snprintf (buf, cap, "%g s", v);
    return buf;
}

const char *
html_ns_time (double ns, char *buf, size_t cap)
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

const char *
html_bytes (double b, char *buf, size_t cap)
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
const char *
html_base_name (const char *path)
{
    const char *s = strrchr (path, '/');
    return s && s[1] ? s + 1 : path;
}

/* Does the step carry groups made with --by (not the one "all" group)? */
bool
html_grouped (json_t *s)
{
    json_t *g = json_object_get (s, "groups");
    return json_array_size (g) > 1
           || (json_array_size (g) == 1 && strcmp (str (json_array_get (g, 0), "by"), "all") != 0);
}

bool
html_has_ops (json_t *d)
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
"nav.site{margin:0 0 8px;padding:6px 0;border-bottom:1px solid #bbb}nav.site a{margin-right:16px}\n"
"progress{width:420px;height:16px}form.q{margin:6px 0}form.q input{margin-right:8px}\n"
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

void
html_head (FILE *f, const char *title)
{
    html_head_refresh (f, title, 0);
}

void
html_head_refresh (FILE *f, const char *title, int refresh_s)
{
    svg_doc_begin ();
    fputs ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta name=\"generator\" content=\"iofleet " IOF_VERSION "\">\n", f);
    if (refresh_s > 0)
        fprintf (f, "<meta http-equiv=\"refresh\" content=\"%d\">\n", refresh_s);
    fputs ("<title>", f);
    esc (f, title);
    fprintf (f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", s_css);
}

void
html_footer (FILE *f)
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
void
html_workload (FILE *f, json_t *job)
{
    char bs[16];
    if (!job) {
        fputs ("<span class=\"muted\">job not recorded</span>", f);
        return;
    }
    esc (f, str (job, "rw"));
    fprintf (f, " bs=%s", html_bytes (num (job, "bs"), bs, sizeof bs));
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

void
html_verdict_badge (FILE *f, const char *v)
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

void
html_status_cell (FILE *f, const char *status)
{
    bool good = !strcmp (status, "complete") || !strcmp (status, "done");
    bool going = !strcmp (status, "running") || !strcmp (status, "queued");
    fprintf (f, "<span class=\"%s\">", good ? "pass" : going || !*status ? "muted" : "fail");
    esc (f, *status ? status : "unknown");
    fputs ("</span>", f);
}

/* ---- files ---- */

FILE *
html_open_out (const char *path, char *err, size_t errlen)
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

int
html_close_out (FILE *f, const char *path, char *err, size_t errlen)
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
html_write_doc (const char *path, void (*render) (FILE *, json_t *), json_t *doc, char *err,
                size_t errlen)
{
    FILE *f = html_open_out (path, err, errlen);
    if (!f)
        return -errno;
    errno = 0;
    render (f, doc);
    return html_close_out (f, path, err, errlen);
}

void
html_td (FILE *f, const char *s)
{
    fputs ("<td>", f);
    esc (f, s);
    fputs ("</td>", f);
}
