/*  runs.h: the runs table: list, one row, labels and note, removal; a
    run's row and its agents (run_agents) as run/ records its life.  */
#ifndef IOF_RUNS_H
#define IOF_RUNS_H

#include "controller.h"
#include "store.h"

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

/* Whether a run is queued or running (the oldest in *run, else 0).
   Can't fail: a database error (logged) reads as busy, so that nothing
   starts on a guess. */
bool runs_busy (store_t *store, int64_t *run);

/* A run's life as the run state machine records it (run/): each writes
   in the open transaction (the caller's: the loop batches a tick's
   writes), each takes the store and plain values.  Writes return 0, or
   -1 on a database error (logged; a lost write is counted by the store
   and holds the run, store_failing). */

/* Queues a run of plan_id (created_at now_ns) and its id in *run.
   Returns 0, or -1 (logged; *run untouched). */
int runs_create (store_t *store, int64_t plan_id, int64_t now_ns, int min_agents,
                 bool require_all, int64_t *run);
/* Gives run the agent agent_id (run_agents).  Returns 0 or -1. */
int runs_add_agent (store_t *store, int64_t run, int64_t agent_id);
/* Records run's status and message; 'running' sets its start (now_ns),
   an end (complete, partial, failed, cancelled) its finish.  Returns 0
   or -1. */
int runs_set_status (store_t *store, int64_t run, const char *status, const char *message,
                     int64_t now_ns);
/* Records who cancelled run, and when.  Returns 0 or -1. */
int runs_set_cancelled (store_t *store, int64_t run, const char *by, int64_t now_ns);
/* Records run's rounds at most and its steady-state rule (NULL or empty:
   none).  Returns 0 or -1. */
int runs_set_rounds (store_t *store, int64_t run, int rounds, const char *rule);
/* Marks failed (finished now_ns) every run left 'running' but keep: a
   controller stopped during them.  Returns 0 or -1. */
int runs_fail_orphans (store_t *store, int64_t keep, int64_t now_ns);

/* The newest run left 'running' in *run (0: none).  Returns 0, or -1 on a
   database error (logged; *run 0). */
int runs_running (store_t *store, int64_t *run);
/* The oldest queued run in *run (0: none).  Returns 0, or -1 on a
   database error (logged; *run 0). */
int runs_queued (store_t *store, int64_t *run);
/* run's status ("queued", "running", ...) in status (cap bytes).  Returns
   1; otherwise err says "no run RUN" (0) or that the database failed
   (-1), as runs_row. */
int runs_status (store_t *store, int64_t run, char *status, size_t cap, char *err,
                 size_t errlen);
/* What 'iofleet status' says of run from its row: {run, status, message,
   plan, steps (its steps rows), cancelled_by?, cancelled_at?}.  NULL with
   err as runs_row's. */
json_t *runs_summary (store_t *store, int64_t run, char *err, size_t errlen);
/* The plan run is of: its name (in name, cap namelen), its text (*text,
   malloc'd: the caller frees it), and the run's policy (min_agents,
   require_all).  Returns 1; 0 when run or its plan is not there; -1 on a
   database error (logged) or out of memory (nothing set but name). */
int runs_plan_of (store_t *store, int64_t run, char *name, size_t namelen, char **text,
                  int *min_agents, bool *require_all);
/* run's agents, by name: [{"id", "name"}, ...].  NULL on a database error
   (logged) or out of memory. */
json_t *runs_agents (store_t *store, int64_t run);

/* Whether run has finished with results (complete or partial): a
   baseline.  Returns 1, 0 when not (or no such run), or -1 on a database
   error (logged). */
int runs_finished (store_t *store, int64_t run);

#endif
