/*  test_schedules.c: the schedule family's tables through the data
    layer (store/schedules.c, fires.c, regressions.c, with plans_exists
    and runs_finished): what scheduler.c, verdict.c, hook.c and
    metrics_sched.c read and write, on a database of its own, and each
    read's error told apart from "none" (the table renamed away).
*/
#include "testutil.h"
#include "store_fx.h"
#include "fires.h"
#include "plans.h"
#include "regressions.h"
#include "runs.h"
#include "schedules.h"
#include "store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *
str (json_t *o, const char *key)
{
    return json_string_value (json_object_get (o, key)) ?: "";
}

static int64_t
num (json_t *o, const char *key)
{
    return json_integer_value (json_object_get (o, key));
}

/* A schedules_each callback: counts the rows, keeps the last one's by. */
typedef struct {
    int n;
    char name[SCHED_NAME_MAX + 1], by[64];
    int64_t next_fire;
} seen_t;

static void
seen_row (void *arg, const schedules_row_t *row)
{
    seen_t *s = arg;
    s->n++;
    snprintf (s->name, sizeof s->name, "%s", row->name);
    snprintf (s->by, sizeof s->by, "%s", row->by);
    s->next_fire = row->next_fire;
}

/* Renames table away (back: true renames it back). */
static void
away (store_t *store, const char *table, bool back)
{
    char sql[200];
    if (back)
        snprintf (sql, sizeof sql, "ALTER TABLE away RENAME TO %s", table);
    else
        snprintf (sql, sizeof sql, "ALTER TABLE %s RENAME TO away", table);
    CHECK (store_fx_exec (store, sql) == SQLITE_OK);
}

