/*  controller.h: state shared by the controller's modules.

    fleet.c owns the agents (peers, fleet.h), run.c and the files beside it
    the run state machine (runstate.h), admin.c the CLI endpoint, report.c
    the reports (with step_results.c, series.c, groups.c, sweeps.c,
    fio_export.c and history.c: their own headers, included at the end).
    They run on one thread: the event loop in main.c, which creates them and
    registers who hears what.
*/
#ifndef IOF_CONTROLLER_H
#define IOF_CONTROLLER_H

#include <czmq.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "direction.h"
#include "fleet.h"
#include "histogram.h"
#include "jobfile.h"
#include "rounds.h"
#include "match.h"
#include "message.h"
#include "store.h"

#define CTL_SILENCE_LOST_NS   (15ull * 1000000000)  /* default --lost-after */

/* What the controller took in since it started (iofleet stats). */
typedef struct {
    uint64_t started;           /* monotonic ns */
    uint64_t messages, bytes;   /* from agents */
    uint64_t snapshots, rows;   /* snapshots stored (committed), their target rows */
    uint64_t commits;
    histogram_t lag;            /* ns: end of a snapshot's interval -> committed */
    histogram_t commit;         /* ns: one tick's COMMIT */
} ingest_stats_t;

typedef struct ctl ctl_t;         /* below; fleet.h names it too */
typedef struct runner runner_t;
typedef struct auth auth_t;
typedef struct scheduler scheduler_t;
typedef struct hook hook_t;
typedef struct retention retention_t;
typedef struct history_index history_index_t;
typedef struct snapdict snapdict_t;
typedef struct decode_pool decode_pool_t;

struct ctl {
    store_t *store;
    zsock_t *router;
    zsock_t *admin;             /* the CLI's ROUTER (admin.h) */
    fleet_t *fleet;             /* the agents (fleet.h) */
    runner_t *runner;
    scheduler_t *sched;
    auth_t *auth;               /* NULL: no CURVE (loopback and ipc only) */
    uint64_t interval_ns;       /* snapshot interval sent to agents */
    uint64_t prepare_timeout_ns;
    uint64_t lost_after_ns;     /* an agent silent this long is lost */
    const char *on_regression;  /* --on-regression CMD, or NULL */
    ingest_stats_t *stats;
    retention_t *retention;     /* NULL: no retention policy */
    history_index_t *history_index;
    snapdict_t *snapdict;       /* the snapshot blocks' dictionary, trained while idle */
    decode_pool_t *decode;      /* NULL: messages are decoded on the loop */
};

/* auth.c: CURVE allowlists and the ZAP handler. */
/* Loads DIR/controller.cert(_secret) and the stores DIR/agents/ and
   DIR/admins/, and binds the ZAP handler.  NULL with err filled. */
auth_t *auth_new (const char *dir, char *err, size_t errlen);
/* Whether DIR holds the controller's certificate with its secret key, as
   auth_new needs.  Returns 0, or -1 with err filled. */
int auth_check (const char *dir, char *err, size_t errlen);
void auth_destroy (auth_t **self_p);
/* The ZAP socket, for the event loop; auth_on_zap answers one request. */
zsock_t *auth_socket (auth_t *self);
void auth_on_zap (ctl_t *ctl);
/* Makes s a CURVE server checked against the store of domain
   ("agents" or "admins"). */
void auth_server (auth_t *self, zsock_t *s, const char *domain);
const char *auth_public_key (auth_t *self);
/* True while key (Z85) is in the agents allowlist. */
bool auth_agent_allowed (auth_t *self, const char *key);
/* The refused keys, newest first. */
json_t *auth_rejected_json (ctl_t *ctl, char *err, size_t errlen);

/* The run state machine: runstate.h is its shared state, each file below
   one concern of it.  Nothing here calls the scheduler: it subscribes to
   the run-end event (runner_on_end). */

/* runstate.c: the run in hand. */
runner_t *runner_new (ctl_t *ctl);
void runner_destroy (runner_t **self_p);
/* A run ended (status: complete, partial, failed or cancelled), in the
   transaction that records it. */
typedef void (runner_end_fn) (void *arg, int64_t run, const char *status);
#define RUNNER_END_MAX 4
/* Calls fn at every run's end, after those subscribed before it.  At most
   RUNNER_END_MAX subscribers (asserted). */
