/*  known_agents.h: the agents this controller has seen (the agents table
    less the hosts of imported fio results), as a run's --agents selects
    among them (run/submit.c).
*/
#ifndef IOF_KNOWN_AGENTS_H
#define IOF_KNOWN_AGENTS_H

#include "store.h"

#include <jansson.h>

/* Every agent seen, by name, in *rows: [{"id", "name", "hostname",
   "labels", "inventory"}, ...], labels and inventory as stored (JSON
   text; the inventory null when none is known, as are a NULL name or
   hostname).  Returns 0, or -1 on a database error (logged) with *rows
   the agents read before it. */
int known_agents_list (store_t *store, json_t **rows);
/* Whether an agent named name was ever seen.  Returns 1 or 0; -1 on a
   database error (logged). */
int known_agents_has (store_t *store, const char *name);

#endif
