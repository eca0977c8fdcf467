/*  runner.c: the run state machine.

    One run at a time; others wait as 'queued'.  Each job section of the plan
    is a step; every selected agent finishes step k before step k+1 starts:

      PREPARE -> READY/REFUSED from every agent (or --prepare-timeout)
      START at controller now + margin -> SNAPSHOT ... -> DONE
      step results computed from the stored snapshots (report.c)
*/
#include "controller.h"
#include "lint.h"
#include "histogram.h"
#include "jobfile.h"
#include "jobspec.h"
#include "log.h"
#include "outliers.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define START_MARGIN_MIN_NS   (50 * NS_PER_MS)
#define STEP_GRACE_NS         (60 * NS_PER_SEC)   /* past the planned end */
#define DONE_WAIT_NS          (10 * NS_PER_SEC)   /* for resent snapshots */
#define RECOVER_WAIT_NS       (30 * NS_PER_SEC)   /* for agents after a restart */
#define RESTART_DRAIN_NS      (3 * NS_PER_SEC)    /* a restarted agent's spool, resent at once */

typedef enum {
    P_PREPARING, P_READY, P_REFUSED, P_RUNNING, P_DONE_WAIT, P_DONE, P_FAILED, P_LOST,
    P_CANCELLED, P_NSTATES
} pstate_t;

static const char *pstate_names[P_NSTATES] = {
    "preparing", "ready", "refused", "running", "finishing", "done", "failed", "lost",
    "cancelled",
};

typedef struct {
    uint64_t agent_id;
    char name[MSG_NAME_MAX + 1];
    pstate_t st;
    char msg[MSG_TEXT_MAX + 1];
    uint32_t ntargets;
    uint64_t actual_start;
    int64_t clock_offset;               /* at START; see 003_clock.sql */
    uint64_t clock_delay;
    bool clock_known;
    uint32_t done_snapshots;
    uint64_t done_ops, done_bytes;
    uint64_t done_at;                   /* monotonic */
    bool started;                       /* was sent START for this step */
    int revived;                        /* times it came back after being lost */
    bool restarted;                     /* its process restarted during the step */
    bool waited_out;                    /* DONE_WAIT ran out: msg says so */
    bool totals_unknown;                /* resumed done: DONE's totals not kept */
    uint32_t spool_dropped;             /* its spool overflowed: never coming */
    uint32_t contig;                    /* seqs 0..contig-1 are stored */
    uint64_t stored_ops, stored_bytes;  /* summed at the step's end */
    uint8_t *seen;
    size_t nseen;
    int steps_done;
} part_t;

/* R_RECOVER: after a controller restart, waiting for the run's agents to
   come back before the step in hand goes on (see runner_recover). */
typedef enum { R_IDLE, R_PREPARING, R_RUNNING, R_RECOVER } phase_t;

/* An acknowledgement waits for the commit that stores what it covers. */
typedef struct {
    uint64_t agent_id;
    int64_t run;
    uint32_t step, upto;                /* seqs < upto stored; UINT32_MAX: all */
    uint32_t *seqs;                     /* and these, past a gap */
    size_t nseqs, capseqs;              /* the buffer outlives the tick */
} ack_t;

/* A snapshot marked stored in this tick, unmarked if the commit fails. */
typedef struct {
    uint64_t agent_id;
    int64_t run;
    int step;
    uint32_t seq;
    uint32_t rows;                      /* targets stored */
    uint64_t t_end;                     /* its interval's end, controller clock */
} mark_t;

struct runner {
    phase_t phase;
    ack_t *acks;                        /* this tick's, sent after its commit */
    size_t nacks, capacks;
    mark_t *marks;
    size_t nmarks, capmarks;
    uint64_t failures_seen;             /* store_failures at the last commit */
    bool held;                          /* the database cannot be written */
    uint64_t held_since;                /* monotonic */
    uint64_t probe_at;
    uint64_t unstored, unstored_logged_at;  /* snapshots a failed commit lost */
    int64_t run;
    char plan_name[128];
    jobfile_t *plan;
    int cur;
    part_t *parts;
    int nparts;
    uint64_t deadline;                  /* monotonic, 0 = none */
    uint64_t start_at;                  /* controller clock */
    int steps_complete, steps_partial;
    int nsteps;                         /* job groups: see jobfile_group */
    int first[JOB_MAX_STEPS + 1];       /* first job of each step */
    int job_ntargets[MSG_JOBS_MAX];     /* of the step in hand, per job */
    int min_agents;
    bool require_all;
    bool policy_failed;
    char policy_msg[256];
    bool recover_running;               /* R_RECOVER: the step was running */
    series_t *series;                   /* the step's fleet time series */
    store_t *store;                     /* for the commit hook */
};

static uint64_t
spec_interval (ctl_t *ctl)
{
    return ctl->interval_ns;
}

static void queue_ack (runner_t *r, const part_t *p, uint32_t upto);
static void send_ack (ctl_t *ctl, peer_t *peer, int64_t run, uint32_t step, uint32_t upto,
                      uint32_t *seqs, size_t nseqs, bool resend);

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
    r->store = ctl->store;
    store_on_commit (ctl->store, flush_series, r);
    return r;
}

static void
free_parts (runner_t *r)
{
    for (int i = 0; i < r->nparts; i++)
        free (r->parts[i].seen);
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
    free_parts (r);
    jobfile_destroy (&r->plan);
    for (size_t i = 0; i < r->capacks; i++)
        free (r->acks[i].seqs);
    free (r->acks);
    free (r->marks);
    if (r->store)
        store_on_commit (r->store, NULL, NULL);
    series_destroy (&r->series);
    free (r);
    *self_p = NULL;
}

json_t *
job_to_json (const job_t *j)
{
    json_t *o = json_pack ("{s:s, s:s, s:b, s:s, s:i, s:i, s:i, s:i, s:i, s:I, s:i, s:I, s:i, "
                           "s:s, s:I, s:b, s:I, s:b, s:b}",
        "name", j->name, "ioengine", j->ioengine, "direct", j->direct,
        "rw", job_rw_name (j->rw), "rwmixread", (int) j->rwmixread,
        "bs", (int) j->bs[0], "bs_write", (int) j->bs[1],
        "iodepth", (int) j->iodepth, "numjobs", (int) j->numjobs,
        "size", (json_int_t) j->size, "size_pct", (int) j->size_pct,
        "offset", (json_int_t) j->offset, "offset_pct", (int) j->offset_pct,
        "filename", j->filename, "runtime_ns", (json_int_t) j->runtime_ns,
        "time_based", j->time_based, "ramp_time_ns", (json_int_t) j->ramp_time_ns,
        "group_reporting", j->group_reporting, "stonewall", j->stonewall);
    if (j->npercentiles) {
        json_t *p = json_array ();
        for (int i = 0; i < j->npercentiles; i++)
            json_array_append_new (p, json_real (j->percentile_list[i]));
        json_object_set_new (o, "percentile_list", p);
    }
    if (j->sla[0])
        json_object_set_new (o, "sla", json_string (j->sla));
    if (j->sweep_of[0])
        json_object_set_new (o, "sweep_of", json_string (j->sweep_of));
    if (j->rate_iops[0] || j->rate_iops[1])
        json_object_set_new (o, "rate_iops", json_pack ("[i, i]", (int) j->rate_iops[0],
                                                        (int) j->rate_iops[1]));
    if (j->nbssplit[0] || j->nbssplit[1] || j->bsrange_min[0] || j->bsrange_min[1])
        json_object_set_new (o, "mixed_bs", json_true ());
    /* Only with a target: a step without one keeps the spec it always had. */
    if (j->latency_target_ns) {
        json_object_set_new (o, "latency_target_ns",
                             json_integer ((json_int_t) j->latency_target_ns));
        json_object_set_new (o, "latency_window_ns",
                             json_integer ((json_int_t) j->latency_window_ns));
        json_object_set_new (o, "latency_percentile", json_real (j->latency_percentile));
        json_object_set_new (o, "latency_run", json_boolean (j->latency_run));
    }
    return o;
}

static part_t *
find_part (runner_t *r, uint64_t agent_id)
{
    for (int i = 0; i < r->nparts; i++)
        if (r->parts[i].agent_id == agent_id)
            return &r->parts[i];
    return NULL;
}

/* The first job of step i: its options stand for the step's in logs and
   in the report's "job". */
static const job_t *
step_job (const runner_t *r, int i)
{
    return &r->plan->steps[r->first[i]];
}

static int
step_njobs (const runner_t *r, int i)
{
    return r->first[i + 1] - r->first[i];
}

/* "a" or "a+b+c" for jobs that run together. */
static const char *
step_name (const runner_t *r, int i, char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int j = r->first[i]; j < r->first[i + 1] && off < cap; j++)
        off += (size_t) snprintf (buf + off, cap - off, "%s%s", j > r->first[i] ? "+" : "",
                                  r->plan->steps[j].name);
    return buf;
}

/* How long step i should take (its longest job), or 0 when some job is
   bounded by size only. */
