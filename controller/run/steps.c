/*  run.c: the run state machine.

    One run at a time; others wait as 'queued'.  Each job section of the plan
    is a step; every selected agent finishes step k before step k+1 starts:

      PREPARE -> READY/REFUSED from every agent (or --prepare-timeout)
      START at controller now + margin -> SNAPSHOT ... -> DONE
      step results computed from the stored snapshots, off the loop
      (R_RESULTS: finalizer.c, step_results.c), then the next step

    The run's state is runstate.h's; snapshots go to ingest.c, their
    acknowledgements to acks.c; its end goes to the run-end subscribers.
*/
#include "runner.h"
#include "step_health.h"
#include "jobfile.h"
#include "jobspec.h"
#include "log.h"
#include "util.h"
#include "acks.h"
#include "inventories.h"
#include "job_json.h"
#include "rounds_steady.h"
#include "steps.h"
#include "finalizer.h"
#include "fleet.h"
#include "series.h"
#include "snapshot_prep.h"
#include "step_results.h"
#include "runs.h"
#include "snapshot_store.h"
#include "step_gaps.h"
#include "step_rows.h"
#include "store.h"
#include "ingest.h"

#include <stdlib.h>
#include <string.h>

#define START_MARGIN_MIN_NS   (50 * NS_PER_MS)
#define DONE_WAIT_NS          (10 * NS_PER_SEC)   /* for resent snapshots */
#define RESTART_DRAIN_NS      (3 * NS_PER_SEC)    /* a restarted agent's spool, resent at once */

static uint64_t
spec_interval (ctl_t *ctl)
{
    return ctl->interval_ns;
}

/* Why peer cannot run the step's jobs as the plan says: its release is
   older than one an option needs.  Returns the reason (a static buffer),
   or NULL when it can.  Can't fail. */
static const char *
step_too_new (const peer_t *peer, const jobspec_t *js, int njobs)
{
    static char why[MSG_TEXT_MAX];
    for (int i = 0; i < njobs; i++) {
        const char *what = NULL, *need = jobspec_needs (&js[i].spec, &what);
        if (need && jobspec_release_older (peer->release, need)) {
            snprintf (why, sizeof why, "the agent runs iofleet %s, which would ignore %s of "
                      "job '%s' (iofleet %s runs it); upgrade the agent",
                      peer->release[0] ? peer->release : "(unknown)", what, js[i].spec.name,
                      need);
            return why;
        }
    }
    return NULL;
}

/* Whether agent p may run the step in hand of a plan with purge= or
   precondition= (purge.h, precondition.h): only once each of those steps
   before it, the run's first, ended done for it, as stored.  Otherwise
   why says so and false: its figures would be those of a drive not
   purged or not preconditioned.  A read error counts as not done
   (logged). */
static bool
preconditioned (ctl_t *ctl, const part_t *p, char *why, size_t whylen)
{
    runner_t *r = ctl->runner;
    int upto = r->cur < r->npre ? r->cur : r->npre;
    for (int i = 0; i < upto; i++) {
        bool done = false;
        char status[32] = "missing", msg[200] = "";
        if (step_rows_agent_status (ctl->store, r->run, i, (int64_t) p->agent_id, status,
                                    sizeof status, msg, sizeof msg) == 1)
            done = strcmp (status, runner_pstate_names[P_DONE]) == 0;
        if (done)
            continue;
        const char *name = runner_step_job (r, i)->name;     /* purge or precondition */
        snprintf (why, whylen, "not run: its %s step ended %s%s%s%s, so this step would "
                  "measure drives not %s; see step %d's reason, fix it and run again", name,
                  status, msg[0] ? " (" : "", msg, msg[0] ? ")" : "",
                  strcmp (name, "purge") == 0 ? "purged" : "preconditioned", i + 1);
        return false;
    }
    return true;
}

