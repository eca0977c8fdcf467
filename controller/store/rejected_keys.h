/*  rejected_keys.h: the rejected_keys table (schemas/008_auth.sql): the
    CURVE keys the controller refused, per key and domain (agents,
    admins).  Writes go into the caller's open transaction (store_begin);
    none commits. */
#ifndef IOF_REJECTED_KEYS_H
#define IOF_REJECTED_KEYS_H

#include "store.h"

#include <jansson.h>
#include <stdint.h>

/* Records one refusal of key (Z85) in domain, from address, at now
   (real-clock ns): a new row, or the key's row with one attempt more.
   Returns 0 or -1 (logged). */
int rejected_keys_add (store_t *store, const char *key, const char *domain,
                       const char *address, uint64_t now);

/* The refused keys, the latest first: [{public_key, domain, address,
   first_seen, last_seen, attempts}].  NULL on a database error (logged). */
json_t *rejected_keys_list (store_t *store);

#endif
