/*  compare.c: two run reports side by side (iofleet compare, and the
    controller's check of a scheduled run against its baseline): per step
    and group, IOPS, bandwidth and clat percentiles of both and the change
    in percent.

    A change counts as significant when it stands out of the runs' own
    interval-to-interval noise: Welch's comparison of the per-interval
    series, |mean_B - mean_A| > 3 x sqrt(var_A/n_A + var_B/n_B), and at
    least 2% (so a very steady pair does not flag a trivial change).  The
    fleet and each group (--by, and the groups of one run) have their
    per-interval series; p99.9, and a step with fewer than 2 intervals,
    have no noise estimate and say "significant": null.
*/
#include "compare.h"
#include "direction.h"

#include <math.h>
#include <string.h>

static double
num (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_number (v) ? json_number_value (v) : NAN;
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

/* Per-interval series of a metric over a step's intervals; returns n. */
static int
series (json_t *step, const char *metric, double *v, int max)
{
    int n = 0;
    size_t i;
    json_t *iv;
    json_array_foreach (json_object_get (step, "intervals"), i, iv) {
        if (n == max)
            break;
        if (strcmp (metric, "iops") == 0 || strcmp (metric, "bw") == 0)
            v[n++] = num (iv, metric);
        else {
            json_t *d = busier (iv);
            v[n++] = num (d, metric);
        }
    }
    return n;
}

/* 1 significant, 0 not, -1 unknown (no series). */
static int
significant (json_t *sa, json_t *sb, const char *metric)
{
    double a[1024], b[1024];
    int na = sa ? series (sa, metric, a, 1024) : 0, nb = sb ? series (sb, metric, b, 1024) : 0;
    if (na < 2 || nb < 2)
        return -1;
    double ma = 0, mb = 0, va = 0, vb = 0;
    for (int i = 0; i < na; i++)
        ma += a[i] / na;
    for (int i = 0; i < nb; i++)
        mb += b[i] / nb;
    for (int i = 0; i < na; i++)
        va += (a[i] - ma) * (a[i] - ma) / (na - 1);
    for (int i = 0; i < nb; i++)
        vb += (b[i] - mb) * (b[i] - mb) / (nb - 1);
    double se = sqrt (va / na + vb / nb);
    double d = fabs (mb - ma);
    return d > 3 * se && (ma == 0 || d / fabs (ma) >= 0.02);
}

/* The element of list whose string member key equals value, or NULL. */
static json_t *
find_by (json_t *list, const char *key, const char *value)
{
    size_t i;
    json_t *x;
    json_array_foreach (list, i, x) {
        const char *v = json_string_value (json_object_get (x, key));
        if (v && strcmp (v, value) == 0)
            return x;
    }
    return NULL;
}

static json_t *
find_step (json_t *rep, const char *name)
{
    return find_by (json_object_get (rep, "steps"), "name", name);
}

static json_t *
find_group (json_t *step, const char *value)
{
    return find_by (json_object_get (step, "groups"), "value", value);
}

/* Rows for one pair of {read, write[, trim]} objects (fleet or a group). */
static void
rows_for (json_t *rows, const char *step, const char *group, json_t *a, json_t *b,
          json_t *sa, json_t *sb)
{
    static const char *metrics[] = { "iops", "bw", "p50", "p99", "p99.9" };
    for (int m = 0; m < 5; m++) {
        double va, vb;
        if (m < 2) {
            va = total (a, metrics[m]);
            vb = total (b, metrics[m]);
        } else {
            va = num (json_object_get (busier (a), "percentiles"), metrics[m]);
            vb = num (json_object_get (busier (b), "percentiles"), metrics[m]);
        }
        if (isnan (va) || isnan (vb))
            continue;
        int sig = m < 4 ? significant (sa, sb, metrics[m]) : -1;
        json_array_append_new (rows, json_pack ("{s:s, s:s, s:s, s:f, s:f, s:f, s:o}",
            "step", step, "group", group, "metric", metrics[m], "a", va, "b", vb,
            "delta_pct", va != 0 ? 100.0 * (vb - va) / va : 0.0,
            "significant", sig < 0 ? json_null () : json_boolean (sig)));
    }
}

json_t *
compare_reports (json_t *ra, json_t *rb)
{
    json_t *rows = json_array ();
    size_t i;
    json_t *sa;
    json_array_foreach (json_object_get (ra, "steps"), i, sa) {
        const char *name = json_string_value (json_object_get (sa, "name"));
        json_t *sb = name ? find_step (rb, name) : NULL;
        if (!sb)
            continue;
        rows_for (rows, name, "fleet", json_object_get (sa, "fleet"), json_object_get (sb, "fleet"),
                  sa, sb);
        size_t gi;
        json_t *ga;
        json_array_foreach (json_object_get (sa, "groups"), gi, ga) {
            const char *value = json_string_value (json_object_get (ga, "value"));
            if (!value || strcmp (json_string_value (json_object_get (ga, "by")), "all") == 0)
                continue;
            json_t *gb = find_group (sb, value);
            if (gb) {
                char label[300];
                snprintf (label, sizeof label, "%s=%s",
                          json_string_value (json_object_get (ga, "by")), value);
                rows_for (rows, name, label, ga, gb, ga, gb);
            }
        }
    }
    return rows;
}

bool
compare_is_regression (json_t *row, double fail_pct)
{
    const char *metric = json_string_value (json_object_get (row, "metric"));
    if (!metric || fail_pct < 0)
        return false;
    double d = num (row, "delta_pct");
    bool lower_better = metric[0] == 'p';
    bool worse = lower_better ? d > fail_pct : d < -fail_pct;
    /* Only a change shown to stand out of the noise is a regression:
       without a noise estimate (null) the delta is reported, not judged. */
    return worse && json_is_true (json_object_get (row, "significant"));
}

json_t *
compare_groups (json_t *rep, const char *key, const char *va, const char *vb)
{
    json_t *rows = json_array ();
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get (rep, "steps"), i, s) {
        const char *name = json_string_value (json_object_get (s, "name"));
        json_t *ga = find_group (s, va), *gb = find_group (s, vb);
        if (!name || !ga || !gb)
            continue;
        char label[300];
        snprintf (label, sizeof label, "%s=%s vs %s", key, va, vb);
        rows_for (rows, name, label, ga, gb, ga, gb);
    }
    return rows;
}
