/*  regressions.h: the regressions table (schemas/010_schedules.sql): the
    significant changes for the worse a scheduled run showed against its
    baseline.  Writes go into the caller's open transaction (store_begin);
    none commits. */
#ifndef IOF_REGRESSIONS_H
#define IOF_REGRESSIONS_H

#include "store.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* One regression of fire_id (run of schedule against baseline), stored
   significant, recorded at Unix seconds now. */
typedef struct {
    int64_t fire_id;
    const char *schedule;
    int64_t run, baseline;
    const char *step, *group, *metric;
    double a, b, delta_pct;
    int64_t now;
} regressions_row_t;

/* Stores one regression.  Returns 0 or -1 (logged). */
int regressions_add (store_t *store, const regressions_row_t *row);

/* Appends fire_id's regressions, oldest first, to the array into:
   {step, group, metric, a, b, delta_pct}; significant: only those
   stored significant.  Returns 0, or -1 on a database error (logged)
   with the rows read before it appended. */
int regressions_of_fire (store_t *store, int64_t fire_id, bool significant, json_t *into);

/* The regressions recorded at or after since (Unix seconds), of schedule
   (NULL: every one), newest first: [{schedule, run, baseline, step,
   group, metric, a, b, delta_pct, recorded_at, hook}].  Can't fail: a
   database error (logged) ends the list where it happened. */
json_t *regressions_list (store_t *store, int64_t since, const char *schedule);

#endif
