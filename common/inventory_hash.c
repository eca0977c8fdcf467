/*  inventory_hash.c: see inventory_hash.h. */
#include "inventory_hash.h"
#include "util.h"

#include <stdlib.h>

void
inventory_hash (json_t *inv, char out[17])
{
    out[0] = '\0';
    json_t *copy = json_deep_copy (inv);
    if (!copy)
        return;
    json_t *host = json_object_get (copy, "host");
    if (json_is_object (host))
        json_object_del (host, "boot_id");
    char *s = json_dumps (copy, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref (copy);
    if (!s)
        return;
    hash_text (s, out);
    free (s);
}