static void
begin_step (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    static jobspec_t js[MSG_JOBS_MAX];
    static Iofleet__JobSpec *more[MSG_JOBS_MAX];
    int njobs = runner_step_njobs (r, r->cur);
    for (int i = 0; i < njobs; i++) {
        jobspec_from_job (&js[i], &r->plan->steps[runner_step_first (r, r->cur) + i],
                          spec_interval (ctl));
        r->job_ntargets[i] = (int) js[i].spec.n_filenames;
        if (i)
            more[i - 1] = &js[i].spec;
    }
    Iofleet__Prepare prep = IOFLEET__PREPARE__INIT;
    prep.run = (uint64_t) r->run;
    prep.step = (uint32_t) r->cur;
    prep.job = &js[0].spec;
    prep.more_jobs = more;
    prep.n_more_jobs = (size_t) (njobs - 1);
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_PREPARE;
    env.prepare = &prep;

    char name[512];
    log_info ("run %lld step %d/%d '%s': preparing %d agent(s)", (long long) r->run, r->cur + 1,
              r->nsteps, runner_step_name (r, r->cur, name, sizeof name), r->nparts);
    r->start_at = 0;
    runner_set_step (ctl, "preparing");
    /* A step prepared again (after a controller restart) starts afresh:
       rows of an attempt that did not finish would shadow the new ones. */
    snapshot_store_clear_step (ctl->store, r->run, r->cur);
    step_rows_clear_attempt (ctl->store, r->run, r->cur);
    series_reset (r->series, r->run, r->cur, r->nparts);
    char step_name[512];
    series_name_step (r->series, runner_step_name (r, r->cur, step_name, sizeof step_name));
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        free (p->seen);
        p->seen = NULL;
        p->nseen = 0;
        free (p->planned);
        free (p->moved);
        p->planned = p->moved = NULL;
        p->contig = 0;
        p->ntargets = 0;
        p->actual_start = 0;
        p->clock_known = false;
        p->done_snapshots = 0;
        p->done_ops = p->done_bytes = 0;
        p->msg[0] = '\0';
        p->restarted = false;
        p->waited_out = false;
        p->totals_unknown = false;
        p->spool_dropped = 0;
        peer_t *peer = fleet_find_id (ctl->fleet, p->agent_id);
        const char *too_old = peer ? step_too_new (peer, js, njobs) : NULL;
        if (!preconditioned (ctl, p, p->msg, sizeof p->msg)) {
            p->st = P_REFUSED;
            log_warn ("run %lld step %d: agent '%s': %s", (long long) r->run, r->cur + 1,
                      p->name, p->msg);
        } else if (!peer || !peer->connected) {
            p->st = P_LOST;
            snprintf (p->msg, sizeof p->msg, "agent not connected when the step began");
        } else if (too_old) {
            /* An older agent would skip the fields it does not know and run
               another job than the plan's without a word. */
            p->st = P_REFUSED;
            snprintf (p->msg, sizeof p->msg, "%s", too_old);
            log_warn ("run %lld step %d: agent '%s': %s", (long long) r->run, r->cur + 1,
                      p->name, too_old);
        } else if (fleet_send (ctl->fleet, peer, &env) != 0) {
            p->st = P_LOST;
            snprintf (p->msg, sizeof p->msg, "agent not connected when the step began");
        } else
            p->st = P_PREPARING;
        runner_save_agent (ctl, p, NULL);
    }
    r->phase = R_PREPARING;
    r->deadline = clock_mono_ns () + ctl->prepare_timeout_ns;
}

/* DONE carries the agent's own totals; they must equal the sum of the
   snapshots stored (p->stored_*, summed by step_results_totals), or
   something measured was lost.  Notes it in p->msg. */
static void
check_totals (ctl_t *ctl, part_t *p)
{
    runner_t *r = ctl->runner;
    uint64_t ops = p->stored_ops, bytes = p->stored_bytes;
    if (ops == p->done_ops && bytes == p->done_bytes)
        return;
    snprintf (p->msg, sizeof p->msg, "agent reported %llu ops / %llu bytes, stored snapshots "
              "hold %llu / %llu", (unsigned long long) p->done_ops,
              (unsigned long long) p->done_bytes, (unsigned long long) ops,
              (unsigned long long) bytes);
    log_err ("run %lld step %d agent '%s': %s", (long long) r->run, r->cur + 1, p->name, p->msg);
}

static void
stored_totals (void *arg, uint64_t agent_id, uint64_t ops, uint64_t bytes)
{
    part_t *p = runner_find_part (arg, agent_id);
    if (p) {
        p->stored_ops = ops;
        p->stored_bytes = bytes;
    }
}

static void add_steps (ctl_t *ctl, int n);

/* In the transaction that records the end of the step in hand, when it
   is a round's (rounds.h): the tracked step adds each drive's figure and
   judges its window; the round's last step adds the next round's steps
   unless every drive measured is steady, the rounds are all run, or the
   run policy failed.  Can't fail (a database error is the store's, and
   the step's end is recorded again). */