static uint64_t
step_planned_ns (const runner_t *r, int i)
{
    uint64_t longest = 0;
    for (int j = r->first[i]; j < r->first[i + 1]; j++) {
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
    part_t *p = r->phase == R_PREPARING ? find_part (r, agent_id) : NULL;
    return p && p->st == P_PREPARING;
}

static void
set_run_status (ctl_t *ctl, int64_t run, const char *status, const char *message)
{
    store_begin (ctl->store);
    sqlite3_stmt *st = store_stmt (ctl->store,
        "UPDATE runs SET status = ?2, message = ?3, "
        "started_at = CASE WHEN ?2 = 'running' THEN ?4 ELSE started_at END, "
        "finished_at = CASE WHEN ?2 IN ('complete','partial','failed','cancelled') THEN ?4 "
        " ELSE finished_at END "
        "WHERE id = ?1");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_text (st, 2, status, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 3, message, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 4, (sqlite3_int64) clock_real_ns ());
    store_step_done (ctl->store, st, "update run status");
    /* However a run ends, a schedule that queued it gets its verdict. */
    if (strcmp (status, "complete") == 0 || strcmp (status, "partial") == 0
        || strcmp (status, "failed") == 0 || strcmp (status, "cancelled") == 0)
        sched_on_run_end (ctl, run, status);
}

static void
save_step_agent (ctl_t *ctl, const part_t *p, const char *targets_json)
{
    runner_t *r = ctl->runner;
    store_begin (ctl->store);
    sqlite3_stmt *st = store_stmt (ctl->store,
        "INSERT INTO step_agents (run_id, step_idx, agent_id, status, message, targets, "
        " actual_start, snapshots, clock_offset_ns, clock_delay_ns, spool_dropped, restarted) "
        "VALUES (?1, ?2, ?3, ?4, ?5, COALESCE(?6, '[]'), ?7, ?8, ?9, ?10, ?11, ?12) "
        "ON CONFLICT (run_id, step_idx, agent_id) DO UPDATE SET status = excluded.status, "
        "message = excluded.message, targets = COALESCE(?6, targets), "
        "actual_start = excluded.actual_start, snapshots = excluded.snapshots, "
        "clock_offset_ns = excluded.clock_offset_ns, clock_delay_ns = excluded.clock_delay_ns, "
        "spool_dropped = excluded.spool_dropped, restarted = excluded.restarted");
    sqlite3_bind_int64 (st, 1, r->run);
    sqlite3_bind_int (st, 2, r->cur);
    sqlite3_bind_int64 (st, 3, (sqlite3_int64) p->agent_id);
    sqlite3_bind_text (st, 4, pstate_names[p->st], -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 5, p->msg, -1, SQLITE_TRANSIENT);
    if (targets_json)
        sqlite3_bind_text (st, 6, targets_json, -1, SQLITE_TRANSIENT);
    if (p->actual_start)
        sqlite3_bind_int64 (st, 7, (sqlite3_int64) p->actual_start);
    sqlite3_bind_int (st, 8, (int) p->done_snapshots);
    if (p->clock_known) {
        sqlite3_bind_int64 (st, 9, p->clock_offset);
        sqlite3_bind_int64 (st, 10, (sqlite3_int64) p->clock_delay);
    }
    sqlite3_bind_int64 (st, 11, p->spool_dropped);
    sqlite3_bind_int (st, 12, p->restarted);
    store_step_done (ctl->store, st, "store step agent");
}

/* latency_target: the depth each job of the step in hand found, as DONE d
   says (one entry per job, in the step's order; 0 for a job without a
   target, none at all when no job has one), into latency_depths.  A list
   that is not one entry per job, or a depth the plan cannot have given (a
   job without a target, above the job's iodepth), is counted as a bad
   message and left out: the report then shows no depth for that agent.
   Can't fail: a database error is the store's to count. */
static void
save_latency_depths (ctl_t *ctl, const part_t *p, const Iofleet__Done *d)
{
    /* Nothing to store for a step without a target (begin_step cleared
       the step's rows). */
    if (d->n_latency_depth == 0)
        return;
    runner_t *r = ctl->runner;
    int njobs = step_njobs (r, r->cur);
    store_begin (ctl->store);
    /* The latest DONE of the agent is the one that counts. */
    sqlite3_stmt *st = store_stmt (ctl->store,
        "DELETE FROM latency_depths WHERE run_id = ? AND step_idx = ? AND agent_id = ?");
    sqlite3_bind_int64 (st, 1, r->run);
    sqlite3_bind_int (st, 2, r->cur);
    sqlite3_bind_int64 (st, 3, (sqlite3_int64) p->agent_id);
    store_step_done (ctl->store, st, "clear latency depths");
    if (d->n_latency_depth != (size_t) njobs) {
        store_count (ctl->store, "bad_agent_messages", 1);
        log_warn ("run %lld step %d: agent '%s': DONE's latency_depth has %zu entries, the step "
                  "has %d job(s); its depths are not stored", (long long) r->run, r->cur + 1,
                  p->name, d->n_latency_depth, njobs);
        return;
    }
    for (int j = 0; j < njobs; j++) {
        const job_t *jd = &r->plan->steps[r->first[r->cur] + j];
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
        st = store_stmt (ctl->store,
            "INSERT OR REPLACE INTO latency_depths (run_id, step_idx, agent_id, job_idx, depth) "
            "VALUES (?, ?, ?, ?, ?)");
        sqlite3_bind_int64 (st, 1, r->run);
        sqlite3_bind_int (st, 2, r->cur);
        sqlite3_bind_int64 (st, 3, (sqlite3_int64) p->agent_id);
        sqlite3_bind_int (st, 4, j);
        sqlite3_bind_int64 (st, 5, depth);
        store_step_done (ctl->store, st, "store a latency depth");
    }
}

/* Which drive each READY target is, from the inventory that came with it,
   so results can be grouped by model, firmware and transport. */
static void
save_target_drives (ctl_t *ctl, const part_t *p, const Iofleet__Ready *ready)
{
    runner_t *r = ctl->runner;
    json_t *inv = ready->inventory_json && ready->inventory_json[0]
                ? json_loads (ready->inventory_json, 0, NULL) : NULL;
    json_t *drives = json_object_get (inv, "drives");
    json_t *list = json_array ();
    int njobs = step_njobs (r, r->cur), job = 0, left = r->job_ntargets[0];
    for (size_t i = 0; i < ready->n_targets; i++) {
        while (left == 0 && job + 1 < njobs)
            left = r->job_ntargets[++job];
        left--;
        const job_t *jd = &r->plan->steps[r->first[r->cur] + job];
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
    sqlite3_stmt *st = store_stmt (ctl->store,
        "UPDATE step_agents SET target_drives = ? WHERE run_id = ? AND step_idx = ? AND agent_id = ?");
    sqlite3_bind_text (st, 1, text ? text : "[]", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, r->run);
    sqlite3_bind_int (st, 3, r->cur);
    sqlite3_bind_int64 (st, 4, (sqlite3_int64) p->agent_id);
    store_step_done (ctl->store, st, "store target drives");
    free (text);
}

static void
set_step (ctl_t *ctl, const char *status)
{
    runner_t *r = ctl->runner;
    store_begin (ctl->store);
    sqlite3_stmt *st = store_stmt (ctl->store,
        "UPDATE steps SET status = ?3, start_at = COALESCE(?4, start_at), "
        "finished_at = CASE WHEN ?3 IN ('complete','partial','failed','cancelled') THEN ?5 "
        " ELSE finished_at END "
        "WHERE run_id = ?1 AND idx = ?2");
    sqlite3_bind_int64 (st, 1, r->run);
    sqlite3_bind_int (st, 2, r->cur);
    sqlite3_bind_text (st, 3, status, -1, SQLITE_STATIC);
    if (r->start_at)
        sqlite3_bind_int64 (st, 4, (sqlite3_int64) r->start_at);
    sqlite3_bind_int64 (st, 5, (sqlite3_int64) clock_real_ns ());
    store_step_done (ctl->store, st, "update step");
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

static void
begin_step (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    static jobspec_t js[MSG_JOBS_MAX];
    static Iofleet__JobSpec *more[MSG_JOBS_MAX];
    int njobs = step_njobs (r, r->cur);
    for (int i = 0; i < njobs; i++) {
        jobspec_from_job (&js[i], &r->plan->steps[r->first[r->cur] + i], spec_interval (ctl));
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
              r->nsteps, step_name (r, r->cur, name, sizeof name), r->nparts);
    r->start_at = 0;
    set_step (ctl, "preparing");
    /* A step prepared again (after a controller restart) starts afresh:
       rows of an attempt that did not finish would shadow the new ones. */
    sqlite3_stmt *del = store_stmt (ctl->store,
        "DELETE FROM snapshots WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (del, 1, r->run);
    sqlite3_bind_int (del, 2, r->cur);
    store_step_done (ctl->store, del, "clear an earlier attempt's snapshots");
    del = store_stmt (ctl->store, "DELETE FROM fleet_intervals WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (del, 1, r->run);
    sqlite3_bind_int (del, 2, r->cur);
    store_step_done (ctl->store, del, "clear an earlier attempt's fleet intervals");
    del = store_stmt (ctl->store, "DELETE FROM latency_depths WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (del, 1, r->run);
    sqlite3_bind_int (del, 2, r->cur);
    store_step_done (ctl->store, del, "clear an earlier attempt's latency depths");
    series_reset (r->series, r->run, r->cur, r->nparts);
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        free (p->seen);
        p->seen = NULL;
        p->nseen = 0;
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
        peer_t *peer = fleet_find_id (ctl, p->agent_id);
        const char *too_old = peer ? step_too_new (peer, js, njobs) : NULL;
        if (!peer || !peer->connected) {
            p->st = P_LOST;
            snprintf (p->msg, sizeof p->msg, "agent not connected when the step began");
        } else if (too_old) {
            /* An older agent would skip the fields it does not know and run
               another job than the plan's without a word. */
            p->st = P_REFUSED;
            snprintf (p->msg, sizeof p->msg, "%s", too_old);
            log_warn ("run %lld step %d: agent '%s': %s", (long long) r->run, r->cur + 1,
                      p->name, too_old);
        } else if (fleet_send (ctl, peer, &env) != 0) {
            p->st = P_LOST;
            snprintf (p->msg, sizeof p->msg, "agent not connected when the step began");
        } else
            p->st = P_PREPARING;
        save_step_agent (ctl, p, NULL);
    }
    r->phase = R_PREPARING;
    r->deadline = clock_mono_ns () + ctl->prepare_timeout_ns;
}

static void
finish_run (ctl_t *ctl)
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
    set_run_status (ctl, r->run, status, msg);
    log_info ("run %lld %s%s%s", (long long) r->run, status, msg[0] ? ": " : "", msg);
    jobfile_destroy (&r->plan);
    free_parts (r);
    r->phase = R_IDLE;
    r->run = 0;
}

/* DONE carries the agent's own totals; they must equal the sum of the
   snapshots stored (p->stored_*, summed by report_finalize_step), or
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
    part_t *p = find_part (arg, agent_id);
    if (p) {
        p->stored_ops = ops;
        p->stored_bytes = bytes;
    }
}

static void
finish_step (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    /* What the step holds must be stored before its results are made;
       once it is, its acknowledgements go now, not after the results. */
    if (store_commit (ctl->store) != 0 || store_failing (ctl->store))
        return;
    runner_after_commit (ctl);
    uint64_t failures = store_failures (ctl->store);
    int ndone = 0, nbad = 0;
    uint64_t smin = UINT64_MAX, smax = 0;
    /* The results, and each agent's stored totals for check_totals: one
       pass over the step's snapshots. */
    for (int i = 0; i < r->nparts; i++)
        r->parts[i].stored_ops = r->parts[i].stored_bytes = 0;
    report_finalize_step (ctl->store, r->run, r->cur, ctl->interval_ns, stored_totals, r);
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st == P_DONE && !p->msg[0] && !p->totals_unknown)
            check_totals (ctl, p);
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
        save_step_agent (ctl, p, NULL);
    }
    const char *status = nbad == 0 ? "complete" : ndone > 0 ? "partial" : "failed";
    set_step (ctl, status);
    sqlite3_stmt *st = store_stmt (ctl->store,
        "UPDATE steps SET skew_ns = ?3 WHERE run_id = ?1 AND idx = ?2");
    sqlite3_bind_int64 (st, 1, r->run);
    sqlite3_bind_int (st, 2, r->cur);
    if (smax >= smin && smin != UINT64_MAX)
        sqlite3_bind_int64 (st, 3, (sqlite3_int64) (smax - smin));
    store_step_done (ctl->store, st, "store skew");
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
              (long long) r->run, r->cur + 1, r->nsteps, step_job (r, r->cur)->name,
              status, ndone, nbad,
              smax >= smin && smin != UINT64_MAX ? (double) (smax - smin) / 1e6 : 0.0);
    r->cur++;
    if (r->cur < r->nsteps && !r->policy_failed)
        begin_step (ctl);
    else
        finish_run (ctl);
}

