/*  schedules.h: the schedules table (schemas/010_schedules.sql): the
    cron schedules scheduler.c fires.  Writes go into the caller's open
    transaction (store_begin); none commits. */
#ifndef IOF_SCHEDULES_H
#define IOF_SCHEDULES_H

#include "store.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define SCHED_NAME_MAX   64         /* a schedule's name, bytes */
#define SCHED_AGENTS_MAX 1024       /* its --agents selector: names, or KEY=GLOB conditions */

/* What firing a schedule needs of its row. */
typedef struct {
    char plan[256];
    bool has_agents;                        /* agents is NULL in the row when not */
    char agents[SCHED_AGENTS_MAX + 1];
    char overlap[8];                        /* wait, skip */
    int64_t waiting;                        /* a run it queued that is still queued, or 0 */
} schedules_fire_t;

/* A schedule as schedules_add stores it (agents and by may be NULL). */
typedef struct {
    const char *name, *cron, *tz, *plan, *agents, *baseline, *by, *overlap;
    double fail_on_regression;
    bool catch_up;
    int64_t created_at, next_fire;
} schedules_def_t;

/* One row as schedules_each hands it (by is "" when the row has none);
   the strings last until the callback returns. */
typedef struct {
    const char *name, *plan, *by;
    int64_t next_fire;
} schedules_row_t;
typedef void (schedules_row_fn) (void *arg, const schedules_row_t *row);

/* Reads schedule name for a fire into *out.  Returns 1, 0 when there is
   no such schedule, or -1 on a database error (logged). */
int schedules_fire_row (store_t *store, const char *name, schedules_fire_t *out);

/* Stores next as the schedule's next due time.  Returns 0 or -1
   (logged). */
int schedules_set_next (store_t *store, const char *name, int64_t next);

/* The schedules due at now (next_fire <= now), earliest first:
   [{name, cron, tz, next, catch_up}].  NULL when the query cannot be
   prepared (logged); on an error while reading (logged), the rows read
   before it. */
json_t *schedules_due (store_t *store, int64_t now);

/* Adds a schedule.  Returns 0; -EEXIST when one of that name exists; or
   -EIO with SQLite's message in err.  Neither error is counted as a
   lost write (nothing else of the transaction is at stake). */
int schedules_add (store_t *store, const schedules_def_t *def, char *err, size_t errlen);

/* Every schedule, by name, with its last fire: [{name, cron, tz, plan,
   baseline, fail_on_regression, overlap, catch_up, next_fire, agents?,
   by?, last_fire?: {due_at, verdict, skipped, run?}}].  NULL on a
   database error (logged). */
json_t *schedules_list (store_t *store);

/* Removes schedule name; *removed: the rows removed (0 or 1).  Returns 0
   or -1 (logged). */
int schedules_remove (store_t *store, const char *name, int *removed);

/* Calls fn for each schedule, by name, while the query is open (so every
   read fn makes sees the same snapshot on a reader).  Returns 0, or -1
   on a database error (logged), after the rows read before it. */
int schedules_each (store_t *store, schedules_row_fn *fn, void *arg);

#endif
