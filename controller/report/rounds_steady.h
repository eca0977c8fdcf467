/*  rounds_steady.h: a run's rounds and its drives' steady state.  */
#ifndef IOF_ROUNDS_STEADY_H
#define IOF_ROUNDS_STEADY_H

#include "controller.h"
#include "store.h"

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

#endif
