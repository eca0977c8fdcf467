/*  compare.c: two run reports side by side (iofleet compare, and the
    controller's check of a scheduled run against its baseline): per step
    and group, IOPS, bandwidth and clat percentiles of both and the change
    in percent.

    A change counts as significant when it stands out of the runs' own
    interval-to-interval noise: Welch's comparison of the per-interval
    series on the ratio scale (the log of each interval's figure: IOPS,
    bandwidth and latency are positive, and both a change and the noise
    that matters are ratios: a starved agent or a stall takes a share of
    an interval, not a fixed count), |mean log B - mean log A| >
    3 x sqrt(var_A/n_A + var_B/n_B), and at least 2% (so a very steady
    pair does not flag a trivial change).  The fleet and each group (--by,
    and the groups of one run) have their per-interval series; a figure
    per member divides its series by the member count.

    "significant": false says the change is within the noise, which needs
    a noise estimate to trust: at least COMPARE_SAME_MIN (4) intervals a
    side.  With fewer, a change that stands out anyway is significant and
    any other is null, "too few intervals to judge": a variance of 2
    intervals has one degree of freedom.  Measured (e2e_ab's seq-4k, 2
    intervals a side, issue 39): B capped at 50 IOPS, A ~70,000, a change
    of -99.93%; A's agent (ASan, 2 busy cores) starved of the CPU in one
    interval, say [70000, 30000]: on the linear scale se = |x1 - x2| / 2 =
    20,000 and 3 x se = 60,000 > the difference, 49,950.  With B near 0, 2
    intervals of A made any drop "not significant" once one interval did
    under half the other's I/O.  On the ratio scale that series spreads
    0.85 (se 0.42, 3 x se 1.27) against a difference of 6.8; 2 intervals
    fail to judge a 1,400-fold drop only when one did under about a 37th
    of the other's I/O, and then say null.  An interval that measured
    nothing (no I/O, or none in the latency's direction) has no ratio:
    null.
    p99.9, and a step with fewer than 2 intervals, have no noise estimate:
    null.  A null row carries "significance_note", why.

    What is compared must be alike: runs of one plan version (or steps
    mapped by hand), each side measured, and groups per member, so that a
    step that failed never reads as -100% and 1 agent against 2 never as
    +100%.
*/
#include "compare.h"
#include "direction.h"
#define JSON_GET_SHORT     /* num () and str () */
#include "json_get.h"


#include <math.h>
#include <stdio.h>
#include <string.h>

bool
compare_is_latency (const char *metric)
{
    return metric && metric[0] == 'p';
}

const char *
compare_metric_unit (const char *metric)
{
    if (!metric)
        return "iops";
    /* A report's lat_ns figures (history's metrics) are latencies too. */
    if (compare_is_latency (metric) || strcmp (metric, "mean") == 0 || strcmp (metric, "min") == 0
        || strcmp (metric, "max") == 0 || strcmp (metric, "stddev") == 0)
        return "ns";
    if (strcmp (metric, "ops") == 0 || strcmp (metric, "errors") == 0)
        return "count";
    return strncmp (metric, "bw", 2) == 0 ? "bytes/s" : "iops";
}

/* The busier of reads and writes of o: the direction whose latency is
   compared.  Trims are not offered (their latency is the device's discard
   time); NULL when o only trimmed, which leaves no latency to compare. */
static json_t *
busier (json_t *o)
{
    json_t *r = json_object_get (o, "read"), *w = json_object_get (o, "write");
    json_t *t = json_object_get (o, dir_name (DIR_TRIM));
    if (!(num (r, "ops") > 0) && !(num (w, "ops") > 0) && num (t, "ops") > 0)
        return NULL;
    return num (r, "ops") >= num (w, "ops") || !w ? r : w;
}

/* key (iops, bw) summed over o's directions: reads and writes (NAN
   without either), and trims where o has them.  Can't fail. */
static double
total (json_t *o, const char *key)
{
    double v = 0;
    for (int d = 0; d < DIR_COUNT; d++) {
        json_t *x = json_object_get (o, dir_name (d));
        if (!x && (d == DIR_READ || d == DIR_WRITE))
            return NAN;
        if (x)
            v += num (x, key);
    }
    return v;
}

