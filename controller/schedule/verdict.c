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
#include "store.h"

#include <stdlib.h>
#include <string.h>

/* The run-end subscriber (controller.c): judges a scheduled run.  Can't fail
   (what cannot be judged is recorded 'unjudged' and logged). */
void
verdict_on_run_end (ctl_t *ctl, int64_t run, const char *status)
{
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT f.id, f.schedule, s.baseline, s.fail_on_regression, s.by_key, s.plan FROM fires f "
        "LEFT JOIN schedules s ON s.name = f.schedule WHERE f.run_id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (store_row (ctl->store, st, "find the run's schedule") != 1) {
        sqlite3_reset (st);
        return;         /* not a scheduled run, or a read error (logged) */
    }
    int64_t fire_id = sqlite3_column_int64 (st, 0);
    char name[SCHED_NAME_MAX + 1], baseline[32] = "", by[64] = "", plan[256] = "";
    str_copy (name, sizeof name, (const char *) sqlite3_column_text (st, 1));
    bool removed = sqlite3_column_type (st, 2) == SQLITE_NULL;     /* schedule rm since */
    if (!removed) {
        str_copy (baseline, sizeof baseline, (const char *) sqlite3_column_text (st, 2));
        str_copy (plan, sizeof plan, (const char *) sqlite3_column_text (st, 5));
    }
    double fail_pct = sqlite3_column_double (st, 3);
    if (sqlite3_column_type (st, 4) != SQLITE_NULL)
        str_copy (by, sizeof by, (const char *) sqlite3_column_text (st, 4));
    sqlite3_reset (st);

    int64_t base = 0;
    if (strcmp (baseline, "last-pass") == 0) {
        /* Of this plan: a schedule removed and added again under the same
           name for another plan does not compare across plans. */
        st = store_stmt (ctl->store,
            "SELECT f.run_id FROM fires f JOIN runs r ON r.id = f.run_id "
            "JOIN plans p ON p.id = r.plan_id WHERE f.schedule = ? AND f.id < ? "
            "AND f.verdict IN ('pass', 'no-baseline') AND p.name = ? ORDER BY f.id DESC LIMIT 1");
        sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64 (st, 2, fire_id);
        sqlite3_bind_text (st, 3, plan, -1, SQLITE_TRANSIENT);
        if (store_row (ctl->store, st, "find the baseline run") == 1)
            base = sqlite3_column_int64 (st, 0);
        sqlite3_reset (st);
    } else
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
                sqlite3_stmt *ins = store_stmt (ctl->store,
                    "INSERT INTO regressions (fire_id, schedule, run_id, baseline_run, step, "
                    " grp, metric, a, b, delta_pct, significant, recorded_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)");
                sqlite3_bind_int64 (ins, 1, fire_id);
                sqlite3_bind_text (ins, 2, name, -1, SQLITE_TRANSIENT);
                sqlite3_bind_int64 (ins, 3, run);
                sqlite3_bind_int64 (ins, 4, base);
                sqlite3_bind_text (ins, 5, json_string_value (json_object_get (row, "step")), -1,
                                   SQLITE_TRANSIENT);
                sqlite3_bind_text (ins, 6, json_string_value (json_object_get (row, "group")), -1,
                                   SQLITE_TRANSIENT);
                sqlite3_bind_text (ins, 7, json_string_value (json_object_get (row, "metric")), -1,
                                   SQLITE_TRANSIENT);
                sqlite3_bind_double (ins, 8, json_number_value (json_object_get (row, "a")));
                sqlite3_bind_double (ins, 9, json_number_value (json_object_get (row, "b")));
                sqlite3_bind_double (ins, 10, json_number_value (json_object_get (row, "delta_pct")));
                sqlite3_bind_int64 (ins, 11, now);
                store_step_done (ctl->store, ins, "record a regression");
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
    st = store_stmt (ctl->store,
        "UPDATE fires SET verdict = ?, baseline_run = ?, hook_status = ? WHERE id = ?");
    sqlite3_bind_text (st, 1, verdict, -1, SQLITE_STATIC);
    if (base)
        sqlite3_bind_int64 (st, 2, base);
    sqlite3_bind_text (st, 3, nreg && ctl->on_regression ? "pending" : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 4, fire_id);
    store_step_done (ctl->store, st, "record the verdict");
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
    json_t *list = json_array ();
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT r.schedule, r.run_id, r.baseline_run, r.step, r.grp, r.metric, r.a, r.b, "
        " r.delta_pct, r.recorded_at, f.hook_status FROM regressions r "
        "JOIN fires f ON f.id = r.fire_id WHERE r.recorded_at >= ? "
        "AND (?2 IS NULL OR r.schedule = ?2) ORDER BY r.id DESC");
    sqlite3_bind_int64 (st, 1, json_is_integer (since) ? json_integer_value (since) : 0);
    if (sched)
        sqlite3_bind_text (st, 2, sched, -1, SQLITE_TRANSIENT);
    while (store_row (ctl->store, st, "list the regressions") == 1)
        json_array_append_new (list, json_pack (
            "{s:s, s:I, s:I, s:s, s:s, s:s, s:f, s:f, s:f, s:I, s:s}",
            "schedule", (const char *) sqlite3_column_text (st, 0),
            "run", (json_int_t) sqlite3_column_int64 (st, 1),
            "baseline", (json_int_t) sqlite3_column_int64 (st, 2),
            "step", (const char *) sqlite3_column_text (st, 3),
            "group", (const char *) sqlite3_column_text (st, 4),
            "metric", (const char *) sqlite3_column_text (st, 5),
            "a", sqlite3_column_double (st, 6), "b", sqlite3_column_double (st, 7),
            "delta_pct", sqlite3_column_double (st, 8),
            "recorded_at", (json_int_t) sqlite3_column_int64 (st, 9),
            "hook", (const char *) sqlite3_column_text (st, 10)));
    if (st)
        sqlite3_reset (st);
    return list;
}