static void
next_round (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    int round = runner_round (r, r->cur), group = runner_group (r, r->cur);
    if (!round)
        return;
    if (group == r->tracked) {
        char prefix[JOB_NAME_MAX + 1] = "";
        if (runner_step_njobs (r, r->cur) > 1)     /* targets labelled JOB:PATH */
            snprintf (prefix, sizeof prefix, "%s:", r->plan->rule.step);
        if (rounds_steady_track (ctl->store, r->run, r->cur, prefix, round, &r->plan->rule) != 0) {
            store_note_failure (ctl->store, "track the rounds' steady state");
            return;
        }
    }
    if (group != r->ngroups - 1 || r->policy_failed || r->cur + 1 < r->nsteps)
        return;
    int unsteady = r->tracked >= 0 ? rounds_steady_unsteady (ctl->store, r->run, round) : -1;
    if (round >= r->max_rounds) {
        log_info ("run %lld: round %d of %d done: the rounds are all run%s", (long long) r->run,
                  round, r->max_rounds, unsteady > 0 ? "; some drives never became steady "
                  "(see the report)" : "");
        return;
    }
    if (unsteady == 0) {
        log_info ("run %lld: round %d: every drive measured is steady: the rounds end",
                  (long long) r->run, round);
        return;
    }
    if (unsteady > 0)
        log_info ("run %lld: round %d of at most %d done, %d drive(s) not steady yet; round %d "
                  "begins", (long long) r->run, round, r->max_rounds, unsteady, round + 1);
    else
        log_info ("run %lld: round %d of at most %d done; round %d begins", (long long) r->run,
                  round, r->max_rounds, round + 1);
    add_steps (ctl, r->round_steps);
}

/* A done agent whose process was stopped during the step issued nothing
   meanwhile, and its figures hold the empty intervals and the catch-up
   after them: not the drive's.  Its part is then a shortfall (the step
   partial; iofleet run --tolerate-gaps accepts it), with the stall named
   in its message; the report lists the span (step_gaps).  Can't fail. */
static void
check_stalls (ctl_t *ctl, part_t *p)
{
    runner_t *r = ctl->runner;
    uint64_t ns = 0;
    int64_t from = -1, to = -1;
    if (step_gaps_stalled (ctl->store, r->run, r->cur, (int64_t) p->agent_id, &ns, &from,
                           &to) <= 0)
        return;
    snprintf (p->msg, sizeof p->msg, "its process was stopped for %.1f s during the step "
              "(intervals %lld-%lld): it issued no I/O then (see gaps; iofleet run "
              "--tolerate-gaps accepts this)", (double) ns / 1e9, (long long) from,
              (long long) to);
    log_warn ("run %lld step %d: agent '%s' %s", (long long) r->run, r->cur + 1, p->name, p->msg);
}

/* A lost or restarted agent's gap, as it ends the step: from its first
   interval not stored (what a restarted agent's old process spooled has
   come meanwhile) to the step's end.  Can't fail. */
static void
gap_to_end (ctl_t *ctl, part_t *p)
{
    runner_t *r = ctl->runner;
    const char *cause = p->restarted ? "restarted" : "lost";
    step_gaps_clear (ctl->store, r->run, r->cur, (int64_t) p->agent_id, cause);
    step_gaps_span (ctl->store, r->run, r->cur, (int64_t) p->agent_id, cause, p->contig, -1, 0);
}

/* The finalizer's answer for the step in hand: sr, its results stored,
   or NULL (then they are made again in a second).  Checks each agent's
   totals against them, records the step's end, and begins the next step
   or ends the run. */
static void
results_in (ctl_t *ctl, step_results_t *sr)
{
    runner_t *r = ctl->runner;
    IOF_ASSERT (r->phase == R_RESULTS);
    r->phase = r->results_from;
    if (!sr) {
        log_err ("run %lld step %d: its results could not be stored; made again in a second",
                 (long long) r->run, r->cur + 1);
        r->results_retry_at = clock_mono_ns () + NS_PER_SEC;
        return;
    }
    r->results_retry_at = 0;
    /* Each agent's stored totals, for check_totals. */
    for (int i = 0; i < r->nparts; i++)
        r->parts[i].stored_ops = r->parts[i].stored_bytes = 0;
    step_results_totals (sr, stored_totals, r);
    step_results_destroy (&sr);
    uint64_t failures = store_failures (ctl->store);
    int ndone = 0, nbad = 0;
    int tolerate = step_gaps_tolerate (ctl->store, r->run);
    uint64_t smin = UINT64_MAX, smax = 0;
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st == P_DONE && !p->msg[0] && !p->totals_unknown)
            check_totals (ctl, p);
        if (p->st == P_DONE && !p->msg[0] && tolerate != 1)
            check_stalls (ctl, p);
        if (p->st == P_LOST && p->started)
            gap_to_end (ctl, p);
        if (p->st == P_DONE && !p->msg[0])
            ndone++;
        else
            nbad++;
        if (p->actual_start) {
            if (p->actual_start < smin)
                smin = p->actual_start;
            if (p->actual_start > smax)
                smax = p->actual_start;
        }
        runner_save_agent (ctl, p, NULL);
    }
    const char *status = nbad == 0 ? "complete" : ndone > 0 ? "partial" : "failed";
    runner_set_step (ctl, status);
    step_rows_set_skew (ctl->store, r->run, r->cur, smax >= smin && smin != UINT64_MAX
                                                    ? (int64_t) (smax - smin) : -1);
    next_round (ctl);
    if (store_commit (ctl->store) != 0 || store_failures (ctl->store) != failures) {
        log_err ("run %lld step %d: its results could not be stored; done again once the "
                 "database can be written", (long long) r->run, r->cur + 1);
        return;
    }
    if (nbad == 0)
        r->steps_complete++;
    else if (ndone > 0)
        r->steps_partial++;
    log_info ("run %lld step %d/%d '%s' %s: %d agent(s) done, %d not; start skew %.3f ms",
              (long long) r->run, r->cur + 1, r->nsteps, runner_step_job (r, r->cur)->name,
              status, ndone, nbad,
              smax >= smin && smin != UINT64_MAX ? (double) (smax - smin) / 1e6 : 0.0);
    r->cur++;
    if (r->cur < r->nsteps && !r->policy_failed)
        begin_step (ctl);
    else
        runner_finish (ctl);
}

