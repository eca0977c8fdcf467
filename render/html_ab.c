/*  html_ab.c: iofleet compare ... --template ab --format html: the
    controller's A/B report (controller/templates/ab.h) as one self-contained page,
    in the backplane report's order: the tests' deltas in percent with
    their significance and conclusions, throughput against block size
    with A and B side by side, and the write-saturation series of A and B
    overlaid.  Rendering only: every figure and judgement is the
    controller's. */
#include "html_page.h"
#include "html_report.h"

#include <errno.h>
#include <string.h>

/* A delta cell: "+4.0%*" (significant), with the judgement as its class. */
static void
td_delta (FILE *f, json_t *t, const char *fig)
{
    json_t *c = json_object_get (t, fig);
    if (!json_is_number (json_object_get (c, "delta_pct"))) {
        fputs ("<td>" DASH "</td>", f);
        return;
    }
    const char *j = str (c, "judged");
    fprintf (f, "<td class=\"%s\">%+.1f%%%s</td>", strcmp (j, "worse") == 0 ? "bad"
                                                   : strcmp (j, "better") == 0 ? "good" : "",
             num (c, "delta_pct"), json_is_true (json_object_get (c, "significant")) ? "*" : "");
}

/* One family's throughput against block size: A's and B's bars. */
static void
bs_chart (FILE *f, json_t *fam, const char *fig, const char *what, svg_fmt_t *fmt)
{
    char title[256], b1[32], b2[32];
    const char *g = str (fam, "group");
    if (isfinite (num (fam, "rwmixread")))
        snprintf (title, sizeof title, "%s against block size: %s %.0f%% reads%s%s", what,
                  str (fam, "rw"), num (fam, "rwmixread"), g[0] ? ", " : "", g);
    else
        snprintf (title, sizeof title, "%s against block size: %s%s%s", what, str (fam, "rw"),
                  g[0] ? ", " : "", g);
    svg_chart_t *c = svg_chart_new (strcmp (fig, "bw") ? "ab-bs-iops" : "ab-bs-bw", title,
                                    SVG_BARS);
    if (!c)
        return;
    svg_chart_axis (c, 'y', SVG_LINEAR, what, fmt);
    size_t k;
    json_t *p;
    json_t *pts = json_object_get (fam, "points");
    json_array_foreach (pts, k, p)
        svg_chart_category (c, html_bytes (num (p, "bs"), b1, sizeof b1));
    for (int side = 0; side < 2; side++) {
        svg_chart_series (c, side ? "B" : "A");
        json_array_foreach (pts, k, p) {
            json_t *x = json_object_get (p, fig);
            double v = num (x, side ? "b" : "a");
            char tip[192];
            snprintf (tip, sizeof tip, "%s %s: %s (B against A %+.1f%%%s)", side ? "B" : "A",
                      html_bytes (num (p, "bs"), b1, sizeof b1), fmt (v, b2, sizeof b2),
                      num (x, "delta_pct"),
                      json_is_true (json_object_get (x, "significant")) ? ", significant" : "");
            svg_chart_point (c, (double) k, v, tip,
                             (side ? 0 : SVG_PT_STRONG)
                             | (side && !strcmp (str (x, "judged"), "worse") ? SVG_PT_ALERT : 0));
        }
    }
    svg_chart_write (c, f, "no figures");
    svg_chart_destroy (&c);
}

/* One write-saturation step: A's and B's IOPS per drive and p99 over
   time, overlaid. */
static void
wsat_charts (FILE *f, json_t *w)
{
    json_t *sides[2];
    char names[2][64];
    const char *np[2];
    for (int k = 0; k < 2; k++) {
        json_t *s = json_object_get (w, k ? "b" : "a");
        sides[k] = json_object_get (s, "intervals");
        snprintf (names[k], sizeof names[k], "%s (%.0f drive(s))", k ? "B" : "A",
                  num (s, "drives"));
        np[k] = names[k];
    }
    html_wsat_charts (f, str (w, "step"), sides, np, 2);
}

static void
side_text (FILE *f, json_t *cmp, const char *k)
{
    json_t *s = json_object_get (cmp, k), *w = json_object_get (s, "where");
    fprintf (f, "run %.0f ", num (s, "run"));
    esc (f, str (s, "plan"));
    size_t i;
    json_t *c;
    json_array_foreach (w, i, c) {
        fputs (i ? " and " : ", where ", f);
        esc (f, json_is_string (c) ? json_string_value (c) : "");
    }
}