int
main (void)
{
    char dir[] = "/tmp/test_schedules.XXXXXX", err[512] = "";
    store_t *store = store_fx_open (dir);
    if (!store)
        return 1;
    /* Plan p; run 1 complete, run 2 queued, run 3 failed. */
    CHECK (store_fx_exec (store,
        "INSERT INTO plans (id, name, version, source, text, steps, created_at) "
        " VALUES (1, 'p', 1, 'p.fio', '', '[]', 0);"
        "INSERT INTO runs (id, plan_id, status, created_at) VALUES (1, 1, 'complete', 1), "
        " (2, 1, 'queued', 2), (3, 1, 'failed', 3);") == SQLITE_OK);

    CHECK (plans_exists (store, "p") == 1);
    CHECK (plans_exists (store, "q") == 0);
    CHECK (runs_finished (store, 1) == 1);
    CHECK (runs_finished (store, 2) == 0);
    CHECK (runs_finished (store, 3) == 0);
    CHECK (runs_finished (store, 99) == 0);

    /* A schedule added once; the name twice is -EEXIST; a row the table's
       CHECK refuses is -EIO with SQLite's message. */
    CHECK (store_begin (store) == 0);
    schedules_def_t def = {
        .name = "nightly", .cron = "0 2 * * *", .tz = "UTC", .plan = "p",
        .baseline = "last-pass", .overlap = "wait", .fail_on_regression = 10,
        .catch_up = true, .created_at = 100, .next_fire = 1000,
    };
    CHECK_MSG (schedules_add (store, &def, err, sizeof err) == 0, "%s", err);
    CHECK (schedules_add (store, &def, err, sizeof err) == -EEXIST);
    def.name = "odd";
    def.overlap = "sometimes";
    err[0] = '\0';
    CHECK (schedules_add (store, &def, err, sizeof err) == -EIO);
    CHECK_MSG (strstr (err, "CHECK constraint") != NULL, "%s", err);
    CHECK (store_commit (store) == 0);

    schedules_fire_t sf;
    CHECK (schedules_fire_row (store, "nightly", &sf) == 1);
    CHECK (strcmp (sf.plan, "p") == 0 && strcmp (sf.overlap, "wait") == 0);
    CHECK (!sf.has_agents && sf.waiting == 0);
    CHECK (schedules_fire_row (store, "odd", &sf) == 0);

    json_t *due = schedules_due (store, 999);
    CHECK (json_array_size (due) == 0);
    json_decref (due);
    due = schedules_due (store, 1000);
    CHECK (json_array_size (due) == 1);
    json_t *d = json_array_get (due, 0);
    CHECK (strcmp (str (d, "name"), "nightly") == 0 && strcmp (str (d, "cron"), "0 2 * * *") == 0);
    CHECK (num (d, "next") == 1000 && json_is_true (json_object_get (d, "catch_up")));
    json_decref (due);

    /* Fires: run 1 judged pass, then run 2 still queued (the schedule's
       next fire waits for it), then one that queued nothing. */
    int64_t f1, f2, f3;
    CHECK (store_begin (store) == 0);
    CHECK (fires_add (store, "nightly", 1000, 1001, "scheduled", 1, "", &f1) == 0);
    CHECK (fires_set_verdict (store, f1, "pass", 0, "") == 0);
    CHECK (fires_add (store, "nightly", 2000, 2001, "catch-up", 2, "", &f2) == 0);
    CHECK (fires_add (store, "nightly", 3000, 3001, "manual", 0, "its run 2 is still queued",
                      &f3) == 0);
    CHECK (f1 > 0 && f2 > f1 && f3 > f2);
    CHECK (schedules_set_next (store, "nightly", 4000) == 0);
    CHECK (store_commit (store) == 0);

    CHECK (schedules_fire_row (store, "nightly", &sf) == 1 && sf.waiting == 2);
    char why[128] = "";
    CHECK (fires_skipped (store, f3, why, sizeof why) == 1);
    CHECK (strcmp (why, "its run 2 is still queued") == 0);
    CHECK (fires_skipped (store, 999, why, sizeof why) == 0);

    json_t *list = schedules_list (store);
    CHECK (json_array_size (list) == 1);
    json_t *s0 = json_array_get (list, 0);
    CHECK (num (s0, "next_fire") == 4000 && strcmp (str (s0, "baseline"), "last-pass") == 0);
    CHECK (!json_object_get (s0, "agents") && !json_object_get (s0, "by"));
    json_t *last = json_object_get (s0, "last_fire");
    CHECK (num (last, "due_at") == 3000 && !json_object_get (last, "run"));
    CHECK (strcmp (str (last, "skipped"), "its run 2 is still queued") == 0);
    json_decref (list);

    /* Judging run 2: its schedule's settings, and run 1 as the last pass
       of plan p before it (none of another plan). */
    fires_judge_t fj;
    CHECK (fires_of_run (store, 2, &fj) == 1);
    CHECK (fj.id == f2 && strcmp (fj.schedule, "nightly") == 0 && !fj.removed);
    CHECK (strcmp (fj.baseline, "last-pass") == 0 && strcmp (fj.plan, "p") == 0);
    CHECK (fj.fail_pct == 10 && fj.by[0] == '\0');
    CHECK (fires_of_run (store, 3, &fj) == 0);
    int64_t base = -1;
    CHECK (fires_last_pass (store, "nightly", f2, "p", &base) == 1 && base == 1);
    CHECK (fires_last_pass (store, "nightly", f2, "q", &base) == 0 && base == 0);
    CHECK (fires_last_pass (store, "nightly", f1, "p", &base) == 0 && base == 0);

    /* Its regressions, the verdict and the hook's life. */
    CHECK (store_begin (store) == 0);
    regressions_row_t r = { .fire_id = f2, .schedule = "nightly", .run = 2, .baseline = 1,
                            .step = "rr", .group = "fleet", .metric = "iops", .a = 1000,
                            .b = 800, .delta_pct = -20, .now = 5000 };
    CHECK (regressions_add (store, &r) == 0);
    r.metric = "p99";
    r.a = 100;
    r.b = 150;
    r.delta_pct = 50;
    CHECK (regressions_add (store, &r) == 0);
    CHECK (fires_set_verdict (store, f2, "regressed", 1, "pending") == 0);
    CHECK (store_commit (store) == 0);

    json_t *regs = json_array ();
    CHECK (regressions_of_fire (store, f2, false, regs) == 0);
    CHECK (json_array_size (regs) == 2);
    json_t *g0 = json_array_get (regs, 0);
    CHECK (strcmp (str (g0, "metric"), "iops") == 0 && strcmp (str (g0, "group"), "fleet") == 0);
    CHECK (json_number_value (json_object_get (g0, "delta_pct")) == -20);
    CHECK (regressions_of_fire (store, f2, true, regs) == 0);
    CHECK (json_array_size (regs) == 4);
    CHECK (regressions_of_fire (store, f1, true, regs) == 0);
    CHECK (json_array_size (regs) == 4);
    json_decref (regs);

    json_t *pending;
    CHECK (fires_hook_pending (store, &pending) == 1);
    CHECK (num (pending, "fire") == f2 && num (pending, "run") == 2);
    CHECK (num (pending, "baseline") == 1 && strcmp (str (pending, "schedule"), "nightly") == 0);
    json_decref (pending);
    CHECK (store_begin (store) == 0);
    CHECK (fires_set_hook (store, f2, "running") == 0);
    CHECK (store_commit (store) == 0);
    CHECK (fires_hook_pending (store, &pending) == 0 && pending == NULL);
    CHECK (store_begin (store) == 0);
    CHECK (fires_hooks_interrupted (store) == 0);
    CHECK (store_commit (store) == 0);

    list = regressions_list (store, 0, NULL);
    CHECK (json_array_size (list) == 2);
    json_t *newest = json_array_get (list, 0);
    CHECK (strcmp (str (newest, "metric"), "p99") == 0 && num (newest, "baseline") == 1);
    CHECK (strncmp (str (newest, "hook"), "interrupted", 11) == 0);
    json_decref (list);
    list = regressions_list (store, 5001, NULL);
    CHECK (json_array_size (list) == 0);
    json_decref (list);
    list = regressions_list (store, 0, "other");
    CHECK (json_array_size (list) == 0);
    json_decref (list);

    /* What /metrics reads: the latest fire, the latest judged one. */
    int64_t due_at = 0, fire = 0, run = 0;
    bool skipped = false, complete = true;
    char verdict[32] = "";
    CHECK (fires_latest (store, "nightly", &due_at, &skipped) == 1);
    CHECK (due_at == 3000 && skipped);
    CHECK (fires_latest (store, "odd", &due_at, &skipped) == 0);
    CHECK (fires_latest_judged (store, "nightly", &fire, &run, verdict, sizeof verdict,
                                &complete) == 1);
    CHECK (fire == f2 && run == 2 && strcmp (verdict, "regressed") == 0 && !complete);
    seen_t seen = { 0 };
    CHECK (schedules_each (store, seen_row, &seen) == 0);
    CHECK (seen.n == 1 && strcmp (seen.name, "nightly") == 0 && seen.by[0] == '\0');
    CHECK (seen.next_fire == 4000);

    /* Each read of a table that cannot be read is an error, not none. */
    away (store, "schedules", false);
    CHECK (schedules_list (store) == NULL);
    CHECK (schedules_fire_row (store, "nightly", &sf) == -1);
    CHECK (schedules_each (store, seen_row, &seen) == -1);
    away (store, "schedules", true);
    away (store, "fires", false);
    CHECK (fires_latest (store, "nightly", &due_at, &skipped) == -1);
    CHECK (fires_of_run (store, 2, &fj) == -1);
    CHECK (fires_hook_pending (store, &pending) == -1 && pending == NULL);
    CHECK (fires_skipped (store, f3, why, sizeof why) == -1);
    away (store, "fires", true);
    away (store, "regressions", false);
    regs = json_array ();
    CHECK (regressions_of_fire (store, f2, false, regs) == -1 && json_array_size (regs) == 0);
    json_decref (regs);
    away (store, "regressions", true);
    away (store, "plans", false);
    CHECK (plans_exists (store, "p") == -1);
    away (store, "plans", true);

    /* Removed: the schedule goes, its fires and regressions stay. */
    int removed = -1;
    CHECK (store_begin (store) == 0);
    CHECK (schedules_remove (store, "nightly", &removed) == 0 && removed == 1);
    CHECK (schedules_remove (store, "nightly", &removed) == 0 && removed == 0);
    CHECK (store_commit (store) == 0);
    CHECK (fires_of_run (store, 2, &fj) == 1 && fj.removed && fj.baseline[0] == '\0');
    list = regressions_list (store, 0, "nightly");
    CHECK (json_array_size (list) == 2);
    json_decref (list);

    store_fx_close (&store, dir);
    printf ("test_schedules: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
