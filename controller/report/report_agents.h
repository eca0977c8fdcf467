/*  report_agents.h: a step's agents and their targets' figures, one agent at a time.  */
#ifndef IOF_REPORT_AGENTS_H
#define IOF_REPORT_AGENTS_H

#include "store.h"
#include <jansson.h>

/* The agents of a step with their targets' results, one at a time
   (report_agents.c).  spec (the step's "job"; NULL: not wanted) adds each
   agent's "latency_target" when a job of the step has one; extra[0..nextra)
   are percentiles to add.  Between begin and end no other report_agents_t
   may be open on the same store (they share a cached statement). */
typedef struct {
    store_t *store;
    int64_t run;
    int step;
    json_t *spec;
    const double *extra;
    int nextra;
    bool latency;               /* a job of the step has a latency_target */
    sqlite3_stmt *st;
    bool done, failed;
} report_agents_t;
void report_agents_begin (report_agents_t *it, store_t *store, int64_t run, int step,
                          json_t *spec, const double *extra, int nextra);
/* The next agent (a new reference), in name order, or NULL: no more, or a
   database error (logged; it->failed).  Can't fail otherwise. */
json_t *report_agents_next (report_agents_t *it);
/* Done with it (before the last, too).  Can't fail. */
void report_agents_end (report_agents_t *it);
/* Every agent of a step: a new array, or NULL on a database error
   (logged). */
json_t *report_agents_step (store_t *store, int64_t run, int step, json_t *spec,
                            const double *extra, int nextra);

#endif
