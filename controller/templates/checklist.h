/*  checklist.h: the tuning checklist over a whole run (the qualification
    report's "checklist"): each rule of lint.h, per group, for every drive
    of every step, with the inventory the agent came with to that step and
    the step's I/Os in flight.  A drive fails a rule when it fails it in
    any step. */
#ifndef IOF_CHECKLIST_H
#define IOF_CHECKLIST_H

#include <jansson.h>
#include <stdint.h>

#include "store.h"

#define CHECKLIST_RULE "every drive of every step against each rule, with the inventory the " \
    "agent came with to the step and the step's iodepth x numjobs; a drive fails a rule when " \
    "it fails it in any step; not known: the inventory does not say (or the rule is NVMe's)"

/* [{"rule", "advice", "groups": [{"group", "drives", "checked", "failing",
   "example"}]}], a rule per lint.h rule; rep is run's report (by group).
   Returns NULL on a database error (logged) or out of memory. */
json_t *checklist_json (store_t *store, int64_t run, json_t *rep);

#endif
