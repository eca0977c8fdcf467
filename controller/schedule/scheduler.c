/*  schedule.c: nightly runs.  Cron schedules that queue runs (a missed
    fire runs once, if catch-up is on), and the admin commands of the
    schedule family.  The verdict of each scheduled run against its
    baseline is verdict.c's, the --on-regression hook hook.c's, gc gc.c's.

    Times here are Unix seconds on the scheduler's clock: the real clock,
    or with --test-clock EPOCH one that starts at EPOCH and can be set by
    tests (admin "test_clock").
*/
#include "controller.h"
#include "cron.h"
#include "log.h"
#include "util.h"
#include "gc.h"
#include "groups.h"
#include "hook.h"
#include "scheduler.h"
#include "submit.h"
#include "verdict.h"
#include "runs.h"
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define START_GRACE_NS     (10 * NS_PER_SEC)    /* for agents to reconnect */
#define AGENTS_MAX_LEN     1024     /* a selector: names, or KEY=GLOB conditions */

struct scheduler {
    bool test_clock;
    int64_t clock_base;             /* scheduler seconds at mono_base */
    uint64_t mono_base;
    uint64_t checked_at;            /* monotonic */
    uint64_t started_at;            /* monotonic */
    int64_t started_clock;          /* the scheduler clock when it started */
    hook_t *hook;                   /* --on-regression, or NULL */
};

scheduler_t *
scheduler_new (const char *hook, int64_t test_clock)
{
    scheduler_t *s = calloc (1, sizeof *s);
    if (!s)
        return NULL;
    if (hook && !(s->hook = hook_new (hook))) {
        free (s);
        return NULL;
    }
    s->mono_base = clock_mono_ns ();
    s->started_at = s->mono_base;
    s->test_clock = test_clock > 0;
    s->clock_base = test_clock > 0 ? test_clock : 0;
    s->started_clock = test_clock > 0 ? test_clock : (int64_t) (clock_real_ns () / NS_PER_SEC);
    return s;
}

void
scheduler_destroy (scheduler_t **self_p)
{
    scheduler_t *s = *self_p;
    if (!s)
        return;
    hook_destroy (&s->hook);
    free (s);
    *self_p = NULL;
}

int64_t
scheduler_now (ctl_t *ctl)
{
    scheduler_t *s = ctl->sched;
    if (!s->test_clock)
        return (int64_t) (clock_real_ns () / NS_PER_SEC);
    return s->clock_base + (int64_t) ((clock_mono_ns () - s->mono_base) / NS_PER_SEC);
}

static int64_t
real_s (void)
{
    return (int64_t) (clock_real_ns () / NS_PER_SEC);
}

/* "2026-12-01 02:00 UTC", for logs. */
static const char *
fmt_when (int64_t t, char *buf, size_t cap)
{
    struct tm utc;
    time_t tt = (time_t) t;
    gmtime_r (&tt, &utc);
    strftime (buf, cap, "%Y-%m-%d %H:%M UTC", &utc);
    return buf;
}

/* The schedule's next due time after `after`.  Returns 0, -ERANGE (it
   never fires again) or another -errno (err filled). */
static int
next_due (const char *expr, const char *tz, int64_t after, int64_t *out, char *err,
          size_t errlen)
{
    cron_t c;
    if (cron_parse (expr, &c, err, errlen))
        return -EINVAL;
    /* UTC needs no zone file. */
    int rc = cron_next (&c, tz && strcmp (tz, "UTC") != 0 ? tz : NULL, after, out);
    if (rc == -EINVAL)
        snprintf (err, errlen, "unknown time zone '%s' (an IANA name such as Europe/Berlin; "
                  "see /usr/share/zoneinfo)", tz);
    else if (rc == -ERANGE)
        snprintf (err, errlen, "cron '%s' never fires in the next 5 years", expr);
    else if (rc)
        snprintf (err, errlen, "cron '%s': %s", expr, strerror (-rc));
    return rc;
}