/* The step in hand has ended: what it holds is committed (and its
   acknowledgements go now, not after the results), then its results are
   made by the finalizer's thread while the loop goes on (R_RESULTS);
   results_in records the step's end once they are stored. */
static void
finish_step (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    if (r->results_retry_at && clock_mono_ns () < r->results_retry_at)
        return;
    if (store_commit (ctl->store) != 0 || store_failing (ctl->store))
        return;
    acks_after_commit (ctl);
    r->results_from = r->phase;
    if (r->phase == R_PREPARING) {
        /* No agent started: no snapshots, nothing worth the thread. */
        step_results_t *sr = step_results_store (ctl->store, r->run, r->cur);
        if (sr) {
            r->phase = R_RESULTS;
            results_in (ctl, sr);
        }
        return;
    }
    int rc = finalizer_start (r->finalizer, r->run, r->cur);
    IOF_ASSERT (rc == 0);       /* one step in hand, and R_RESULTS until its answer */
    r->phase = R_RESULTS;
}

/* Tells the READY agents to drop the step (the run policy failed it). */
static void
abort_ready (ctl_t *ctl, const char *why)
{
    runner_t *r = ctl->runner;
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st != P_READY)
            continue;
        runner_abort (ctl, p->agent_id, why);
        p->st = P_FAILED;
        snprintf (p->msg, sizeof p->msg, "not started: %s", why);
        runner_save_agent (ctl, p, NULL);
    }
}

static void
start_step (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    const job_t *j = runner_step_job (r, r->cur);
    uint64_t max_delay = 0;
    int nready = 0;
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st == P_PREPARING) {
            p->st = P_FAILED;
            snprintf (p->msg, sizeof p->msg, "no READY within --prepare-timeout %.0f s",
                      (double) ctl->prepare_timeout_ns / 1e9);
            runner_save_agent (ctl, p, NULL);
            /* It may still be laying a file out for a step that goes on
               without it: that stops. */
            runner_abort (ctl, p->agent_id, p->msg);
        }
        if (p->st != P_READY)
            continue;
        nready++;
        peer_t *peer = fleet_find_id (ctl->fleet, p->agent_id);
        if (peer && peer->delay_ns > max_delay)
            max_delay = peer->delay_ns;
    }
    int want = r->require_all ? r->nparts : r->min_agents;
    if (nready > 0 && nready < want) {
        snprintf (r->policy_msg, sizeof r->policy_msg, "step %d '%s': %d of %d agent(s) ready, "
                  "the run needs %s%d; see each agent's reason in the report", r->cur + 1,
                  j->name, nready, r->nparts, r->require_all ? "all " : "", want);
        log_warn ("run %lld %s", (long long) r->run, r->policy_msg);
        r->policy_failed = true;
        abort_ready (ctl, r->policy_msg);
        finish_step (ctl);
        return;
    }
    if (nready == 0) {
        log_warn ("run %lld step '%s': no agent is ready; skipping the step", (long long) r->run,
                  j->name);
        finish_step (ctl);
        return;
    }
    uint64_t margin = 4 * max_delay > START_MARGIN_MIN_NS ? 4 * max_delay : START_MARGIN_MIN_NS;
    r->start_at = clock_real_ns () + margin;
    Iofleet__Start s = IOFLEET__START__INIT;
    s.run = (uint64_t) r->run;
    s.step = (uint32_t) r->cur;
    s.start_at = r->start_at;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_START;
    env.start = &s;
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st != P_READY)
            continue;
        peer_t *peer = fleet_find_id (ctl->fleet, p->agent_id);
        if (!peer || fleet_send (ctl->fleet, peer, &env) != 0) {
            p->st = P_LOST;
            snprintf (p->msg, sizeof p->msg, "agent disconnected before START");
        } else {
            p->st = P_RUNNING;
            p->started = true;
            /* A fresher estimate from a ping since READY, if any. */
            if (peer->delay_ns > 0) {
                p->clock_offset = peer->offset_ns;
                p->clock_delay = peer->delay_ns;
                p->clock_known = true;
            }
        }
        runner_save_agent (ctl, p, NULL);
    }
    runner_set_step (ctl, "running");
    r->phase = R_RUNNING;
    uint64_t planned = runner_step_planned_ns (r, r->cur);
    r->deadline = planned ? clock_mono_ns () + margin + planned + STEP_GRACE_NS : 0;
    log_info ("run %lld step %d/%d '%s': %d agent(s) start in %.1f ms", (long long) r->run,
              r->cur + 1, r->nsteps, j->name, nready, (double) margin / 1e6);
}