/* Tells the READY agents to drop the step (the run policy failed it). */
static void
abort_ready (ctl_t *ctl, const char *why)
{
    runner_t *r = ctl->runner;
    Iofleet__Abort a = IOFLEET__ABORT__INIT;
    a.run = (uint64_t) r->run;
    a.reason = (char *) why;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
    env.abort = &a;
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st != P_READY)
            continue;
        peer_t *peer = fleet_find_id (ctl, p->agent_id);
        if (peer)
            fleet_send (ctl, peer, &env);
        p->st = P_FAILED;
        snprintf (p->msg, sizeof p->msg, "not started: %s", why);
        save_step_agent (ctl, p, NULL);
    }
}

static void
start_step (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    const job_t *j = step_job (r, r->cur);
    uint64_t max_delay = 0;
    int nready = 0;
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st == P_PREPARING) {
            p->st = P_FAILED;
            snprintf (p->msg, sizeof p->msg, "no READY within --prepare-timeout %.0f s",
                      (double) ctl->prepare_timeout_ns / 1e9);
            save_step_agent (ctl, p, NULL);
            /* It may still be laying a file out for a step that goes on
               without it: that stops. */
            Iofleet__Abort a = IOFLEET__ABORT__INIT;
            a.run = (uint64_t) r->run;
            a.reason = p->msg;
            envelope_t env = IOFLEET__ENVELOPE__INIT;
            env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
            env.abort = &a;
            peer_t *peer = fleet_find_id (ctl, p->agent_id);
            if (peer && peer->connected)
                fleet_send (ctl, peer, &env);
        }
        if (p->st != P_READY)
            continue;
        nready++;
        peer_t *peer = fleet_find_id (ctl, p->agent_id);
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
        peer_t *peer = fleet_find_id (ctl, p->agent_id);
        if (!peer || fleet_send (ctl, peer, &env) != 0) {
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
        save_step_agent (ctl, p, NULL);
    }
    set_step (ctl, "running");
    r->phase = R_RUNNING;
    uint64_t planned = step_planned_ns (r, r->cur);
    r->deadline = planned ? clock_mono_ns () + margin + planned + STEP_GRACE_NS : 0;
    log_info ("run %lld step %d/%d '%s': %d agent(s) start in %.1f ms", (long long) r->run,
              r->cur + 1, r->nsteps, j->name, nready, (double) margin / 1e6);
}

/* Loads run's plan, policy and agents into the runner.  Returns 0, or -1
   having marked the run failed. */
static int
load_run (ctl_t *ctl, int64_t run)
{
    runner_t *r = ctl->runner;
    char err[512] = "";
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT p.name, p.text, r.min_agents, r.require_all FROM runs r "
        "JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (sqlite3_step (st) == SQLITE_ROW) {
        r->min_agents = sqlite3_column_int (st, 2);
        r->require_all = sqlite3_column_int (st, 3) != 0;
        r->policy_failed = false;
        r->policy_msg[0] = '\0';
        str_copy (r->plan_name, sizeof r->plan_name, (const char *) sqlite3_column_text (st, 0));
        r->plan = jobfile_parse (r->plan_name, (const char *) sqlite3_column_text (st, 1), err,
                                 sizeof err);
    } else
        snprintf (err, sizeof err, "plan of run %lld not found", (long long) run);
    sqlite3_reset (st);
    if (!r->plan) {
        set_run_status (ctl, run, "failed", err);
        log_err ("run %lld failed to start: %s", (long long) run, err);
        return -1;
    }
    st = store_stmt (ctl->store,
        "SELECT a.id, a.name FROM run_agents ra JOIN agents a ON a.id = ra.agent_id "
        "WHERE ra.run_id = ? ORDER BY a.name");
    sqlite3_bind_int64 (st, 1, run);
    int cap = 0, rc;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        if (r->nparts == cap) {
            int ncap = cap ? cap * 2 : 16;
            part_t *parts = realloc (r->parts, (size_t) ncap * sizeof *r->parts);
            if (!parts)
                break;      /* the agents beyond are not in this run; logged below */
            r->parts = parts;
            cap = ncap;
        }
        part_t *p = &r->parts[r->nparts++];
        memset (p, 0, sizeof *p);
        p->agent_id = (uint64_t) sqlite3_column_int64 (st, 0);
        str_copy (p->name, sizeof p->name, (const char *) sqlite3_column_text (st, 1));
    }
    if (rc == SQLITE_ROW)
        log_err ("run %lld: out of memory listing its agents; running on the first %d",
                 (long long) run, r->nparts);
    sqlite3_reset (st);
    return 0;
}

