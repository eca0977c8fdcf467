/*  gap_report.h: what interrupted each agent's part of a step, named
    where the figures are (issue 40).

    From the step_gaps rows (store/step_gaps.h): the step's "gaps", one
    entry per span and cause, {agent, cause, from_interval, to_interval,
    seconds, io, partial}: stalled (the agent's process was stopped: no
    I/O issued, and a rate-limited job then catches up above its pace, as
    fio's rate does: "caught_up"), silent (the controller heard nothing,
    what was measured meanwhile came late from the spool), lost,
    restarted, above_pace (a catch-up not after a stall).  "partial" says
    whether the gap makes the step partial (iofleet run --tolerate-gaps
    accepts a stall).  Each agent with a gap gets its own "gaps" and a
    "measured_window" saying over which intervals its figures were taken
    and which of them were stalled or above pace; each interval of the
    step's series that an agent spent stalled or above pace lists it
    ("stalled_agents", "above_pace_agents").
*/
#ifndef IOF_GAP_REPORT_H
#define IOF_GAP_REPORT_H

#include "step_missing.h"
#include "store.h"

#include <jansson.h>

typedef struct gap_report gap_report_t;

/* Reads step idx's gaps (miss: its delivered intervals, for what a
   silence cost and where a lost agent's gap ends).  NULL on a database
   error (logged). */
gap_report_t *gap_report_new (store_t *store, int64_t run, int idx,
                              const step_missing_t *miss);
/* Adds agent a's "gaps" and "measured_window" when it has any.  Can't
   fail. */
void gap_report_agent (gap_report_t *self, json_t *a);
/* The step's "gaps" and "gap_rule" into s, its intervals ("intervals")
   marked; *self_p is destroyed.  Can't fail. */
void gap_report_end (gap_report_t **self_p, json_t *s);
void gap_report_destroy (gap_report_t **self_p);

#endif
