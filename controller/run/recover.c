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
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT idx, status, start_at FROM steps WHERE run_id = ? ORDER BY idx");
    sqlite3_bind_int64 (st, 1, run);
    char cur_status[32] = "pending";
    r->start_at = 0;
    while (store_row (ctl->store, st, "read the run's steps") == 1) {
        int idx = sqlite3_column_int (st, 0);
        r->nsteps = idx + 1;    /* a round's rows are added as it begins */
        const char *status = (const char *) sqlite3_column_text (st, 1);
        if (strcmp (status, "complete") == 0)
            r->steps_complete++;
        else if (strcmp (status, "partial") == 0)
            r->steps_partial++;
        else if (strcmp (status, "failed") != 0 && idx < r->cur) {
            r->cur = idx;
            str_copy (cur_status, sizeof cur_status, status);
            r->start_at = (uint64_t) sqlite3_column_int64 (st, 2);
        }
    }
    sqlite3_reset (st);
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
        st = store_stmt (ctl->store,
            "SELECT agent_id, status, message, targets, actual_start, snapshots, spool_dropped, "
            " restarted, target_planned FROM step_agents WHERE run_id = ? AND step_idx = ?");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, r->cur);
        while (store_row (ctl->store, st, "read the step's agents") == 1) {
            part_t *p = runner_find_part (r, (uint64_t) sqlite3_column_int64 (st, 0));
            if (!p)
                continue;
            p->st = pstate_of ((const char *) sqlite3_column_text (st, 1));
            str_copy (p->msg, sizeof p->msg, (const char *) sqlite3_column_text (st, 2));
            json_t *tl = json_loads ((const char *) sqlite3_column_text (st, 3), 0, NULL);
            p->ntargets = (uint32_t) json_array_size (tl);
            series_name_agent (r->series, (int) (p - r->parts), p->name, tl);
            json_decref (tl);
            p->actual_start = (uint64_t) sqlite3_column_int64 (st, 4);
            p->done_snapshots = (uint32_t) sqlite3_column_int (st, 5);
            p->spool_dropped = (uint32_t) sqlite3_column_int (st, 6);
            p->restarted = sqlite3_column_int (st, 7) != 0;
            recover_planned (p, (const char *) sqlite3_column_text (st, 8));
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
        sqlite3_reset (st);
        /* The bytes each target moved so far, for the per-drive progress. */
        st = store_stmt (ctl->store,
            "SELECT agent_id, target, SUM(read_bytes + write_bytes + trim_bytes) FROM snapshots "
            "WHERE run_id = ? AND step_idx = ? GROUP BY agent_id, target");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, r->cur);
        while (store_row (ctl->store, st, "read the bytes the step moved") == 1) {
            part_t *p = runner_find_part (r, (uint64_t) sqlite3_column_int64 (st, 0));
            int64_t t = sqlite3_column_int64 (st, 1);
            if (p && p->moved && t >= 0 && t < (int64_t) p->ntargets)
                p->moved[t] = (uint64_t) sqlite3_column_int64 (st, 2);
        }
        sqlite3_reset (st);
        /* What is stored already: resent copies are acked, not stored twice. */
        st = store_stmt (ctl->store,
            "SELECT agent_id, seq FROM snapshot_blocks WHERE run_id = ? AND step_idx = ?");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, r->cur);
        while (store_row (ctl->store, st, "read the step's stored snapshots") == 1) {
            part_t *p = runner_find_part (r, (uint64_t) sqlite3_column_int64 (st, 0));
            int64_t seq = sqlite3_column_int64 (st, 1);
            if (!p || seq < 0 || seq > 10000000)
                continue;
            if (runner_seen_room (p, (uint32_t) seq) == 0)
                p->seen[seq] = 1;
        }
        sqlite3_reset (st);
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
    runner_set_status (ctl, run, "running", "resumed after a controller restart");
}

void
recover_run (ctl_t *ctl)
{
    store_begin (ctl->store);
    int64_t newest = 0;
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT MAX(id) FROM runs WHERE status = 'running'");
    if (store_row (ctl->store, st, "find the running run") == 1)
        newest = sqlite3_column_int64 (st, 0);
    sqlite3_reset (st);
    /* One run runs at a time: any other left 'running' is from an older
       crash and cannot be picked up. */
    st = store_stmt (ctl->store,
        "UPDATE runs SET status = 'failed', finished_at = ?1, "
        "message = 'the controller stopped during this run; snapshots stored until then are kept' "
        "WHERE status = 'running' AND id != ?2");
    sqlite3_bind_int64 (st, 1, (sqlite3_int64) clock_real_ns ());
    sqlite3_bind_int64 (st, 2, newest);
    store_step_done (ctl->store, st, "recover runs");
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
