/*  runner.c: the run in hand: its plan and steps, its agents' parts, what
    records them (runs, steps, step_agents, latency_depths: written through
    store/runs.c and store/step_rows.c), and the run-end event its
    subscribers hear (runner_on_end).
*/
#include "runner.h"
#include "tuning.h"
#include "log.h"
#include "util.h"
#include "finalizer.h"
#include "fleet.h"
#include "series.h"
#include "snapshot_prep.h"
#include "runs.h"
#include "step_rows.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

const char *const runner_pstate_names[P_NSTATES] = {
    "preparing", "ready", "refused", "running", "finishing", "done", "failed", "lost",
    "cancelled",
};

/* The store's commit hook: the fleet intervals go in with the snapshots. */
static void
flush_series (void *arg)
{
    runner_t *r = arg;
    series_flush (r->series, r->store);
}

runner_t *
runner_new (ctl_t *ctl)
{
    runner_t *r = calloc (1, sizeof (runner_t));
    if (!r)
        return NULL;
    r->series = series_new ();
    if (!r->series) {
        free (r);
        return NULL;
    }
    r->finalizer = finalizer_new (store_path (ctl->store));
    if (!r->finalizer) {
        series_destroy (&r->series);
        free (r);
        return NULL;
    }
    r->store = ctl->store;
    store_on_commit (ctl->store, flush_series, r);
    return r;
}

static void
free_parts (runner_t *r)
{
    for (int i = 0; i < r->nparts; i++) {
        free (r->parts[i].seen);
        free (r->parts[i].planned);
        free (r->parts[i].moved);
    }
    free (r->parts);
    r->parts = NULL;
    r->nparts = 0;
}

void
runner_destroy (runner_t **self_p)
{
    runner_t *r = *self_p;
    if (!r)
        return;
    /* A step's results not stored yet are made again by the next
       controller (its status is still 'running'). */
    finalizer_destroy (&r->finalizer);
    free_parts (r);
    jobfile_destroy (&r->plan);
    for (size_t i = 0; i < r->capacks; i++)
        free (r->acks[i].seqs);
    free (r->acks);
    free (r->marks);
    snapshot_prep_clear (&r->prep);
    if (r->store)
        store_on_commit (r->store, NULL, NULL);
    series_destroy (&r->series);
    free (r);
    *self_p = NULL;
}

void
runner_on_end (runner_t *self, runner_end_fn *fn, void *arg)
{
    IOF_ASSERT (fn && self->nends < RUNNER_END_MAX);
    self->ends[self->nends].fn = fn;
    self->ends[self->nends].arg = arg;
    self->nends++;
}

void
runner_clear (runner_t *r)
{
    jobfile_destroy (&r->plan);
    free_parts (r);
    r->phase = R_IDLE;
    r->run = 0;
}

int
runner_seen_room (part_t *p, uint32_t seq)
{
    if (seq < p->nseen)
        return 0;
    size_t n = p->nseen ? p->nseen : 64;
    while (n <= seq)
        n *= 2;
    uint8_t *seen = realloc (p->seen, n);
    if (!seen)
        return -1;
    memset (seen + p->nseen, 0, n - p->nseen);
    p->seen = seen;
    p->nseen = n;
    return 0;
}

int
runner_abort (ctl_t *ctl, uint64_t agent_id, const char *why)
{
    peer_t *peer = fleet_find_id (ctl->fleet, agent_id);
    if (!peer)
        return -1;
    Iofleet__Abort a = IOFLEET__ABORT__INIT;
    a.run = (uint64_t) ctl->runner->run;
    a.reason = (char *) why;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
    env.abort = &a;
    return fleet_send (ctl->fleet, peer, &env);
}

part_t *
runner_find_part (runner_t *r, uint64_t agent_id)
{
    for (int i = 0; i < r->nparts; i++)
        if (r->parts[i].agent_id == agent_id)
            return &r->parts[i];
    return NULL;
}