/* Adds the rows of the run's next n steps (pending), as runner_group and
   runner_round map them.  Can't fail (the store counts errors). */
static void
add_steps (ctl_t *ctl, int n)
{
    runner_t *r = ctl->runner;
    for (int i = r->nsteps; i < r->nsteps + n; i++) {
        json_t *spec = job_json (runner_step_job (r, i));
        if (runner_step_njobs (r, i) > 1) {
            json_t *jobs = json_array ();
            for (int k = 0; k < runner_step_njobs (r, i); k++)
                json_array_append_new (jobs, job_json (&r->plan->steps[runner_step_first (r, i)
                                                                          + k]));
            json_object_set_new (spec, "jobs", jobs);
        }
        char *text = json_dumps (spec, JSON_COMPACT);
        json_decref (spec);
        char name[512];
        step_rows_add (ctl->store, r->run, i, runner_step_name (r, i, name, sizeof name),
                       text ? text : "{}", runner_round (r, i), runner_group (r, i));
        free (text);
    }
    r->nsteps += n;
}

static void
start_run (ctl_t *ctl, int64_t run)
{
    runner_t *r = ctl->runner;
    char err[512] = "";
    if (runner_load (ctl, run))
        return;
    r->run = run;
    r->cur = 0;
    r->steps_complete = r->steps_partial = 0;
    runner_plan_steps (r);
    r->nsteps = 0;
    for (int i = 0; i < r->ngroups; i++)
        if (runner_step_njobs (r, i) > MSG_JOBS_MAX) {
            snprintf (err, sizeof err, "step %d runs %d jobs together (no stonewall between "
                      "them), limit %d", i + 1, runner_step_njobs (r, i), MSG_JOBS_MAX);
            runner_set_status (ctl, run, "failed", err);
            log_err ("run %lld failed to start: %s", (long long) run, err);
            runner_clear (r);
            return;
        }
    store_begin (ctl->store);
    if (r->plan->rounds) {
        char rule[256] = "";
        if (r->plan->steady)
            rounds_rule_text (&r->plan->rule, rule, sizeof rule);
        runs_set_rounds (ctl->store, run, r->max_rounds, rule);
    }
    add_steps (ctl, r->ngroups);
    runner_set_status (ctl, run, "running", "");
    log_info ("run %lld of plan '%s' started: %d step(s)%s on %d agent(s)", (long long) run,
              r->plan_name, r->ngroups, r->plan->rounds ? " (the first round)" : "", r->nparts);
    begin_step (ctl);
}

void
steps_results_wait (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    step_results_t *sr = NULL;
    if (r->phase == R_RESULTS && finalizer_poll (r->finalizer, true, &sr))
        results_in (ctl, sr);
}