/* Queues the schedule's run (or records why not), and stores next as its
   next due time (-1: leave it) in the same transaction.  Returns the
   fire's id with the run (0 when skipped) in *run_out, or -1 (err). */
static int64_t
fire (ctl_t *ctl, const char *name, int64_t due, const char *kind, int64_t next,
      int64_t *run_out, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT plan, agents, overlap, "
        " (SELECT f.run_id FROM fires f JOIN runs r ON r.id = f.run_id "
        "  WHERE f.schedule = s.name AND r.status = 'queued' LIMIT 1) "
        "FROM schedules s WHERE name = ?");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = store_row (ctl->store, st, "read the schedule");
    if (rc != 1) {
        sqlite3_reset (st);
        if (rc < 0)
            snprintf (err, errlen, "database error reading schedule '%s'; see the controller's "
                      "log", name);
        else
            snprintf (err, errlen, "no schedule named '%s' (see 'iofleet schedule list')", name);
        return -1;
    }
    char plan[256], agents[AGENTS_MAX_LEN + 1] = "", overlap[8];
    str_copy (plan, sizeof plan, (const char *) sqlite3_column_text (st, 0));
    bool has_agents = sqlite3_column_type (st, 1) != SQLITE_NULL;
    if (has_agents)
        str_copy (agents, sizeof agents, (const char *) sqlite3_column_text (st, 1));
    str_copy (overlap, sizeof overlap, (const char *) sqlite3_column_text (st, 2));
    int64_t waiting = sqlite3_column_int64 (st, 3);
    sqlite3_reset (st);

    char skipped[512] = "";
    int64_t run = 0, busy_run;
    store_begin (ctl->store);
    /* Runs never overlap (the runner takes one at a time, so no agent runs
       two workloads); "wait" queues behind the one in hand, "skip" does
       not run this time.  Either way one run of a schedule waits at most:
       a schedule slower than its period does not pile runs up. */
    if (waiting)
        snprintf (skipped, sizeof skipped, "its run %lld is still queued", (long long) waiting);
    else if (strcmp (overlap, "skip") == 0 && runs_busy (ctl->store, &busy_run))
        snprintf (skipped, sizeof skipped, "run %lld was queued or running (overlap skip)",
                  (long long) busy_run);
    else {
        char why[512];
        json_t *res = submit_run (ctl, plan, has_agents ? agents : NULL, 0, false, false, why,
                                     sizeof why);
        if (res)
            run = json_integer_value (json_object_get (res, "run"));
        else
            snprintf (skipped, sizeof skipped, "could not queue a run: %s", why);
        json_decref (res);
    }
    store_begin (ctl->store);
    st = store_stmt (ctl->store,
        "INSERT INTO fires (schedule, due_at, fired_at, kind, run_id, skipped) "
        "VALUES (?, ?, ?, ?, ?, ?)");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, due);
    sqlite3_bind_int64 (st, 3, scheduler_now (ctl));
    sqlite3_bind_text (st, 4, kind, -1, SQLITE_STATIC);
    if (run)
        sqlite3_bind_int64 (st, 5, run);
    sqlite3_bind_text (st, 6, skipped, -1, SQLITE_TRANSIENT);
    rc = store_step_done (ctl->store, st, "record a fire");
    int64_t id = sqlite3_last_insert_rowid (store_db (ctl->store));
    if (next >= 0) {
        st = store_stmt (ctl->store, "UPDATE schedules SET next_fire = ? WHERE name = ?");
        sqlite3_bind_int64 (st, 1, next);
        sqlite3_bind_text (st, 2, name, -1, SQLITE_TRANSIENT);
        rc |= store_step_done (ctl->store, st, "store the next fire");
    }
    /* The run, its fire and the next due time: all stored, or none. */
    if (rc || store_commit (ctl->store)) {
        snprintf (err, errlen, "could not record the fire (database error; see the log)");
        return -1;
    }
    char when[64];
    if (run)
        log_info ("schedule '%s' (%s, due %s): queued run %lld of plan '%s'", name, kind,
                  fmt_when (due, when, sizeof when), (long long) run, plan);
    else
        log_warn ("schedule '%s' (%s, due %s): no run: %s", name, kind,
                  fmt_when (due, when, sizeof when), skipped);
    *run_out = run;
    return id;
}

