/*  agent_rows.h: the agents table (schemas/001_init.sql, 008_auth.sql):
    the agents that said HELLO, with their key and current inventory.
    Writes go into the caller's open transaction (store_begin); none
    commits. */
#ifndef IOF_AGENT_ROWS_H
#define IOF_AGENT_ROWS_H

#include "store.h"

#include <stdint.h>

/* An agent's row.  For agent_rows_hello the caller fills name, hostname,
   kernel, version, labels (JSON text) and public_key (NULL or "": keep
   the stored one); agent_rows_each fills every field, public_key,
   inventory_hash and inventory (JSON text) NULL when the row has none.
   The strings last until the callback returns. */
typedef struct {
    uint64_t id;
    const char *name, *hostname, *kernel, *version, *labels;
    uint64_t first_seen, last_seen;     /* real-clock ns */
    const char *public_key;
    const char *inventory_hash, *inventory;
} agent_rows_t;
typedef void (agent_rows_fn) (void *arg, const agent_rows_t *row);

/* The public key that registered name, into key (of keylen; "" when the
   name has none).  Returns 1, 0 when none did, or -1 on a database error
   (logged). */
int agent_rows_key_of (store_t *store, const char *name, char *key, size_t keylen);

/* Stores the agent a HELLO describes (added, or its row updated) as seen
   at now (real-clock ns) and sets *id to its id.  Returns 0, or -1 on a
   database error (logged; *id is 0). */
int agent_rows_hello (store_t *store, const agent_rows_t *agent, uint64_t now, uint64_t *id);

/* Calls fn for each agent that said HELLO (not the hosts of imported
   results), by name.  Returns 0, or -1 when the query cannot be prepared
   or a row cannot be read (logged), after the rows read before it. */
int agent_rows_each (store_t *store, agent_rows_fn *fn, void *arg);

#endif
