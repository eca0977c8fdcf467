/*  ab.c: a comparison in the A/B report's shape, see ab.h. */
#include "ab.h"
#include "compare.h"
#include "pts.h"
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

/* The step of rep named name, or NULL. */
static json_t *
step_named (json_t *rep, const char *name)
{
    return json_get_find (json_object_get (rep, "steps"), "name", name);
}

/* The tests of one kind (rw, mix, group) at each block size: by_bs. */
static json_t *
by_bs (json_t *tests, json_t *rep_a)
{
    json_t *fam = json_object ();
    size_t i;
    json_t *t;
    json_array_foreach (tests, i, t) {
        json_t *job = json_object_get (step_named (rep_a, str (t, "step")), "job");
        const char *rw = str (job, "rw");
        if (!rw[0] || !isfinite (num (job, "bs")))
            continue;
        bool mixed = strcmp (rw, "rw") == 0 || strcmp (rw, "randrw") == 0;
        char key[256];
        snprintf (key, sizeof key, "%s %.0f %s", rw, mixed ? num (job, "rwmixread") : -1.0,
                  str (t, "group"));
        json_t *f = json_object_get (fam, key);
        if (!f) {
            f = json_pack ("{s:s, s:O, s:[]}", "rw", rw, "group", json_object_get (t, "group"),
                           "points");
            if (mixed)
                json_object_set_new (f, "rwmixread", json_real (num (job, "rwmixread")));
            json_object_set_new (fam, key, f);
        }
        json_array_append_new (json_object_get (f, "points"), json_pack ("{s:O, s:O, s:O, s:O}",
            "bs", json_object_get (job, "bs"), "step", json_object_get (t, "step"), "iops",
            json_object_get (t, "iops"), "bw", json_object_get (t, "bw")));
    }
    json_t *out = json_array ();
    const char *k;
    json_t *f;
    json_object_foreach (fam, k, f)
        if (json_array_size (json_object_get (f, "points")) >= 2)
            json_array_append (out, f);
    json_decref (fam);
    return out;
}

/* One side's write-saturation series of step s. */
static json_t *
wsat_side (json_t *s)
{
    double drives = 0, t0 = NAN;
    size_t i;
    json_t *a, *iv;
    json_array_foreach (json_object_get (s, "agents"), i, a)
        drives += (double) json_array_size (json_object_get (a, "targets"));
    json_t *pts = json_array ();
    json_array_foreach (json_object_get (s, "intervals"), i, iv) {
        double start = num (iv, "start_ns");
        if (isnan (t0))
            t0 = start;
        json_t *w = json_object_get (iv, "write");
        json_array_append_new (pts, json_pack ("{s:f, s:f, s:O}", "t_s", (start - t0) / 1e9,
            "iops_per_drive", drives > 0 ? num (w, "iops") / drives : 0.0, "p99",
            json_object_get (w, "p99")));
    }
    return json_pack ("{s:f, s:o}", "drives", drives, "intervals", pts);
}

static json_t *
write_saturation (json_t *rep_a, json_t *rep_b)
{
    json_t *out = json_array ();
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get (rep_a, "steps"), i, s) {
        json_t *sb = step_named (rep_b, str (s, "name"));
        if (!sb || !pts_is_wsat (json_object_get (s, "job")))
            continue;
        json_array_append_new (out, json_pack ("{s:O, s:o, s:o}", "step",
                                               json_object_get (s, "name"), "a", wsat_side (s),
                                               "b", wsat_side (sb)));
    }
    return out;
}