void
runner_plan_steps (runner_t *r)
{
    r->ngroups = jobfile_group (r->plan, r->first);
    r->npre = (r->plan->purge ? 1 : 0) + (r->plan->precondition ? 1 : 0);
    r->round_steps = r->ngroups - r->npre;
    r->max_rounds = r->plan->rounds ? (int) r->plan->rounds : 1;
    r->tracked = -1;
    for (int g = r->npre; r->plan->steady && g < r->ngroups; g++)
        for (int j = r->first[g]; j < r->first[g + 1]; j++)
            if (strcmp (r->plan->steps[j].name, r->plan->rule.step) == 0)
                r->tracked = g;
}

int
runner_group (const runner_t *r, int i)
{
    if (i < r->npre || r->round_steps <= 0)
        return i;
    return r->npre + (i - r->npre) % r->round_steps;
}

int
runner_round (const runner_t *r, int i)
{
    if (!r->plan->rounds || i < r->npre || r->round_steps <= 0)
        return 0;
    return (i - r->npre) / r->round_steps + 1;
}

/* The first job of step i: its options stand for the step's in logs and
   in the report's "job". */
const job_t *
runner_step_job (const runner_t *r, int i)
{
    return &r->plan->steps[r->first[runner_group (r, i)]];
}

int
runner_step_first (const runner_t *r, int i)
{
    return r->first[runner_group (r, i)];
}

int
runner_step_njobs (const runner_t *r, int i)
{
    int g = runner_group (r, i);
    return r->first[g + 1] - r->first[g];
}

/* "a" or "a+b+c" for jobs that run together. */
const char *
runner_step_name (const runner_t *r, int i, char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    int g = runner_group (r, i);
    for (int j = r->first[g]; j < r->first[g + 1] && off < cap; j++)
        off += (size_t) snprintf (buf + off, cap - off, "%s%s", j > r->first[g] ? "+" : "",
                                  r->plan->steps[j].name);
    return buf;
}

/* How long step i should take (its longest job), or 0 when some job is
   bounded by size only. */
uint64_t
runner_step_planned_ns (const runner_t *r, int i)
{
    uint64_t longest = 0;
    int g = runner_group (r, i);
    for (int j = r->first[g]; j < r->first[g + 1]; j++) {
        const job_t *jd = &r->plan->steps[j];
        if (!jd->runtime_ns)
            return 0;
        uint64_t t = jd->startdelay_ns + jd->ramp_time_ns + jd->runtime_ns;
        longest = t > longest ? t : longest;
    }
    return longest;
}

bool
runner_agent_preparing (ctl_t *ctl, uint64_t agent_id)
{
    runner_t *r = ctl->runner;
    part_t *p = r->phase == R_PREPARING ? runner_find_part (r, agent_id) : NULL;
    return p && p->st == P_PREPARING;
}

void
runner_set_status (ctl_t *ctl, int64_t run, const char *status, const char *message)
{
    store_begin (ctl->store);
    runs_set_status (ctl->store, run, status, message, (int64_t) clock_real_ns ());
    /* However a run ends, its subscribers hear it (a schedule that
       queued it gets its verdict). */
    runner_t *r = ctl->runner;
    if (strcmp (status, "complete") == 0 || strcmp (status, "partial") == 0
        || strcmp (status, "failed") == 0 || strcmp (status, "cancelled") == 0)
        for (int i = 0; i < r->nends; i++)
            r->ends[i].fn (r->ends[i].arg, run, status);
}

void
runner_save_agent (ctl_t *ctl, const part_t *p, const char *targets_json)
{
    runner_t *r = ctl->runner;
    store_begin (ctl->store);
    step_rows_agent_t a = {
        .agent_id = (int64_t) p->agent_id,
        .status = runner_pstate_names[p->st],
        .message = p->msg,
        .actual_start = (int64_t) p->actual_start,
        .snapshots = (int) p->done_snapshots,
        .clock_known = p->clock_known,
        .clock_offset = p->clock_offset,
        .clock_delay = (int64_t) p->clock_delay,
        .spool_dropped = p->spool_dropped,
        .restarted = p->restarted,
    };
    step_rows_save_agent (ctl->store, r->run, r->cur, &a, targets_json);
}

