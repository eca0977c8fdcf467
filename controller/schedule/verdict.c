/*  verdict.c: a scheduled run judged against its baseline when it ends
    (it subscribes to the run-end event, controller.c): pass, regressed (each
    significant change for the worse recorded in regressions, and the
    --on-regression hook made pending, hook.c), failed, no-baseline or
    unjudged; and the admin command that lists the regressions.
*/
#include "compare.h"
#include "controller.h"
#include "log.h"
#include "util.h"
#include "scheduler.h"
#include "verdict.h"
#include "report.h"
#include "fires.h"
#include "regressions.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

/* The run-end subscriber (controller.c): judges a scheduled run.  Can't fail
   (what cannot be judged is recorded 'unjudged' and logged). */
void
verdict_on_run_end (ctl_t *ctl, int64_t run, const char *status)
{
    fires_judge_t fj;
    if (fires_of_run (ctl->store, run, &fj) != 1)
        return;         /* not a scheduled run, or a read error (logged) */
    int64_t fire_id = fj.id;
    const char *name = fj.schedule, *baseline = fj.baseline, *by = fj.by, *plan = fj.plan;
    bool removed = fj.removed;
    double fail_pct = fj.fail_pct;

    int64_t base = 0;
    if (strcmp (baseline, "last-pass") == 0)
        fires_last_pass (ctl->store, name, fire_id, plan, &base);
    else
        base = strtoll (baseline, NULL, 10);

    const char *verdict;
    int nreg = 0;
    char err[512] = "";
    if (strcmp (status, "complete") != 0)
        verdict = "failed";
    else if (removed)
        verdict = "unjudged";       /* its schedule (baseline, limits) is gone */
    else if (!base)
        verdict = "no-baseline";
    else {
        json_t *ra = report_json (ctl->store, base, by[0] ? by : NULL, NULL, NULL, err,
                                  sizeof err);
        json_t *rb = ra ? report_json (ctl->store, run, by[0] ? by : NULL, NULL, NULL, err,
                                       sizeof err)
                        : NULL;
        if (!ra || !rb) {
            /* Never a baseline itself: a pass nobody checked would be one. */
            log_err ("schedule '%s': run %lld against baseline %lld: %s; not judged", name,
                     (long long) run, (long long) base, err);
            verdict = "unjudged";
        } else if (json_object_get (ra, "intervals_dropped_at")) {
            log_err ("schedule '%s': baseline run %lld lost its per-interval data to gc: no "
                     "significance can be judged against it; run %lld not judged (set another "
                     "--baseline)", name, (long long) base, (long long) run);
            verdict = "unjudged";
        } else {
            /* Totals, as the schedule's --by groups always were: the same
               plan on the same selection, night after night. */
            compare_opts_t opts = { .sum = true };
            json_t *cmp = compare_run (ra, rb, &opts);
            json_t *rows = json_incref (json_object_get (cmp, "rows"));
            json_decref (cmp);
            int64_t now = (int64_t) (clock_real_ns () / NS_PER_SEC);
            store_begin (ctl->store);
            size_t i;
            json_t *row;
            int judged = 0;
            json_array_foreach (rows, i, row) {
                judged += json_is_boolean (json_object_get (row, "significant"));
                if (!compare_is_regression (row, fail_pct))
                    continue;
                nreg++;
                regressions_add (ctl->store, &(regressions_row_t) {
                    .fire_id = fire_id, .schedule = name, .run = run, .baseline = base,
                    .step = json_string_value (json_object_get (row, "step")),
                    .group = json_string_value (json_object_get (row, "group")),
                    .metric = json_string_value (json_object_get (row, "metric")),
                    .a = json_number_value (json_object_get (row, "a")),
                    .b = json_number_value (json_object_get (row, "b")),
                    .delta_pct = json_number_value (json_object_get (row, "delta_pct")),
                    .now = now,
                });
            }
            json_decref (rows);
            /* No row with a noise estimate (steps of one interval, no step
               in common): nothing could be judged, so it is no pass. */
            verdict = nreg ? "regressed" : judged ? "pass" : "unjudged";
            if (!judged && !nreg)
                log_warn ("schedule '%s': run %lld and baseline %lld have no per-second series to "
                          "judge significance (no step in common, or steps of one interval); "
                          "not judged", name, (long long) run, (long long) base);
        }
        json_decref (ra);
        json_decref (rb);
    }
    store_begin (ctl->store);
    fires_set_verdict (ctl->store, fire_id, verdict, base,
                       nreg && ctl->on_regression ? "pending" : "");
    if (nreg)
        log_warn ("schedule '%s': run %lld regressed against run %lld: %d significant change(s) "
                  "for the worse beyond %.1f%% (iofleet regressions)", name, (long long) run,
                  (long long) base, nreg, fail_pct);
    else if (base)
        log_info ("schedule '%s': run %lld %s against run %lld", name, (long long) run, verdict,
                  (long long) base);
    else
        log_info ("schedule '%s': run %lld %s", name, (long long) run, verdict);
}

/* Lists recorded regressions, newest first. */
json_t *
verdict_regressions (ctl_t *ctl, json_t *req)
{
    json_t *since = json_object_get (req, "since");     /* Unix seconds */
    const char *sched = json_string_value (json_object_get (req, "schedule"));
    return regressions_list (ctl->store,
                             json_is_integer (since) ? json_integer_value (since) : 0, sched);
}
