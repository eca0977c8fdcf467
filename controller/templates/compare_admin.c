/*  compare_admin.c: the admin command "compare" (compare_admin.h): both
    sides' reports built here, compared by compare.c, and every
    judgement the CLI shows (regression, better, worse within the limit,
    their counts) made here, so that the CLI's text, CSV, JSON and HTML
    only render it.
*/
#include "compare_admin.h"
#include "compare.h"
#include "ab.h"
#include "controller.h"
#include "report.h"
#include "store.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Is row's change for the worse (IOPS and bw down, latency up), however
   small?  Can't fail. */
static bool
row_worse (json_t *row)
{
    double d = json_number_value (json_object_get (row, "delta_pct"));
    return compare_is_latency (json_string_value (json_object_get (row, "metric"))) ? d > 0
                                                                                    : d < 0;
}

/* "judged" of compare_admin.h: each row at threshold thr percent.  New
   reference; NULL only when out of memory. */
static json_t *
judge (json_t *rows, double thr)
{
    json_t *verdicts = json_array ();
    int nsig = 0, nreg = 0, nbetter = 0;
    size_t i;
    json_t *r;
    json_array_foreach (rows, i, r) {
        bool sig = json_is_true (json_object_get (r, "significant"));
        bool reg = compare_is_regression (r, thr);
        bool better = sig && !row_worse (r);
        nsig += sig;
        nreg += reg;
        nbetter += better;
        json_array_append_new (verdicts, json_string (reg ? "regression" : better ? "better"
                                                      : sig ? "worse" : ""));
    }
    return json_pack ("{s:f, s:o, s:i, s:i, s:i}", "threshold_pct", thr, "rows", verdicts,
                      "significant", nsig, "regressions", nreg, "improvements", nbetter);
}

/* Each bin [low_ns, high_ns, count] of the fleets' latency histograms
   (report_add_histograms) gets a 4th element: its fraction of the
   histogram's I/Os, so that the HTML page overlays runs of different
   lengths.  Can't fail. */
static void
bin_fractions (json_t *rep)
{
    size_t i, k;
    json_t *s, *bin;
    json_array_foreach (json_object_get (rep, "steps"), i, s)
        for (int d = 0; d < DIR_COUNT; d++) {
            json_t *h = json_object_get (json_object_get (json_object_get (s, "fleet"),
                                                          dir_name (d)), "histogram");
            double total = 0;
            json_array_foreach (h, k, bin) {
                double n = json_number_value (json_array_get (bin, 2));
                total += isfinite (n) ? n : 0;
            }
            json_array_foreach (h, k, bin) {
                double n = json_number_value (json_array_get (bin, 2));
                json_array_append_new (bin, json_real (total > 0 ? n / total : 0));
            }
        }
}

/* The request's --steps pairs: 0 with *steps (borrowed, NULL: none), or
   -1 with err. */
static int
steps_arg (json_t *req, json_t **steps, char *err, size_t errlen)
{
    json_t *v = json_object_get (req, "steps"), *pair;
    size_t i;
    *steps = NULL;
    if (!v || json_is_null (v))
        return 0;
    bool ok = json_is_array (v) && json_array_size (v) > 0;
    json_array_foreach (v, i, pair)
        ok &= json_array_size (pair) == 2 && json_is_string (json_array_get (pair, 0))
              && json_is_string (json_array_get (pair, 1));
    if (!ok) {
        snprintf (err, errlen, "'steps' must be [[A_STEP, B_STEP], ...]");
        return -1;
    }
    *steps = v;
    return 0;
}

/* The two sides' runs and selections from req.  Returns 0, or -1 with err. */
static int
sides_arg (json_t *req, int64_t run[2], const char *where[2], char *err, size_t errlen)
{
    json_t *runs = json_object_get (req, "runs");
    where[0] = json_string_value (json_object_get (req, "a"));
    where[1] = json_string_value (json_object_get (req, "b"));
    if (where[0] || where[1]) {
        json_t *r = json_object_get (req, "run");
        if (!where[0] || !where[1] || !json_is_integer (r) || json_integer_value (r) <= 0
            || runs) {
            snprintf (err, errlen, "compare of two groups needs 'run' (a positive run id), "
                      "'a' and 'b' (KEY=GLOB each)");
            return -1;
        }
        run[0] = run[1] = json_integer_value (r);
        return 0;
    }
    for (int k = 0; k < 2; k++) {
        json_t *r = json_array_get (runs, (size_t) k);
        if (json_array_size (runs) != 2 || !json_is_integer (r) || json_integer_value (r) <= 0) {
            snprintf (err, errlen, "compare needs 'runs': [A, B], two positive run ids (see "
                      "'iofleet runs')");
            return -1;
        }
        run[k] = json_integer_value (r);
    }
    return 0;
}

