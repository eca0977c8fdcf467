/*  runs.h: the runs table: list, one row, labels and note, removal.  */
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

/* Whether run has finished with results (complete or partial): a
   baseline.  Returns 1, 0 when not (or no such run), or -1 on a database
   error (logged). */
int runs_finished (store_t *store, int64_t run);

#endif
