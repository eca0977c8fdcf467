/*  inventory_hash.h: what makes two inventories the same one.  The agent
    and the controller both hash with it; the controller keeps one row per
    agent and hash (schemas/005_inventory.sql), so what is left out here
    (host.boot_id: a reboot) never makes a new row.
*/
#ifndef IOF_INVENTORY_HASH_H
#define IOF_INVENTORY_HASH_H

#include <jansson.h>

/* 64-bit FNV-1a of the canonical JSON (JSON_SORT_KEYS|JSON_COMPACT) of inv
   without its volatile fields (host.boot_id), as 16 lowercase hex digits:
   equal hardware and software give equal hashes.  out is "" when inv could
   not be serialized (out of memory).  Does not modify inv. */
void inventory_hash (json_t *inv, char out[17]);

#endif