static void
start_run (ctl_t *ctl, int64_t run)
{
    runner_t *r = ctl->runner;
    char err[512] = "";
    if (load_run (ctl, run))
        return;
    sqlite3_stmt *st;
    r->run = run;
    r->cur = 0;
    r->steps_complete = r->steps_partial = 0;
    r->nsteps = jobfile_group (r->plan, r->first);
    for (int i = 0; i < r->nsteps; i++)
        if (step_njobs (r, i) > MSG_JOBS_MAX) {
            snprintf (err, sizeof err, "step %d runs %d jobs together (no stonewall between "
                      "them), limit %d", i + 1, step_njobs (r, i), MSG_JOBS_MAX);
            set_run_status (ctl, run, "failed", err);
            log_err ("run %lld failed to start: %s", (long long) run, err);
            jobfile_destroy (&r->plan);
            free_parts (r);
            return;
        }
    store_begin (ctl->store);
    for (int i = 0; i < r->nsteps; i++) {
        json_t *spec = job_to_json (step_job (r, i));
        if (step_njobs (r, i) > 1) {
            json_t *jobs = json_array ();
            for (int k = r->first[i]; k < r->first[i + 1]; k++)
                json_array_append_new (jobs, job_to_json (&r->plan->steps[k]));
            json_object_set_new (spec, "jobs", jobs);
        }
        char *text = json_dumps (spec, JSON_COMPACT);
        json_decref (spec);
        char name[512];
        st = store_stmt (ctl->store, "INSERT OR REPLACE INTO steps (run_id, idx, name, spec, status) "
                                     "VALUES (?, ?, ?, ?, 'pending')");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, i);
        sqlite3_bind_text (st, 3, step_name (r, i, name, sizeof name), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text (st, 4, text ? text : "{}", -1, SQLITE_TRANSIENT);
        free (text);
        store_step_done (ctl->store, st, "store step");
    }
    set_run_status (ctl, run, "running", "");
    log_info ("run %lld of plan '%s' started: %d step(s) on %d agent(s)", (long long) run,
              r->plan_name, r->nsteps, r->nparts);
    begin_step (ctl);
}

static pstate_t
pstate_of (const char *name)
{
    for (int i = 0; i < P_NSTATES; i++)
        if (strcmp (pstate_names[i], name) == 0)
            return (pstate_t) i;
    return P_LOST;
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
    if (load_run (ctl, run))
        return;
    r->run = run;
    r->nsteps = jobfile_group (r->plan, r->first);
    r->steps_complete = r->steps_partial = 0;
    r->cur = r->nsteps;
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT idx, status, start_at FROM steps WHERE run_id = ? ORDER BY idx");
    sqlite3_bind_int64 (st, 1, run);
    char cur_status[32] = "pending";
    r->start_at = 0;
    while (sqlite3_step (st) == SQLITE_ROW) {
        int idx = sqlite3_column_int (st, 0);
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
        finish_run (ctl);
        return;
    }
    r->recover_running = strcmp (cur_status, "running") == 0;
    if (r->recover_running) {
        st = store_stmt (ctl->store,
            "SELECT agent_id, status, message, targets, actual_start, snapshots, spool_dropped, "
            " restarted FROM step_agents WHERE run_id = ? AND step_idx = ?");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, r->cur);
        while (sqlite3_step (st) == SQLITE_ROW) {
            part_t *p = find_part (r, (uint64_t) sqlite3_column_int64 (st, 0));
            if (!p)
                continue;
            p->st = pstate_of ((const char *) sqlite3_column_text (st, 1));
            str_copy (p->msg, sizeof p->msg, (const char *) sqlite3_column_text (st, 2));
            json_t *tl = json_loads ((const char *) sqlite3_column_text (st, 3), 0, NULL);
            p->ntargets = (uint32_t) json_array_size (tl);
            json_decref (tl);
            p->actual_start = (uint64_t) sqlite3_column_int64 (st, 4);
            p->done_snapshots = (uint32_t) sqlite3_column_int (st, 5);
            p->spool_dropped = (uint32_t) sqlite3_column_int (st, 6);
            p->restarted = sqlite3_column_int (st, 7) != 0;
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
        /* What is stored already: resent copies are acked, not stored twice. */
        st = store_stmt (ctl->store,
            "SELECT DISTINCT agent_id, seq FROM snapshots WHERE run_id = ? AND step_idx = ?");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, r->cur);
        while (sqlite3_step (st) == SQLITE_ROW) {
            part_t *p = find_part (r, (uint64_t) sqlite3_column_int64 (st, 0));
            int64_t seq = sqlite3_column_int64 (st, 1);
            if (!p || seq < 0 || seq > 10000000)
                continue;
            if ((size_t) seq >= p->nseen) {
                size_t n = p->nseen ? p->nseen : 64;
                while (n <= (size_t) seq)
                    n *= 2;
                uint8_t *seen = realloc (p->seen, n);
                if (!seen)
                    continue;
                memset (seen + p->nseen, 0, n - p->nseen);
                p->seen = seen;
                p->nseen = n;
            }
            p->seen[seq] = 1;
        }
        sqlite3_reset (st);
        for (int i = 0; i < r->nparts; i++) {
            part_t *p = &r->parts[i];
            while (p->contig < p->nseen && p->seen[p->contig])
                p->contig++;
        }
    }
    series_reset (r->series, r->run, r->cur, r->nparts);
    r->phase = R_RECOVER;
    r->deadline = clock_mono_ns () + RECOVER_WAIT_NS;
    log_warn ("run %lld: resuming at step %d/%d (%s when the controller stopped); waiting up to "
              "%.0f s for its %d agent(s) to come back", (long long) run, r->cur + 1, r->nsteps,
              cur_status, (double) RECOVER_WAIT_NS / 1e9, r->nparts);
    set_run_status (ctl, run, "running", "resumed after a controller restart");
}

void
runner_recover (ctl_t *ctl)
{
    store_begin (ctl->store);
    int64_t newest = 0;
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT MAX(id) FROM runs WHERE status = 'running'");
    if (sqlite3_step (st) == SQLITE_ROW)
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
static void
recover_tick (ctl_t *ctl, uint64_t now)
{
    runner_t *r = ctl->runner;
    bool all = true;
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        bool needed = r->recover_running ? p->st == P_RUNNING : true;
        peer_t *peer = fleet_find_id (ctl, p->agent_id);
        if (needed && (!peer || !peer->connected))
            all = false;
    }
    if (!all && now < r->deadline)
        return;
    if (r->recover_running) {
        r->phase = R_RUNNING;
        uint64_t planned = step_planned_ns (r, r->cur);
        uint64_t real = clock_real_ns ();
        uint64_t end = r->start_at + planned + STEP_GRACE_NS;
        r->deadline = planned && r->start_at ? now + (end > real ? end - real : 0) : 0;
        log_info ("run %lld step %d: %s; going on", (long long) r->run, r->cur + 1,
                  all ? "every agent is back" : "not every agent came back");
        return;
    }
    /* Prepared before the restart: drop that, and prepare again. */
    Iofleet__Abort a = IOFLEET__ABORT__INIT;
    a.run = (uint64_t) r->run;
    a.reason = "the controller restarted while preparing; preparing again";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
    env.abort = &a;
    for (int i = 0; i < r->nparts; i++) {
        peer_t *peer = fleet_find_id (ctl, r->parts[i].agent_id);
        if (peer && peer->connected)
            fleet_send (ctl, peer, &env);
    }
    begin_step (ctl);
}

void
runner_tick (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    uint64_t now = clock_mono_ns ();
    if (r->phase == R_IDLE) {
        sqlite3_stmt *st = store_stmt (ctl->store,
            "SELECT id FROM runs WHERE status = 'queued' ORDER BY id LIMIT 1");
        int64_t run = 0;
        if (sqlite3_step (st) == SQLITE_ROW)
            run = sqlite3_column_int64 (st, 0);
        sqlite3_reset (st);
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
            peer_t *peer = fleet_find_id (ctl, p->agent_id);
            if (peer && peer->connected && p->st != P_LOST && p->st != P_REFUSED)
                send_ack (ctl, peer, r->run, (uint32_t) r->cur, p->contig, NULL, 0, true);
        }
        log_info ("run %lld: database writable again after %.0f s; step %d goes on",
                  (long long) r->run, (double) held / 1e9, r->cur + 1);
    }
    if (r->phase == R_RECOVER) {
        recover_tick (ctl, now);
        return;
    }
    /* Agents that went away stop counting as busy. */
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        if (p->st != P_PREPARING && p->st != P_RUNNING)
            continue;
        peer_t *peer = fleet_find_id (ctl, p->agent_id);
        if (!peer || !peer->connected) {
            p->st = P_LOST;
            snprintf (p->msg, sizeof p->msg, "agent disconnected during the step");
            log_warn ("run %lld: agent '%s' lost during step %d", (long long) r->run, p->name,
                      r->cur + 1);
            save_step_agent (ctl, p, NULL);
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
            save_step_agent (ctl, p, NULL);
        }
        if (p->st == P_DONE_WAIT && now - p->done_at > DONE_WAIT_NS) {
            p->st = P_DONE;
            p->waited_out = true;
            snprintf (p->msg, sizeof p->msg, "reported %u snapshots, only %u stored in order; "
                      "the rest never arrived%s", p->done_snapshots, p->contig,
                      p->spool_dropped ? " (its spool overflowed)" : "");
            save_step_agent (ctl, p, NULL);
            queue_ack (r, p, UINT32_MAX);
        }
        busy |= p->st == P_RUNNING || p->st == P_DONE_WAIT;
        /* A restarted agent resends what its old process spooled right
           after its HELLO: the step waits for that to drain. */
        busy |= p->st == P_LOST && p->restarted && now - p->done_at < RESTART_DRAIN_NS;
    }
    if (!busy)
        finish_step (ctl);
}


