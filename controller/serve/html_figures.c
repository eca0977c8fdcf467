/*  html_figures.c: what the HTML report shows beyond report_json
    (html_figures.h): each step's fleet IOPS over its directions, and each
    target's p99 against the median p99 of its group (or of the step's
    targets) for the heatmaps.
*/
#include "html_figures.h"
#include "direction.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static double
num (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_number (v) ? json_number_value (v) : NAN;
}

/* Did these figures (one direction's) count any I/O? */
static bool
has_ops (json_t *d)
{
    return num (d, "ops") > 0;
}

/* A target's p99 in direction dn, when it is a cell: NAN when not. */
static double
cell_p99 (json_t *t, const char *dn)
{
    json_t *dj = json_object_get (t, dn);
    double p99 = num (json_object_get (dj, "percentiles"), "p99");
    return has_ops (dj) && isfinite (p99) && p99 > 0 ? p99 : NAN;
}

static int
cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* The median p99 (direction dn) of the step's targets in group (NULL:
   of all of them).  NAN when none has one. */
static double
median_p99 (json_t *agents, const char *dn, const char *group)
{
    size_t i, k, n = 0, cap = 0;
    json_t *a, *t;
    json_array_foreach (agents, i, a)
        cap += json_array_size (json_object_get (a, "targets"));
    double *all = malloc ((cap + 1) * sizeof *all), med = NAN;
    if (!all)
        return NAN;
    json_array_foreach (agents, i, a)
        json_array_foreach (json_object_get (a, "targets"), k, t) {
            const char *g = json_string_value (json_object_get (t, "group"));
            if (group && strcmp (g ? g : "", group))
                continue;
            double p99 = cell_p99 (t, dn);
            if (isfinite (p99))
                all[n++] = p99;
        }
    if (n) {
        qsort (all, n, sizeof *all, cmp_double);
        med = n % 2 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2;
    }
    free (all);
    return med;
}

/* A number, or null for NAN.  New reference. */
static json_t *
real_or_null (double v)
{
    return isfinite (v) ? json_real (v) : json_null ();
}

/* The heatmap of step s.  New reference; NULL when out of memory. */
static json_t *
step_heatmap (json_t *s)
{
    json_t *fleet = json_object_get (s, "fleet");
    /* The first direction with ops (reads of a mixed step), else reads. */
    const char *dn = dir_name (DIR_READ);
    for (int d = DIR_COUNT - 1; d >= 0; d--)
        if (has_ops (json_object_get (fleet, dir_name (d))))
            dn = dir_name (d);
    json_t *agents = json_object_get (s, "agents");
    double step_med = median_p99 (agents, dn, NULL);
    json_t *cells = json_array (), *group_med = json_object ();
    size_t i, k;
    json_t *a, *t;
    json_array_foreach (agents, i, a)
        json_array_foreach (json_object_get (a, "targets"), k, t) {
            const char *g = json_string_value (json_object_get (t, "group"));
            double med = step_med;
            if (g) {
                json_t *m = json_object_get (group_med, g);
                if (!m) {
                    m = real_or_null (median_p99 (agents, dn, g));
                    json_object_set_new (group_med, g, m);
                }
                med = json_is_real (m) ? json_real_value (m) : NAN;
            }
            double p99 = cell_p99 (t, dn);
            if (!isfinite (p99) || !(med > 0))
                continue;
            json_t *cell = json_pack ("{s:I, s:I, s:f, s:f}", "agent", (json_int_t) i,
                                      "target", (json_int_t) k, "median_p99", med,
                                      "deviation_pct", 100.0 * (p99 - med) / med);
            if (cell && g)
                json_object_set_new (cell, "group", json_string (g));
            json_array_append_new (cells, cell);
        }
    json_decref (group_med);
    return json_pack ("{s:s, s:o, s:o}", "direction", dn, "median_p99", real_or_null (step_med),
                      "cells", cells);
}

/* The step's fleet IOPS: the sum over the directions that have a figure
   (reads and writes of a mixed step, trims too); NAN when none has.
   Can't fail. */
static double
fleet_iops (json_t *s)
{
    json_t *fleet = json_object_get (s, "fleet");
    double iops = 0;
    bool any = false;
    for (int d = 0; d < DIR_COUNT; d++) {
        double v = num (json_object_get (fleet, dir_name (d)), "iops");
        if (isfinite (v))
            iops += v, any = true;
    }
    return any ? iops : NAN;
}

void
html_figures_add (json_t *rep)
{
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get (rep, "steps"), i, s) {
        json_object_set_new (s, "fleet_iops", real_or_null (fleet_iops (s)));
        json_object_set_new (s, "heatmap", step_heatmap (s));
    }
}