/* Did o (fleet or group) measure anything: ops in some direction? */
static bool
measured (json_t *o)
{
    for (int d = 0; d < DIR_COUNT; d++)
        if (num (json_object_get (o, dir_name (d)), "ops") > 0)
            return true;
    return false;
}

/* Per-interval series of a metric over a step's (or group's) intervals,
   each value times scale; returns n. */
static int
series (json_t *step, const char *metric, double scale, double *v, int max)
{
    int n = 0;
    size_t i;
    json_t *iv;
    json_array_foreach (json_object_get (step, "intervals"), i, iv) {
        if (n == max)
            break;
        if (strcmp (metric, "iops") == 0 || strcmp (metric, "bw") == 0)
            v[n++] = num (iv, metric) * scale;
        else
            v[n++] = num (busier (iv), metric);
    }
    return n;
}

/* Fewest intervals a side needs for "not significant" (see the top). */
#define COMPARE_SAME_MIN 4

/* Mean and sample variance of the logs of v[0..n-1] (n >= 2, each > 0). */
static void
log_moments (const double *v, int n, double *mean, double *var)
{
    double m = 0, s = 0;
    for (int i = 0; i < n; i++)
        m += log (v[i]) / n;
    for (int i = 0; i < n; i++)
        s += (log (v[i]) - m) * (log (v[i]) - m) / (n - 1);
    *mean = m;
    *var = s;
}

/* 1 significant, 0 not, -1 not judged, with why (see the top). */
static int
significant (json_t *sa, json_t *sb, const char *metric, double scale_a, double scale_b,
             char *why, size_t cap)
{
    double a[1024], b[1024];
    int na = sa ? series (sa, metric, scale_a, a, 1024) : 0;
    int nb = sb ? series (sb, metric, scale_b, b, 1024) : 0;
    if (na < 2 || nb < 2) {
        snprintf (why, cap, "fewer than 2 intervals (A %d, B %d): no noise estimate", na, nb);
        return -1;
    }
    for (int k = 0; k < 2; k++) {
        const double *v = k ? b : a;
        for (int i = 0; i < (k ? nb : na); i++)
            if (!(v[i] > 0) || !isfinite (v[i])) {
                snprintf (why, cap, "interval %d of %s measured nothing (no %s): no noise "
                          "estimate on the ratio scale", i + 1, k ? "B" : "A", metric);
                return -1;
            }
    }
    double ma, mb, va, vb;
    log_moments (a, na, &ma, &va);
    log_moments (b, nb, &mb, &vb);
    double se = sqrt (va / na + vb / nb);
    double d = fabs (mb - ma);
    if (d > 3 * se && d >= log (1.02))
        return 1;
    if (na < COMPARE_SAME_MIN || nb < COMPARE_SAME_MIN) {
        snprintf (why, cap, "too few intervals to judge (A %d, B %d): the change does not stand "
                  "out of their spread, and no difference needs %d a side", na, nb,
                  COMPARE_SAME_MIN);
        return -1;
    }
    return 0;
}

static json_t *
find_step (json_t *rep, const char *name)
{
    return json_get_find (json_object_get (rep, "steps"), "name", name);
}

/* "NAME vN" of a report's plan. */
static void
plan_text (json_t *rep, char *buf, size_t cap)
{
    snprintf (buf, cap, "%s v%.0f", str (rep, "plan"), num (rep, "plan_version"));
}

/* One side of a pair: the figures (a fleet or a group), their members
   ({agents, targets, iops_per_*, bw_per_*}) and their per-interval
   series (the step or the group). */
typedef struct {
    json_t *dirs, *members, *series;
    char plan[300];
    const char *step;
} side_t;

/* Rows for one pair of sides; per_member: the throughput per agent and
   per target rather than the totals. */