/* latency_target: the depth each job of the step in hand found, as DONE d
   says (one entry per job, in the step's order; 0 for a job without a
   target, none at all when no job has one), into latency_depths.  A list
   that is not one entry per job, or a depth the plan cannot have given (a
   job without a target, above the job's iodepth), is counted as a bad
   message and left out: the report then shows no depth for that agent.
   Can't fail: a database error is the store's to count. */
void
runner_save_latency_depths (ctl_t *ctl, const part_t *p, const Iofleet__Done *d)
{
    /* Nothing to store for a step without a target (begin_step cleared
       the step's rows). */
    if (d->n_latency_depth == 0)
        return;
    runner_t *r = ctl->runner;
    int njobs = runner_step_njobs (r, r->cur);
    store_begin (ctl->store);
    /* The latest DONE of the agent is the one that counts. */
    step_rows_clear_depths (ctl->store, r->run, r->cur, (int64_t) p->agent_id);
    if (d->n_latency_depth != (size_t) njobs) {
        store_count (ctl->store, "bad_agent_messages", 1);
        log_warn ("run %lld step %d: agent '%s': DONE's latency_depth has %zu entries, the step "
                  "has %d job(s); its depths are not stored", (long long) r->run, r->cur + 1,
                  p->name, d->n_latency_depth, njobs);
        return;
    }
    for (int j = 0; j < njobs; j++) {
        const job_t *jd = &r->plan->steps[runner_step_first (r, r->cur) + j];
        uint32_t depth = d->latency_depth[j];
        if (depth == 0)
            continue;
        if (!jd->latency_target_ns || depth > jd->iodepth) {
            store_count (ctl->store, "bad_agent_messages", 1);
            log_warn ("run %lld step %d: agent '%s': DONE's latency_depth[%d] %u for job '%s', "
                      "which %s; not stored", (long long) r->run, r->cur + 1, p->name, j, depth,
                      jd->name, !jd->latency_target_ns ? "has no latency_target"
                                                       : "is above the job's iodepth");
            continue;
        }
        step_rows_add_depth (ctl->store, r->run, r->cur, (int64_t) p->agent_id, j, depth);
    }
}

void
runner_save_planned (ctl_t *ctl, const part_t *p)
{
    runner_t *r = ctl->runner;
    bool any = false;
    for (uint32_t i = 0; p->planned && i < p->ntargets; i++)
        any |= p->planned[i] > 0;
    if (!any)
        return;
    json_t *list = json_array ();
    for (uint32_t i = 0; i < p->ntargets; i++)
        json_array_append_new (list, json_integer ((json_int_t) p->planned[i]));
    char *text = json_dumps (list, JSON_COMPACT);
    json_decref (list);
    step_rows_set_planned (ctl->store, r->run, r->cur, (int64_t) p->agent_id,
                           text ? text : "[]");
    free (text);
}

/* Which drive each READY target is, from the inventory that came with it,
   so results can be grouped by model, firmware and transport. */
void
runner_save_target_drives (ctl_t *ctl, const part_t *p, const Iofleet__Ready *ready)
{
    runner_t *r = ctl->runner;
    json_t *inv = ready->inventory_json && ready->inventory_json[0]
                ? json_loads (ready->inventory_json, 0, NULL) : NULL;
    json_t *drives = json_object_get (inv, "drives");
    json_t *list = json_array ();
    int njobs = runner_step_njobs (r, r->cur), job = 0, left = r->job_ntargets[0];
    for (size_t i = 0; i < ready->n_targets; i++) {
        while (left == 0 && job + 1 < njobs)
            left = r->job_ntargets[++job];
        left--;
        const job_t *jd = &r->plan->steps[runner_step_first (r, r->cur) + job];
        json_t *match = json_null ();
        size_t k;
        json_t *d;
        json_array_foreach (drives, k, d) {
            const char *path = json_string_value (json_object_get (d, "path"));
            if (path && strcmp (path, ready->targets[i]) == 0) {
                match = json_pack ("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}",
                    "name", json_object_get (d, "name"),
                    "model", json_object_get (d, "model"),
                    "firmware", json_object_get (d, "firmware"),
                    "transport", json_object_get (d, "transport"),
                    "serial", json_object_get (d, "serial"),
                    "controller", json_object_get (d, "controller"));
                json_object_set_new (match, "lint", tuning_lint (inv, d, jd));
                break;
            }
        }
        json_array_append_new (list, match ? match : json_null ());
    }
    json_decref (inv);
    char *text = json_dumps (list, JSON_COMPACT);
    json_decref (list);
    step_rows_set_drives (ctl->store, r->run, r->cur, (int64_t) p->agent_id, text ? text : "[]");
    free (text);
}

