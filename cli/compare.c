/*  compare.c: iofleet compare RUN_A RUN_B: per step and group, IOPS,
    bandwidth and clat percentiles of both runs and the change in percent.

    A change counts as significant when it stands out of the runs' own
    interval-to-interval noise: Welch's comparison of the per-interval
    series, |mean_B - mean_A| > 3 x sqrt(var_A/n_A + var_B/n_B), and at
    least 2% (so a very steady pair does not flag a trivial change).  The
    fleet and each group (--by, and the groups of one run) have their
    per-interval series; p99.9, and a step with fewer than 2 intervals,
    have no noise estimate and say "significant": null.
*/
#include "cli.h"
#include "util.h"

#include <math.h>
#include <string.h>

static double
num (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_number (v) ? json_number_value (v) : NAN;
}

/* The busier direction of a {read, write} pair. */
static json_t *
busier (json_t *o)
{
    json_t *r = json_object_get (o, "read"), *w = json_object_get (o, "write");
    return num (r, "ops") >= num (w, "ops") || !w ? r : w;
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

/* Rows for one pair of {read, write} objects (fleet or a group). */
static void
rows_for (json_t *rows, const char *step, const char *group, json_t *a, json_t *b,
          json_t *sa, json_t *sb)
{
    static const char *metrics[] = { "iops", "bw", "p50", "p99", "p99.9" };
    for (int m = 0; m < 5; m++) {
        double va, vb;
        if (m < 2) {
            va = num (json_object_get (a, "read"), metrics[m]) + num (json_object_get (a, "write"), metrics[m]);
            vb = num (json_object_get (b, "read"), metrics[m]) + num (json_object_get (b, "write"), metrics[m]);
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

int
compare_print (FILE *f, json_t *rows, double fail_pct, const char *format)
{
    bool json = strcmp (format, "json") == 0;
    int regressions = 0;
    size_t i;
    json_t *r;
    json_array_foreach (rows, i, r) {
        const char *metric = json_string_value (json_object_get (r, "metric"));
        double d = num (r, "delta_pct");
        bool lower_better = metric[0] == 'p';
        json_t *sig = json_object_get (r, "significant");
        bool worse = lower_better ? d > fail_pct : d < -fail_pct;
        /* Only a change shown to stand out of the noise fails the gate:
           without a noise estimate (null) the delta is reported, not judged. */
        if (fail_pct >= 0 && worse && json_is_true (sig))
            regressions++;
    }
    if (json) {
        char *text = json_dumps (rows, JSON_INDENT (2));
        if (text)
            fprintf (f, "%s\n", text);
        free (text);
        return regressions;
    }
    if (strcmp (format, "csv") == 0) {
        static const char *cols[] = { "step", "group", "metric", "a", "b", "delta_pct",
                                      "significant" };
        for (int k = 0; k < 7; k++)
            csv_field (f, cols[k], k == 6);
        json_array_foreach (rows, i, r)
            for (int k = 0; k < 7; k++)
                csv_json (f, json_object_get (r, cols[k]), k == 6);
        return regressions;
    }
    fprintf (f, "%-28s %-22s %-6s %12s %12s %9s  %s\n", "step", "group", "metric", "A", "B",
             "delta", "significant");
    json_array_foreach (rows, i, r) {
        const char *metric = json_string_value (json_object_get (r, "metric"));
        char a[32], b[32];
        if (metric[0] == 'p') {
            fmt_lat (num (r, "a"), a, sizeof a);
            fmt_lat (num (r, "b"), b, sizeof b);
        } else if (strcmp (metric, "bw") == 0) {
            fmt_bw (num (r, "a"), a, sizeof a);
            fmt_bw (num (r, "b"), b, sizeof b);
        } else {
            fmt_iops (num (r, "a"), a, sizeof a);
            fmt_iops (num (r, "b"), b, sizeof b);
        }
        json_t *sig = json_object_get (r, "significant");
        fprintf (f, "%-28.28s %-22.22s %-6s %12s %12s %+8.1f%%  %s\n",
                 json_string_value (json_object_get (r, "step")),
                 json_string_value (json_object_get (r, "group")), metric, a, b,
                 num (r, "delta_pct"), json_is_null (sig) ? "n/a (no noise estimate)"
                                       : json_is_true (sig) ? "yes" : "no");
    }
    return regressions;
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