void
scheduler_tick (ctl_t *ctl)
{
    scheduler_t *s = ctl->sched;
    if (s->hook)
        hook_poll (s->hook, ctl->store);
    uint64_t mono = clock_mono_ns ();
    if (mono - s->checked_at < 200 * NS_PER_MS)
        return;
    /* Just started: the agents are still reconnecting; a fire now would
       find none. */
    if (mono - s->started_at < START_GRACE_NS)
        return;
    s->checked_at = mono;
    if (s->hook)
        hook_start (s->hook, ctl->store);
    int64_t now = scheduler_now (ctl);
    /* Collected first: firing writes to the table being read. */
    json_t *due = json_array ();
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT name, cron, tz, next_fire, catch_up FROM schedules WHERE next_fire <= ? "
        "ORDER BY next_fire, name");
    if (!st) {
        json_decref (due);
        return;
    }
    sqlite3_bind_int64 (st, 1, now);
    while (store_row (ctl->store, st, "list the schedules due") == 1)
        json_array_append_new (due, json_pack ("{s:s, s:s, s:s, s:I, s:b}",
            "name", (const char *) sqlite3_column_text (st, 0),
            "cron", (const char *) sqlite3_column_text (st, 1),
            "tz", (const char *) sqlite3_column_text (st, 2),
            "next", (json_int_t) sqlite3_column_int64 (st, 3),
            "catch_up", sqlite3_column_int (st, 4)));
    sqlite3_reset (st);
    size_t i;
    json_t *d;
    json_array_foreach (due, i, d) {
        const char *name = json_string_value (json_object_get (d, "name"));
        const char *expr = json_string_value (json_object_get (d, "cron"));
        const char *tz = json_string_value (json_object_get (d, "tz"));
        int64_t due_at = json_integer_value (json_object_get (d, "next")), next, run;
        char err[512];
        /* Due before this controller started: missed while it was down.
           However many fires were missed, at most one (the newest) runs. */
        bool missed = due_at < s->started_clock;
        for (int k = 0; missed && k < 100000; k++) {
            int64_t t;
            if (next_due (expr, tz, due_at, &t, err, sizeof err) || t > now)
                break;
            due_at = t;
        }
        int rc = next_due (expr, tz, due_at > now ? due_at : now, &next, err, sizeof err);
        if (rc == -ERANGE) {
            log_err ("schedule '%s': %s; it will not fire again", name, err);
            next = INT64_MAX;
        } else if (rc) {
            log_err ("schedule '%s': %s; trying again in a minute", name, err);
            next = now + 60;
        }
        if (missed && !json_is_true (json_object_get (d, "catch_up"))) {
            char when[64];
            log_warn ("schedule '%s': the fire due %s was missed (the controller was down) and "
                      "catch-up is off; waiting for the next", name,
                      fmt_when (due_at, when, sizeof when));
            store_begin (ctl->store);
            sqlite3_stmt *up = store_stmt (ctl->store,
                "UPDATE schedules SET next_fire = ? WHERE name = ?");
            sqlite3_bind_int64 (up, 1, next);
            sqlite3_bind_text (up, 2, name, -1, SQLITE_TRANSIENT);
            store_step_done (ctl->store, up, "store the next fire");
            continue;
        }
        if (fire (ctl, name, due_at, missed ? "catch-up" : "scheduled", next, &run, err,
                  sizeof err) < 0)
            log_err ("schedule '%s': %s", name, err);
    }
    json_decref (due);
}

/* --- admin commands ---------------------------------------------------- */