json_t *
ab_json (json_t *cmp, double thr, json_t *rep_a, json_t *rep_b)
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
        /* null: compare could not judge it (too few intervals, say), which
           is not "same". */
        bool unjudged = !json_is_boolean (json_object_get (r, "significant"));
        bool lat = compare_is_latency (metric);
        bool worse = sig && fabs (d) >= thr && (lat ? d > 0 : d < 0);
        bool better = sig && fabs (d) >= thr && (lat ? d < 0 : d > 0);
        json_object_set_new (test, fig, json_pack ("{s:s, s:O, s:O, s:O, s:O, s:s, s:O*}",
            "metric", metric, "a", json_object_get (r, "a"), "b", json_object_get (r, "b"),
            "delta_pct", json_object_get (r, "delta_pct"), "significant",
            json_object_get (r, "significant"), "judged", worse ? "worse" : better ? "better"
            : unjudged ? "not judged" : "same", "significance_note",
            json_object_get (r, "significance_note")));
        if (unjudged)
            json_object_set_new (test, "any_unjudged", json_true ());
        if (worse)
            json_object_set_new (test, "any_worse", json_true ());
        if (better)
            json_object_set_new (test, "any_better", json_true ());
        /* The largest change for the worse, by its size. */
        if (worse && (!worst || fabs (d) > fabs (json_number_value (json_object_get (worst,
                                                                               "delta_pct")))))
            worst = r;
    }
    int nworse = 0, nbetter = 0, nmixed = 0, nsame = 0, nunjudged = 0;
    json_array_foreach (tests, k, t) {
        bool w = json_is_true (json_object_get (t, "any_worse"));
        bool b = json_is_true (json_object_get (t, "any_better"));
        bool u = json_is_true (json_object_get (t, "any_unjudged"));
        json_object_del (t, "any_worse");
        json_object_del (t, "any_better");
        json_object_del (t, "any_unjudged");
        const char *c = w && b ? "mixed" : w ? "B worse" : b ? "B better" : u ? "not judged"
                                                                      : "no significant difference";
        nworse += w && !b;
        nbetter += b && !w;
        nmixed += w && b;
        nsame += !w && !b && !u;
        nunjudged += !w && !b && u;
        json_object_set_new (t, "conclusion", json_string (c));
    }
    char summary[512], unjudged[128] = "";
    size_t n = json_array_size (tests);
    if (nunjudged)
        snprintf (unjudged, sizeof unjudged, "; %d not judged (too few intervals to tell)",
                  nunjudged);
    if (worst)
        snprintf (summary, sizeof summary, "B is worse than A beyond %g%% in %d of %zu test(s)%s; "
                  "the largest: %s %s %+.1f%%%s", thr, nworse + nmixed, n,
                  nbetter ? ", better in some" : "", str (worst, "step"), str (worst, "metric"),
                  json_number_value (json_object_get (worst, "delta_pct")), unjudged);
    else if (nbetter)
        snprintf (summary, sizeof summary, "B is better than A beyond %g%% in %d of %zu test(s) "
                  "and worse in none%s", thr, nbetter, n, unjudged);
    else if (!nunjudged)
        snprintf (summary, sizeof summary, "no significant difference beyond %g%% in any of "
                  "the %zu test(s)", thr, n);
    else
        snprintf (summary, sizeof summary, "no significant difference beyond %g%% in %d of "
                  "the %zu test(s)%s", thr, nsame, n, unjudged);
    return json_pack ("{s:f, s:o, s:o, s:o, s:{s:i, s:i, s:i, s:i, s:i, s:i, s:s}, s:s}",
        "threshold_pct", thr, "by_bs", by_bs (tests, rep_a), "write_saturation",
        write_saturation (rep_a, rep_b), "tests", tests, "conclusion", "tests", (int) n, "b_worse", nworse, "b_better", nbetter,
        "mixed", nmixed, "same", nsame, "not_judged", nunjudged, "summary", summary,
        "rule", "per test: 'B worse' when a figure (IOPS, bandwidth down; p50, p99 up) changed "
        "significantly by at least threshold_pct and none for the better, 'B better' the other "
        "way, 'mixed' both, 'not judged' when none did and some figure could not be judged "
        "(significance null: too few intervals; see its significance_note); significance as in "
        "iofleet compare");
}
