/*  rejected_keys.c: the rejected_keys table, see rejected_keys.h. */
#include "log.h"
#include "util.h"
#include "rejected_keys.h"
#include "store.h"

int
rejected_keys_add (store_t *store, const char *key, const char *domain, const char *address,
                   uint64_t now)
{
    IOF_ASSERT (store && key && domain && address);
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO rejected_keys (public_key, domain, address, first_seen, last_seen, attempts) "
        "VALUES (?1, ?2, ?3, ?4, ?4, 1) ON CONFLICT (public_key, domain) DO UPDATE SET "
        "address = excluded.address, last_seen = excluded.last_seen, attempts = attempts + 1");
    sqlite3_bind_text (st, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, domain, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 3, address, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 4, (sqlite3_int64) now);
    return store_step_done (store, st, "record a rejected key");
}

json_t *
rejected_keys_list (store_t *store)
{
    IOF_ASSERT (store);
    json_t *list = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT public_key, domain, address, first_seen, last_seen, attempts FROM rejected_keys "
        "ORDER BY last_seen DESC");
    int rc;
    while ((rc = store_row (store, st, "list rejected keys")) == 1)
        json_array_append_new (list, json_pack ("{s:s, s:s, s:s, s:I, s:I, s:I}",
            "public_key", (const char *) sqlite3_column_text (st, 0),
            "domain", (const char *) sqlite3_column_text (st, 1),
            "address", (const char *) sqlite3_column_text (st, 2),
            "first_seen", (json_int_t) sqlite3_column_int64 (st, 3),
            "last_seen", (json_int_t) sqlite3_column_int64 (st, 4),
            "attempts", (json_int_t) sqlite3_column_int64 (st, 5)));
    if (st)
        sqlite3_reset (st);
    if (rc < 0) {
        json_decref (list);
        return NULL;
    }
    return list;
}
