/*  compare_print.c: iofleet compare's output (text table, JSON or CSV) of
    the rows common/compare.c makes. */
#include "cli.h"
#include "compare.h"
#include "util.h"

#include <math.h>
#include <string.h>

static double
num (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_number (v) ? json_number_value (v) : NAN;
}

int
compare_print (FILE *f, json_t *rows, double fail_pct, const char *format)
{
    bool json = strcmp (format, "json") == 0;
    int regressions = 0;
    size_t i;
    json_t *r;
    json_array_foreach (rows, i, r)
        regressions += compare_is_regression (r, fail_pct);
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