static void
send_ack (ctl_t *ctl, peer_t *peer, int64_t run, uint32_t step, uint32_t upto, uint32_t *seqs,
          size_t nseqs, bool resend)
{
    Iofleet__Ack a = IOFLEET__ACK__INIT;
    a.resend = resend;
    a.run = (uint64_t) run;
    a.step = step;
    a.upto = upto;
    a.seqs = seqs;
    a.n_seqs = nseqs;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_ACK;
    env.ack = &a;
    fleet_send (ctl, peer, &env);
}

/* This tick's acknowledgement for p's messages of the current step, or
   NULL when out of memory (then none is sent; the agent sends again). */
static ack_t *
ack_for (runner_t *r, const part_t *p)
{
    for (size_t i = 0; i < r->nacks; i++)
        if (r->acks[i].agent_id == p->agent_id && r->acks[i].run == r->run
            && r->acks[i].step == (uint32_t) r->cur)
            return &r->acks[i];
    if (r->nacks == r->capacks) {
        size_t cap = r->capacks ? r->capacks * 2 : 64;
        ack_t *a = realloc (r->acks, cap * sizeof *a);
        if (!a)
            return NULL;
        memset (a + r->capacks, 0, (cap - r->capacks) * sizeof *a);
        r->acks = a;
        r->capacks = cap;
    }
    ack_t *a = &r->acks[r->nacks++];
    a->agent_id = p->agent_id;
    a->run = r->run;
    a->step = (uint32_t) r->cur;
    a->upto = 0;
    a->nseqs = 0;
    return a;
}

/* Acknowledges p's snapshots with seq < upto (UINT32_MAX: all, DONE too)
   once this tick's commit has stored them.  Can't fail. */
static void
queue_ack (runner_t *r, const part_t *p, uint32_t upto)
{
    ack_t *a = ack_for (r, p);
    if (a && upto > a->upto)
        a->upto = upto;
}

/* ... and seq on its own (stored past a gap, or refused for good).
   Can't fail: beyond MSG_ACK_SEQS_MAX a tick, the agent sends it again. */
static void
queue_ack_seq (runner_t *r, const part_t *p, uint32_t seq)
{
    ack_t *a = ack_for (r, p);
    if (!a || a->nseqs == MSG_ACK_SEQS_MAX)
        return;
    if (a->nseqs == a->capseqs) {
        size_t cap = a->capseqs ? a->capseqs * 2 : 16;
        uint32_t *s = realloc (a->seqs, cap * sizeof *s);
        if (!s)
            return;
        a->seqs = s;
        a->capseqs = cap;
    }
    a->seqs[a->nseqs++] = seq;
}

/* Remembers that seq of p was marked stored in this tick.  Returns 0, or
   -1 when out of memory (then it is not marked). */
static int
note_mark (runner_t *r, const part_t *p, const Iofleet__Snapshot *s)
{
    if (r->nmarks == r->capmarks) {
        size_t cap = r->capmarks ? r->capmarks * 2 : 64;
        mark_t *m = realloc (r->marks, cap * sizeof *m);
        if (!m)
            return -1;
        r->marks = m;
        r->capmarks = cap;
    }
    r->marks[r->nmarks++] = (mark_t) { p->agent_id, r->run, r->cur, s->seq,
                                       (uint32_t) s->n_targets, s->t_end };
    return 0;
}

void
runner_after_commit (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    uint64_t failures = store_failures (ctl->store);
    if (failures == r->failures_seen) {
        uint64_t now = clock_real_ns ();
        ingest_stats_t *is = ctl->stats;
        uint64_t worst = 0;
        const mark_t *late = NULL;
        for (size_t i = 0; i < r->nmarks; i++) {
            uint64_t lag = now > r->marks[i].t_end ? now - r->marks[i].t_end : 0;
            is->snapshots++;
            is->rows += r->marks[i].rows;
            histogram_record (&is->lag, lag);
            if (lag > worst) {
                worst = lag;
                late = &r->marks[i];
            }
        }
        if (late && worst > ctl->interval_ns / 2)
            log_debug ("ingest: %zu snapshot(s) committed, the latest %.0f ms after its interval "
                       "ended (seq %u of agent id %llu)", r->nmarks, (double) worst / 1e6,
                       late->seq, (unsigned long long) late->agent_id);
        for (size_t i = 0; i < r->nacks; i++) {
            peer_t *peer = fleet_find_id (ctl, r->acks[i].agent_id);
            if (peer && peer->connected)
                send_ack (ctl, peer, r->acks[i].run, r->acks[i].step, r->acks[i].upto,
                          r->acks[i].seqs, r->acks[i].nseqs, false);
        }
    } else {
        /* Some write of this tick is not stored: take back every mark of
           the tick (the agents send those snapshots again; storing is
           idempotent) and send no acknowledgement. */
        for (size_t i = 0; i < r->nmarks; i++) {
            mark_t *m = &r->marks[i];
            part_t *p = find_part (r, m->agent_id);
            if (!p || m->run != r->run || m->step != r->cur || m->seq >= p->nseen)
                continue;
            p->seen[m->seq] = 0;
            if (p->contig > m->seq)
                p->contig = m->seq;
            if (p->st == P_DONE && p->contig < p->done_snapshots) {
                p->st = P_DONE_WAIT;
                if (p->waited_out)
                    p->msg[0] = '\0';
                p->waited_out = false;
            }
            if (p->st == P_DONE_WAIT)
                p->done_at = clock_mono_ns ();      /* give the resends their time */
        }
        series_forget (r->series);
        r->unstored += r->nmarks;
        if (r->nmarks && log_ratelimit (&r->unstored_logged_at, 60 * NS_PER_SEC))
            log_warn ("run %lld step %d: %llu snapshot(s) not stored so far while the database "
                      "fails; the agents keep them and send them again", (long long) r->run,
                      r->cur + 1, (unsigned long long) r->unstored);
        r->failures_seen = failures;
    }
    r->nacks = 0;
    r->nmarks = 0;
}

static void
maybe_done (ctl_t *ctl, peer_t *peer, part_t *p)
{
    (void) peer;
    if (p->st == P_DONE_WAIT && p->contig >= p->done_snapshots) {
        p->st = P_DONE;
        save_step_agent (ctl, p, NULL);
        queue_ack (ctl->runner, p, UINT32_MAX);
    }
}

/* Stores one snapshot (one row per target), after decoding every histogram
   in it, so a snapshot is stored whole or not at all. */
