/*  test_compare.c: compare refuses what is not alike and never shows an
    unmeasured side as -100%; groups compare per member; a change is judged
    against the intervals' own noise, and a few or odd intervals never make
    a large change "not significant" (issue 39, e2e_ab's seq-4k). */
#include "compare.h"
#include "ab.h"
#include "testutil.h"

#include <math.h>

/* A step whose fleet read iops (agents, targets) and p99 are given; iops
   0: it measured nothing. */
static json_t *
step (const char *name, double iops, int agents, int targets, long p99)
{
    json_t *fleet = json_pack ("{s:{s:I, s:f, s:f, s:{s:I, s:I, s:I}}, s:{s:I, s:f, s:f}}",
        "read", "ops", (json_int_t) iops * 10, "iops", iops, "bw", iops * 4096,
        "percentiles", "p50", (json_int_t) p99 / 2, "p99", (json_int_t) p99, "p99.9",
        (json_int_t) p99 * 2, "write", "ops", (json_int_t) 0, "iops", 0.0, "bw", 0.0);
    json_t *members = json_pack ("{s:i, s:i, s:f, s:f, s:f, s:f}", "agents", agents,
        "targets", targets, "iops_per_agent", agents ? iops / agents : 0.0,
        "iops_per_target", targets ? iops / targets : 0.0,
        "bw_per_agent", agents ? iops * 4096 / agents : 0.0,
        "bw_per_target", targets ? iops * 4096 / targets : 0.0);
    return json_pack ("{s:s, s:s, s:o, s:o, s:[], s:[]}", "name", name, "status",
                      iops > 0 ? "complete" : "failed", "fleet", fleet, "members", members,
                      "intervals", "agents");
}

static json_t *
report (int run, const char *plan, int version, const char *status, json_t *steps)
{
    return json_pack ("{s:i, s:s, s:i, s:s, s:s, s:{}, s:o}", "run", run, "plan", plan,
                      "plan_version", version, "status", status, "message", "", "labels",
                      "steps", steps);
}

static json_t *
row (json_t *cmp, const char *metric)
{
    size_t i;
    json_t *r;
    json_array_foreach (json_object_get (cmp, "rows"), i, r)
        if (strcmp (json_string_value (json_object_get (r, "metric")), metric) == 0)
            return r;
    return NULL;
}

/* Step s's per-interval series: iops[k] reads a second in interval k
   (NAN: no reads in it, so no read latency either), p99 from the value. */
static json_t *
with_intervals (json_t *s, const double *iops, int n)
{
    json_t *iv = json_object_get (s, "intervals");
    for (int k = 0; k < n; k++) {
        json_t *o = json_pack ("{s:i, s:f, s:f}", "seq", k, "iops", isnan (iops[k]) ? 0.0 : iops[k],
                               "bw", isnan (iops[k]) ? 0.0 : iops[k] * 4096);
        if (!isnan (iops[k]))
            json_object_set_new (o, "read", json_pack ("{s:I, s:f, s:I, s:I}", "ops",
                (json_int_t) iops[k], "iops", iops[k], "p50", (json_int_t) (4e6 / (iops[k] + 1)),
                "p99", (json_int_t) (8e6 / (iops[k] + 1))));
        json_array_append_new (iv, o);
    }
    return s;
}

/* The verdict of metric's row when A's step had series a (na intervals)
   and B's b: "true", "false" or "null: NOTE". */
static const char *
verdict (const double *a, int na, const double *b, int nb, const char *metric, char *buf,
         size_t cap)
{
    double ma = 0, mb = 0;
    for (int k = 0; k < na; k++)
        ma += (isnan (a[k]) ? 0 : a[k]) / na;
    for (int k = 0; k < nb; k++)
        mb += (isnan (b[k]) ? 0 : b[k]) / nb;
    json_t *ra = report (7, "p", 1, "complete", json_pack ("[o]", with_intervals (step ("s",
                         ma, 1, 1, 100), a, na)));
    json_t *rb = report (8, "p", 1, "complete", json_pack ("[o]", with_intervals (step ("s",
                         mb, 1, 1, 5000), b, nb)));
    compare_opts_t none = { 0 };
    json_t *cmp = compare_run (ra, rb, &none);
    json_t *r = row (cmp, metric);
    json_t *sig = json_object_get (r, "significant");
    const char *note = json_string_value (json_object_get (r, "significance_note"));
    if (!r)
        snprintf (buf, cap, "no row");
    else if (json_is_null (sig))
        snprintf (buf, cap, "null: %s", note ? note : "(no note)");
    else
        snprintf (buf, cap, "%s%s", json_is_true (sig) ? "true" : "false",
                  note ? " with a note" : "");
    json_decref (cmp);
    json_decref (ra);
    json_decref (rb);
    return buf;
}