void runner_on_end (runner_t *self, runner_end_fn *fn, void *arg);
/* True while the agent is preparing a step: it may be laying out a large
   file, and is allowed to stay silent up to --prepare-timeout. */
bool runner_agent_preparing (ctl_t *ctl, uint64_t agent_id);

/* run.c: the steps' transitions. */
/* Starts the next queued run, moves the run in hand on (timeouts, lost
   agents, step ends).  Can't fail (errors are logged). */
void steps_tick (ctl_t *ctl);
/* READY, REFUSED, SNAPSHOT or DONE from a connected agent (prep: a
   SNAPSHOT's checks and block, made off the loop, or NULL).  Can't
   fail. */
void steps_on_message (ctl_t *ctl, peer_t *peer, const envelope_t *env,
                        snapshot_prep_t *prep);
/* The agent said HELLO (old_pid: of its previous HELLO, 0 if unknown).  If
   it no longer holds the step in hand it was part of, it restarted: its
   part is lost (what its spool resends is still stored). */
void steps_agent_hello (ctl_t *ctl, uint64_t agent_id, uint64_t old_pid,
                         const Iofleet__Hello *h);

/* job_json.c */
/* The parsed job as JSON (plans.steps, steps.spec).  Can't fail. */
json_t *job_json (const job_t *j);

/* recover.c */
/* Picks up the run a previous controller process left 'running' (the
   newest; older ones are marked failed). */
void recover_run (ctl_t *ctl);

/* acks.c */
/* Sends the acknowledgements of this tick if everything written in it is
   stored (store_failures unchanged), else takes back what it marked
   stored.  The event loop calls it after each tick's commit. */
void acks_after_commit (ctl_t *ctl);

/* select.c */
/* Queues a run of plan (latest version) on the named agents ("all" or a
   comma list).  The run fails at the first step where fewer than
   min_agents (0: one) are READY, or, with require_all, where any selected
   agent is not.  commit: make it durable now (else the caller's
   transaction, or the tick's, does).  Returns a JSON result or NULL with
   err filled. */
json_t *submit_run (ctl_t *ctl, const char *plan, const char *agents, int min_agents,
                       bool require_all, bool commit, char *err, size_t errlen);
/* How many agents the controller has ever seen (connected or not) the
   selector agents ("all", names, or KEY=GLOB conditions) picks: "all" is
   1; 0 with err naming the selector when none, or an unknown name. */
int submit_agents_known (ctl_t *ctl, const char *agents, char *err, size_t errlen);
/* Whether a run is queued or running (the oldest in *run, else 0).
   Can't fail: false on a database error. */
bool runner_busy (ctl_t *ctl, int64_t *run);
/* Work the controller does between runs (retention, the history index):
   at once after a run ends (idle_soon), then a look a minute, a piece
   per loop tick while there is more (working), and never while a run is
   queued or running. */
typedef struct {
    uint64_t next_ns;           /* monotonic: the next look; 0 at once */
} idle_turn_t;
static inline void
idle_soon (idle_turn_t *t)
{
    t->next_ns = 0;
}
/* Whether the caller may do a piece of its idle work now; when it is a
   new look (not working), the next one is due in a minute.  Can't fail. */
bool idle_turn (ctl_t *ctl, idle_turn_t *t, bool working);

/* status.c */
/* A run's status, with the live figures of its step in hand while it
   runs.  NULL with err filled for an unknown run. */
json_t *status_run (ctl_t *ctl, int64_t run, char *err, size_t errlen);

/* cancel.c */
/* Cancels a queued or running run (by: who asked, USER@HOST): the run in
   hand has its agents told to stop and its step's results made from what
   they delivered; the run ends 'cancelled', recording by and when.
   Returns a JSON result, or NULL with err filled: an unknown run, one that
   has ended, or a database that cannot be written now. */
json_t *cancel_run (ctl_t *ctl, int64_t run, const char *by, char *err, size_t errlen);

/* plans.c: the admin requests plan_add, plan_list, plan_show and plan_rm.
   Each returns its JSON result or NULL with err filled. */
json_t *plan_add (ctl_t *ctl, json_t *req, char *err, size_t errlen);
json_t *plan_list (ctl_t *ctl, char *err, size_t errlen);
json_t *plan_show (ctl_t *ctl, json_t *req, char *err, size_t errlen);
/* {name, dry_run?}: deletes the versions no run points at and hides the
   name; refused while a schedule names it or a run of it is queued or
   running.  dry_run: only says what would go. */
