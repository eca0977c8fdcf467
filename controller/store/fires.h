/*  fires.h: the fires table (schemas/010_schedules.sql): every time a
    schedule fell due, the run it queued or why not, the run's verdict
    against its baseline and the --on-regression hook's status.  Writes go
    into the caller's open transaction (store_begin); none commits. */
#ifndef IOF_FIRES_H
#define IOF_FIRES_H

#include "schedules.h"
#include "store.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* What judging a scheduled run needs: its fire, and its schedule's
   settings (removed: the schedule is gone since; baseline and plan are
   then ""). */
typedef struct {
    int64_t id;
    char schedule[SCHED_NAME_MAX + 1];
    bool removed;
    char baseline[32];                  /* last-pass, or a run id */
    char plan[256];
    double fail_pct;
    char by[64];                        /* "" for none */
} fires_judge_t;

/* Records a fire of schedule name (run 0: none queued, skipped says why)
   and sets *id to its id.  Returns 0 or -1 (logged). */
int fires_add (store_t *store, const char *name, int64_t due_at, int64_t fired_at,
               const char *kind, int64_t run, const char *skipped, int64_t *id);

/* Why fire id queued no run, into buf.  Returns 1, 0 when there is no
   such fire, or -1 on a database error (logged). */
int fires_skipped (store_t *store, int64_t id, char *buf, size_t len);

/* The fire that queued run, with its schedule's settings, into *out.
   Returns 1, 0 when no fire queued it, or -1 on a database error
   (logged). */
int fires_of_run (store_t *store, int64_t run, fires_judge_t *out);

/* The run of schedule's latest fire before fire `before` judged pass or
   no-baseline, among runs of plan, into *run.  Returns 1, 0 when there
   is none, or -1 on a database error (logged); *run is 0 unless 1. */
int fires_last_pass (store_t *store, const char *schedule, int64_t before, const char *plan,
                     int64_t *run);

/* Records fire id's verdict, its baseline run (0: none, stored NULL) and
   its hook status.  Returns 0 or -1 (logged). */
int fires_set_verdict (store_t *store, int64_t id, const char *verdict, int64_t baseline,
                       const char *hook_status);

/* The oldest fire whose hook is pending: *out = {fire, schedule, run,
   baseline}.  Returns 1, 0 when none is, or -1 on a database error
   (logged); *out is NULL unless 1. */
int fires_hook_pending (store_t *store, json_t **out);

/* Records fire id's hook status.  Returns 0 or -1 (logged). */
int fires_set_hook (store_t *store, int64_t id, const char *status);

/* Every hook recorded running is recorded interrupted (the controller
   stopped while it ran).  Returns 0 or -1 (logged). */
int fires_hooks_interrupted (store_t *store);

/* Schedule's latest fire: its cron time, and whether it queued no run.
   Returns 1, 0 when it has none, or -1 on a database error (logged). */
int fires_latest (store_t *store, const char *schedule, int64_t *due_at, bool *skipped);

/* Schedule's latest judged fire: its id, its run, the verdict (into
   verdict, of verdict_len) and whether the run completed.  Returns 1, 0
   when none was judged, or -1 on a database error (logged). */
int fires_latest_judged (store_t *store, const char *schedule, int64_t *id, int64_t *run,
                         char *verdict, size_t verdict_len, bool *complete);

#endif