#define VERDICT(a, b, metric) \
    verdict (a, (int) (sizeof a / sizeof a[0]), b, (int) (sizeof b / sizeof b[0]), metric, \
             buf, sizeof buf)

/* The A/B template's conclusion of one test when A's step had series a
   and B's b (compare's rows, ab.h). */
static const char *
ab_conclusion (const double *a, int na, const double *b, int nb, char *buf, size_t cap)
{
    double ma = 0, mb = 0;
    for (int k = 0; k < na; k++)
        ma += a[k] / na;
    for (int k = 0; k < nb; k++)
        mb += b[k] / nb;
    json_t *ra = report (7, "p", 1, "complete", json_pack ("[o]", with_intervals (step ("s",
                         ma, 1, 1, 100), a, na)));
    json_t *rb = report (8, "p", 1, "complete", json_pack ("[o]", with_intervals (step ("s",
                         mb, 1, 1, 5000), b, nb)));
    compare_opts_t none = { 0 };
    json_t *cmp = compare_run (ra, rb, &none);
    json_t *ab = ab_json (cmp, AB_THRESHOLD_PCT, ra, rb);
    json_t *t = json_array_get (json_object_get (ab, "tests"), 0);
    snprintf (buf, cap, "%s; %s; iops %s", json_string_value (json_object_get (t, "conclusion")),
              json_string_value (json_object_get (json_object_get (ab, "conclusion"), "summary")),
              json_string_value (json_object_get (json_object_get (t, "iops"), "judged")));
    json_decref (ab);
    json_decref (cmp);
    json_decref (ra);
    json_decref (rb);
    return buf;
}

static double
num (json_t *o, const char *key)
{
    return json_number_value (json_object_get (o, key));
}

