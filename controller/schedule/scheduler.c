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
#include "fires.h"
#include "plans.h"
#include "runs.h"
#include "schedules.h"
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define START_GRACE_NS     (10 * NS_PER_SEC)    /* for agents to reconnect */

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
    schedules_fire_t sf;
    int rc = schedules_fire_row (ctl->store, name, &sf);
    if (rc != 1) {
        if (rc < 0)
            snprintf (err, errlen, "database error reading schedule '%s'; see the controller's "
                      "log", name);
        else
            snprintf (err, errlen, "no schedule named '%s' (see 'iofleet schedule list')", name);
        return -1;
    }
    const char *plan = sf.plan, *agents = sf.agents, *overlap = sf.overlap;
    bool has_agents = sf.has_agents;
    int64_t waiting = sf.waiting;

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
    int64_t id;
    rc = fires_add (ctl->store, name, due, scheduler_now (ctl), kind, run, skipped, &id);
    if (next >= 0)
        rc |= schedules_set_next (ctl->store, name, next);
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
    json_t *due = schedules_due (ctl->store, now);
    if (!due)
        return;
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
            schedules_set_next (ctl->store, name, next);
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
    if (agents && strlen (agents) > SCHED_AGENTS_MAX) {
        snprintf (err, errlen, "--agents: %zu characters, limit %d (use KEY=GLOB conditions such "
                  "as rack=r12)", strlen (agents), SCHED_AGENTS_MAX);
        return NULL;
    }
    /* Its keys, and that it picks somebody, are checked now, not at 2 a.m.
       when it fires (agents that are away now still count). */
    if (agents && !submit_agents_known (ctl, agents, err, errlen))
        return NULL;
    if (strcmp (baseline, "last-pass") != 0) {
        int found = runs_finished (ctl->store, strtoll (baseline, NULL, 10));
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
    int known = plans_exists (ctl->store, plan);
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
    schedules_def_t def = {
        .name = name, .cron = expr, .tz = tz, .plan = plan, .agents = agents,
        .baseline = baseline, .by = by, .overlap = overlap, .fail_on_regression = fail_pct,
        .catch_up = !json_is_false (json_object_get (req, "catch_up")),
        .created_at = real_s (), .next_fire = next,
    };
    char why[512] = "";
    int rc = schedules_add (ctl->store, &def, why, sizeof why);
    if (rc == -EEXIST) {
        snprintf (err, errlen, "a schedule named '%s' exists; remove it first (iofleet "
                  "schedule rm %s)", name, name);
        return NULL;
    }
    if (rc) {
        snprintf (err, errlen, "could not store the schedule: %s", why);
        return NULL;
    }
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
    json_t *list = schedules_list (ctl->store);
    if (!list) {
        snprintf (err, errlen, "database error listing the schedules; see the controller's log");
        return NULL;
    }
    return list;
}

static json_t *
schedule_rm (ctl_t *ctl, const char *name, char *err, size_t errlen)
{
    store_begin (ctl->store);
    int removed;
    if (schedules_remove (ctl->store, name ? name : "", &removed)) {
        snprintf (err, errlen, "could not remove it (database error; see the log)");
        return NULL;
    }
    if (removed == 0) {
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
            if (fires_skipped (ctl->store, id, err, errlen) != 1)
                snprintf (err, errlen, "no run was queued (database error reading why; see the "
                          "controller's log)");
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
