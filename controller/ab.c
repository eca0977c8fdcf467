/*  ab.c: a comparison in the A/B report's shape, see ab.h. */
#include "ab.h"
#include "compare.h"
#define JSON_GET_SHORT     /* num () and str () */
#include "json_get.h"


#include <math.h>
#include <stdio.h>
#include <string.h>

/* The figure a metric stands for in a test: throughput or latency. */
static const char *
figure_of (const char *metric)
{
    if (strncmp (metric, "iops", 4) == 0)
        return "iops";
    if (strncmp (metric, "bw", 2) == 0)
        return "bw";
    if (strcmp (metric, "p50") == 0 || strcmp (metric, "p99") == 0)
        return metric;
    return NULL;                        /* p99.9: not in the A/B table */
}

json_t *
ab_json (json_t *cmp, double thr)
{
    json_t *tests = json_array ();
    size_t i, k;
    json_t *r, *t;
    json_t *worst = NULL;
    json_array_foreach (json_object_get (cmp, "rows"), i, r) {
        const char *metric = str (r, "metric"), *fig = figure_of (metric);
        if (!fig)
            continue;
        json_t *test = NULL;
        json_array_foreach (tests, k, t)
            if (!strcmp (str (t, "step"), str (r, "step"))
                && !strcmp (str (t, "group"), str (r, "group")))
                test = t;
        if (!test) {
            test = json_pack ("{s:O, s:O}", "step", json_object_get (r, "step"), "group",
                              json_object_get (r, "group"));
            json_array_append_new (tests, test);
        }
        double d = json_number_value (json_object_get (r, "delta_pct"));
        bool sig = json_is_true (json_object_get (r, "significant"));
        bool lat = compare_is_latency (metric);
        bool worse = sig && fabs (d) >= thr && (lat ? d > 0 : d < 0);
        bool better = sig && fabs (d) >= thr && (lat ? d < 0 : d > 0);
        json_object_set_new (test, fig, json_pack ("{s:s, s:O, s:O, s:O, s:O, s:s}", "metric",
            metric, "a", json_object_get (r, "a"), "b", json_object_get (r, "b"), "delta_pct",
            json_object_get (r, "delta_pct"), "significant", json_object_get (r, "significant"),
            "judged", worse ? "worse" : better ? "better" : "same"));
        if (worse)
            json_object_set_new (test, "any_worse", json_true ());
        if (better)
            json_object_set_new (test, "any_better", json_true ());
        /* The largest change for the worse, by its size. */
        if (worse && (!worst || fabs (d) > fabs (json_number_value (json_object_get (worst,
                                                                               "delta_pct")))))
            worst = r;
    }
    int nworse = 0, nbetter = 0, nmixed = 0, nsame = 0;
    json_array_foreach (tests, k, t) {
        bool w = json_is_true (json_object_get (t, "any_worse"));
        bool b = json_is_true (json_object_get (t, "any_better"));
        json_object_del (t, "any_worse");
        json_object_del (t, "any_better");
        const char *c = w && b ? "mixed" : w ? "B worse" : b ? "B better" : "no significant "
                                                                              "difference";
        nworse += w && !b;
        nbetter += b && !w;
        nmixed += w && b;
        nsame += !w && !b;
        json_object_set_new (t, "conclusion", json_string (c));
    }
    char summary[512];
    size_t n = json_array_size (tests);
    if (worst)
        snprintf (summary, sizeof summary, "B is worse than A beyond %g%% in %d of %zu test(s)%s; "
                  "the largest: %s %s %+.1f%%", thr, nworse + nmixed, n,
                  nbetter ? ", better in some" : "", str (worst, "step"), str (worst, "metric"),
                  json_number_value (json_object_get (worst, "delta_pct")));
    else if (nbetter)
        snprintf (summary, sizeof summary, "B is better than A beyond %g%% in %d of %zu test(s) "
                  "and worse in none", thr, nbetter, n);
    else
        snprintf (summary, sizeof summary, "no significant difference beyond %g%% in any of "
                  "the %zu test(s)", thr, n);
    return json_pack ("{s:f, s:o, s:{s:i, s:i, s:i, s:i, s:i, s:s}, s:s}", "threshold_pct", thr,
        "tests", tests, "conclusion", "tests", (int) n, "b_worse", nworse, "b_better", nbetter,
        "mixed", nmixed, "same", nsame, "summary", summary,
        "rule", "per test: 'B worse' when a figure (IOPS, bandwidth down; p50, p99 up) changed "
        "significantly by at least threshold_pct and none for the better, 'B better' the other "
        "way, 'mixed' both; significance as in iofleet compare");
}