static void
on_snapshot (ctl_t *ctl, peer_t *peer, part_t *p, const Iofleet__Snapshot *s)
{
    runner_t *r = ctl->runner;
    if (s->spool_dropped > p->spool_dropped)
        p->spool_dropped = s->spool_dropped;
    if (p->restarted)
        p->done_at = clock_mono_ns ();      /* its spool is still draining */
    if (s->seq < p->nseen && p->seen[s->seq]) {
        queue_ack (r, p, p->contig);
        if (s->seq >= p->contig)
            queue_ack_seq (r, p, s->seq);
        return;
    }
    for (size_t i = 0; i < s->n_targets; i++) {
        const Iofleet__TargetSample *t = s->targets[i];
        if (t->target >= p->ntargets) {
            store_count (ctl->store, "bad_agent_messages", 1);
            log_warn ("agent '%s': snapshot %u names target %u, it has %u; dropped", p->name,
                      s->seq, t->target, p->ntargets);
            queue_ack_seq (r, p, s->seq);     /* refused for good: not again */
            return;
        }
        for (int k = 0; k < DIR_COUNT; k++) {
            const Iofleet__DirStats *d = message_sample_dir (t, k);
            if (!d || (d->ops == 0 && d->histogram.len == 0))
                continue;
            const ProtobufCBinaryData *blobs[3] = { &d->histogram, &d->slat_histogram,
                                                    &d->lat_histogram };
            static const char *names[3] = { "clat", "slat", "lat" };
            const char *bad = NULL;
            for (int b = 0; b < 3 && !bad; b++) {
                if (b > 0 && blobs[b]->len == 0)
                    continue;       /* slat/lat are optional */
                uint64_t count;
                if (histogram_check (blobs[b]->data, blobs[b]->len, &count) != 0)
                    bad = "does not decode";
                /* Failed I/Os are counted as errors, never as latency samples;
                   a run without histograms sends empty ones. */
                else if (count != d->ops && count != 0)
                    bad = "holds another number of samples than ops";
                if (bad) {
                    store_count (ctl->store, "bad_agent_messages", 1);
                    log_warn ("agent '%s': snapshot %u target %u: the %s %s histogram %s; "
                              "dropped", p->name, s->seq, t->target, dir_name (k), names[b], bad);
                    queue_ack_seq (r, p, s->seq);
                    return;
                }
            }
        }
    }
    store_begin (ctl->store);
    for (size_t i = 0; i < s->n_targets; i++) {
        const Iofleet__TargetSample *t = s->targets[i];
        sqlite3_stmt *st = store_stmt (ctl->store,
            "INSERT OR IGNORE INTO snapshots (run_id, step_idx, agent_id, target, seq, t_start, "
            " t_end, read_ops, read_bytes, read_errors, read_hist, read_slat_hist, "
            " read_lat_hist, write_ops, write_bytes, write_errors, write_hist, write_slat_hist, "
            " write_lat_hist, trim_ops, trim_bytes, trim_errors, trim_hist, trim_slat_hist, "
            " trim_lat_hist) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        sqlite3_bind_int64 (st, 1, r->run);
        sqlite3_bind_int (st, 2, r->cur);
        sqlite3_bind_int64 (st, 3, (sqlite3_int64) p->agent_id);
        sqlite3_bind_int (st, 4, (int) t->target);
        sqlite3_bind_int (st, 5, (int) s->seq);
        sqlite3_bind_int64 (st, 6, (sqlite3_int64) s->t_start);
        sqlite3_bind_int64 (st, 7, (sqlite3_int64) s->t_end);
        /* Six columns a direction from 8: ops, bytes, errors, then the clat,
           slat and lat histograms (NULL when empty).  An absent direction
           (an older agent's trims) stores zeros. */
        for (int k = 0; k < DIR_COUNT; k++) {
            const Iofleet__DirStats *d = message_sample_dir (t, k);
            int col = 8 + k * 6;
            sqlite3_bind_int64 (st, col, d ? (sqlite3_int64) d->ops : 0);
            sqlite3_bind_int64 (st, col + 1, d ? (sqlite3_int64) d->bytes : 0);
            sqlite3_bind_int64 (st, col + 2, d ? (sqlite3_int64) d->errors : 0);
            const ProtobufCBinaryData *blobs[3] = { NULL, NULL, NULL };
            if (d) {
                blobs[0] = &d->histogram;
                blobs[1] = &d->slat_histogram;
                blobs[2] = &d->lat_histogram;
            }
            for (int b = 0; b < 3; b++)
                if (blobs[b] && blobs[b]->len)
                    sqlite3_bind_blob (st, col + 3 + b, blobs[b]->data, (int) blobs[b]->len,
                                       SQLITE_TRANSIENT);
        }
        if (store_step_done (ctl->store, st, "store snapshot"))
            return;         /* not acked: the agent will send it again */
    }
    if (series_add (r->series, ctl->store, (int) (p - r->parts), s))
        return;             /* the tick rolls back; sent again */
    if (s->seq >= p->nseen) {
        size_t n = p->nseen ? p->nseen : 64;
        while (n <= s->seq)
            n *= 2;
        uint8_t *seen = realloc (p->seen, n);
        if (!seen)
            return;
        memset (seen + p->nseen, 0, n - p->nseen);
        p->seen = seen;
        p->nseen = n;
    }
    if (note_mark (r, p, s))
        return;
    p->seen[s->seq] = 1;
    while (p->contig < p->nseen && p->seen[p->contig])
        p->contig++;
    queue_ack (r, p, p->contig);
    if (s->seq >= p->contig)
        queue_ack_seq (r, p, s->seq);
    maybe_done (ctl, peer, p);
}

/* Is this SNAPSHOT of an ended step already stored (a resend that crossed
   its acknowledgement), or this DONE one of a step the agent finished?
   Can't fail: false on a database error. */
static bool
stale_is_stored (ctl_t *ctl, const peer_t *peer, const envelope_t *env)
{
    sqlite3_stmt *st;
    if (env->body_case == IOFLEET__ENVELOPE__BODY_DONE) {
        st = store_stmt (ctl->store, "SELECT 1 FROM step_agents WHERE run_id = ? AND step_idx = ? "
                                     "AND agent_id = ? AND status = 'done'");
        if (!st)
            return false;
        sqlite3_bind_int64 (st, 1, (sqlite3_int64) env->done->run);
        sqlite3_bind_int (st, 2, (int) env->done->step);
    } else {
        st = store_stmt (ctl->store, "SELECT 1 FROM snapshots WHERE run_id = ? AND step_idx = ? "
                                     "AND agent_id = ? AND seq = ? LIMIT 1");
        if (!st)
            return false;
        sqlite3_bind_int64 (st, 1, (sqlite3_int64) env->snapshot->run);
        sqlite3_bind_int (st, 2, (int) env->snapshot->step);
        sqlite3_bind_int (st, 4, (int) env->snapshot->seq);
    }
    sqlite3_bind_int64 (st, 3, (sqlite3_int64) peer->id);
    bool stored = sqlite3_step (st) == SQLITE_ROW;
    sqlite3_reset (st);
    return stored;
}

void
runner_agent_hello (ctl_t *ctl, uint64_t agent_id, uint64_t old_pid, const Iofleet__Hello *h)
{
    runner_t *r = ctl->runner;
    if (r->phase != R_PREPARING && r->phase != R_RUNNING && r->phase != R_RECOVER)
        return;
    part_t *p = find_part (r, agent_id);
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
       (on_snapshot) for a while (the drain window in runner_tick), but
       nothing more will come. */
    char why[96] = "";
    if (old_pid && old_pid != h->pid)
        snprintf (why, sizeof why, " (pid %llu, then %llu)", (unsigned long long) old_pid,
                  (unsigned long long) h->pid);
    p->st = P_LOST;
    p->restarted = true;
    p->done_at = clock_mono_ns ();
    snprintf (p->msg, sizeof p->msg, "agent restarted during the step%s: its workload stopped "
              "there", why);
    log_warn ("run %lld step %d: agent '%s' came back without this step's workload (restarted%s); "
              "its part of the step is lost from there", (long long) r->run, r->cur + 1, p->name,
              why);
    save_step_agent (ctl, p, NULL);
}

void
runner_on_message (ctl_t *ctl, peer_t *peer, const envelope_t *env)
{
    runner_t *r = ctl->runner;
    uint64_t run = 0;
    uint32_t step = 0;
    switch (env->body_case) {
    case IOFLEET__ENVELOPE__BODY_READY: run = env->ready->run; step = env->ready->step; break;
    case IOFLEET__ENVELOPE__BODY_REFUSED: run = env->refused->run; step = env->refused->step; break;
    case IOFLEET__ENVELOPE__BODY_SNAPSHOT: run = env->snapshot->run; step = env->snapshot->step; break;
    case IOFLEET__ENVELOPE__BODY_DONE: run = env->done->run; step = env->done->step; break;
    case IOFLEET__ENVELOPE__BODY_ERROR:
        log_warn ("agent '%s' reports: %s", peer->name, env->error->message);
        return;
    default:
        store_count (ctl->store, "bad_agent_messages", 1);
        if (log_ratelimit (&peer->bad_logged_at, 60 * NS_PER_SEC))
            log_warn ("agent '%s' sent an unexpected %s message; dropped", peer->name,
                      message_kind (env));
        return;
    }
    part_t *p = r->phase != R_IDLE ? find_part (r, peer->id) : NULL;
    if (!p || (int64_t) run != r->run || step != (uint32_t) r->cur) {
        log_debug ("agent '%s': %s for run %llu step %u is not current; ignored", peer->name,
                   message_kind (env), (unsigned long long) run, step);
        /* A step that ended without it (the agent was lost, restarted, or
           its DONE timed out): its results are made, so let the agent's
           spool forget it, and count it. */
        if (env->body_case == IOFLEET__ENVELOPE__BODY_SNAPSHOT
            || env->body_case == IOFLEET__ENVELOPE__BODY_DONE) {
            if (stale_is_stored (ctl, peer, env)) {
                send_ack (ctl, peer, (int64_t) run, step, UINT32_MAX, NULL, 0, false);
                return;
            }
            store_count (ctl->store, "late_agent_messages", 1);
            if (log_ratelimit (&peer->bad_logged_at, 60 * NS_PER_SEC))
                log_warn ("agent '%s' sent a %s of run %llu step %u, which has ended without "
                          "it; not stored (counted as late_agent_messages)", peer->name,
                          message_kind (env), (unsigned long long) run, step + 1);
            send_ack (ctl, peer, (int64_t) run, step, UINT32_MAX, NULL, 0, false);
        }
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
        log_warn ("run %lld: agent '%s' came back during step %d; resuming it", (long long) r->run,
                  p->name, r->cur + 1);
        save_step_agent (ctl, p, NULL);
    }
    switch (env->body_case) {
    case IOFLEET__ENVELOPE__BODY_READY: {
        if (p->st != P_PREPARING)
            return;
        p->st = P_READY;
        p->ntargets = (uint32_t) env->ready->n_targets;
        p->clock_offset = env->ready->clock_offset_ns;
        p->clock_delay = env->ready->clock_delay_ns;
        p->clock_known = env->ready->clock_delay_ns > 0;
        /* The hardware as it was for this step of this run. */
        int64_t inv = inventory_store (ctl, p->agent_id, env->ready->inventory_json);
        if (inv) {
            sqlite3_stmt *ist = store_stmt (ctl->store,
                "INSERT OR REPLACE INTO run_inventory (run_id, agent_id, step_idx, inventory_id) "
                "VALUES (?, ?, ?, ?)");
            sqlite3_bind_int64 (ist, 1, r->run);
            sqlite3_bind_int64 (ist, 2, (sqlite3_int64) p->agent_id);
            sqlite3_bind_int (ist, 3, r->cur);
            sqlite3_bind_int64 (ist, 4, inv);
            store_step_done (ctl->store, ist, "store run inventory");
        }
        /* Jobs running together may share a file: label each target with
           its job so every (job, target) keeps rows of its own. */
        json_t *list = json_array ();
        int njobs = step_njobs (r, r->cur), job = 0, left = r->job_ntargets[0];
        for (size_t i = 0; i < env->ready->n_targets; i++) {
            while (left == 0 && job + 1 < njobs)
                left = r->job_ntargets[++job];
            left--;
            char label[MSG_PATH_MAX + JOB_NAME_MAX + 2];
            if (njobs > 1)
                snprintf (label, sizeof label, "%s:%s",
                          r->plan->steps[r->first[r->cur] + job].name, env->ready->targets[i]);
            else
                snprintf (label, sizeof label, "%s", env->ready->targets[i]);
            json_array_append_new (list, json_string (label));
        }
        char *text = json_dumps (list, JSON_COMPACT);
        json_decref (list);
        save_step_agent (ctl, p, text);
        free (text);
        save_target_drives (ctl, p, env->ready);
        break;
    }
    case IOFLEET__ENVELOPE__BODY_REFUSED:
        if (p->st != P_PREPARING)
            return;
        p->st = P_REFUSED;
        str_copy (p->msg, sizeof p->msg, env->refused->reason);
        log_warn ("run %lld step %d: agent '%s' refused: %s", (long long) r->run, r->cur + 1,
                  p->name, p->msg);
        save_step_agent (ctl, p, NULL);
        break;
    case IOFLEET__ENVELOPE__BODY_SNAPSHOT:
        /* A restarted agent's spool holds what its old process measured. */
        if (p->st == P_RUNNING || p->st == P_DONE_WAIT || p->st == P_DONE
            || (p->st == P_LOST && p->restarted))
            on_snapshot (ctl, peer, p, env->snapshot);
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
        save_latency_depths (ctl, p, d);
        if (d->error[0]) {
            snprintf (p->msg, sizeof p->msg, "I/O error: %s", d->error);
            log_warn ("run %lld step %d: agent '%s': %s", (long long) r->run, r->cur + 1,
                      p->name, p->msg);
        }
        p->st = P_DONE_WAIT;
        p->done_at = clock_mono_ns ();
        maybe_done (ctl, peer, p);
        break;
    }
    default:
        break;
    }
}

