/*  agent_rows.c: the agents table, see agent_rows.h. */
#include "log.h"
#include "util.h"
#include "agent_rows.h"
#include "store.h"

#include <stdio.h>

int
agent_rows_key_of (store_t *store, const char *name, char *key, size_t keylen)
{
    IOF_ASSERT (store && name && key && keylen);
    key[0] = '\0';
    sqlite3_stmt *st = store_stmt (store,
        "SELECT public_key FROM agents WHERE name = ? AND public_key IS NOT NULL");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = store_row (store, st, "find the key of a name");
    if (rc == 1)
        snprintf (key, keylen, "%s", (const char *) sqlite3_column_text (st, 0));
    if (st)
        sqlite3_reset (st);
    return rc;
}

int
agent_rows_hello (store_t *store, const agent_rows_t *agent, uint64_t now, uint64_t *id)
{
    IOF_ASSERT (store && agent && agent->name && agent->labels && id);
    *id = 0;
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO agents (name, hostname, kernel, agent_version, labels, first_seen, last_seen, "
        " public_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7) ON CONFLICT (name) DO UPDATE SET "
        "hostname = excluded.hostname, kernel = excluded.kernel, "
        "agent_version = excluded.agent_version, labels = excluded.labels, "
        "last_seen = excluded.last_seen, public_key = COALESCE (excluded.public_key, public_key)");
    sqlite3_bind_text (st, 1, agent->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, agent->hostname, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 3, agent->kernel, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 4, agent->version, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 5, agent->labels, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 6, (sqlite3_int64) now);
    if (agent->public_key && *agent->public_key)
        sqlite3_bind_text (st, 7, agent->public_key, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null (st, 7);
    int rc = store_step_done (store, st, "store agent");
    st = store_stmt (store, "SELECT id FROM agents WHERE name = ?");
    sqlite3_bind_text (st, 1, agent->name, -1, SQLITE_TRANSIENT);
    if (rc == 0 && store_row (store, st, "find the agent's id") == 1)
        *id = (uint64_t) sqlite3_column_int64 (st, 0);
    if (st)
        sqlite3_reset (st);
    return *id ? 0 : -1;
}

int
agent_rows_each (store_t *store, agent_rows_fn *fn, void *arg)
{
    IOF_ASSERT (store && fn);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.id, a.name, a.hostname, a.kernel, a.agent_version, a.labels, a.first_seen, "
        " a.last_seen, i.hash, i.json, a.public_key FROM agents a LEFT JOIN inventories i "
        "ON i.id = a.inventory_id WHERE a.imported = 0 ORDER BY a.name");
    if (!st)
        return -1;
    int rc;
    while ((rc = store_row (store, st, "list the agents")) == 1) {
        agent_rows_t row = {
            .id = (uint64_t) sqlite3_column_int64 (st, 0),
            .name = (const char *) sqlite3_column_text (st, 1),
            .hostname = (const char *) sqlite3_column_text (st, 2),
            .kernel = (const char *) sqlite3_column_text (st, 3),
            .version = (const char *) sqlite3_column_text (st, 4),
            .labels = (const char *) sqlite3_column_text (st, 5),
            .first_seen = (uint64_t) sqlite3_column_int64 (st, 6),
            .last_seen = (uint64_t) sqlite3_column_int64 (st, 7),
        };
        if (sqlite3_column_type (st, 10) != SQLITE_NULL)
            row.public_key = (const char *) sqlite3_column_text (st, 10);
        if (sqlite3_column_type (st, 9) != SQLITE_NULL) {
            row.inventory = (const char *) sqlite3_column_text (st, 9);
            row.inventory_hash = (const char *) sqlite3_column_text (st, 8);
        }
        fn (arg, &row);
    }
    sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}
