/*  sweeps.c: the queue-depth curves of a run's sweeps, see sweeps.h. */
#include "controller.h"
#include "sla.h"
#include "step_sla.h"
#include "sweeps.h"

#include <math.h>
#include <string.h>

/* Queue-depth curves of the run's sweeps: for each swept section and each
   rw/bs of it (and each group, when the report is grouped), IOPS and p99
   (busier direction) against iodepth; the knee, the smallest depth after
   which doubling the depth gains less than SWEEP_KNEE_PCT of IOPS; and the
   SLA capacity, the highest IOPS among the depths whose latency conditions
   of the job's SLA all hold (iops and bw conditions are what capacity
   measures, so they are left out), with the depth that gives it and the
   p99 headroom against a p99 condition. */
#define SWEEP_KNEE_PCT 10.0

static json_t *
sweep_curve (json_t *out, const char *key, const char *of, json_t *job, const char *group)
{
    size_t k;
    json_t *c;
    json_array_foreach (out, k, c)
        if (strcmp (json_string_value (json_object_get (c, "curve")), key) == 0)
            return c;
    c = json_pack ("{s:s, s:s, s:O, s:O, s:[]}", "curve", key, "sweep", of,
                   "rw", json_object_get (job, "rw"), "bs", json_object_get (job, "bs"),
                   "points");
    if (group)
        json_object_set_new (c, "group", json_string (group));
    json_array_append_new (out, c);
    return c;
}

/* Adds the point of one step (the fleet's or one group's figures dirs):
   IOPS of all directions, p99 of the busier of reads and writes. */
static void
sweep_point (json_t *curve, json_t *s, json_t *dirs, const sla_t *sla)
{
    json_t *job = json_object_get (s, "job");
    json_t *r = json_object_get (dirs, "read"), *w = json_object_get (dirs, "write");
    json_t *busy = json_number_value (json_object_get (r, "ops"))
                   >= json_number_value (json_object_get (w, "ops")) ? r : w;
    json_t *pt = json_pack ("{s:O, s:O, s:f, s:O}",
        "step", json_object_get (s, "name"), "iodepth", json_object_get (job, "iodepth"),
        "iops", step_sla_total (dirs, "iops"),
        "p99", json_object_get (json_object_get (busy, "percentiles"), "p99"));
    if (sla) {
        sla_t lat = { 0 };
        for (int k = 0; k < sla->n; k++)
            if (strcmp (sla->c[k].metric, "iops") != 0 && strcmp (sla->c[k].metric, "bw") != 0)
                lat.c[lat.n++] = sla->c[k];
        if (lat.n) {
            json_t *fails = json_array ();
            json_object_set_new (pt, "sla_latency_pass",
                                 json_boolean (step_sla_apply (&lat, dirs, NULL, fails, NULL) == 0));
            json_decref (fails);
        }
    }
    json_array_append_new (json_object_get (curve, "points"), pt);
}

