/*  inventory.c: the hardware agents report, stored immutable and
    deduplicated by hash (schemas/005_inventory.sql). */
#include "controller.h"
#include "log.h"
#include "inventory_hash.h"
#include "util.h"
#include "inventories.h"
#include "store.h"

#include <string.h>

int64_t
inventories_store (ctl_t *ctl, uint64_t agent_id, const char *text)
{
    if (!text || !*text)
        return 0;
    json_error_t jerr;
    json_t *inv = json_loads (text, 0, &jerr);
    if (!json_is_object (inv) || !json_is_object (json_object_get (inv, "host"))
        || !json_is_array (json_object_get (inv, "drives"))) {
        store_count (ctl->store, "bad_inventories", 1);
        log_warn ("agent %llu sent an inventory that is not {host, controllers, drives}: %s",
                  (unsigned long long) agent_id, inv ? "wrong shape" : jerr.text);
        json_decref (inv);
        return 0;
    }
    /* Canonical form: the same hardware hashes the same whatever the
       agent's key order, and a reboot alone (host.boot_id) is the same
       inventory: the row keeps the boot_id it was first seen with. */
    char hash[17];
    inventory_hash (inv, hash);
    char *canon = json_dumps (inv, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref (inv);
    if (!canon || !hash[0]) {
        free (canon);
        return 0;
    }
    store_begin (ctl->store);
    sqlite3_stmt *st = store_stmt (ctl->store,
        "INSERT OR IGNORE INTO inventories (agent_id, hash, json, first_seen) VALUES (?, ?, ?, ?)");
    sqlite3_bind_int64 (st, 1, (sqlite3_int64) agent_id);
    sqlite3_bind_text (st, 2, hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 3, canon, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 4, (sqlite3_int64) clock_real_ns ());
    free (canon);
    if (store_step_done (ctl->store, st, "store inventory"))
        return 0;
    st = store_stmt (ctl->store, "SELECT id FROM inventories WHERE agent_id = ? AND hash = ?");
    sqlite3_bind_int64 (st, 1, (sqlite3_int64) agent_id);
    sqlite3_bind_text (st, 2, hash, -1, SQLITE_TRANSIENT);
    int64_t id = store_row (ctl->store, st, "find inventory") == 1 ? sqlite3_column_int64 (st, 0)
                                                                     : 0;
    sqlite3_reset (st);
    if (id) {
        st = store_stmt (ctl->store, "UPDATE agents SET inventory_id = ? WHERE id = ?");
        sqlite3_bind_int64 (st, 1, id);
        sqlite3_bind_int64 (st, 2, (sqlite3_int64) agent_id);
        if (store_step_done (ctl->store, st, "set agent inventory"))
            return 0;
    }
    return id;
}

json_t *
inventories_of (ctl_t *ctl, const char *agent, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT a.name, i.hash, i.json, i.first_seen FROM agents a "
        "LEFT JOIN inventories i ON i.id = a.inventory_id WHERE a.name = ?");
    sqlite3_bind_text (st, 1, agent, -1, SQLITE_TRANSIENT);
    json_t *out = NULL;
    int rc = store_row (ctl->store, st, "read inventory");
    if (rc < 0)
        snprintf (err, errlen, "database error reading the inventory of '%s'; see the "
                  "controller's log", agent);
    else if (rc == 0)
        snprintf (err, errlen, "no agent named '%s' (see 'iofleet agents')", agent);
    else if (sqlite3_column_type (st, 2) == SQLITE_NULL)
        snprintf (err, errlen, "agent '%s' has not reported an inventory (an agent older than "
                  "this controller?)", agent);
    else {
        json_t *inv = json_loads ((const char *) sqlite3_column_text (st, 2), 0, NULL);
        out = json_pack ("{s:s, s:s, s:I, s:o}", "agent", agent,
                         "hash", (const char *) sqlite3_column_text (st, 1),
                         "first_seen", (json_int_t) sqlite3_column_int64 (st, 3),
                         "inventory", inv ? inv : json_object ());
    }
    sqlite3_reset (st);
    return out;
}

json_t *
inventories_of_run (store_t *store, int64_t run)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, i.hash, i.json, i.first_seen FROM run_inventory ri "
        "JOIN inventories i ON i.id = ri.inventory_id JOIN agents a ON a.id = ri.agent_id "
        "WHERE ri.run_id = ? ORDER BY ri.step_idx, a.name");
    if (!st)
        return NULL;
    sqlite3_bind_int64 (st, 1, run);
    json_t *out = json_object ();
    int rc = 0;
    while (out && (rc = store_row (store, st, "read a run's inventories")) > 0) {
        const char *name = (const char *) sqlite3_column_text (st, 0);
        const char *hash = (const char *) sqlite3_column_text (st, 1);
        if (!name || !hash || json_object_get (out, name)
            || json_object_size (out) >= RUN_INVENTORIES_MAX)
            continue;
        json_t *inv = json_loads ((const char *) sqlite3_column_text (st, 2), 0, NULL);
        json_object_set_new (out, name, json_pack ("{s:s, s:s, s:I, s:o}", "agent", name,
                             "hash", hash, "first_seen", (json_int_t) sqlite3_column_int64 (st, 3),
                             "inventory", inv ? inv : json_object ()));
    }
    sqlite3_reset (st);
    if (rc < 0)
        json_decref (out), out = NULL;
    return out;
}

json_t *
inventories_at_step (store_t *store, json_t *cache, int64_t run, int step, const char *agent,
                   bool *failed)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT ri.inventory_id, i.json FROM run_inventory ri "
        "JOIN inventories i ON i.id = ri.inventory_id "
        "JOIN agents a ON a.id = ri.agent_id WHERE ri.run_id = ? AND ri.step_idx = ? AND a.name = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    sqlite3_bind_text (st, 3, agent, -1, SQLITE_TRANSIENT);
    json_t *inv = NULL;
    int rc = store_row (store, st, "read the agent's inventory");
    if (rc == 1) {
        char id[24];
        snprintf (id, sizeof id, "%lld", (long long) sqlite3_column_int64 (st, 0));
        inv = json_incref (json_object_get (cache, id));
        if (!inv) {
            inv = json_loads ((const char *) sqlite3_column_text (st, 1), 0, NULL);
            if (inv && cache)
                json_object_set (cache, id, inv);
        }
    }
    sqlite3_reset (st);
    *failed |= rc < 0;
    return inv;
}
