/*  known_agents.c: see known_agents.h. */
#include "known_agents.h"
#include "store.h"

/* Column i of st as JSON: its text, or null. */
static json_t *
s_text_or_null (sqlite3_stmt *st, int i)
{
    const char *t = (const char *) sqlite3_column_text (st, i);
    return t ? json_string (t) : json_null ();
}

int
known_agents_list (store_t *store, json_t **rows)
{
    json_t *list = *rows = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.id, a.labels, i.json, a.name, a.hostname FROM agents a LEFT JOIN inventories i "
        "ON i.id = a.inventory_id WHERE a.imported = 0 ORDER BY a.name");
    int rc;
    while ((rc = store_row (store, st, "list the agents")) == 1)
        json_array_append_new (list, json_pack ("{s:I, s:o, s:o, s:o, s:o}",
            "id", (json_int_t) sqlite3_column_int64 (st, 0),
            "labels", s_text_or_null (st, 1),
            "inventory", s_text_or_null (st, 2),
            "name", s_text_or_null (st, 3),
            "hostname", s_text_or_null (st, 4)));
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

int
known_agents_has (store_t *store, const char *name)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT 1 FROM agents WHERE name = ? AND imported = 0");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int seen = store_row (store, st, "find an agent by name");
    if (st)
        sqlite3_reset (st);
    return seen;
}