static void
rows_for (json_t *rows, const char *group, const side_t *a, const side_t *b, bool per_member)
{
    static const char *totals[] = { "iops", "bw" };
    static const char *members[] = { "iops_per_target", "iops_per_agent", "bw_per_target",
                                     "bw_per_agent" };
    static const char *lat[] = { "p50", "p99", "p99.9" };
    const char *metrics[7];
    int nm = 0;
    if (per_member)
        for (int i = 0; i < 4; i++)
            metrics[nm++] = members[i];
    else
        for (int i = 0; i < 2; i++)
            metrics[nm++] = totals[i];
    for (int i = 0; i < 3; i++)
        metrics[nm++] = lat[i];
    for (int m = 0; m < nm; m++) {
        const char *metric = metrics[m];
        double va, vb;
        int sig = -1;
        char why[200] = "no noise estimate";
        if (compare_is_latency (metric)) {
            va = num (json_object_get (busier (a->dirs), "percentiles"), metric);
            vb = num (json_object_get (busier (b->dirs), "percentiles"), metric);
            if (strcmp (metric, "p99.9") != 0)
                sig = significant (a->series, b->series, metric, 1, 1, why, sizeof why);
            else
                snprintf (why, sizeof why, "p99.9 has no per-interval series: no noise estimate");
        } else if (per_member) {
            va = num (a->members, metric);
            vb = num (b->members, metric);
            /* The series is the members' sum: divided by their count. */
            bool agent = strstr (metric, "agent") != NULL;
            double na = num (a->members, agent ? "agents" : "targets");
            double nb = num (b->members, agent ? "agents" : "targets");
            if (na > 0 && nb > 0)
                sig = significant (a->series, b->series, strncmp (metric, "bw", 2) ? "iops" : "bw",
                                   1 / na, 1 / nb, why, sizeof why);
            else
                snprintf (why, sizeof why, "no member count: no figure per member's noise");
        } else {
            va = total (a->dirs, metric);
            vb = total (b->dirs, metric);
            sig = significant (a->series, b->series, metric, 1, 1, why, sizeof why);
        }
        if (isnan (va) || isnan (vb))
            continue;
        json_t *row = json_pack ("{s:s, s:s, s:s, s:f, s:f, s:f, s:o, s:s, s:s, s:s, s:s}",
            "step", a->step, "group", group, "metric", metric, "a", va, "b", vb,
            "delta_pct", va != 0 ? 100.0 * (vb - va) / va : 0.0,
            "significant", sig < 0 ? json_null () : json_boolean (sig),
            "a_plan", a->plan, "a_step", a->step, "b_plan", b->plan, "b_step", b->step);
        static const char *counts[] = { "agents", "targets" };
        for (int k = 0; k < 2; k++) {
            char key[32];
            json_t *v = json_object_get (a->members, counts[k]);
            snprintf (key, sizeof key, "a_%s", counts[k]);
            json_object_set_new (row, key, json_is_integer (v) ? json_incref (v) : json_null ());
            v = json_object_get (b->members, counts[k]);
            snprintf (key, sizeof key, "b_%s", counts[k]);
            json_object_set_new (row, key, json_is_integer (v) ? json_incref (v) : json_null ());
        }
        if (sig < 0)
            json_object_set_new (row, "significance_note", json_string (why));
        json_array_append_new (rows, row);
    }
}

/* Why a side did not measure a step: its status and its agents'. */
static void
why_not (json_t *rep, json_t *s, const char *which, char *buf, size_t cap)
{
    size_t off = (size_t) snprintf (buf, cap, "run %.0f (%s) measured nothing in step '%s' "
                                    "(step %s", num (rep, "run"), which, str (s, "name"),
                                    str (s, "status")[0] ? str (s, "status") : "not run");
    size_t i;
    json_t *a;
    int n = 0;
    json_array_foreach (json_object_get (s, "agents"), i, a)
        if (off < cap && n++ < 4)
            off += (size_t) snprintf (buf + off, cap - off, "%s%s %s%s%s", n == 1 ? ": " : ", ",
                                      str (a, "agent"), str (a, "status"),
                                      str (a, "message")[0] ? " " : "", str (a, "message"));
    if (off < cap)
        snprintf (buf + off, cap - off, ")");
}

/* The rows of one pair of steps: the fleet (or, for two groups of one
   run, the groups) and every --by group of sa that sb has. */