json_t *plan_rm (ctl_t *ctl, json_t *req, char *err, size_t errlen);

/* runs.c */
/* Every run, oldest first: {id, plan, plan_version, status, message,
   created_at, started_at?, finished_at?, agents, labels, note, origin,
   cancelled_by?, cancelled_at?, schedule? (the schedule that fired it),
   verdict? (once judged against its schedule's baseline: pass,
   regressed, failed, no-baseline)}; NULL with err on a database error. */
json_t *runs_list (ctl_t *ctl, char *err, size_t errlen);
/* The first step of st, a query of one run's row: 1 when the row is
   there; otherwise st is reset and err says "no run RUN" (0) or that the
   database failed (-1, logged).  The one wording of both, for every
   command that takes a run. */
int runs_row (store_t *store, sqlite3_stmt *st, int64_t run, char *err, size_t errlen);
/* Checks a run's labels (a JSON object of KEY: text, or NULL) and note
   (or NULL).  Returns 0, or -1 with err naming the label and the limit. */
int runs_labels_check (json_t *labels, const char *note, char *err, size_t errlen);
/* Sets a run's labels and note in the open transaction.  Returns 0 or -1. */
int runs_annotate (ctl_t *ctl, int64_t run, json_t *labels, const char *note);
/* Removes a run that has ended and every row of it (each table with a
   run_id column); refused for a queued or running run, or one a schedule
   uses as its baseline.  dry: only counts the rows. */
json_t *runs_rm (ctl_t *ctl, int64_t run, bool dry, char *err, size_t errlen);

/* inventory.c */
/* Stores an agent's inventory JSON text (if it is one) unless the same is
   stored already, and makes it the agent's current one.  Returns its id,
   or 0 when text is empty or not an inventory (counted, logged). */
int64_t inventories_store (ctl_t *ctl, uint64_t agent_id, const char *text);
/* {"agent", "hash", "first_seen", "inventory"} of an agent's current
   inventory, or NULL with err filled. */
json_t *inventories_of (ctl_t *ctl, const char *agent, char *err, size_t errlen);
/* {agent: as inventories_of} of the inventories run's agents came with
   (each one's at the first step it took part in; every agent of the run,
   whatever a report's --where kept), at most
   RUN_INVENTORIES_MAX agents; NULL on a database error (logged) or out of
   memory. */
#define RUN_INVENTORIES_MAX 256
json_t *inventories_of_run (store_t *store, int64_t run);
/* The inventory agent came with to step of run (its READY; run_inventory),
   a new reference, or NULL: none, or a database error (logged, *failed
   set).  cache, when not NULL, is an object the caller owns that keeps
   each inventory parsed once (by its id). */
json_t *inventories_at_step (store_t *store, json_t *cache, int64_t run, int step,
                           const char *agent, bool *failed);

/* Latency kinds, in the order of the snapshot columns: clat (the
   default figure), slat, lat. */
enum { LK_CLAT = 0, LK_SLAT, LK_LAT, LK_N };


/* import.c */
/* Agent names of imported results are IMPORT_AGENT_PREFIX + fio's host. */
#define IMPORT_AGENT_PREFIX "fio:"
/* Stores fio's JSON output (req "fio": the parsed document; "source",
   "plan", "host", "labels") as a complete run.  Returns {"run", ...}, or
   NULL with err naming the entry and field that is wrong. */
json_t *import_fio (ctl_t *ctl, json_t *req, char *err, size_t errlen);

/* schedule.c: cron schedules that queue runs, and the admin commands of
   the schedule family. */
#define SCHED_NAME_MAX 64           /* a schedule's name, bytes */
/* hook: --on-regression CMD or NULL; test_clock: --test-clock EPOCH, or 0
   for the real clock.  NULL when out of memory. */
scheduler_t *scheduler_new (const char *hook, int64_t test_clock);
void scheduler_destroy (scheduler_t **self_p);
/* The scheduler's clock, Unix seconds. */
int64_t scheduler_now (ctl_t *ctl);
/* Fires what is due (a missed fire runs once, if catch-up is on), and
   starts and reaps the hook.  Can't fail (errors are logged). */