static void
html_ab (FILE *f, json_t *res)
{
    json_t *cmp = json_object_get (res, "compare"), *ab = json_object_get (res, "ab");
    char title[512];
    json_t *wa = json_object_get (json_object_get (cmp, "a"), "where");
    json_t *wb = json_object_get (json_object_get (cmp, "b"), "where");
    if (json_array_size (wa) && json_array_size (wb))
        snprintf (title, sizeof title, "iofleet A/B: %s against %s, run %.0f",
                  json_string_value (json_array_get (wa, 0)),
                  json_string_value (json_array_get (wb, 0)),
                  num (json_object_get (cmp, "a"), "run"));
    else
        snprintf (title, sizeof title, "iofleet A/B: run %.0f against run %.0f",
                  num (json_object_get (cmp, "a"), "run"), num (json_object_get (cmp, "b"), "run"));
    html_head (f, title);
    json_t *c = json_object_get (ab, "conclusion");
    fputs ("<header><h1>", f);
    esc (f, title);
    fputs ("</h1><p class=\"meta\">A: ", f);
    side_text (f, cmp, "a");
    fputs ("; B: ", f);
    side_text (f, cmp, "b");
    fputs (". iofleet A/B report, generated by iofleet " IOF_VERSION "; every figure and "
           "judgement computed by the controller</p></header>\n", f);

    fprintf (f, "<section id=\"conclusion\"><h2>Conclusion at %g%%</h2>\n<p><strong>",
             num (ab, "threshold_pct"));
    esc (f, str (c, "summary"));
    fprintf (f, "</strong></p>\n<table class=\"qual\"><thead><tr><th>Tests</th><th>B worse</th>"
             "<th>B better</th><th>Mixed</th><th>No significant difference</th>"
             "<th>Not judged</th></tr></thead><tbody><tr><td>%.0f</td><td>%.0f</td><td>%.0f</td>"
             "<td>%.0f</td><td>%.0f</td><td>%.0f</td></tr></tbody></table>\n<p>",
             num (c, "tests"), num (c, "b_worse"), num (c, "b_better"), num (c, "mixed"),
             num (c, "same"), num (c, "not_judged"));
    esc (f, str (ab, "rule"));
    fputs (".</p></section>\n", f);

    fputs ("<section id=\"tests\"><h2>B against A, per test</h2>\n<p>In percent; '*': "
           "significant, beyond both sides' own noise.</p>\n<table class=\"qual\"><thead><tr>"
           "<th>Test</th><th>Group</th><th>IOPS</th><th>Bandwidth</th><th>p50</th><th>p99</th>"
           "<th>Conclusion</th></tr></thead><tbody>\n", f);
    size_t i;
    json_t *t;
    json_array_foreach (json_object_get (ab, "tests"), i, t) {
        fputs ("<tr>", f);
        html_td (f, str (t, "step"));
        html_td (f, str (t, "group"));
        td_delta (f, t, "iops");
        td_delta (f, t, "bw");
        td_delta (f, t, "p50");
        td_delta (f, t, "p99");
        html_td (f, str (t, "conclusion"));
        fputs ("</tr>\n", f);
    }
    fputs ("</tbody></table></section>\n", f);

    json_t *fams = json_object_get (ab, "by_bs");
    if (json_array_size (fams)) {
        fputs ("<section id=\"by-bs\"><h2>Throughput against block size</h2>\n<p>A solid, B "
               "hatched; a heavy outline where B is significantly worse beyond the "
               "threshold.</p>\n<div class=\"charts\">\n", f);
        json_t *fam;
        json_array_foreach (fams, i, fam) {
            bs_chart (f, fam, "bw", "bandwidth", html_bw);
            bs_chart (f, fam, "iops", "IOPS", html_iops);
        }
        fputs ("</div></section>\n", f);
    }
    json_t *ws = json_object_get (ab, "write_saturation");
    if (json_array_size (ws)) {
        fputs ("<section id=\"wsat\"><h2>Write saturation, A and B overlaid</h2>\n"
               "<div class=\"charts\">\n", f);
        json_t *w;
        json_array_foreach (ws, i, w)
            wsat_charts (f, w);
        fputs ("</div></section>\n", f);
    }
    html_footer (f);
}

int
html_ab_write (const char *path, json_t *res, char *err, size_t errlen)
{
    return html_write_doc (path, html_ab, res, err, errlen);
}
