/*  qualification.c: a run's qualification report, see qualification.h. */
#include "qualification.h"
#include "checklist.h"
#include "paths.h"
#include "sla.h"
#define JSON_GET_SHORT     /* num () and str () */
#include "json_get.h"


#include <math.h>
#include <stdio.h>
#include <string.h>

int
qualification_opts (json_t *req, qual_opts_t *o, char *err, size_t errlen)
{
    memset (o, 0, sizeof *o);
    o->target_iops = QUAL_TARGET_IOPS;
    o->headroom_pct = QUAL_HEADROOM_PCT;
    json_t *v = json_object_get (req, "target_iops");
    if (v) {
        double x = json_number_value (v);
        if (!json_is_number (v) || !(x > 0) || x > 1e12) {
            snprintf (err, errlen, "--target-iops: give IOPS above 0 and at most 1e12");
            return -1;
        }
        o->target_iops = x;
    }
    v = json_object_get (req, "headroom_pct");
    if (v) {
        double x = json_number_value (v);
        if (!json_is_number (v) || x < 0 || x >= 100) {
            snprintf (err, errlen, "--headroom: give a percent of the p99 limit, 0 or more and "
                      "below 100 (the report's 20-40)");
            return -1;
        }
        o->headroom_pct = x;
    }
    json_t *cl = json_object_get (req, "sla_classes");
    if (!cl) {
        o->classes[0] = (qual_class_t) { "OLTP", 2e6 };
        o->classes[1] = (qual_class_t) { "latency-sensitive", 1e6 };
        o->nclasses = 2;
        return 0;
    }
    size_t i;
    json_t *c;
    json_array_foreach (cl, i, c) {
        const char *text = json_string_value (c);
        const char *colon = text ? strchr (text, ':') : NULL;
        sla_t sla;
        char why[256] = "";
        if (!colon || colon == text || colon - text >= (long) sizeof o->classes[0].name
            || o->nclasses == QUAL_CLASSES_MAX
            || sla_parse (colon + 1, &sla, why, sizeof why) != 0 || sla.n != 1
            || !sla.c[0].less || sla.c[0].percentile != 99) {
            snprintf (err, errlen, "--sla-class '%s': give NAME:p99<LIMIT (e.g. OLTP:p99<2ms), "
                      "a name of at most %zu characters, at most %d classes%s%s", text ? text : "",
                      sizeof o->classes[0].name - 1, QUAL_CLASSES_MAX, why[0] ? ": " : "", why);
            return -1;
        }
        qual_class_t *q = &o->classes[o->nclasses++];
        snprintf (q->name, sizeof q->name, "%.*s", (int) (colon - text), text);
        q->p99_ns = sla.c[0].limit;
    }
    return 0;
}

/* The step of rep named name, or NULL. */
static json_t *
step_named (json_t *rep, const char *name)
{
    return json_get_find (json_object_get (rep, "steps"), "name", name);
}

/* How many targets group value had in step s (the fleet's when the
   report is not grouped), or NAN. */
static double
group_targets (json_t *s, const char *value)
{
    size_t i;
    json_t *g;
    json_array_foreach (json_object_get (s, "groups"), i, g)
        if (!value[0] || strcmp (str (g, "value"), value) == 0)
            return num (g, "targets");
    return NAN;
}

static json_t *
num_or_null (double v)
{
    return isfinite (v) ? json_real (v) : json_null ();
}

/* A latency row of step s for one group's (or the fleet's) reads. */
static json_t *
latency_row (json_t *s, const char *group, double targets, json_t *read)
{
    json_t *job = json_object_get (s, "job"), *pc = json_object_get (read, "percentiles");
    double qd = num (job, "iodepth") * (isfinite (num (job, "numjobs")) ? num (job, "numjobs")
                                                                        : 1);
    json_t *row = json_pack ("{s:s, s:s, s:O, s:f}", "step", str (s, "name"), "group", group,
                             "bs", json_object_get (job, "bs"), "iodepth", qd);
    json_object_set_new (row, "targets", num_or_null (targets));
    json_object_set_new (row, "iops", num_or_null (num (read, "iops")));
    json_object_set_new (row, "mean", num_or_null (num (json_object_get (read, "lat_ns"), "mean")));
    json_object_set_new (row, "p95", num_or_null (num (pc, "p95")));
    json_object_set_new (row, "p99", num_or_null (num (pc, "p99")));
    json_object_set_new (row, "p99.9", num_or_null (num (pc, "p99.9")));
    return row;
}

