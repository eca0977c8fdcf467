/*  step_gaps.h: the step_gaps rows (schemas/022_gaps.sql): what
    interrupted an agent's part of a step (stalled, above_pace, silent,
    lost, restarted), one row per span of intervals.  Writes go into the
    open transaction and return 0, or -1 on a database error (logged).
*/
#ifndef IOF_STEP_GAPS_H
#define IOF_STEP_GAPS_H

#include "store.h"

#include <jansson.h>
#include <stdint.h>

/* Interval seq of agent_id in step idx had `cause` (stalled or
   above_pace), ns of it (stalled: how long): joins the span that ends
   at seq - 1 or begins at seq + 1, else begins one.  Returns 0 or -1. */
int step_gaps_note (store_t *store, int64_t run, int idx, int64_t agent_id, const char *cause,
                    uint32_t seq, uint64_t ns);
/* Records the span from_seq..to_seq (-1: to the step's end) of cause
   (silent, lost, restarted), replacing one of the same cause that begins
   at from_seq.  Returns 0 or -1. */
int step_gaps_span (store_t *store, int64_t run, int idx, int64_t agent_id, const char *cause,
                    int64_t from_seq, int64_t to_seq, uint64_t ns);
/* Removes agent_id's spans of cause in step idx (a lost agent that came
   back is not lost).  Returns 0 or -1. */
int step_gaps_clear (store_t *store, int64_t run, int idx, int64_t agent_id, const char *cause);
/* Sums agent_id's stalled spans in step idx: *ns stopped, the first and
   last interval (*from, *to; -1 when none).  Returns the number of
   spans, or -1 on a database error. */
int step_gaps_stalled (store_t *store, int64_t run, int idx, int64_t agent_id, uint64_t *ns,
                       int64_t *from, int64_t *to);
/* Step idx's rows by agent name then cause and from_seq, in *rows:
   [{"agent", "cause", "from", "to", "ns"}, ...].  Returns 0, or -1 on a
   database error (logged) with *rows what was read. */
int step_gaps_list (store_t *store, int64_t run, int idx, json_t **rows);

/* runs.tolerate_gaps: set (iofleet run --tolerate-gaps), read (0 or 1,
   -1 on a database error). */
int step_gaps_set_tolerate (store_t *store, int64_t run, bool on);
int step_gaps_tolerate (store_t *store, int64_t run);

#endif