static bool
name_ok (const char *name)
{
    if (!name || !*name || strlen (name) > SCHED_NAME_MAX)
        return false;
    for (const char *p = name; *p; p++)
        if (!(*p == '-' || *p == '_' || *p == '.' || (*p >= '0' && *p <= '9')
              || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return false;
    return true;
}

static json_t *
schedule_add (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    const char *name = json_string_value (json_object_get (req, "name"));
    const char *expr = json_string_value (json_object_get (req, "cron"));
    const char *plan = json_string_value (json_object_get (req, "plan"));
    const char *tz = json_string_value (json_object_get (req, "tz"));
    const char *agents = json_string_value (json_object_get (req, "agents"));
    const char *baseline = json_string_value (json_object_get (req, "baseline"));
    const char *by = json_string_value (json_object_get (req, "by"));
    const char *overlap = json_string_value (json_object_get (req, "overlap"));
    json_t *pct = json_object_get (req, "fail_on_regression");
    if (!name_ok (name)) {
        snprintf (err, errlen, "schedule name: 1..%d characters of A-Z a-z 0-9 . _ -",
                  SCHED_NAME_MAX);
        return NULL;
    }
    if (!expr || !plan) {
        snprintf (err, errlen, "schedule add needs --cron EXPR and --plan PLAN");
        return NULL;
    }
    if (!tz || !*tz)
        tz = "UTC";
    if (!baseline)
        baseline = "last-pass";
    if (strcmp (baseline, "last-pass") != 0) {
        char *end;
        long long b = strtoll (baseline, &end, 10);
        if (*end || b <= 0) {
            snprintf (err, errlen, "--baseline '%.64s': last-pass or a run id", baseline);
            return NULL;
        }
    }
    if (by && groups_key_check (by, err, errlen))
        return NULL;
    if (agents && strlen (agents) > AGENTS_MAX_LEN) {
        snprintf (err, errlen, "--agents: %zu characters, limit %d (use KEY=GLOB conditions such "
                  "as rack=r12)", strlen (agents), AGENTS_MAX_LEN);
        return NULL;
    }
    /* Its keys, and that it picks somebody, are checked now, not at 2 a.m.
       when it fires (agents that are away now still count). */
    if (agents && !submit_agents_known (ctl, agents, err, errlen))
        return NULL;
    if (strcmp (baseline, "last-pass") != 0) {
        sqlite3_stmt *q = store_stmt (ctl->store,
            "SELECT status FROM runs WHERE id = ? AND status IN ('complete', 'partial')");
        sqlite3_bind_int64 (q, 1, strtoll (baseline, NULL, 10));
        int found = store_row (ctl->store, q, "find the baseline run");
        sqlite3_reset (q);
        if (found < 0) {
            snprintf (err, errlen, "--baseline %s: database error; see the controller's log",
                      baseline);
            return NULL;
        }
        if (!found) {
            snprintf (err, errlen, "--baseline %s: no finished run with that id (see 'iofleet "
                      "runs')", baseline);
            return NULL;
        }
    }
    if (!overlap)
        overlap = "wait";
    if (strcmp (overlap, "wait") != 0 && strcmp (overlap, "skip") != 0) {
        snprintf (err, errlen, "--overlap '%.32s': wait or skip", overlap);
        return NULL;
    }
    double fail_pct = 10;
    if (pct) {
        if (!json_is_number (pct) || json_number_value (pct) < 0
            || json_number_value (pct) > 1000) {
            snprintf (err, errlen, "--fail-on-regression: a percentage 0..1000");
            return NULL;
        }
        fail_pct = json_number_value (pct);
    }
    int64_t next;
    if (next_due (expr, tz, scheduler_now (ctl), &next, err, errlen))
        return NULL;
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT 1 FROM plans WHERE name = ? AND removed_at IS NULL LIMIT 1");
    sqlite3_bind_text (st, 1, plan, -1, SQLITE_TRANSIENT);
    int known = store_row (ctl->store, st, "find the plan");
    sqlite3_reset (st);
    if (known < 0) {
        snprintf (err, errlen, "database error reading plan '%s'; see the controller's log", plan);
        return NULL;
    }
    if (!known) {
        snprintf (err, errlen, "no plan named '%s'; add it with 'iofleet plan add %s FILE'", plan,
                  plan);
        return NULL;
    }
    store_begin (ctl->store);
    st = store_stmt (ctl->store,
        "INSERT INTO schedules (name, cron, tz, plan, agents, baseline, fail_on_regression, "
        " by_key, overlap, catch_up, created_at, next_fire) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, expr, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 3, tz, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 4, plan, -1, SQLITE_TRANSIENT);
    if (agents)
        sqlite3_bind_text (st, 5, agents, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 6, baseline, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double (st, 7, fail_pct);
    if (by)
        sqlite3_bind_text (st, 8, by, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 9, overlap, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int (st, 10, !json_is_false (json_object_get (req, "catch_up")));
    sqlite3_bind_int64 (st, 11, real_s ());
    sqlite3_bind_int64 (st, 12, next);
    if (sqlite3_step (st) != SQLITE_DONE) {
        int rc = sqlite3_extended_errcode (store_db (ctl->store));
        sqlite3_reset (st);
        if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
            snprintf (err, errlen, "a schedule named '%s' exists; remove it first (iofleet "
                      "schedule rm %s)", name, name);
        else
            snprintf (err, errlen, "could not store the schedule: %s",
                      sqlite3_errmsg (store_db (ctl->store)));
        return NULL;
    }
    sqlite3_reset (st);
    if (store_commit (ctl->store)) {
        snprintf (err, errlen, "could not store the schedule (database error; see the log)");
        return NULL;
    }
    char when[64];
    log_info ("schedule '%s' added: cron '%s' %s, plan '%s'; next fire %s", name, expr, tz, plan,
              fmt_when (next, when, sizeof when));
    return json_pack ("{s:s, s:I}", "name", name, "next_fire", (json_int_t) next);
}

/* The schedules with their last fire.  NULL with err filled on a
   database error. */
static json_t *
schedule_list (ctl_t *ctl, char *err, size_t errlen)
{
    json_t *list = json_array ();
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT s.name, s.cron, s.tz, s.plan, s.agents, s.baseline, s.fail_on_regression, "
        " s.by_key, s.overlap, s.catch_up, s.next_fire, "
        " (SELECT f.due_at FROM fires f WHERE f.schedule = s.name ORDER BY f.id DESC LIMIT 1), "
        " (SELECT f.run_id FROM fires f WHERE f.schedule = s.name ORDER BY f.id DESC LIMIT 1), "
        " (SELECT f.verdict FROM fires f WHERE f.schedule = s.name ORDER BY f.id DESC LIMIT 1), "
        " (SELECT f.skipped FROM fires f WHERE f.schedule = s.name ORDER BY f.id DESC LIMIT 1) "
        "FROM schedules s ORDER BY s.name");
    int rc;
    while ((rc = store_row (ctl->store, st, "list the schedules")) == 1) {
        json_t *o = json_pack ("{s:s, s:s, s:s, s:s, s:s, s:f, s:s, s:b, s:I}",
            "name", (const char *) sqlite3_column_text (st, 0),
            "cron", (const char *) sqlite3_column_text (st, 1),
            "tz", (const char *) sqlite3_column_text (st, 2),
            "plan", (const char *) sqlite3_column_text (st, 3),
            "baseline", (const char *) sqlite3_column_text (st, 5),
            "fail_on_regression", sqlite3_column_double (st, 6),
            "overlap", (const char *) sqlite3_column_text (st, 8),
            "catch_up", sqlite3_column_int (st, 9),
            "next_fire", (json_int_t) sqlite3_column_int64 (st, 10));
        if (sqlite3_column_type (st, 4) != SQLITE_NULL)
            json_object_set_new (o, "agents", json_string ((const char *) sqlite3_column_text (st, 4)));
        if (sqlite3_column_type (st, 7) != SQLITE_NULL)
            json_object_set_new (o, "by", json_string ((const char *) sqlite3_column_text (st, 7)));
        if (sqlite3_column_type (st, 11) != SQLITE_NULL) {
            json_t *last = json_pack ("{s:I, s:s, s:s}",
                "due_at", (json_int_t) sqlite3_column_int64 (st, 11),
                "verdict", (const char *) sqlite3_column_text (st, 13),
                "skipped", (const char *) sqlite3_column_text (st, 14));
            if (sqlite3_column_type (st, 12) != SQLITE_NULL)
                json_object_set_new (last, "run", json_integer (sqlite3_column_int64 (st, 12)));
            json_object_set_new (o, "last_fire", last);
        }
        json_array_append_new (list, o);
    }
    if (st)
        sqlite3_reset (st);
    if (rc < 0) {
        json_decref (list);
        snprintf (err, errlen, "database error listing the schedules; see the controller's log");
        return NULL;
    }
    return list;
}

static json_t *
schedule_rm (ctl_t *ctl, const char *name, char *err, size_t errlen)
{
    store_begin (ctl->store);
    sqlite3_stmt *st = store_stmt (ctl->store, "DELETE FROM schedules WHERE name = ?");
    sqlite3_bind_text (st, 1, name ? name : "", -1, SQLITE_TRANSIENT);
    if (store_step_done (ctl->store, st, "remove a schedule")) {
        snprintf (err, errlen, "could not remove it (database error; see the log)");
        return NULL;
    }
    if (sqlite3_changes (store_db (ctl->store)) == 0) {
        snprintf (err, errlen, "no schedule named '%s' (see 'iofleet schedule list')",
                  name ? name : "");
        return NULL;
    }
    log_info ("schedule '%s' removed (its fires and regressions are kept)", name);
    return json_pack ("{s:s}", "removed", name);
}

json_t *
scheduler_admin (ctl_t *ctl, const char *cmd, json_t *req, char *err, size_t errlen)
{
    if (strcmp (cmd, "schedule_add") == 0)
        return schedule_add (ctl, req, err, errlen);
    if (strcmp (cmd, "schedule_list") == 0)
        return schedule_list (ctl, err, errlen);
    if (strcmp (cmd, "schedule_rm") == 0)
        return schedule_rm (ctl, json_string_value (json_object_get (req, "name")), err, errlen);
    if (strcmp (cmd, "schedule_run_now") == 0) {
        const char *name = json_string_value (json_object_get (req, "name"));
        int64_t run;
        int64_t id = fire (ctl, name ? name : "", scheduler_now (ctl), "manual", -1, &run, err, errlen);
        if (id < 0)
            return NULL;
        if (!run) {
            sqlite3_stmt *st = store_stmt (ctl->store, "SELECT skipped FROM fires WHERE id = ?");
            sqlite3_bind_int64 (st, 1, id);
            if (store_row (ctl->store, st, "read why the fire was skipped") == 1)
                snprintf (err, errlen, "%s", (const char *) sqlite3_column_text (st, 0));
            else
                snprintf (err, errlen, "no run was queued (database error reading why; see the "
                          "controller's log)");
            sqlite3_reset (st);
            return NULL;
        }
        return json_pack ("{s:I, s:I}", "fire", (json_int_t) id, "run", (json_int_t) run);
    }
    if (strcmp (cmd, "regressions") == 0)
        return verdict_regressions (ctl, req);
    if (strcmp (cmd, "gc") == 0)
        return gc_run (ctl, req, err, errlen);
    if (strcmp (cmd, "test_clock") == 0) {
        /* Tests only: fires due at 02:00 without waiting for 02:00. */
        scheduler_t *s = ctl->sched;
        json_t *set = json_object_get (req, "set");
        if (!s->test_clock) {
            snprintf (err, errlen, "test_clock needs a controller started with --test-clock");
            return NULL;
        }
        if (json_is_integer (set)) {
            s->clock_base = json_integer_value (set);
            s->mono_base = clock_mono_ns ();
            s->checked_at = 0;
        }
        return json_pack ("{s:I}", "now", (json_int_t) scheduler_now (ctl));
    }
    return NULL;
}