json_t *
compare_admin (store_t *store, json_t *req, char *err, size_t errlen)
{
    int64_t run[2];
    const char *where[2];
    json_t *steps;
    if (sides_arg (req, run, where, err, errlen) || steps_arg (req, &steps, err, errlen))
        return NULL;
    bool groups = where[0] != NULL;
    const char *template = json_string_value (json_object_get (req, "template"));
    json_t *thr = json_object_get (req, "ab_threshold_pct");
    if ((template && strcmp (template, "ab") != 0)
        || (thr && (!json_is_number (thr) || json_number_value (thr) < 0
                    || json_number_value (thr) > 1000))) {
        snprintf (err, errlen, template && strcmp (template, "ab") != 0
                  ? "compare --template: use ab (the A/B report's shape)"
                  : "--ab-threshold: give a percent, 0 to 1000");
        return NULL;
    }
    const char *by = json_string_value (json_object_get (req, "by"));
    json_t *fail = json_object_get (req, "fail_pct");
    double fail_pct = json_is_number (fail) ? json_number_value (fail) : -1;
    if (!(fail_pct >= 0))
        fail_pct = -1;
    bool reports = json_is_true (json_object_get (req, "reports"));
    /* Both sides as the report shows them: for two groups, the run with
       each group's selection (every figure made of its members). */
    json_t *rep[2] = { NULL, NULL };
    for (int k = 0; k < 2; k++) {
        json_t *sel = groups ? json_pack ("[s]", where[k]) : NULL;
        rep[k] = report_json (store, run[k], groups ? NULL : by, sel,
                              groups ? (k ? "--b" : "--a") : NULL, err, errlen);
        json_decref (sel);
        if (!rep[k]) {
            json_decref (rep[0]);
            return NULL;
        }
        if (reports) { /* the HTML page's overlaid latency histograms */
            if (report_add_histograms (store, run[k], rep[k])) {
                snprintf (err, errlen, "database error reading run %lld; see the controller's "
                          "log", (long long) run[k]);
                json_decref (rep[0]);
                json_decref (rep[1]);
                return NULL;
            }
            bin_fractions (rep[k]);
        }
    }
    char label[600];
    snprintf (label, sizeof label, "%s vs %s", groups ? where[0] : "", groups ? where[1] : "");
    compare_opts_t opts = { .sum = json_is_true (json_object_get (req, "sum")),
                            .force = json_is_true (json_object_get (req, "force")),
                            .steps = steps, .groups = groups, .label = groups ? label : NULL };
    json_t *res = NULL;
    char why[2048];
    if (compare_check (rep[0], rep[1], &opts, why, sizeof why))
        res = json_pack ("{s:s}", "refused", why);
    else {
        json_t *cmp = compare_run (rep[0], rep[1], &opts);
        json_t *rows = json_object_get (cmp, "rows");
        json_t *shown = judge (rows, fail_pct >= 0 ? fail_pct : 0);
        int nreg = 0;
        size_t i;
        json_t *r;
        json_array_foreach (rows, i, r)
            nreg += compare_is_regression (r, fail_pct);
        json_t *units = json_object ();
        json_array_foreach (rows, i, r) {
            const char *m = json_string_value (json_object_get (r, "metric"));
            if (m)
                json_object_set_new (units, m, json_string (compare_metric_unit (m)));
        }
        /* --template ab (ab.h): the tests in the A/B report's shape. */
        json_t *ab = NULL;
        if (template && cmp)
            ab = ab_json (cmp, json_is_number (thr) ? json_number_value (thr)
                                                    : AB_THRESHOLD_PCT, rep[0], rep[1]);
        if (cmp && shown) {
            res = json_pack ("{s:o, s:o, s:o, s:i}", "compare", cmp, "judged", shown, "units",
                             units, "regressions", nreg);
            if (res && ab)
                json_object_set_new (res, "ab", ab);
            else
                json_decref (ab);
        } else {
            json_decref (ab);
            json_decref (cmp);
            json_decref (shown);
            json_decref (units);
        }
        if (res && reports)
            json_object_set_new (res, "reports", json_pack ("[O, O]", rep[0], rep[1]));
    }
    json_decref (rep[0]);
    json_decref (rep[1]);
    if (!res)
        snprintf (err, errlen, "out of memory comparing runs %lld and %lld", (long long) run[0],
                  (long long) run[1]);
    return res;
}
