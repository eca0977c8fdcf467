/*  inventory_ctx.c: see inventory_ctx.h. */
#include "inventory_ctx.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

json_t *
inventory_ctx_str (const char *s)
{
    if (!s || !*s)
        return json_string ("unknown");
    size_t n = strlen (s);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
            return json_string ("unknown");
    if (utf8_invalid_at (s, n) < 0)
        return json_string (s);
    char *c = strdup (s);
    if (!c)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char) c[i] >= 0x80)
            c[i] = '?';
    json_t *j = json_string (c);
    free (c);
    return j;
}

json_t *
inventory_ctx_num (bool ok, uint64_t v)
{
    return ok && v <= (uint64_t) INT64_MAX ? json_integer ((json_int_t) v) : json_null ();
}

void
inventory_ctx_set (inventory_ctx_t *inv, json_t *o, const char *key, json_t *v)
{
    if (!v || json_object_set_new (o, key, v) != 0)
        inv->oom = true;
}

json_t *
inventory_ctx_object (inventory_ctx_t *inv)
{
    json_t *o = json_object ();
    if (!o)
        inv->oom = true;
    return o;
}