void scheduler_tick (ctl_t *ctl);
/* Admin commands schedule_add, schedule_list, schedule_rm,
   schedule_run_now, regressions, gc, test_clock.  NULL with err filled. */
json_t *scheduler_admin (ctl_t *ctl, const char *cmd, json_t *req, char *err, size_t errlen);

/* verdict.c */
/* A run ended: if a schedule queued it, its verdict against the baseline
   and its regressions are recorded, and with ctl->on_regression set the
   hook made pending.  Can't fail. */
void verdict_on_run_end (ctl_t *ctl, int64_t run, const char *status);
/* Admin "regressions": {since?, schedule?}, newest first.  Can't fail. */
json_t *verdict_regressions (ctl_t *ctl, json_t *req);

/* hook.c: the --on-regression hook, one fire at a time. */
hook_t *hook_new (const char *cmd);
void hook_destroy (hook_t **self_p);
/* Starts the hook for the oldest fire waiting for it, unless it runs.
   Can't fail (a hook that cannot start is recorded so). */
void hook_start (hook_t *self, store_t *store);
/* Reaps the hook when it ended, stops it past its timeout.  Can't fail. */
void hook_poll (hook_t *self, store_t *store);
/* Once at start: hooks the last controller left running are recorded as
   interrupted.  Can't fail. */
void hook_interrupted (store_t *store);

/* gc.c */
/* Marks the ended runs whose per-interval snapshots may go: those ended
   more than keep_s seconds ago, and those not among the newest keep_runs
   ended runs of iofleet's own, imports aside (-1: no such limit; one of
   the two is given).  Baselines
   (a schedule's pinned one, or its last pass) are never marked.  In the
   loop's transaction.  Returns the runs marked, or -1 on a database
   error. */
int gc_expire (ctl_t *ctl, int64_t keep_s, int64_t keep_runs);
/* Deletes one bounded batch of the snapshots of the oldest marked run
   that still has some; *run is that run (0: none).  In the loop's
   transaction.  Returns the rows deleted (0: nothing left to drop), or -1
   on a database error. */
int64_t gc_drop (ctl_t *ctl, int64_t *run);
/* Admin "gc" {keep_intervals_s}: drops per-interval snapshots of runs
   ended more than that ago.  NULL with err filled (a run queued or
   running, a database error). */
json_t *gc_run (ctl_t *ctl, json_t *req, char *err, size_t errlen);

/* retention.c: the retention policy, applied while no run is queued or
   running.  keep_s: --retain-intervals in seconds, keep_runs:
   --retain-interval-runs (-1: not given).  NULL when neither is given
   (or out of memory: the caller tells them apart). */
retention_t *retention_new (int64_t keep_s, int64_t keep_runs);
void retention_destroy (retention_t **self_p);
/* Looks for runs past the policy at the next tick (a run ended).  self
   may be NULL.  Can't fail. */
void retention_soon (retention_t *self);
/* Once per loop tick: when idle and due, marks the runs past the policy,
   then drops one batch of their snapshots in the loop's transaction; the
   space freed is logged per run.  Can't fail (errors are logged). */
void retention_tick (ctl_t *ctl);
/* The policy and what it did since start, for iofleet stats; self may be
   NULL ({"policy": false}). */
json_t *retention_json (const retention_t *self);

/* snapshot_dict.c: the compression dictionary of snapshot blocks,
   trained while idle once enough blocks are stored.  NULL when out of
   memory. */
snapdict_t *snapdict_new (void);
void snapdict_destroy (snapdict_t **self_p);
/* Looks at the next tick (a run ended).  self may be NULL.  Can't fail. */
void snapdict_soon (snapdict_t *self);
/* Once per loop tick: when idle, due and the database has none, trains
   one (its own transaction).  Can't fail (errors are logged). */
void snapdict_tick (ctl_t *ctl);
/* For iofleet stats: {have, samples, bytes, ms} (the last three of one
   trained by this controller). */
json_t *snapdict_json (const snapdict_t *self);

/* history_index.c (history.h has its reader): the index's builder.  NULL
   when out of memory. */
history_index_t *history_index_new (void);
void history_index_destroy (history_index_t **self_p);
/* Looks for steps to index at the next tick (a run ended).  Can't fail. */
void history_index_soon (history_index_t *self);
/* Once per loop tick: when idle and due, indexes one step of the oldest
   run not indexed yet, in the loop's transaction.  Can't fail (errors
   are logged, and the step is computed by history meanwhile). */