void
steps_tick (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    uint64_t now = clock_mono_ns ();
    if (r->phase == R_IDLE) {
        int64_t run = 0;
        /* A read error (logged) is tried again at the next tick. */
        runs_queued (ctl->store, &run);
        if (run)
            start_run (ctl, run);
        return;
    }
    /* While the database cannot be written, the run holds: no step ends
       (its results could not be stored) and no lost-interval verdict is
       made; the agents keep what is not acknowledged.  A write now and
       then finds out when it can go on. */
    if (store_failing (ctl->store)) {
        if (!r->held) {
            r->held = true;
            r->held_since = now;
            log_warn ("run %lld: holding step %d until the database can be written",
                      (long long) r->run, r->cur + 1);
        }
        if (log_ratelimit (&r->probe_at, NS_PER_SEC))
            store_count (ctl->store, "db_write_retries", 1);
        return;
    }
    if (r->held) {
        /* The time held does not count against the agents. */
        uint64_t held = now - r->held_since;
        r->held = false;
        if (r->deadline)
            r->deadline += held;
        for (int i = 0; i < r->nparts; i++) {
            part_t *p = &r->parts[i];
            if (p->st == P_DONE_WAIT)
                p->done_at = now;
            /* What failed to be stored comes again now, not after the
               agents' backed-off resend timers. */
            if (p->st != P_LOST && p->st != P_REFUSED)
                acks_queue_resend (r, p, p->contig);    /* after this tick's commit */
        }
        log_info ("run %lld: database writable again after %.0f s; step %d goes on",
                  (long long) r->run, (double) held / 1e9, r->cur + 1);
    }
    if (r->phase == R_RECOVER) {
        if (recover_tick (ctl, now))
            begin_step (ctl);
        return;
    }
    if (r->phase == R_RESULTS) {
        step_results_t *sr = NULL;
        if (finalizer_poll (r->finalizer, false, &sr))
            results_in (ctl, sr);
        return;
    }
    /* Agents that went away stop counting as busy. */
    bool scan = now - r->lost_scan_at >= FLEET_SCAN_NS;
    if (scan)
        r->lost_scan_at = now;
    for (int i = 0; scan && i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st != P_PREPARING && p->st != P_RUNNING)
            continue;
        peer_t *peer = fleet_find_id (ctl->fleet, p->agent_id);
        if (!peer || !peer->connected) {
            if (p->st == P_RUNNING && p->started) {
                /* Named in the report (step_gaps): from the first interval
                   not in hand, to the step's end unless it comes back. */
                p->lost_since = peer ? peer->last_seen : now;
                p->lost_from = p->contig;
                step_gaps_span (ctl->store, r->run, r->cur, (int64_t) p->agent_id, "lost",
                                p->lost_from, -1, 0);
            }
            p->st = P_LOST;
            snprintf (p->msg, sizeof p->msg, "agent disconnected during the step");
            log_warn ("run %lld: agent '%s' lost during step %d", (long long) r->run, p->name,
                      r->cur + 1);
            runner_save_agent (ctl, p, NULL);
        }
    }
    if (r->phase == R_PREPARING) {
        bool waiting = false;
        for (int i = 0; i < r->nparts; i++)
            waiting |= r->parts[i].st == P_PREPARING;
        if (!waiting || now > r->deadline)
            start_step (ctl);
        return;
    }
    bool busy = false;
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st == P_RUNNING && r->deadline && now > r->deadline) {
            p->st = P_LOST;
            snprintf (p->msg, sizeof p->msg, "no DONE by %.0f s after the planned end",
                      (double) STEP_GRACE_NS / 1e9);
            runner_save_agent (ctl, p, NULL);
        }
        if (p->st == P_DONE_WAIT && now - p->done_at > DONE_WAIT_NS
            && (!p->asked || p->contig != p->asked_contig)) {
            /* Its resends may be backed off far longer (a minute after a
               database that failed for long): asked for now, and given up
               only when an ask brings nothing in DONE_WAIT_NS. */
            p->asked = true;
            p->asked_contig = p->contig;
            p->done_at = now;
            acks_queue_resend (r, p, p->contig);
        } else if (p->st == P_DONE_WAIT && now - p->done_at > DONE_WAIT_NS) {
            p->st = P_DONE;
            p->waited_out = true;
            snprintf (p->msg, sizeof p->msg, "reported %u snapshots, only %u stored in order; "
                      "the rest never arrived%s", p->done_snapshots, p->contig,
                      p->spool_dropped ? " (its spool overflowed)" : "");
            runner_save_agent (ctl, p, NULL);
            acks_queue (r, p, UINT32_MAX);
        }
        busy |= p->st == P_RUNNING || p->st == P_DONE_WAIT;
        /* A restarted agent resends what its old process spooled right
           after its HELLO: the step waits for that to drain. */
        busy |= p->st == P_LOST && p->restarted && now - p->done_at < RESTART_DRAIN_NS;
    }
    if (!busy)
        finish_step (ctl);
}

void
steps_agent_hello (ctl_t *ctl, uint64_t agent_id, uint64_t old_pid, const Iofleet__Hello *h)
{
    runner_t *r = ctl->runner;
    if (r->phase != R_PREPARING && r->phase != R_RUNNING && r->phase != R_RECOVER)
        return;
    part_t *p = runner_find_part (r, agent_id);
    if (!p || p->restarted)
        return;
    bool waiting = p->st == P_PREPARING || p->st == P_READY || p->st == P_RUNNING
                   || (p->st == P_LOST && p->started);
    bool holds = h->job_run == (uint64_t) r->run && h->job_step == (uint32_t) r->cur
                 && h->job_state != IOFLEET__JOB_STATE__JOB_NONE;
    if (!waiting || holds)
        return;
    /* A PREPARE may still be on its way to a live agent: only a new
       process says the agent is gone then. */
    if (p->st == P_PREPARING && !(old_pid && old_pid != h->pid))
        return;
    /* It came back without the workload it was running: that died with
       an earlier process.  What that one spooled is still taken
       (on_snapshot) for a while (the drain window in steps_tick), but
       nothing more will come. */
    char why[96] = "";
    if (old_pid && old_pid != h->pid)
        snprintf (why, sizeof why, " (pid %llu, then %llu)", (unsigned long long) old_pid,
                  (unsigned long long) h->pid);
    if (p->started) {
        step_gaps_clear (ctl->store, r->run, r->cur, (int64_t) p->agent_id, "lost");
        step_gaps_span (ctl->store, r->run, r->cur, (int64_t) p->agent_id, "restarted",
                        p->contig, -1, 0);
    }
    p->st = P_LOST;
    p->restarted = true;
    p->done_at = clock_mono_ns ();
    snprintf (p->msg, sizeof p->msg, "agent restarted during the step%s: its workload stopped "
              "there", why);
    log_warn ("run %lld step %d: agent '%s' came back without this step's workload (restarted%s); "
              "its part of the step is lost from there", (long long) r->run, r->cur + 1, p->name,
              why);
    runner_save_agent (ctl, p, NULL);
}

