/*  test_compare.c: compare refuses what is not alike and never shows an
    unmeasured side as -100%; groups compare per member. */
#include "compare.h"
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

    json_decref (ga);
    json_decref (gb);
    json_decref (q);
    json_decref (g);
    json_decref (f);
    json_decref (a);
    json_decref (b);
    return TEST_DONE ();
}