static json_t *
latency_rows (json_t *rep)
{
    json_t *rows = json_array ();
    size_t i, k;
    json_t *s, *g;
    json_array_foreach (json_object_get (rep, "steps"), i, s) {
        json_t *job = json_object_get (s, "job");
        if (strcmp (str (job, "rw"), "randread") != 0)
            continue;
        json_t *groups = json_object_get (s, "groups");
        if (json_array_size (groups))
            json_array_foreach (groups, k, g) {
                if (num (json_object_get (g, "read"), "ops") > 0)
                    json_array_append_new (rows, latency_row (s, str (g, "value"),
                                                              num (g, "targets"),
                                                              json_object_get (g, "read")));
            }
        else if (num (json_object_get (json_object_get (s, "fleet"), "read"), "ops") > 0)
            json_array_append_new (rows, latency_row (s, "all", group_targets (s, ""),
                                    json_object_get (json_object_get (s, "fleet"), "read")));
    }
    return rows;
}

/* The sweeps' curves to use: the groups' when the report is grouped,
   else the fleet's. */
static bool
curve_used (json_t *c, bool grouped)
{
    return (json_object_get (c, "group") != NULL && !json_is_null (json_object_get (c, "group")))
           == grouped;
}

/* The point of curve c with the highest IOPS among those whose p99 is
   below limit (any when limit is INFINITY), or NULL. */
static json_t *
best_point (json_t *c, double limit, bool inclusive)
{
    json_t *best = NULL;
    size_t k;
    json_t *p;
    json_array_foreach (json_object_get (c, "points"), k, p) {
        double p99 = num (p, "p99");
        bool ok = isinf (limit) || (inclusive ? p99 <= limit : p99 < limit);
        if (ok && isfinite (num (p, "iops")) && (!best || num (p, "iops") > num (best, "iops")))
            best = p;
    }
    return best;
}

static const char *
group_of (json_t *c)
{
    const char *g = str (c, "group");
    return g[0] ? g : "all";
}

/* Targets of the curve's group at point p's step. */
static double
point_targets (json_t *rep, json_t *c, json_t *p)
{
    json_t *s = step_named (rep, str (p, "step"));
    const char *g = str (c, "group");
    return s ? group_targets (s, g) : NAN;
}