static void
step_rows (json_t *rows, json_t *skipped, json_t *ra, json_t *rb, json_t *sa, json_t *sb,
           const compare_opts_t *o)
{
    side_t a = { json_object_get (sa, "fleet"), json_object_get (sa, "members"), sa, "",
                 str (sa, "name") };
    side_t b = { json_object_get (sb, "fleet"), json_object_get (sb, "members"), sb, "",
                 str (sb, "name") };
    plan_text (ra, a.plan, sizeof a.plan);
    plan_text (rb, b.plan, sizeof b.plan);
    char why[1024];
    bool ma = measured (a.dirs), mb = measured (b.dirs);
    if (!ma || !mb) {
        why_not (ma ? rb : ra, ma ? sb : sa, ma ? "B" : "A", why, sizeof why);
        json_array_append_new (skipped, json_pack ("{s:s, s:s, s:s}", "step", a.step,
                                                   "b_step", b.step, "reason", why));
        return;
    }
    rows_for (rows, o->label ? o->label : "fleet", &a, &b, o->groups && !o->sum);
    size_t gi;
    json_t *ga;
    json_array_foreach (json_object_get (sa, "groups"), gi, ga) {
        const char *value = json_string_value (json_object_get (ga, "value"));
        if (!value || strcmp (str (ga, "by"), "all") == 0)
            continue;
        char label[300];
        snprintf (label, sizeof label, "%s=%s", str (ga, "by"), value);
        json_t *gb = json_get_find (json_object_get (sb, "groups"), "value", value);
        if (!gb || !measured (gb) || !measured (ga)) {
            snprintf (why, sizeof why, "run %.0f (%s) has no measured member of %s in step '%s'",
                      num (gb && measured (ga) ? rb : ra, "run"), gb && measured (ga) ? "B" : "A",
                      label, gb && measured (ga) ? b.step : a.step);
            json_array_append_new (skipped, json_pack ("{s:s, s:s, s:s, s:s}", "step", a.step,
                                   "b_step", b.step, "group", label, "reason", why));
            continue;
        }
        side_t x = { ga, ga, ga, "", a.step }, y = { gb, gb, gb, "", b.step };
        snprintf (x.plan, sizeof x.plan, "%s", a.plan);
        snprintf (y.plan, sizeof y.plan, "%s", b.plan);
        rows_for (rows, label, &x, &y, !o->sum);
    }
}

json_t *
compare_side (json_t *rep)
{
    json_t *side = json_pack ("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}",
        "run", json_object_get (rep, "run"), "plan", json_object_get (rep, "plan"),
        "plan_version", json_object_get (rep, "plan_version"),
        "status", json_object_get (rep, "status"), "message", json_object_get (rep, "message"),
        "labels", json_object_get (rep, "labels"), "origin", json_object_get (rep, "origin"));
    if (side && json_object_get (rep, "where"))
        json_object_set (side, "where", json_object_get (rep, "where"));
    return side;
}

json_t *
compare_run (json_t *ra, json_t *rb, const compare_opts_t *o)
{
    json_t *rows = json_array (), *skipped = json_array ();
    size_t i;
    json_t *sa;
    if (o->steps) {
        json_t *pair;
        json_array_foreach (o->steps, i, pair) {
            json_t *x = find_step (ra, json_string_value (json_array_get (pair, 0)));
            json_t *y = find_step (rb, json_string_value (json_array_get (pair, 1)));
            if (x && y)
                step_rows (rows, skipped, ra, rb, x, y, o);
        }
    } else
        json_array_foreach (json_object_get (ra, "steps"), i, sa) {
            json_t *sb = find_step (rb, str (sa, "name"));
            if (sb)
                step_rows (rows, skipped, ra, rb, sa, sb, o);
            else
                json_array_append_new (skipped, json_pack ("{s:s, s:s}", "step", str (sa, "name"),
                    "reason", "run B has no step of this name"));
        }
    return json_pack ("{s:o, s:o, s:s, s:O?, s:b, s:o, s:o}",
        "a", compare_side (ra), "b", compare_side (rb),
        "figures", o->groups && !o->sum ? "per_member" : "sum",
        "steps", o->steps, "forced", o->force, "rows", rows, "skipped", skipped);
}