void history_index_tick (ctl_t *ctl);
/* {"steps": indexed since start, "working": steps are left}, for stats. */
json_t *history_index_json (const history_index_t *self);

/* rounds.c: a run's rounds and its drives' steady state (common/rounds.h). */
/* Adds round's figure of each drive of step_idx, the tracked step, to
   steady_drives and judges its windows by rule (a drive without a figure
   this round gets a null).  prefix: "" or, when the tracked job runs
   together with others, "JOB:" (its targets' labels).  Returns 0, or -1
   on a database error or out of memory (the caller's transaction is not
   to be committed). */
int rounds_steady_track (store_t *store, int64_t run, int step_idx, const char *prefix, int round,
                  const rounds_rule_t *rule);
/* The drives with a figure in round that are not steady, or -1 on a
   database error (logged). */
int rounds_steady_unsteady (store_t *store, int64_t run, int round);
/* The report's "rounds" of run: {rounds_max, rounds_run, steady_state
   (the rule), drives [{agent, target, figures, steady, steady_round,
   window | last_window}], steady, not_steady}; JSON null for a run
   without rounds; NULL with err on a database error.  *unsteady: some
   drive is not steady. */
json_t *rounds_steady_report (store_t *store, int64_t run, bool *unsteady, char *err, size_t errlen);

/* groups.c */
/* Is by a grouping key (common/match.h)?  Returns 0, or -1 with err
   naming --by and the keys. */
int groups_key_check (const char *by, char *err, size_t errlen);
/* Adds "groups" (merged per value of `by`, or one group "all" when NULL)
   and "outliers" to a step of a report: its agents' targets are the
   members; selected: only they count (the step was filtered by
   groups_select).  Returns 0, or -1 with err for a `by` that is not one or
   a database error.  groups_add takes the step's "agents" at once; a
   report written one agent at a time gives each agent to
   groups_acc_agent (which sets each target's "group" when by is given),
   then calls groups_acc_end (which frees the accumulator, failed or not). */
int groups_add (store_t *store, int64_t run, int step, json_t *step_json, const char *by,
                bool selected, char *err, size_t errlen);
/* groups_add's groups and their figures only: no per-group series (which
   reads the step's snapshots), no outliers (what history needs). */
int groups_add_figures (store_t *store, int64_t run, int step, json_t *step_json,
                        const char *by, bool selected, char *err, size_t errlen);
typedef struct groups_acc groups_acc_t;
groups_acc_t *groups_acc_new (store_t *store, int64_t run, int step, const char *by,
                              bool selected, char *err, size_t errlen);
void groups_acc_agent (groups_acc_t *g, json_t *aj);
int groups_acc_end (groups_acc_t *g, json_t *step_json, char *err, size_t errlen);
/* Frees g without adding anything (a report that failed).  Can't fail. */
void groups_acc_free (groups_acc_t *g);
/* Keeps the targets of the step's "agents" that satisfy conds (an agent
   without targets, which measured nothing, is judged as a whole), drops
   agents left without any, and adds "selected" {agents, agents_of,
   targets, targets_of}.  values (if not NULL) gets every value of
   conds[0]'s key seen, as keys.  Returns the number of agents kept, or -1
   on a database error (logged).  One agent at a time: groups_sel_new
   (NULL when out of memory), groups_sel_agent (filters the agent's targets
   in place; true: keep it), groups_sel_end (adds "selected", frees). */
int groups_select (store_t *store, int64_t run, int step, json_t *step_json,
                   const match_cond_t *conds, int nconds, json_t *values);
typedef struct groups_sel groups_sel_t;
groups_sel_t *groups_sel_new (store_t *store, int64_t run, int step, const match_cond_t *conds,
                              int nconds, json_t *values);
bool groups_sel_agent (groups_sel_t *g, json_t *aj);
int groups_sel_end (groups_sel_t *g, json_t *step_json);
/* {"agents", "targets", "iops_per_agent", "iops_per_target",
   "bw_per_agent", "bw_per_target"} of members summing to iops and bw. */
json_t *groups_members_json (int agents, int targets, double iops, double bw);
/* The read and write paths of results, each in its own header. */
#include "series.h"
#include "step_results.h"
#include "report.h"
#include "fio_export.h"
#include "history.h"

#endif
