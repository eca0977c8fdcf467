/*  recover.c: a run picked up after a controller restart.  The steps it
    finished stay as they are; the step in hand waits (R_RECOVER) for its
    agents to come back, then goes on: a running step keeps what is stored
    and takes what the agents spooled meanwhile; a step still preparing is
    prepared again (by run.c, told so by recover_tick).
*/
#include "runner.h"
#include "log.h"
#include "util.h"
#include "recover.h"
#include "fleet.h"
#include "series.h"
#include "runs.h"
#include "snapshot_store.h"
#include "step_rows.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

#define RECOVER_WAIT_NS       (30 * NS_PER_SEC)   /* for agents after a restart */

static pstate_t
pstate_of (const char *name)
{
    for (int i = 0; i < P_NSTATES; i++)
        if (strcmp (runner_pstate_names[i], name) == 0)
            return (pstate_t) i;
    return P_LOST;
}

/* p's planned bytes per target from step_agents.target_planned (text:
   NULL or a JSON array), with room for the bytes moved; none (no
   per-drive progress) when there is no such list or it does not match
   p's targets. */
static void
recover_planned (part_t *p, const char *text)
{
    free (p->planned);
    free (p->moved);
    p->planned = p->moved = NULL;
    json_t *list = text ? json_loads (text, 0, NULL) : NULL;
    if (json_array_size (list) == p->ntargets && p->ntargets > 0) {
        p->planned = calloc (p->ntargets, sizeof *p->planned);
        p->moved = calloc (p->ntargets, sizeof *p->moved);
        for (uint32_t i = 0; p->planned && i < p->ntargets; i++) {
            json_int_t v = json_integer_value (json_array_get (list, i));
            p->planned[i] = v > 0 ? (uint64_t) v : 0;
        }
    }
    json_decref (list);
}

/* Marks agent's snapshot seq of the step in hand stored (a
   snapshot_store_seq_fn).  Can't fail (out of memory: not marked). */
static void
mark_seen (void *arg, int64_t agent, int64_t seq)
{
    part_t *p = runner_find_part (arg, (uint64_t) agent);
    if (!p || seq < 0 || seq > 10000000)
        return;
    if (runner_seen_room (p, (uint32_t) seq) == 0)
        p->seen[seq] = 1;
}

/* Picks the run up where the last controller process left it: the steps
   it finished stay as they are; the step in hand goes on once its agents
   are back (R_RECOVER): a running step keeps the snapshots stored so far
   and takes what the agents spooled meanwhile (they resend everything not
   acked, DONE included); a step still preparing is prepared again. */