static void
sweep_analyse (json_t *c, const sla_t *sla)
{
    json_t *pts = json_object_get (c, "points");
    size_t n = json_array_size (pts);
    json_t *knee = json_null ();
    /* Points come in the sweep's order; the knee needs increasing depths. */
    for (size_t k = 0; k + 1 < n; k++) {
        json_t *a = json_array_get (pts, k), *b = json_array_get (pts, k + 1);
        double qa = json_number_value (json_object_get (a, "iodepth"));
        double qb = json_number_value (json_object_get (b, "iodepth"));
        double ia = json_number_value (json_object_get (a, "iops"));
        double ib = json_number_value (json_object_get (b, "iops"));
        if (qb <= qa || ia <= 0)
            break;
        /* The gain per doubling between these two depths. */
        double doublings = log2 (qb / qa);
        double gain = 100.0 * (pow (ib / ia, 1.0 / doublings) - 1.0);
        if (gain < SWEEP_KNEE_PCT) {
            knee = json_incref (json_object_get (a, "iodepth"));
            break;
        }
    }
    json_object_set_new (c, "knee_iodepth", knee);
    json_object_set_new (c, "knee_rule", json_sprintf ("the smallest iodepth after which "
                         "doubling it gains less than %.0f%% IOPS", SWEEP_KNEE_PCT));

    /* The SLA capacity: null without latency conditions, or when no depth
       meets them (then sla_capacity_rule says so). */
    json_t *best = NULL;
    bool judged = false;
    size_t k;
    json_t *p;
    json_array_foreach (pts, k, p) {
        json_t *ok = json_object_get (p, "sla_latency_pass");
        judged |= ok != NULL;
        if (json_is_true (ok) && (!best || json_number_value (json_object_get (p, "iops"))
                                           > json_number_value (json_object_get (best, "iops"))))
            best = p;
    }
    if (!judged) {
        json_object_set_new (c, "sla_capacity", json_null ());
        return;
    }
    if (!best) {
        json_object_set_new (c, "sla_capacity", json_pack ("{s:n, s:n, s:s}", "iops", "iodepth",
                             "note", "no depth of the sweep meets the latency conditions"));
        return;
    }
    json_t *cap = json_pack ("{s:O, s:O, s:O, s:O}", "iops", json_object_get (best, "iops"),
                             "iodepth", json_object_get (best, "iodepth"),
                             "step", json_object_get (best, "step"),
                             "p99", json_object_get (best, "p99"));
    for (int i = 0; i < sla->n; i++)
        if (sla->c[i].less && sla->c[i].percentile == 99) {
            double p99 = json_number_value (json_object_get (best, "p99"));
            json_object_set_new (cap, "p99_limit", json_real (sla->c[i].limit));
            json_object_set_new (cap, "p99_headroom_pct",
                                 json_real (100.0 * (sla->c[i].limit - p99) / sla->c[i].limit));
        }
    json_object_set_new (c, "sla_capacity", cap);
}

json_t *
sweeps_json (json_t *steps)
{
    json_t *out = json_array ();
    size_t i;
    json_t *s;
    json_array_foreach (steps, i, s) {
        json_t *job = json_object_get (s, "job");
        const char *of = json_string_value (json_object_get (job, "sweep_of"));
        if (!of)
            continue;
        sla_t sla;
        char err[256];
        const char *text = json_string_value (json_object_get (job, "sla"));
        bool has_sla = text && sla_parse (text, &sla, err, sizeof err) == 0;
        char key[600];
        snprintf (key, sizeof key, "%s %s bs=%lld", of, json_string_value (json_object_get (job, "rw")),
                  (long long) json_integer_value (json_object_get (job, "bs")));
        json_t *f = json_object_get (s, "fleet");
        sweep_point (sweep_curve (out, key, of, job, NULL), s, f, has_sla ? &sla : NULL);
        size_t g;
        json_t *gj;
        json_array_foreach (json_object_get (s, "groups"), g, gj) {
            char gkey[900];
            const char *value = json_string_value (json_object_get (gj, "value"));
            if (strcmp (json_string_value (json_object_get (gj, "by")), "all") == 0)
                continue;       /* ungrouped: the fleet's curve already */
            snprintf (gkey, sizeof gkey, "%s %s=%s", key,
                      json_string_value (json_object_get (gj, "by")), value);
            sweep_point (sweep_curve (out, gkey, of, job, value), s, gj, has_sla ? &sla : NULL);
        }
    }
    json_array_foreach (out, i, s) {
        /* Every step of a curve carries the same section's SLA. */
        json_t *first = json_array_get (json_object_get (s, "points"), 0);
        const char *name = json_string_value (json_object_get (first, "step"));
        sla_t sla;
        char err[256];
        bool has_sla = false;
        size_t k;
        json_t *st;
        json_array_foreach (steps, k, st)
            if (strcmp (json_string_value (json_object_get (st, "name")), name) == 0) {
                const char *text = json_string_value (json_object_get (json_object_get (st, "job"),
                                                                       "sla"));
                has_sla = text && sla_parse (text, &sla, err, sizeof err) == 0;
            }
        sweep_analyse (s, has_sla ? &sla : NULL);
    }
    return out;
}