void
runner_set_step (ctl_t *ctl, const char *status)
{
    runner_t *r = ctl->runner;
    store_begin (ctl->store);
    step_rows_set_status (ctl->store, r->run, r->cur, status, (int64_t) r->start_at,
                          (int64_t) clock_real_ns ());
}

void
runner_finish (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    int n = r->nsteps;
    const char *status = r->policy_failed ? "failed"
                       : r->steps_complete == n ? "complete"
                       : (r->steps_complete + r->steps_partial) > 0 ? "partial" : "failed";
    char msg[512] = "";
    if (r->policy_failed)
        snprintf (msg, sizeof msg, "run policy: %s", r->policy_msg);
    else if (strcmp (status, "complete") != 0)
        snprintf (msg, sizeof msg, "%d of %d step(s) complete on every agent, %d partial; "
                  "see the report for each agent's reason", r->steps_complete, n,
                  r->steps_partial);
    /* A run a controller restart interrupted says so whatever its end,
       so that its report names what happened. */
    if (r->resumed[0]) {
        size_t len = strlen (msg);
        snprintf (msg + len, sizeof msg - len, "%s%s", len ? "; " : "", r->resumed);
    }
    runner_set_status (ctl, r->run, status, msg);
    log_info ("run %lld %s%s%s", (long long) r->run, status, msg[0] ? ": " : "", msg);
    r->resumed[0] = '\0';
    runner_clear (r);
}

/* Loads run's plan, policy and agents into the runner.  Returns 0, or -1
   having marked the run failed. */
int
runner_load (ctl_t *ctl, int64_t run)
{
    runner_t *r = ctl->runner;
    char err[512] = "";
    char *text = NULL;
    r->resumed[0] = '\0';
    int found = runs_plan_of (ctl->store, run, r->plan_name, sizeof r->plan_name, &text,
                              &r->min_agents, &r->require_all);
    if (found == 1) {
        r->policy_failed = false;
        r->policy_msg[0] = '\0';
        r->plan = jobfile_parse (r->plan_name, text, err, sizeof err);
    } else if (found < 0)
        snprintf (err, sizeof err, "database error reading the plan of run %lld; see the "
                  "controller's log", (long long) run);
    else
        snprintf (err, sizeof err, "plan of run %lld not found", (long long) run);
    free (text);
    if (!r->plan) {
        runner_set_status (ctl, run, "failed", err);
        log_err ("run %lld failed to start: %s", (long long) run, err);
        return -1;
    }
    json_t *agents = runs_agents (ctl->store, run);
    int cap = 0;
    size_t i;
    json_t *a;
    json_array_foreach (agents, i, a) {
        if (r->nparts == cap) {
            int ncap = cap ? cap * 2 : 16;
            part_t *parts = realloc (r->parts, (size_t) ncap * sizeof *r->parts);
            if (!parts) {
                /* the agents beyond are not in this run */
                log_err ("run %lld: out of memory listing its agents; running on the first %d",
                         (long long) run, r->nparts);
                break;
            }
            r->parts = parts;
            cap = ncap;
        }
        part_t *p = &r->parts[r->nparts++];
        memset (p, 0, sizeof *p);
        p->agent_id = (uint64_t) json_integer_value (json_object_get (a, "id"));
        str_copy (p->name, sizeof p->name, json_string_value (json_object_get (a, "name")));
    }
    bool failed = !agents;
    json_decref (agents);
    /* Never a run on part of its agents for want of reading the rest. */
    if (failed) {
        runner_set_status (ctl, run, "failed", "database error listing its agents; see the "
                        "controller's log");
        return -1;
    }
    return 0;
}