/* Agents selected by "KEY=GLOB[,KEY=GLOB...]" (common/match.h; all must
   hold): the connected ones, or with known every agent the controller has
   seen.  Returns the count, 0 with err when none matched or a key is not
   one. */
static int
select_by_match (ctl_t *ctl, const char *agents, uint64_t *ids, int max, bool known, char *err,
                 size_t errlen)
{
    /* Names and conditions do not mix: "a1,rack=r12" is neither. */
    for (const char *p = agents; p; p = strchr (p, ',') ? strchr (p, ',') + 1 : NULL) {
        const char *end = strchr (p, ',');
        const char *eq = strchr (p, '=');
        if (!eq || (end && eq > end)) {
            snprintf (err, errlen, "--agents '%s': mix of names and KEY=GLOB conditions; use "
                      "either a name list or conditions like rack=r12,hba.firmware=16.*", agents);
            return 0;
        }
    }
    match_cond_t conds[MATCH_CONDS_MAX];
    int nconds = 0;
    if (match_conds_parse ("--agents", agents, conds, MATCH_CONDS_MAX, &nconds, err, errlen))
        return 0;
    int n = 0;
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT a.id, a.labels, i.json, a.name, a.hostname FROM agents a LEFT JOIN inventories i "
        "ON i.id = a.inventory_id WHERE a.imported = 0 ORDER BY a.name");
    while (sqlite3_step (st) == SQLITE_ROW && n < max) {
        uint64_t id = (uint64_t) sqlite3_column_int64 (st, 0);
        peer_t *p = fleet_find_id (ctl, id);
        if (!known && (!p || !p->connected))
            continue;
        json_t *labels = json_loads ((const char *) sqlite3_column_text (st, 1), 0, NULL);
        json_t *inv = sqlite3_column_type (st, 2) == SQLITE_NULL ? NULL
                    : json_loads ((const char *) sqlite3_column_text (st, 2), 0, NULL);
        /* The run has no labels yet: a run.KEY condition matches no agent. */
        match_subject_t subj = {
            .agent = (const char *) sqlite3_column_text (st, 3),
            .hostname = (const char *) sqlite3_column_text (st, 4),
            .labels = labels, .inventory = inv, .target = false,
        };
        bool all = match_all (conds, nconds, &subj);
        json_decref (labels);
        json_decref (inv);
        if (all)
            ids[n++] = id;
    }
    sqlite3_reset (st);
    if (n == 0)
        snprintf (err, errlen, "no %s agent matches --agents '%s' (keys: agent, host, "
                  "host.FIELD, transport, drive.FIELD, hba.FIELD, label.KEY or a bare KEY; see "
                  "'iofleet agents --json' and 'iofleet inventory AGENT')",
                  known ? "known" : "connected", agents);
    return n;
}

static int
select_agents (ctl_t *ctl, const char *agents, uint64_t *ids, int max, char *err, size_t errlen)
{
    int n = 0;
    if (agents && strchr (agents, '='))
        return select_by_match (ctl, agents, ids, max, false, err, errlen);
    if (!agents || !*agents || strcmp (agents, "all") == 0) {
        for (peer_t *p = zlistx_first (ctl->peers); p; p = zlistx_next (ctl->peers))
            if (p->connected && n < max)
                ids[n++] = p->id;
        if (n == 0)
            snprintf (err, errlen, "no agent is connected; start iofleet-agent --controller "
                      "ENDPOINT on the hosts to test, then check with 'iofleet agents'");
        return n;
    }
    char list[4096];
    str_copy (list, sizeof list, agents);
    for (char *save = NULL, *tok = strtok_r (list, ",", &save); tok;
         tok = strtok_r (NULL, ",", &save)) {
        peer_t *p = fleet_find_name (ctl, tok);
        if (!p || !p->connected) {
            snprintf (err, errlen, "agent '%s' is %s; see 'iofleet agents'", tok,
                      p ? "not connected" : "unknown");
            return 0;
        }
        bool dup = false;
        for (int i = 0; i < n; i++)
            dup |= ids[i] == p->id;
        if (!dup && n < max)
            ids[n++] = p->id;
    }
    return n;
}

int
runner_agents_known (ctl_t *ctl, const char *agents, char *err, size_t errlen)
{
    enum { MAX_SELECT = 4096 };
    static uint64_t ids[MAX_SELECT];
    if (!agents || !*agents || strcmp (agents, "all") == 0)
        return 1;
    if (strchr (agents, '='))
        return select_by_match (ctl, agents, ids, MAX_SELECT, true, err, errlen);
    /* A name list: each one an agent the controller has seen. */
    char list[4096];
    int n = 0;
    str_copy (list, sizeof list, agents);
    for (char *save = NULL, *tok = strtok_r (list, ",", &save); tok;
         tok = strtok_r (NULL, ",", &save), n++) {
        sqlite3_stmt *st = store_stmt (ctl->store,
            "SELECT 1 FROM agents WHERE name = ? AND imported = 0");
        sqlite3_bind_text (st, 1, tok, -1, SQLITE_TRANSIENT);
        bool seen = sqlite3_step (st) == SQLITE_ROW;
        sqlite3_reset (st);
        if (!seen) {
            snprintf (err, errlen, "--agents: no agent named '%s' has ever connected to this "
                      "controller (see 'iofleet agents')", tok);
            return 0;
        }
    }
    return n;
}