/* Has rep any step with a measured interval? */
static bool
any_measured (json_t *rep)
{
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get (rep, "steps"), i, s)
        if (measured (json_object_get (s, "fleet")))
            return true;
    return false;
}

/* Is side rep comparable at all?  Returns 0, or -1 with err. */
static int
side_check (json_t *rep, const char *which, bool force, char *err, size_t errlen)
{
    long long run = (long long) num (rep, "run");
    const char *status = str (rep, "status");
    if (strcmp (status, "queued") == 0 || strcmp (status, "running") == 0) {
        snprintf (err, errlen, "run %lld (%s) is %s: compare it when it has finished (iofleet "
                  "watch %lld)", run, which, status, run);
        return -1;
    }
    if (!any_measured (rep)) {
        snprintf (err, errlen, "run %lld (%s) is %s and measured nothing (no step has a measured "
                  "interval%s%s): there is nothing to compare; see iofleet report %lld", run,
                  which, status, str (rep, "message")[0] ? ": " : "", str (rep, "message"), run);
        return -1;
    }
    if (strcmp (status, "failed") == 0 && !force) {
        snprintf (err, errlen, "run %lld (%s) failed (%s): its figures stop where it failed; "
                  "compare runs that finished (iofleet runs), or give --force to compare the "
                  "steps it measured", run, which,
                  str (rep, "message")[0] ? str (rep, "message") : "no message");
        return -1;
    }
    return 0;
}

/* "a, b, c" of a report's step names into buf. */
static const char *
step_names (json_t *rep, char *buf, size_t cap)
{
    size_t off = 0, i;
    json_t *s;
    buf[0] = '\0';
    json_array_foreach (json_object_get (rep, "steps"), i, s)
        if (off < cap)
            off += (size_t) snprintf (buf + off, cap - off, "%s%s", i ? ", " : "", str (s, "name"));
    return buf;
}

int
compare_check (json_t *a, json_t *b, const compare_opts_t *o, char *err, size_t errlen)
{
    if (side_check (a, "A", o->force, err, errlen) || side_check (b, "B", o->force, err, errlen))
        return -1;
    char pa[300], pb[300], names[1024];
    plan_text (a, pa, sizeof pa);
    plan_text (b, pb, sizeof pb);
    size_t i;
    json_t *pair;
    json_array_foreach (o->steps, i, pair)
        for (int k = 0; k < 2; k++) {
            json_t *rep = k ? b : a;
            const char *name = json_string_value (json_array_get (pair, (size_t) k));
            if (!find_step (rep, name)) {
                snprintf (err, errlen, "--steps: run %.0f (%s, plan %s) has no step '%s' (its "
                          "steps: %s)", num (rep, "run"), k ? "B" : "A", k ? pb : pa,
                          name ? name : "", step_names (rep, names, sizeof names));
                return -1;
            }
        }
    bool same_plan = strcmp (str (a, "plan"), str (b, "plan")) == 0;
    if ((!same_plan || num (a, "plan_version") != num (b, "plan_version")) && !o->steps
        && !o->force) {
        snprintf (err, errlen, "run %.0f is plan '%s' v%.0f and run %.0f is plan '%s' v%.0f: %s, "
                  "whose steps need not be the same workload even where their names agree; map "
                  "the steps to compare with --steps A_STEP=B_STEP[,...], or give --force to "
                  "compare like-named steps anyway", num (a, "run"), str (a, "plan"),
                  num (a, "plan_version"), num (b, "run"), str (b, "plan"), num (b, "plan_version"),
                  same_plan ? "different versions of the plan" : "different plans");
        return -1;
    }
    return 0;
}

bool
compare_is_regression (json_t *row, double fail_pct)
{
    const char *metric = json_string_value (json_object_get (row, "metric"));
    if (!metric || fail_pct < 0)
        return false;
    double d = num (row, "delta_pct");
    bool worse = compare_is_latency (metric) ? d > fail_pct : d < -fail_pct;
    /* Only a change shown to stand out of the noise is a regression:
       without a noise estimate (null) the delta is reported, not judged. */
    return worse && json_is_true (json_object_get (row, "significant"));
}
