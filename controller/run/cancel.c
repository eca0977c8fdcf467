/*  cancel.c: cancelling a queued or running run (iofleet cancel): the run
    in hand has its agents told to stop and its step's results made from
    what they delivered.
*/
#include "runner.h"
#include "log.h"
#include "util.h"
#include "acks.h"
#include "finalizer.h"
#include "cancel.h"
#include "runs.h"
#include "step_results.h"
#include "step_rows.h"
#include "store.h"

#include <string.h>
#include <time.h>

/* The results of the step in hand, cancelled: made as a finished step's
   are, by the finalizer's thread from what is committed (the agents'
   rows first), and waited for here, since the cancel's answer says the
   run has ended.  Can't fail: results that could not be stored are
   logged, and the step keeps what its agents delivered. */
static void
results_of_cancelled (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    if (store_commit (ctl->store) != 0 || store_failing (ctl->store)) {
        log_err ("run %lld step %d: cancelled, but its results could not be made: the "
                 "database cannot be written now", (long long) r->run, r->cur + 1);
        return;
    }
    acks_after_commit (ctl);
    int rc = finalizer_start (r->finalizer, r->run, r->cur);
    IOF_ASSERT (rc == 0);       /* the step in hand is not in R_RESULTS (cancel_run waited) */
    step_results_t *sr = NULL;
    finalizer_poll (r->finalizer, true, &sr);
    if (!sr)
        log_err ("run %lld step %d: cancelled, but its results could not be stored (see "
                 "above)", (long long) r->run, r->cur + 1);
    step_results_destroy (&sr);
    /* The step's and the run's ends are then one transaction (cancel_run
       commits it). */
    store_begin (ctl->store);
}

/* Ends the step in hand of the run in hand, cancelled (why says by whom):
   its agents are told to stop (ABORT: a layout, the workers), what they
   delivered so far is committed and acknowledged, and the step's results
   are made from it; the steps not begun are cancelled.  The names of the
   agents stopped go into stopped.  Returns 0, or -1 with err filled when
   the database could not store it (nothing was sent then). */
static int
cancel_in_hand (ctl_t *ctl, const char *why, json_t *stopped, char *err, size_t errlen)
{
    runner_t *r = ctl->runner;
    /* What came in so far is stored (and acknowledged) before anything
       is stopped, so a failure leaves the run as it was. */
    if (store_commit (ctl->store) != 0 || store_failing (ctl->store)) {
        snprintf (err, errlen, "the controller's database cannot be written now (see its "
                  "log); run %lld goes on: cancel it again once the database can be written",
                  (long long) r->run);
        return -1;
    }
    acks_after_commit (ctl);
    bool measured = r->phase == R_RUNNING || (r->phase == R_RECOVER && r->recover_running);
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        /* Every agent of the run hears it (one that holds nothing of the
           run ignores it): a lost one may still be running the step. */
        bool told = runner_abort (ctl, p->agent_id, why) == 0;
        bool active = p->st == P_PREPARING || p->st == P_READY || p->st == P_RUNNING
                      || p->st == P_DONE_WAIT;
        if (!active)
            continue;
        if (told)
            json_array_append_new (stopped, json_string (p->name));
        /* Intervals stored in order are what it delivered. */
        if (p->st != P_DONE_WAIT)
            p->done_snapshots = p->contig;
        p->st = P_CANCELLED;
        snprintf (p->msg, sizeof p->msg, "%s", why);
        runner_save_agent (ctl, p, NULL);
    }
    if (measured)
        results_of_cancelled (ctl);
    runner_set_step (ctl, "cancelled");
    step_rows_cancel_pending (ctl->store, r->run, r->cur);
    return 0;
}

json_t *
cancel_run (ctl_t *ctl, int64_t run, const char *by, char *err, size_t errlen)
{
    runner_t *r = ctl->runner;
    /* The step in hand has ended and its results are being made: they
       are taken first, as they would be at the next tick, and what is
       cancelled is what follows (the next step, or nothing). */
    if (r->phase == R_RESULTS && r->run == run)
        steps_results_wait (ctl);
    char was[32] = "";
    if (runs_status (ctl->store, run, was, sizeof was, err, errlen) != 1)
        return NULL;
    if (strcmp (was, "queued") != 0 && strcmp (was, "running") != 0) {
        snprintf (err, errlen, "run %lld has already ended (%s): only a queued or running run "
                  "can be cancelled", (long long) run, was);
        return NULL;
    }
    if (store_failing (ctl->store)) {
        snprintf (err, errlen, "the controller's database cannot be written now (see its log); "
                  "run %lld goes on: cancel it again once the database can be written",
                  (long long) run);
        return NULL;
    }
    uint64_t now = clock_real_ns ();
    time_t secs = (time_t) (now / NS_PER_SEC);
    struct tm tm;
    char when[32];
    gmtime_r (&secs, &tm);
    strftime (when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    char why[MSG_TEXT_MAX + 1];
    snprintf (why, sizeof why, "cancelled by %s at %s", by, when);
    json_t *stopped = json_array ();
    bool in_hand = r->phase != R_IDLE && r->run == run;
    int step = in_hand ? r->cur : -1, nsteps = in_hand ? r->nsteps : 0;
    char name[512] = "";
    if (in_hand) {
        runner_step_name (r, r->cur, name, sizeof name);
        if (cancel_in_hand (ctl, why, stopped, err, errlen)) {
            json_decref (stopped);
            return NULL;
        }
    }
    store_begin (ctl->store);
    runs_set_cancelled (ctl->store, run, by, (int64_t) now);
    runner_set_status (ctl, run, "cancelled", why);
    store_commit (ctl->store);
    if (in_hand) {
        runner_clear (r);
        log_warn ("run %lld %s, at step %d/%d '%s'; %zu agent(s) told to stop", (long long) run,
                  why, step + 1, nsteps, name, json_array_size (stopped));
    } else
        log_warn ("run %lld %s (it was %s)", (long long) run, why, was);
    json_t *o = json_pack ("{s:I, s:s, s:s, s:s, s:I, s:s, s:o}", "run", (json_int_t) run,
                           "status", "cancelled", "was", was, "cancelled_by", by,
                           "cancelled_at", (json_int_t) now, "message", why, "stopped", stopped);
    if (in_hand) {
        json_object_set_new (o, "step", json_integer (step));
        json_object_set_new (o, "steps", json_integer (nsteps));
        json_object_set_new (o, "step_name", json_string (name));
    }
    return o;
}