json_t *
qualification_json (json_t *rep, const char *by, const qual_opts_t *o)
{
    json_t *q = json_pack ("{s:s, s:O, s:O, s:O, s:O, s:s}", "template", "qualification",
                           "run", json_object_get (rep, "run"),
                           "plan", json_object_get (rep, "plan"),
                           "status", json_object_get (rep, "status"),
                           "verdict", json_object_get (rep, "verdict"), "by", by ? by : "");
    json_t *classes = json_array ();
    for (int i = 0; i < o->nclasses; i++)
        json_array_append_new (classes, json_pack ("{s:s, s:f}", "name", o->classes[i].name,
                                                   "p99_limit", o->classes[i].p99_ns));
    json_object_set_new (q, "options", json_pack ("{s:f, s:f, s:o}", "target_iops",
                         o->target_iops, "headroom_pct", o->headroom_pct, "sla_classes", classes));
    json_object_set_new (q, "latency", latency_rows (rep));

    bool grouped = by && by[0];
    json_t *curves = json_array (), *mixed = json_array (), *slac = json_array ();
    json_t *capacity = json_array ();
    size_t i, k;
    json_t *c, *c2;
    json_t *sweeps = json_object_get (rep, "sweeps");
    json_array_foreach (sweeps, i, c) {
        if (!curve_used (c, grouped))
            continue;
        json_t *peak = best_point (c, INFINITY, false);
        if (!peak)
            continue;
        double t = point_targets (rep, c, peak);
        json_t *row = json_pack ("{s:O, s:O, s:O, s:s, s:O, s:O, s:O}", "curve",
            json_object_get (c, "curve"), "rw", json_object_get (c, "rw"), "bs",
            json_object_get (c, "bs"), "group", group_of (c), "peak_iops",
            json_object_get (peak, "iops"), "peak_iodepth", json_object_get (peak, "iodepth"),
            "knee_iodepth", json_object_get (c, "knee_iodepth"));
        json_object_set_new (row, "peak_iops_per_target", num_or_null (num (peak, "iops") / t));
        json_t *pts = json_array ();
        json_t *p;
        json_array_foreach (json_object_get (c, "points"), k, p)
            json_array_append_new (pts, json_pack ("{s:O, s:O, s:O}", "iodepth",
                json_object_get (p, "iodepth"), "iops", json_object_get (p, "iops"), "p99",
                json_object_get (p, "p99")));
        json_object_set_new (row, "points", pts);
        json_array_append_new (curves, row);

        /* A mix against pure reads of the same group and block size. */
        json_t *st = step_named (rep, str (peak, "step"));
        double mix = num (json_object_get (st, "job"), "rwmixread");
        if (strcmp (str (c, "rw"), "randrw") == 0 && isfinite (mix))
            json_array_foreach (sweeps, k, c2) {
                if (!curve_used (c2, grouped) || strcmp (str (c2, "rw"), "randread") != 0
                    || num (c2, "bs") != num (c, "bs")
                    || strcmp (group_of (c2), group_of (c)) != 0)
                    continue;
                json_t *rpeak = best_point (c2, INFINITY, false);
                if (!rpeak || !(num (rpeak, "iops") > 0))
                    continue;
                json_array_append_new (mixed, json_pack ("{s:s, s:O, s:f, s:O, s:O, s:f}",
                    "group", group_of (c), "bs", json_object_get (c, "bs"), "rwmixread", mix,
                    "read_peak_iops", json_object_get (rpeak, "iops"),
                    "mixed_peak_iops", json_object_get (peak, "iops"), "penalty_pct",
                    100.0 * (1 - num (peak, "iops") / num (rpeak, "iops"))));
                break;
            }

        if (strcmp (str (c, "rw"), "randread") != 0)
            continue;
        for (int ci = 0; ci < o->nclasses; ci++) {
            const qual_class_t *cl = &o->classes[ci];
            json_t *b = best_point (c, cl->p99_ns, false);
            json_t *r = json_pack ("{s:s, s:f, s:s, s:O, s:b}", "class", cl->name, "p99_limit",
                                   cl->p99_ns, "group", group_of (c), "bs",
                                   json_object_get (c, "bs"), "pass", b != NULL);
            if (b) {
                double bt = point_targets (rep, c, b);
                json_object_set_new (r, "capacity_iops", json_real (num (b, "iops")));
                json_object_set_new (r, "capacity_iops_per_target",
                                     num_or_null (num (b, "iops") / bt));
                json_object_set_new (r, "iodepth", json_incref (json_object_get (b, "iodepth")));
                json_object_set_new (r, "p99", json_incref (json_object_get (b, "p99")));
            }
            json_array_append_new (slac, r);

            /* Capacity advice: each target kept under (100 - headroom)% of
               the class's p99 limit. */
            double at_most = cl->p99_ns * (100 - o->headroom_pct) / 100;
            json_t *h = best_point (c, at_most, true);
            json_t *a = json_pack ("{s:s, s:s, s:O, s:f, s:f, s:f}", "class", cl->name, "group",
                                   group_of (c), "bs", json_object_get (c, "bs"), "target_iops",
                                   o->target_iops, "headroom_pct", o->headroom_pct,
                                   "p99_at_most", at_most);
            double per = h ? num (h, "iops") / point_targets (rep, c, h) : NAN;
            if (h && per > 0) {
                json_object_set_new (a, "per_target_iops", json_real (per));
                json_object_set_new (a, "iodepth", json_incref (json_object_get (h, "iodepth")));
                json_object_set_new (a, "p99", json_incref (json_object_get (h, "p99")));
                json_object_set_new (a, "targets_needed", json_integer ((json_int_t)
                                     ceil (o->target_iops / per - 1e-9)));
            } else
                json_object_set_new (a, "targets_needed", json_null ());
            json_array_append_new (capacity, a);
        }
    }
    json_object_set_new (q, "curves", curves);
    json_object_set_new (q, "mixed", mixed);
    json_object_set_new (q, "sla_classes", slac);
    json_object_set_new (q, "capacity", capacity);
    json_t *knee_rule = json_object_get (json_array_get (sweeps, 0), "knee_rule");
    json_object_set_new (q, "rules", json_pack ("{s:s, s:s, s:s, s:s, s:s, s:s, s:O}",
        "paths", PATHS_RULE, "checklist", CHECKLIST_RULE,
        "latency", "completion latency of the random-read steps' reads per group, percentiles "
        "from the group's merged histograms",
        "mixed", "penalty_pct = 100 x (1 - the mix's peak IOPS / pure random reads' peak IOPS), "
        "same group and block size, each the highest IOPS over the sweep's depths",
        "sla_classes", "pass when some depth of the random-read sweep has p99 below the limit; "
        "capacity_iops: the highest IOPS among those depths",
        "capacity", "targets_needed = ceil(target_iops / per_target_iops), per_target_iops: the "
        "highest IOPS per target among the depths whose p99 is at most (100 - headroom_pct)% of "
        "the class's limit",
        "knee", knee_rule ? knee_rule : json_null ()));
    return q;
}
