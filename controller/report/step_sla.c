/*  step_sla.c: a step's SLA verdict, see step_sla.h.

    The conditions of the job's sla= (common/sla.h) are checked on the
    figures the report already holds: the fleet's merged figures and every
    target's.
*/
#include "controller.h"
#include "sla.h"
#include "step_sla.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* key of every direction of dirs (a target's, group's or the fleet's
   {"read", "write"[, "trim"]}) summed: the total IOPS or bandwidth.
   Can't fail. */
double
step_sla_total (json_t *dirs, const char *key)
{
    double sum = 0;
    for (int d = 0; d < DIR_COUNT; d++)
        sum += json_number_value (json_object_get (json_object_get (dirs, dir_name (d)), key));
    return sum;
}

/* The directions an SLA's latency conditions apply to: reads and writes.
   Trims are not offered (their latency is a device's discard time, not
   what an SLA on a workload means); they count in the iops and bw totals. */
#define SLA_LAT_DIRS 2
_Static_assert (DIR_READ < SLA_LAT_DIRS && DIR_WRITE < SLA_LAT_DIRS && DIR_TRIM >= SLA_LAT_DIRS,
                "SLA_LAT_DIRS counts the directions from the first: reads and writes");

/* The figure of condition c in a direction object dir of dirs. */
static double
sla_value (const sla_cond_t *c, json_t *dir, json_t *dirs)
{
    if (strcmp (c->metric, "iops") == 0 || strcmp (c->metric, "bw") == 0)
        return step_sla_total (dirs, c->metric);
    if (strcmp (c->metric, "mean") == 0 || strcmp (c->metric, "max") == 0)
        return json_number_value (json_object_get (json_object_get (dir, "lat_ns"), c->metric));
    char key[32];
    snprintf (key, sizeof key, "p%g", c->percentile);
    json_t *p = json_object_get (json_object_get (dir, "percentiles"), key);
    return p ? json_number_value (p) : NAN;
}

/* Checks the conditions on one target's (or group's, or the fleet's)
   figures dirs; adds failures to `fails` (with `who`) and every check to
   `checks` when given.  Returns the number failed. */
int
step_sla_apply (const sla_t *sla, json_t *dirs, json_t *who, json_t *fails, json_t *checks)
{
    int nfail = 0;
    for (int k = 0; k < sla->n; k++) {
        const sla_cond_t *c = &sla->c[k];
        bool total = strcmp (c->metric, "iops") == 0 || strcmp (c->metric, "bw") == 0;
        for (int d = 0; d < (total ? 1 : SLA_LAT_DIRS); d++) {
            json_t *dir = json_object_get (dirs, dir_name (d));
            if (!total && json_number_value (json_object_get (dir, "ops")) == 0)
                continue;       /* a latency condition applies where there was I/O */
            double v = sla_value (c, dir, dirs);
            bool pass = !isnan (v) && sla_pass (c, v);
            json_t *e = json_pack ("{s:s, s:s, s:f, s:b}", "condition", c->text,
                                   "direction", total ? "total" : dir_name (d),
                                   "value", isnan (v) ? 0.0 : v, "pass", pass);
            if (checks)
                json_array_append (checks, e);
            if (!pass) {
                nfail++;
                if (who)
                    json_object_update (e, who);
                json_array_append (fails, e);
            }
            json_decref (e);
        }
    }
    return nfail;
}

struct step_sla {
    sla_t sla;
    const char *text;           /* the job's sla=, as the step holds it */
    json_t *fails;              /* the targets' failed checks */
};

step_sla_t *
step_sla_new (json_t *job)
{
    const char *text = json_string_value (json_object_get (job, "sla"));
    char err[256];
    step_sla_t *c = text ? calloc (1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    if (sla_parse (text, &c->sla, err, sizeof err) != 0) {
        free (c);
        return NULL;
    }
    c->text = text;
    c->fails = json_array ();
    return c;
}

void
step_sla_agent (step_sla_t *c, json_t *aj)
{
    size_t ti;
    json_t *tj;
    json_array_foreach (json_object_get (aj, "targets"), ti, tj) {
        json_t *who = json_pack ("{s:O, s:O}", "agent", json_object_get (aj, "agent"),
                                 "target", json_object_get (tj, "target"));
        step_sla_apply (&c->sla, tj, who, c->fails, NULL);
        json_decref (who);
    }
}

int
step_sla_end (step_sla_t *c, json_t *s)
{
    /* The fleet's failures first, then the targets' in report order. */
    json_t *fails = json_array (), *fleet = json_array ();
    int nfail = step_sla_apply (&c->sla, json_object_get (s, "fleet"), NULL, fails, fleet);
    nfail += (int) json_array_size (c->fails);
    json_array_extend (fails, c->fails);
    json_object_set_new (s, "sla", json_pack ("{s:s, s:s, s:o, s:o}", "conditions", c->text,
        "verdict", nfail ? "fail" : "pass", "fleet", fleet, "failures", fails));
    json_decref (c->fails);
    free (c);
    return nfail ? 1 : 0;
}