void
steps_on_message (ctl_t *ctl, peer_t *peer, const envelope_t *env, snapshot_prep_t *prep)
{
    runner_t *r = ctl->runner;
    uint64_t run = 0;
    uint32_t step = 0;
    switch (env->body_case) {
    case IOFLEET__ENVELOPE__BODY_READY: run = env->ready->run; step = env->ready->step; break;
    case IOFLEET__ENVELOPE__BODY_REFUSED: run = env->refused->run; step = env->refused->step; break;
    case IOFLEET__ENVELOPE__BODY_SNAPSHOT: run = env->snapshot->run; step = env->snapshot->step; break;
    case IOFLEET__ENVELOPE__BODY_DONE: run = env->done->run; step = env->done->step; break;
    default:
        return;     /* main.c registers the four kinds above (fleet.c counts others) */
    }
    /* R_RESULTS: the step has ended, as if the next one had begun. */
    part_t *p = r->phase != R_IDLE && r->phase != R_RESULTS ? runner_find_part (r, peer->id) : NULL;
    if (!p || (int64_t) run != r->run || step != (uint32_t) r->cur) {
        log_debug ("agent '%s': %s for run %llu step %u is not current; ignored", peer->name,
                   message_kind (env), (unsigned long long) run, step);
        ingest_stale (ctl, peer, env, run, step);
        return;
    }
    /* An agent marked lost while running this step (silent too long: a
       flapping link, a stopped process) that speaks again has kept
       measuring: take it back, and what it spooled meanwhile. */
    if (p->st == P_LOST && p->started && !p->restarted && r->phase == R_RUNNING
        && (env->body_case == IOFLEET__ENVELOPE__BODY_SNAPSHOT
            || env->body_case == IOFLEET__ENVELOPE__BODY_DONE)) {
        p->st = P_RUNNING;
        p->revived++;
        p->msg[0] = '\0';     /* a message on a done agent means a shortfall */
        /* Not lost after all: silent from its last message to now, which
           the report names (step_gaps 'silent'); what it measured
           meanwhile comes from its spool. */
        uint64_t now = clock_mono_ns (), quiet = p->lost_since && now > p->lost_since
                                                 ? now - p->lost_since : 0;
        step_gaps_clear (ctl->store, r->run, r->cur, (int64_t) p->agent_id, "lost");
        step_gaps_span (ctl->store, r->run, r->cur, (int64_t) p->agent_id, "silent",
                        p->lost_from, p->lost_from + (int64_t) (quiet / spec_interval (ctl)),
                        quiet);
        log_warn ("run %lld: agent '%s' came back during step %d; resuming it", (long long) r->run,
                  p->name, r->cur + 1);
        runner_save_agent (ctl, p, NULL);
    }
    switch (env->body_case) {
    case IOFLEET__ENVELOPE__BODY_READY: {
        if (p->st != P_PREPARING)
            return;
        p->st = P_READY;
        p->ntargets = (uint32_t) env->ready->n_targets;
        /* What each target is to move, for the per-drive progress (none
           from an older agent; none when out of memory: no progress). */
        free (p->planned);
        free (p->moved);
        p->planned = calloc (p->ntargets, sizeof *p->planned);
        p->moved = calloc (p->ntargets, sizeof *p->moved);
        for (size_t i = 0; p->planned && i < env->ready->n_planned_bytes; i++)
            p->planned[i] = env->ready->planned_bytes[i];
        p->clock_offset = env->ready->clock_offset_ns;
        p->clock_delay = env->ready->clock_delay_ns;
        p->clock_known = env->ready->clock_delay_ns > 0;
        /* The hardware as it was for this step of this run. */
        int64_t inv = inventories_store (ctl, p->agent_id, env->ready->inventory_json);
        if (inv)
            step_rows_set_inventory (ctl->store, r->run, r->cur, (int64_t) p->agent_id, inv);
        /* Jobs running together may share a file: label each target with
           its job so every (job, target) keeps rows of its own. */
        json_t *list = json_array ();
        int njobs = runner_step_njobs (r, r->cur), job = 0, left = r->job_ntargets[0];
        for (size_t i = 0; i < env->ready->n_targets; i++) {
            while (left == 0 && job + 1 < njobs)
                left = r->job_ntargets[++job];
            left--;
            char label[MSG_PATH_MAX + JOB_NAME_MAX + 2];
            if (njobs > 1)
                snprintf (label, sizeof label, "%s:%s",
                          r->plan->steps[runner_step_first (r, r->cur) + job].name,
                          env->ready->targets[i]);
            else
                snprintf (label, sizeof label, "%s", env->ready->targets[i]);
            json_array_append_new (list, json_string (label));
        }
        char *text = json_dumps (list, JSON_COMPACT);
        series_name_agent (r->series, (int) (p - r->parts), p->name, list);
        json_decref (list);
        runner_save_agent (ctl, p, text);
        free (text);
        runner_save_target_drives (ctl, p, env->ready);
        step_health_save (ctl->store, r->run, r->cur, (int64_t) p->agent_id, false,
                          env->ready->health, env->ready->n_health, env->ready->n_targets);
        runner_save_planned (ctl, p);
        break;
    }
    case IOFLEET__ENVELOPE__BODY_REFUSED:
        if (p->st != P_PREPARING)
            return;
        p->st = P_REFUSED;
        str_copy (p->msg, sizeof p->msg, env->refused->reason);
        log_warn ("run %lld step %d: agent '%s' refused: %s", (long long) r->run, r->cur + 1,
                  p->name, p->msg);
        runner_save_agent (ctl, p, NULL);
        break;
    case IOFLEET__ENVELOPE__BODY_SNAPSHOT:
        /* A restarted agent's spool holds what its old process measured. */
        if (p->st == P_RUNNING || p->st == P_DONE_WAIT || p->st == P_DONE
            || (p->st == P_LOST && p->restarted))
            ingest_snapshot (ctl, p, env->snapshot, prep);
        break;
    case IOFLEET__ENVELOPE__BODY_DONE: {
        /* ... and maybe the DONE it sent just before it died. */
        if (p->st != P_RUNNING && !(p->st == P_LOST && p->restarted))
            return;
        const Iofleet__Done *d = env->done;
        if (d->spool_dropped > p->spool_dropped)
            p->spool_dropped = d->spool_dropped;
        p->msg[0] = '\0';
        p->done_snapshots = d->snapshots;
        p->actual_start = d->actual_start;
        p->done_ops = p->done_bytes = 0;
        for (size_t i = 0; i < d->n_totals; i++) {
            for (int k = 0; k < DIR_COUNT; k++) {
                const Iofleet__DirStats *ds = message_sample_dir (d->totals[i], k);
                if (ds) {
                    p->done_ops += ds->ops;
                    p->done_bytes += ds->bytes;
                }
            }
        }
        runner_save_latency_depths (ctl, p, d);
        step_health_save (ctl->store, r->run, r->cur, (int64_t) p->agent_id, true, d->health,
                          d->n_health, p->ntargets);
        if (d->error[0]) {
            snprintf (p->msg, sizeof p->msg, "I/O error: %s", d->error);
            log_warn ("run %lld step %d: agent '%s': %s", (long long) r->run, r->cur + 1,
                      p->name, p->msg);
        }
        p->st = P_DONE_WAIT;
        p->done_at = clock_mono_ns ();
        ingest_maybe_done (ctl, p);
        break;
    }
    default:
        break;
    }
}

/* fleet_message_fn: what the agents report of a run. */
static void
s_on_message (void *arg, peer_t *peer, const envelope_t *env, snapshot_prep_t *prep)
{
    steps_on_message (arg, peer, env, prep);
}

/* fleet_hello_fn: an agent back may have lost the step it was running. */
static void
s_on_hello (void *arg, peer_t *peer, uint64_t old_pid, const Iofleet__Hello *h)
{
    steps_agent_hello (arg, peer->id, old_pid, h);
}

/* fleet_excused_fn: an agent preparing a step may be silent. */
static bool
s_on_excused (void *arg, uint64_t agent_id)
{
    return runner_agent_preparing (arg, agent_id);
}

void
steps_listen (ctl_t *ctl)
{
    static const int kinds[] = {
        IOFLEET__ENVELOPE__BODY_READY, IOFLEET__ENVELOPE__BODY_REFUSED,
        IOFLEET__ENVELOPE__BODY_SNAPSHOT, IOFLEET__ENVELOPE__BODY_DONE,
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        fleet_on (ctl->fleet, kinds[i], s_on_message, ctl);
    fleet_on_hello (ctl->fleet, s_on_hello, ctl);
    fleet_on_excused (ctl->fleet, s_on_excused, ctl);
}