int
main (void)
{
    char err[2048];
    const char *errp = err;
    compare_opts_t none = { 0 };
    json_t *a = report (1, "p", 1, "complete", json_pack ("[o, o]", step ("x", 1000, 3, 3, 100),
                                                           step ("y", 500, 3, 3, 200)));
    json_t *b = report (2, "p", 1, "complete", json_pack ("[o, o]", step ("x", 900, 3, 3, 110),
                                                           step ("y", 0, 0, 0, 0)));
    CHECK (compare_check (a, b, &none, err, sizeof err) == 0);
    json_t *cmp = compare_run (a, b, &none);
    /* Step y measured nothing in B: skipped with the reason, no -100%. */
    CHECK (json_array_size (json_object_get (cmp, "rows")) == 5);
    json_t *sk = json_array_get (json_object_get (cmp, "skipped"), 0);
    CHECK (sk && strcmp (json_string_value (json_object_get (sk, "step")), "y") == 0);
    CHECK_STR_CONTAINS (json_string_value (json_object_get (sk, "reason")),
                        "run 2 (B) measured nothing in step 'y'");
    json_t *r = row (cmp, "iops");
    CHECK (r && fabs (num (r, "delta_pct") + 10) < 1e-9 && num (r, "a_agents") == 3);
    CHECK (strcmp (json_string_value (json_object_get (r, "b_plan")), "p v1") == 0);
    CHECK (!row (cmp, "iops_per_target"));
    CHECK (strcmp (json_string_value (json_object_get (cmp, "figures")), "sum") == 0);
    CHECK (json_integer_value (json_object_get (json_object_get (cmp, "b"), "run")) == 2);
    json_decref (cmp);

    /* Another version of the plan: refused, both named, the way out said. */
    json_object_set_new (b, "plan_version", json_integer (2));
    CHECK (compare_check (a, b, &none, err, sizeof err) == -1);
    CHECK_STR_CONTAINS (errp, "run 1 is plan 'p' v1 and run 2 is plan 'p' v2: different versions");
    CHECK_STR_CONTAINS (errp, "--steps A_STEP=B_STEP");
    CHECK_STR_CONTAINS (errp, "--force");
    compare_opts_t force = { .force = true };
    CHECK (compare_check (a, b, &force, err, sizeof err) == 0);
    cmp = compare_run (a, b, &force);
    r = row (cmp, "iops");
    CHECK (r && strcmp (json_string_value (json_object_get (r, "b_plan")), "p v2") == 0);
    CHECK (json_is_true (json_object_get (cmp, "forced")));
    json_decref (cmp);

    /* --steps maps steps by hand, and names only steps the runs have. */
    compare_opts_t map = { .steps = json_pack ("[[s, s]]", "y", "x") };
    CHECK (compare_check (a, b, &map, err, sizeof err) == 0);
    cmp = compare_run (a, b, &map);
    r = row (cmp, "p99");
    CHECK (r && num (r, "a") == 200 && num (r, "b") == 110);
    CHECK (strcmp (json_string_value (json_object_get (r, "a_step")), "y") == 0
           && strcmp (json_string_value (json_object_get (r, "b_step")), "x") == 0);
    json_decref (cmp);
    json_decref (map.steps);
    compare_opts_t bad = { .steps = json_pack ("[[s, s]]", "x", "nope") };
    CHECK (compare_check (a, b, &bad, err, sizeof err) == -1);
    CHECK_STR_CONTAINS (errp, "--steps: run 2 (B, plan p v2) has no step 'nope' (its steps: x, y)");
    json_decref (bad.steps);

    /* A failed run: refused (unless --force); one that measured nothing
       always. */
    json_t *f = report (3, "p", 1, "failed", json_pack ("[o]", step ("x", 0, 0, 0, 0)));
    CHECK (compare_check (a, f, &force, err, sizeof err) == -1);
    CHECK_STR_CONTAINS (errp, "run 3 (B) is failed and measured nothing");
    json_t *g = report (4, "p", 1, "failed", json_pack ("[o]", step ("x", 800, 2, 2, 100)));
    CHECK (compare_check (a, g, &none, err, sizeof err) == -1);
    CHECK_STR_CONTAINS (errp, "run 4 (B) failed");
    CHECK (compare_check (a, g, &force, err, sizeof err) == 0);
    json_t *q = report (5, "p", 1, "running", json_pack ("[o]", step ("x", 800, 2, 2, 100)));
    CHECK (compare_check (q, a, &force, err, sizeof err) == -1);
    CHECK_STR_CONTAINS (errp, "run 5 (A) is running");

    /* Two groups of one run, 1 agent against 2: per member by default. */
    json_t *ga = report (6, "p", 1, "complete", json_pack ("[o]", step ("x", 1000, 1, 1, 100)));
    json_t *gb = report (6, "p", 1, "complete", json_pack ("[o]", step ("x", 1990, 2, 2, 100)));
    compare_opts_t grp = { .groups = true, .label = "fw=A vs fw=B" };
    cmp = compare_run (ga, gb, &grp);
    r = row (cmp, "iops_per_agent");
    CHECK (r && num (r, "a") == 1000 && num (r, "b") == 995 && num (r, "b_agents") == 2);
    CHECK (fabs (num (r, "delta_pct") + 0.5) < 1e-9);
    CHECK (!row (cmp, "iops") && row (cmp, "iops_per_target") && row (cmp, "bw_per_agent"));
    CHECK (strcmp (json_string_value (json_object_get (r, "group")), "fw=A vs fw=B") == 0);
    CHECK (strcmp (json_string_value (json_object_get (cmp, "figures")), "per_member") == 0);
    json_decref (cmp);
    grp.sum = true;
    cmp = compare_run (ga, gb, &grp);
    r = row (cmp, "iops");
    CHECK (r && fabs (num (r, "delta_pct") - 99) < 1e-9 && !row (cmp, "iops_per_agent"));
    json_decref (cmp);

    /* Significance (issue 39): e2e_ab's seq-4k step, 2 one-second intervals
       a side, A an unthrottled loop device (~70,000 IOPS), B capped at 50.
       A's agent, under ASan on 2 busy cores, got the CPU for less than half
       of one interval: on the linear scale A's spread (|x1 - x2| / 2) came
       near its level, and 3 x se > |mean_B - mean_A| made a -99.9% change
       "not significant" whenever one interval did under half the other's
       I/O.  The change is a ratio; so is that noise. */
    char buf[512];
    const char *v;
    double starved[] = { 70000, 30000 }, capped[] = { 50, 51 };
    v = VERDICT (starved, capped, "iops");
    CHECK_MSG (strcmp (v, "true") == 0, "A [70000, 30000] vs B [50, 51]: %s", v);
    v = VERDICT (starved, capped, "bw");
    CHECK_MSG (strcmp (v, "true") == 0, "bw of the same: %s", v);
    /* An interval with a thirtieth of the other's I/O: 2 intervals cannot
       tell that from noise, and say so rather than "not significant". */
    double stalled[] = { 70000, 1000 };
    v = VERDICT (stalled, capped, "iops");
    CHECK_MSG (strncmp (v, "null: too few intervals", 23) == 0, "A [70000, 1000]: %s", v);
    /* A stall and the agent catching up (3 intervals, one of them empty):
       no noise estimate on the ratio scale; not "not significant". */
    double caught_up[] = { 70000, 0, 140000 }, capped3[] = { 50, 49, 51 };
    v = VERDICT (caught_up, capped3, "iops");
    CHECK_MSG (strncmp (v, "null: interval 2 of A measured nothing", 38) == 0,
               "A [70000, 0, 140000]: %s", v);
    /* ... and a latency series with an interval of no reads (no p99). */
    double gap[] = { 70000, NAN, 70000, 70000 }, capped4[] = { 50, 49, 51, 50 };
    v = VERDICT (gap, capped4, "p99");
    CHECK_MSG (strncmp (v, "null: interval 2 of A measured nothing", 38) == 0,
               "p99 with an empty interval: %s", v);
    /* An agent catching up in one interval of four (ten times the others):
       a huge outlier that on the linear scale outweighed the change. */
    double burst[] = { 70000, 70000, 70000, 700000 };
    v = VERDICT (burst, capped4, "iops");
    CHECK_MSG (strcmp (v, "true") == 0, "A [70000 x3, 700000]: %s", v);
    /* The A/B template (e2e_ab's shape): the starved series is "B worse";
       the stalled one, which compare cannot judge, is "not judged", never
       "no significant difference". */
    v = ab_conclusion (starved, 2, capped, 2, buf, sizeof buf);
    CHECK_MSG (strncmp (v, "B worse; B is worse than A beyond 5% in 1 of 1 test(s)", 54) == 0
               && strstr (v, "iops worse"), "ab, A [70000, 30000]: %s", v);
    v = ab_conclusion (stalled, 2, capped, 2, buf, sizeof buf);
    CHECK_MSG (strcmp (v, "not judged; no significant difference beyond 5% in 0 of the 1 "
                       "test(s); 1 not judged (too few intervals to tell); iops not judged") == 0,
               "ab, A [70000, 1000]: %s", v);
    /* One interval: no noise estimate. */
    double one[] = { 70000 };
    v = VERDICT (one, capped, "iops");
    CHECK_MSG (strncmp (v, "null: ", 6) == 0 && strstr (v, "A 1"), "A [70000]: %s", v);
    /* Zero variance on both sides: any change of 2% or more stands out... */
    double flat[] = { 500, 500, 500, 500 }, flat_up[] = { 550, 550, 550, 550 };
    v = VERDICT (flat, flat_up, "iops");
    CHECK_MSG (strcmp (v, "true") == 0, "flat +10%%: %s", v);
    /* ... less does not (enough intervals to say so). */
    double flat_same[] = { 505, 505, 505, 505 };
    v = VERDICT (flat, flat_same, "iops");
    CHECK_MSG (strcmp (v, "false") == 0, "flat +1%%: %s", v);
    /* Two steady runs alike, 4 intervals each: not significant. */
    double steady_a[] = { 500, 503, 497, 501 }, steady_b[] = { 499, 502, 500, 498 };
    v = VERDICT (steady_a, steady_b, "iops");
    CHECK_MSG (strcmp (v, "false") == 0, "steady alike: %s", v);
    /* The same with 2 intervals: too few to say "no difference". */
    double short_a[] = { 500, 503 }, short_b[] = { 499, 502 };
    v = VERDICT (short_a, short_b, "iops");
    CHECK_MSG (strncmp (v, "null: too few intervals", 23) == 0, "2 intervals alike: %s", v);
    /* p99.9 has no series: null, with its note. */
    v = VERDICT (steady_a, steady_b, "p99.9");
    CHECK_MSG (strncmp (v, "null: ", 6) == 0 && strcmp (v, "null: (no note)"), "p99.9: %s", v);
    /* Every row, whatever the series, that is a large drop is never false:
       random short series with stalls and bursts, A ~70,000, B ~50. */
    unsigned long long st = 39;
    int nfalse = 0, nbare = 0;
    char first[600] = "";
    for (int t = 0; t < 2000; t++) {
        double sa[6], sb[6];
        int na = 1 + (int) (test_splitmix64 (&st) % 6), nb = 1 + (int) (test_splitmix64 (&st) % 6);
        for (int k = 0; k < na; k++) {
            unsigned long long x = test_splitmix64 (&st) % 100;
            sa[k] = x < 10 ? 0 : x < 20 ? 700000 : x < 40 ? 70000.0 * (double) (x % 20 + 1) / 20
                                                       : 70000;
        }
        for (int k = 0; k < nb; k++)
            sb[k] = 40 + (double) (test_splitmix64 (&st) % 20);
        v = verdict (sa, na, sb, nb, "iops", buf, sizeof buf);
        bool f = strcmp (v, "false") == 0, bare = strcmp (v, "null: (no note)") == 0;
        nfalse += f;
        nbare += bare;
        if ((f || bare) && !first[0])
            snprintf (first, sizeof first, "series %d (A %d, B %d intervals, A[0] %.0f): %s", t,
                      na, nb, sa[0], v);
    }
    CHECK_MSG (nfalse == 0 && nbare == 0, "of 2000 short odd series of a ~-99.9%% change, %d "
               "judged not significant and %d null without a note; the first: %s", nfalse,
               nbare, first);

    json_decref (ga);
    json_decref (gb);
    json_decref (q);
    json_decref (g);
    json_decref (f);
    json_decref (a);
    json_decref (b);
    return TEST_DONE ();
}
