/*  compare_print.c: iofleet compare's output (text table, JSON or CSV) of
    what the controller's compare answers (controller/templates/compare_admin.c). */
#include "cli.h"
#define JSON_GET_SHORT     /* num () and str () */
#include "json_get.h"
#include "util.h"

#include <math.h>
#include <string.h>

/* The columns of the CSV, in order: the first seven as they always were. */
static const char *const s_cols[] = {
    "step", "group", "metric", "a", "b", "delta_pct", "significant", "a_plan", "a_step",
    "b_plan", "b_step", "a_agents", "a_targets", "b_agents", "b_targets",
};

/* One side's header line: which run, plan, version, labels and selection. */
static void
side_line (FILE *f, const char *which, json_t *side, const char *flag)
{
    fprintf (f, "%s: run %.0f, plan '%s' v%.0f, %s", which, num (side, "run"), str (side, "plan"),
             num (side, "plan_version"), str (side, "status"));
    json_t *labels = json_object_get (side, "labels");
    if (json_object_size (labels)) {
        const char *k;
        json_t *v;
        int n = 0;
        fprintf (f, ", labels ");
        json_object_foreach (labels, k, v)
            fprintf (f, "%s%s=%s", n++ ? "," : "", k, json_is_string (v) ? json_string_value (v)
                                                                        : "?");
    }
    size_t i;
    json_t *w;
    json_array_foreach (json_object_get (side, "where"), i, w)
        fprintf (f, "%s%s %s", i ? "" : ";", flag, json_string_value (w));
    fputc ('\n', f);
}

/* metric's value v as text, in the unit the controller says it has. */
static const char *
value_text (json_t *units, const char *metric, double v, char *buf, size_t cap)
{
    const char *unit = str (units, metric);
    if (strcmp (unit, "ns") == 0)
        return fmt_lat (v, buf, cap);
    if (strcmp (unit, "bytes/s") == 0)
        return fmt_bw (v, buf, cap);
    return fmt_iops (v, buf, cap);
}

/* What the rows compare: "STEP", or "PLAN:STEP -> PLAN:STEP" when the two
   sides are not the same step of the same plan version. */
static const char *
step_text (json_t *r, char *buf, size_t cap)
{
    if (strcmp (str (r, "a_plan"), str (r, "b_plan")) == 0
        && strcmp (str (r, "a_step"), str (r, "b_step")) == 0)
        snprintf (buf, cap, "%s", str (r, "step"));
    else
        snprintf (buf, cap, "%s:%s -> %s:%s", str (r, "a_plan"), str (r, "a_step"),
                  str (r, "b_plan"), str (r, "b_step"));
    return buf;
}

void
compare_print (FILE *f, json_t *res, const char *format)
{
    json_t *cmp = json_object_get (res, "compare"), *units = json_object_get (res, "units");
    json_t *rows = json_object_get (cmp, "rows");
    size_t i;
    json_t *r;
    if (strcmp (format, "json") == 0) {
        char *text = json_dumps (cmp, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
        if (text)
            fprintf (f, "%s\n", text);
        free (text);
        return;
    }
    size_t ncols = sizeof s_cols / sizeof *s_cols;
    if (strcmp (format, "csv") == 0) {
        for (size_t k = 0; k < ncols; k++)
            csv_field (f, s_cols[k], k + 1 == ncols);
        json_array_foreach (rows, i, r)
            for (size_t k = 0; k < ncols; k++)
                csv_json (f, json_object_get (r, s_cols[k]), k + 1 == ncols);
        return;
    }
    bool groups = json_object_get (json_object_get (cmp, "a"), "where") != NULL;
    side_line (f, "A", json_object_get (cmp, "a"), groups ? " --a" : " --where");
    side_line (f, "B", json_object_get (cmp, "b"), groups ? " --b" : " --where");
    if (json_is_true (json_object_get (cmp, "forced")))
        fprintf (f, "--force: steps of different plans (or of a run that failed) compared by "
                 "name\n");
    else if (json_is_array (json_object_get (cmp, "steps")))
        fprintf (f, "--steps: the steps compared are mapped by hand\n");
    bool per_member = false;
    json_array_foreach (rows, i, r)
        per_member |= strstr (str (r, "metric"), "_per_") != NULL;
    if (per_member)
        fprintf (f, "groups per member: IOPS and bandwidth per target and per agent (--sum for "
                 "totals); percentiles from the members' merged histograms\n");
    int wstep = 4;
    char buf[1024];
    json_array_foreach (rows, i, r) {
        int n = (int) strlen (step_text (r, buf, sizeof buf));
        wstep = n > wstep ? n : wstep;
    }
    wstep = wstep > 60 ? 60 : wstep;
    fprintf (f, "\n%-*s %-24s %-15s %12s %12s %9s  %-12s %s\n", wstep, "step", "group", "metric",
             "A", "B", "delta", "significant", "members A -> B (agents/targets)");
    json_array_foreach (rows, i, r) {
        const char *metric = str (r, "metric");
        char a[32], b[32];
        value_text (units, metric, num (r, "a"), a, sizeof a);
        value_text (units, metric, num (r, "b"), b, sizeof b);
        json_t *sig = json_object_get (r, "significant");
        fprintf (f, "%-*.*s %-24.24s %-15s %12s %12s %+8.1f%%  %-12s %.0f/%.0f -> %.0f/%.0f\n",
                 wstep, wstep, step_text (r, buf, sizeof buf), str (r, "group"), metric, a, b,
                 num (r, "delta_pct"), json_is_null (sig) ? "n/a" : json_is_true (sig) ? "yes"
                                                                                       : "no",
                 num (r, "a_agents"), num (r, "a_targets"), num (r, "b_agents"),
                 num (r, "b_targets"));
    }
    /* Totals of fleets of different sizes compare sizes as much as speed. */
    json_array_foreach (rows, i, r)
        if (strcmp (str (r, "metric"), "iops") == 0
            && (num (r, "a_agents") != num (r, "b_agents")
                || num (r, "a_targets") != num (r, "b_targets")))
            fprintf (f, "note: %s %s: totals of %.0f agent(s), %.0f target(s) against %.0f, "
                     "%.0f: compare per member with --by agent\n", str (r, "step"),
                     str (r, "group"), num (r, "a_agents"), num (r, "a_targets"),
                     num (r, "b_agents"), num (r, "b_targets"));
    json_array_foreach (json_object_get (cmp, "skipped"), i, r)
        fprintf (f, "not compared: step %s%s%s: %s\n", str (r, "step"),
                 json_object_get (r, "group") ? " " : "", str (r, "group"), str (r, "reason"));
    if (json_array_size (rows))
        fprintf (f, "\nsignificant: the change stands out of both runs' interval-to-interval "
                 "noise (n/a: not judged: p99.9, a step of one interval, or fewer than 4 "
                 "intervals a side and no change standing out; --format json says why)\n");
}