json_t *
runner_submit (ctl_t *ctl, const char *plan, const char *agents, int min_agents,
               bool require_all, bool commit, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT id, version FROM plans WHERE name = ? AND removed_at IS NULL "
        "ORDER BY version DESC LIMIT 1");
    sqlite3_bind_text (st, 1, plan, -1, SQLITE_TRANSIENT);
    int64_t plan_id = 0;
    if (sqlite3_step (st) == SQLITE_ROW)
        plan_id = sqlite3_column_int64 (st, 0);
    sqlite3_reset (st);
    if (!plan_id) {
        snprintf (err, errlen, "no plan named '%s'; add it with 'iofleet plan add %s FILE' "
                  "(see 'iofleet plan list')", plan, plan);
        return NULL;
    }
    enum { MAX_SELECT = 4096 };
    static uint64_t ids[MAX_SELECT];
    int n = select_agents (ctl, agents, ids, MAX_SELECT, err, errlen);
    if (n == 0)
        return NULL;
    if (min_agents > n) {
        snprintf (err, errlen, "--min-agents %d but only %d agent(s) selected; start more agents "
                  "or lower --min-agents", min_agents, n);
        return NULL;
    }
    store_begin (ctl->store);
    st = store_stmt (ctl->store,
        "INSERT INTO runs (plan_id, status, created_at, min_agents, require_all) "
        "VALUES (?, 'queued', ?, ?, ?)");
    sqlite3_bind_int64 (st, 1, plan_id);
    sqlite3_bind_int64 (st, 2, (sqlite3_int64) clock_real_ns ());
    sqlite3_bind_int (st, 3, min_agents);
    sqlite3_bind_int (st, 4, require_all);
    if (store_step_done (ctl->store, st, "create run")) {
        snprintf (err, errlen, "database error creating the run; see the controller's log");
        return NULL;
    }
    int64_t run = sqlite3_last_insert_rowid (store_db (ctl->store));
    json_t *names = json_array ();
    for (int i = 0; i < n; i++) {
        st = store_stmt (ctl->store, "INSERT INTO run_agents (run_id, agent_id) VALUES (?, ?)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int64 (st, 2, (sqlite3_int64) ids[i]);
        store_step_done (ctl->store, st, "select agent");
        peer_t *p = fleet_find_id (ctl, ids[i]);
        json_array_append_new (names, json_string (p ? p->name : "?"));
    }
    if (commit)
        store_commit (ctl->store);
    log_info ("run %lld of plan '%s' queued on %d agent(s)", (long long) run, plan, n);
    return json_pack ("{s:I, s:s, s:s, s:o}", "run", (json_int_t) run, "plan", plan,
                      "status", "queued", "agents", names);
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
    runner_after_commit (ctl);
    Iofleet__Abort a = IOFLEET__ABORT__INIT;
    a.run = (uint64_t) r->run;
    a.reason = (char *) why;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
    env.abort = &a;
    bool measured = r->phase == R_RUNNING || (r->phase == R_RECOVER && r->recover_running);
    for (int i = 0; i < r->nparts; i++) {
        part_t *p = &r->parts[i];
        peer_t *peer = fleet_find_id (ctl, p->agent_id);
        /* Every agent of the run hears it (one that holds nothing of the
           run ignores it): a lost one may still be running the step. */
        bool told = peer && peer->connected && fleet_send (ctl, peer, &env) == 0;
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
        save_step_agent (ctl, p, NULL);
    }
    if (measured)
        report_finalize_step (ctl->store, r->run, r->cur, ctl->interval_ns, NULL, NULL);
    set_step (ctl, "cancelled");
    sqlite3_stmt *st = store_stmt (ctl->store,
        "UPDATE steps SET status = 'cancelled' WHERE run_id = ? AND idx > ? AND status = 'pending'");
    sqlite3_bind_int64 (st, 1, r->run);
    sqlite3_bind_int (st, 2, r->cur);
    store_step_done (ctl->store, st, "cancel the steps not begun");
    return 0;
}

json_t *
runner_cancel (ctl_t *ctl, int64_t run, const char *by, char *err, size_t errlen)
{
    runner_t *r = ctl->runner;
    sqlite3_stmt *st = store_stmt (ctl->store, "SELECT status FROM runs WHERE id = ?");
    sqlite3_bind_int64 (st, 1, run);
    char was[32] = "";
    if (sqlite3_step (st) == SQLITE_ROW)
        str_copy (was, sizeof was, (const char *) sqlite3_column_text (st, 0));
    sqlite3_reset (st);
    if (!was[0]) {
        snprintf (err, errlen, "no run %lld (see 'iofleet runs')", (long long) run);
        return NULL;
    }
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
        step_name (r, r->cur, name, sizeof name);
        if (cancel_in_hand (ctl, why, stopped, err, errlen)) {
            json_decref (stopped);
            return NULL;
        }
    }
    store_begin (ctl->store);
    st = store_stmt (ctl->store, "UPDATE runs SET cancelled_by = ?, cancelled_at = ? WHERE id = ?");
    sqlite3_bind_text (st, 1, by, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, (sqlite3_int64) now);
    sqlite3_bind_int64 (st, 3, run);
    store_step_done (ctl->store, st, "record who cancelled");
    set_run_status (ctl, run, "cancelled", why);
    store_commit (ctl->store);
    if (in_hand) {
        jobfile_destroy (&r->plan);
        free_parts (r);
        r->phase = R_IDLE;
        r->run = 0;
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

/* The step's newest interval every running agent has delivered: fleet
   IOPS and p99 from the merged histograms, and the agents whose IOPS
   stand out in it (as the report's outliers).  Adds "last_interval" to o;
   nothing before the first interval.  Can't fail. */
static void
add_live (ctl_t *ctl, json_t *o)
{
    runner_t *r = ctl->runner;
    int64_t seq = -1;
    for (int i = 0; i < r->nparts; i++) {
        const part_t *p = &r->parts[i];
        if ((p->st == P_RUNNING || p->st == P_DONE_WAIT) && p->contig > 0
            && (seq < 0 || (int64_t) p->contig - 1 < seq))
            seq = (int64_t) p->contig - 1;
    }
    if (seq < 0)
        return;
    const series_interval_t *iv = series_get (r->series, ctl->store, (uint32_t) seq);
    if (!iv || !iv->agents || iv->span_ns == 0)
        return;
    /* IOPS over the agents' mean span, as the report's intervals. */
    double secs = (double) iv->span_ns / iv->agents / 1e9;
    uint64_t total = 0;
    static histogram_t fleet;
    histogram_clear (&fleet);
    for (int d = 0; d < DIR_COUNT; d++) {
        total += iv->ops[d];
        histogram_merge (&fleet, &iv->hist[d]);
    }
    json_t *li = json_pack ("{s:I, s:f, s:I}", "seq", (json_int_t) seq,
                            "iops", (double) total / secs, "ops", (json_int_t) total);
    if (fleet.count)
        json_object_set_new (li, "p99", json_integer ((json_int_t) histogram_percentile (&fleet, 99.0)));
    /* Each agent's ops of the interval, for its outliers. */
    static double *ops;
    static int *idx, cap;
    if (r->nparts > cap) {
        double *o = realloc (ops, (size_t) r->nparts * sizeof *o);
        if (o)
            ops = o;
        int *x = realloc (idx, (size_t) r->nparts * sizeof *x);
        if (x)
            idx = x;
        if (o && x)
            cap = r->nparts;
    }
    int n = 0;
    for (int i = 0; iv->who_known && i < r->nparts && i < cap; i++)
        if (iv->who_ops[i] >= 0) {
            idx[n] = i;
            ops[n++] = iv->who_ops[i];
        }
    json_t *outl = json_array ();
    double median;
    double *score = malloc ((size_t) (n ? n : 1) * sizeof *score);
    bool *flagged = malloc ((size_t) (n ? n : 1) * sizeof *flagged);
    if (score && flagged && n >= 3 && outliers_find (ops, n, &median, score, flagged) > 0)
        for (int i = 0; i < n; i++) {
            part_t *p = flagged[i] ? &r->parts[idx[i]] : NULL;
            if (p)
                json_array_append_new (outl, json_pack ("{s:s, s:f, s:f, s:f}", "agent", p->name,
                    "iops", ops[i] / secs, "median_iops", median / secs,
                    "delta_pct", median > 0 ? 100.0 * (ops[i] - median) / median : 0.0));
        }
    free (score);
    free (flagged);
    json_object_set_new (li, "outliers", outl);
    json_object_set_new (o, "last_interval", li);
}

json_t *
runner_status (ctl_t *ctl, int64_t run, char *err, size_t errlen)
{
    runner_t *r = ctl->runner;
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT r.status, r.message, p.name, "
        " (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.id), r.cancelled_by, r.cancelled_at "
        "FROM runs r JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (sqlite3_step (st) != SQLITE_ROW) {
        sqlite3_reset (st);
        snprintf (err, errlen, "no run %lld (see 'iofleet runs')", (long long) run);
        return NULL;
    }
    json_t *o = json_pack ("{s:I, s:s, s:s, s:s, s:i}", "run", (json_int_t) run,
                           "status", (const char *) sqlite3_column_text (st, 0),
                           "message", (const char *) sqlite3_column_text (st, 1),
                           "plan", (const char *) sqlite3_column_text (st, 2),
                           "steps", sqlite3_column_int (st, 3));
    if (sqlite3_column_type (st, 4) != SQLITE_NULL) {
        json_object_set_new (o, "cancelled_by",
                             json_string ((const char *) sqlite3_column_text (st, 4)));
        json_object_set_new (o, "cancelled_at", json_integer (sqlite3_column_int64 (st, 5)));
    }
    sqlite3_reset (st);
    if (r->phase != R_IDLE && r->run == run) {
        char name[512];
        json_object_set_new (o, "step", json_integer (r->cur));
        json_object_set_new (o, "steps", json_integer (r->nsteps));
        json_object_set_new (o, "step_name", json_string (step_name (r, r->cur, name, sizeof name)));
        json_object_set_new (o, "phase", json_string (r->phase == R_PREPARING ? "preparing"
                                                                               : "running"));
        double elapsed = 0;
        uint64_t now = clock_real_ns ();
        if (r->phase == R_RUNNING && now > r->start_at)
            elapsed = (double) (now - r->start_at) / 1e9;
        json_object_set_new (o, "elapsed_s", json_real (elapsed));
        json_object_set_new (o, "planned_s",
                             json_real ((double) step_planned_ns (r, r->cur) / 1e9));
        json_t *agents = json_object ();
        for (int i = 0; i < r->nparts; i++) {
            const char *s = pstate_names[r->parts[i].st];
            json_t *c = json_object_get (agents, s);
            json_object_set_new (agents, s, json_integer (c ? json_integer_value (c) + 1 : 1));
        }
        json_object_set_new (o, "agents", agents);
        if (r->phase == R_RUNNING)
            add_live (ctl, o);
    }
    return o;
}