static void
resume_run (ctl_t *ctl, int64_t run)
{
    runner_t *r = ctl->runner;
    if (runner_load (ctl, run))
        return;
    r->run = run;
    runner_plan_steps (r);
    r->steps_complete = r->steps_partial = 0;
    r->nsteps = 0;
    r->cur = INT32_MAX;
    /* A read error (logged) ends the list: the steps read are taken. */
    json_t *rows, *row;
    size_t i;
    step_rows_list (ctl->store, run, &rows);
    char cur_status[32] = "pending";
    r->start_at = 0;
    json_array_foreach (rows, i, row) {
        int idx = (int) json_integer_value (json_object_get (row, "idx"));
        r->nsteps = idx + 1;    /* a round's rows are added as it begins */
        const char *status = json_string_value (json_object_get (row, "status"));
        if (strcmp (status, "complete") == 0)
            r->steps_complete++;
        else if (strcmp (status, "partial") == 0)
            r->steps_partial++;
        else if (strcmp (status, "failed") != 0 && idx < r->cur) {
            r->cur = idx;
            str_copy (cur_status, sizeof cur_status, status);
            r->start_at = (uint64_t) json_integer_value (json_object_get (row, "start_at"));
        }
    }
    json_decref (rows);
    if (r->cur >= r->nsteps) {
        r->cur = r->nsteps;
        runner_finish (ctl);
        return;
    }
    /* The step's figures start again from here (a counter reset to
       Prometheus), under their names. */
    series_reset (r->series, r->run, r->cur, r->nparts);
    char name[512];
    series_name_step (r->series, runner_step_name (r, r->cur, name, sizeof name));
    r->recover_running = strcmp (cur_status, "running") == 0;
    if (r->recover_running) {
        step_rows_agents (ctl->store, run, r->cur, &rows);
        json_array_foreach (rows, i, row) {
#define COL(name) json_object_get (row, name)
            part_t *p = runner_find_part (r, (uint64_t) json_integer_value (COL ("agent_id")));
            if (!p)
                continue;
            p->st = pstate_of (json_string_value (COL ("status")));
            str_copy (p->msg, sizeof p->msg, json_string_value (COL ("message")));
            json_t *tl = json_loads (json_string_value (COL ("targets")), 0, NULL);
            p->ntargets = (uint32_t) json_array_size (tl);
            series_name_agent (r->series, (int) (p - r->parts), p->name, tl);
            json_decref (tl);
            p->actual_start = (uint64_t) json_integer_value (COL ("actual_start"));
            p->done_snapshots = (uint32_t) json_integer_value (COL ("snapshots"));
            p->spool_dropped = (uint32_t) json_integer_value (COL ("spool_dropped"));
            p->restarted = json_integer_value (COL ("restarted")) != 0;
            recover_planned (p, json_string_value (COL ("target_planned")));
#undef COL
            /* Its DONE's totals were checked against nothing yet, and are
               gone: the stored rows are all there is. */
            p->totals_unknown = p->st == P_DONE;
            /* START went out to every agent that got this far. */
            p->started = p->st == P_RUNNING || p->st == P_DONE_WAIT || p->st == P_DONE
                         || (p->st == P_LOST && p->ntargets > 0);
            if (p->st == P_DONE_WAIT) {
                p->st = P_RUNNING;      /* its DONE comes again */
                p->msg[0] = '\0';
            }
        }
        json_decref (rows);
        /* The bytes each target moved so far, for the per-drive progress. */
        snapshot_store_step_bytes (ctl->store, run, r->cur, &rows);
        json_array_foreach (rows, i, row) {
            json_int_t agent = json_integer_value (json_array_get (row, 0));
            part_t *p = runner_find_part (r, (uint64_t) agent);
            int64_t t = json_integer_value (json_array_get (row, 1));
            if (p && p->moved && t >= 0 && t < (int64_t) p->ntargets)
                p->moved[t] = (uint64_t) json_integer_value (json_array_get (row, 2));
        }
        json_decref (rows);
        /* What is stored already: resent copies are acked, not stored twice. */
        snapshot_store_seqs (ctl->store, run, r->cur, mark_seen, r);
        for (int i = 0; i < r->nparts; i++) {
            part_t *p = &r->parts[i];
            while (p->contig < p->nseen && p->seen[p->contig])
                p->contig++;
        }
    }
    r->phase = R_RECOVER;
    r->deadline = clock_mono_ns () + RECOVER_WAIT_NS;
    log_warn ("run %lld: resuming at step %d/%d (%s when the controller stopped); waiting up to "
              "%.0f s for its %d agent(s) to come back", (long long) run, r->cur + 1, r->nsteps,
              cur_status, (double) RECOVER_WAIT_NS / 1e9, r->nparts);
    snprintf (r->resumed, sizeof r->resumed, "resumed at step %d/%d after a controller restart",
              r->cur + 1, r->nsteps);
    runner_set_status (ctl, run, "running", r->resumed);
}

void
recover_run (ctl_t *ctl)
{
    store_begin (ctl->store);
    int64_t newest = 0;
    runs_running (ctl->store, &newest);
    /* One run runs at a time: any other left 'running' is from an older
       crash and cannot be picked up. */
    runs_fail_orphans (ctl->store, newest, (int64_t) clock_real_ns ());
    if (newest)
        resume_run (ctl, newest);
    store_commit (ctl->store);
}

/* R_RECOVER: once every agent of the step in hand is back (or the wait is
   over), the step goes on. */
bool
recover_tick (ctl_t *ctl, uint64_t now)
{
    runner_t *r = ctl->runner;
    bool all = true;
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        bool needed = r->recover_running ? p->st == P_RUNNING : true;
        peer_t *peer = fleet_find_id (ctl->fleet, p->agent_id);
        if (needed && (!peer || !peer->connected))
            all = false;
    }
    if (!all && now < r->deadline)
        return false;
    if (r->recover_running) {
        r->phase = R_RUNNING;
        uint64_t planned = runner_step_planned_ns (r, r->cur);
        uint64_t real = clock_real_ns ();
        uint64_t end = r->start_at + planned + STEP_GRACE_NS;
        r->deadline = planned && r->start_at ? now + (end > real ? end - real : 0) : 0;
        log_info ("run %lld step %d: %s; going on", (long long) r->run, r->cur + 1,
                  all ? "every agent is back" : "not every agent came back");
        return false;
    }
    /* Prepared before the restart: drop that, and prepare again. */
    for (int i = 0; i < r->nparts; i++)
        runner_abort (ctl, r->parts[i].agent_id,
                   "the controller restarted while preparing; preparing again");
    return true;
}
