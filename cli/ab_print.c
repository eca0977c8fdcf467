/*  ab_print.c: iofleet compare ... --template ab as text: the controller's
    A/B tests (controller/templates/ab.h): per test the change of B against A of
    IOPS, bandwidth, p50 and p99 in percent ('*': significant), and the
    conclusions.  Every figure and judgement is the controller's. */
#include "cli.h"
#define JSON_GET_SHORT     /* num () and str () */
#include "json_get.h"


#include <math.h>
#include <string.h>

static const char *
cell (json_t *t, const char *fig, char *buf, size_t cap)
{
    json_t *c = json_object_get (t, fig);
    json_t *d = json_object_get (c, "delta_pct");
    if (!json_is_number (d))
        return "-";
    snprintf (buf, cap, "%+.1f%%%s", json_number_value (d),
              json_is_true (json_object_get (c, "significant")) ? "*" : "");
    return buf;
}

void
ab_print (FILE *f, json_t *res)
{
    json_t *cmp = json_object_get (res, "compare"), *ab = json_object_get (res, "ab");
    json_t *a = json_object_get (cmp, "a"), *b = json_object_get (cmp, "b");
    fprintf (f, "A: run %lld %s v%lld    B: run %lld %s v%lld\n",
             (long long) json_integer_value (json_object_get (a, "run")), str (a, "plan"),
             (long long) json_integer_value (json_object_get (a, "plan_version")),
             (long long) json_integer_value (json_object_get (b, "run")), str (b, "plan"),
             (long long) json_integer_value (json_object_get (b, "plan_version")));
    fprintf (f, "B against A, in percent ('*': significant, beyond both sides' own noise)\n\n");
    fprintf (f, "  %-24s %-20s %10s %10s %10s %10s  %s\n", "TEST", "GROUP", "IOPS", "BW", "P50",
             "P99", "CONCLUSION");
    size_t i;
    json_t *t;
    json_array_foreach (json_object_get (ab, "tests"), i, t) {
        char x[4][24];
        fprintf (f, "  %-24s %-20s %10s %10s %10s %10s  %s\n", str (t, "step"), str (t, "group"),
                 cell (t, "iops", x[0], sizeof x[0]), cell (t, "bw", x[1], sizeof x[1]),
                 cell (t, "p50", x[2], sizeof x[2]), cell (t, "p99", x[3], sizeof x[3]),
                 str (t, "conclusion"));
    }
    json_t *c = json_object_get (ab, "conclusion");
    fprintf (f, "\nconclusion at %g%%: %s\n  %lld test(s): B worse %lld, B better %lld, mixed "
             "%lld, no significant difference %lld, not judged %lld\n  rule: %s\n",
             json_number_value (json_object_get (ab, "threshold_pct")), str (c, "summary"),
             (long long) json_integer_value (json_object_get (c, "tests")),
             (long long) json_integer_value (json_object_get (c, "b_worse")),
             (long long) json_integer_value (json_object_get (c, "b_better")),
             (long long) json_integer_value (json_object_get (c, "mixed")),
             (long long) json_integer_value (json_object_get (c, "same")),
             (long long) json_integer_value (json_object_get (c, "not_judged")), str (ab, "rule"));
}
