/*  test_agent_rows.c: the agents' tables through the data layer
    (store/agent_rows.c, rejected_keys.c, and store_counters): what
    fleet.c, auth.c and admin.c read and write, on a database of its own,
    and each read's error told apart from "none" (the table renamed
    away).
*/
#include "testutil.h"
#include "store_fx.h"
#include "agent_rows.h"
#include "rejected_keys.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

/* An agent_rows_each callback: the rows, as JSON. */
static void
keep_row (void *arg, const agent_rows_t *row)
{
    json_t *o = json_pack ("{s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:I}",
        "id", (json_int_t) row->id, "name", row->name, "hostname", row->hostname,
        "kernel", row->kernel, "version", row->version, "labels", row->labels,
        "first_seen", (json_int_t) row->first_seen, "last_seen", (json_int_t) row->last_seen);
    if (row->public_key)
        json_object_set_new (o, "public_key", json_string (row->public_key));
    if (row->inventory) {
        json_object_set_new (o, "inventory", json_string (row->inventory));
        json_object_set_new (o, "inventory_hash", json_string (row->inventory_hash));
    }
    json_array_append_new (arg, o);
}

static const char *
str (json_t *o, const char *key)
{
    return json_string_value (json_object_get (o, key)) ?: "";
}

int
main (void)
{
    char dir[] = "/tmp/test_agent_rows.XXXXXX";
    store_t *store = store_fx_open (dir);
    if (!store)
        return 1;

    /* HELLO: a new agent, then again with other facts and no key (the
       key it registered stays). */
    char key[64] = "x";
    CHECK (agent_rows_key_of (store, "a", key, sizeof key) == 0 && key[0] == '\0');
    CHECK (store_begin (store) == 0);
    agent_rows_t a = { .name = "a", .hostname = "h1", .kernel = "6.1", .version = "0.3.0",
                       .labels = "{\"rack\":\"r1\"}", .public_key = "KEYA" };
    uint64_t id = 0, id2 = 0;
    CHECK (agent_rows_hello (store, &a, 100, &id) == 0 && id > 0);
    a.hostname = "h2";
    a.public_key = NULL;
    CHECK (agent_rows_hello (store, &a, 200, &id2) == 0 && id2 == id);
    agent_rows_t b = { .name = "b", .hostname = "hb", .kernel = "6.2", .version = "0.3.0",
                       .labels = "{}", .public_key = "" };
    CHECK (agent_rows_hello (store, &b, 300, &id2) == 0 && id2 != id);
    CHECK (store_commit (store) == 0);
    CHECK (agent_rows_key_of (store, "a", key, sizeof key) == 1 && strcmp (key, "KEYA") == 0);
    CHECK (agent_rows_key_of (store, "b", key, sizeof key) == 0 && key[0] == '\0');

    /* The listing: by name, without the hosts of imported results, with
       the current inventory where there is one. */
    CHECK (store_fx_exec (store,
        "INSERT INTO agents (name, first_seen, last_seen, imported) VALUES ('fio:x', 0, 0, 1);"
        "INSERT INTO inventories (id, agent_id, hash, json, first_seen) "
        " VALUES (7, 1, 'abc', '{\"host\":{}}', 0);"
        "UPDATE agents SET inventory_id = 7 WHERE name = 'a';") == SQLITE_OK);
    json_t *rows = json_array ();
    CHECK (agent_rows_each (store, keep_row, rows) == 0);
    CHECK (json_array_size (rows) == 2);
    json_t *r0 = json_array_get (rows, 0), *r1 = json_array_get (rows, 1);
    CHECK (strcmp (str (r0, "name"), "a") == 0 && strcmp (str (r0, "hostname"), "h2") == 0);
    CHECK (json_integer_value (json_object_get (r0, "first_seen")) == 100);
    CHECK (json_integer_value (json_object_get (r0, "last_seen")) == 200);
    CHECK (strcmp (str (r0, "labels"), "{\"rack\":\"r1\"}") == 0);
    CHECK (strcmp (str (r0, "public_key"), "KEYA") == 0);
    CHECK (strcmp (str (r0, "inventory_hash"), "abc") == 0);
    CHECK (strcmp (str (r1, "name"), "b") == 0 && !json_object_get (r1, "public_key"));
    CHECK (!json_object_get (r1, "inventory"));
    json_decref (rows);

    /* Refused keys: one row per key and domain, attempts counted. */
    CHECK (store_begin (store) == 0);
    CHECK (rejected_keys_add (store, "K1", "agents", "10.0.0.1", 10) == 0);
    CHECK (rejected_keys_add (store, "K1", "agents", "10.0.0.2", 20) == 0);
    CHECK (rejected_keys_add (store, "K1", "admins", "10.0.0.3", 15) == 0);
    CHECK (store_commit (store) == 0);
    json_t *list = rejected_keys_list (store);
    CHECK (json_array_size (list) == 2);
    json_t *k0 = json_array_get (list, 0);
    CHECK (strcmp (str (k0, "domain"), "agents") == 0 && strcmp (str (k0, "address"), "10.0.0.2") == 0);
    CHECK (json_integer_value (json_object_get (k0, "attempts")) == 2);
    CHECK (json_integer_value (json_object_get (k0, "first_seen")) == 10);
    CHECK (json_integer_value (json_object_get (k0, "last_seen")) == 20);
    json_decref (list);

    /* Counters. */
    store_count (store, "rejected_hellos", 2);
    store_count (store, "rejected_hellos", 1);
    CHECK (store_commit (store) == 0);
    json_t *counters = json_object ();
    CHECK (store_counters (store, counters) == 0);
    CHECK (json_integer_value (json_object_get (counters, "rejected_hellos")) == 3);
    json_decref (counters);

    /* Reads that fail are errors, not "none". */
    CHECK (store_fx_exec (store, "ALTER TABLE agents RENAME TO away") == SQLITE_OK);
    CHECK (agent_rows_key_of (store, "a", key, sizeof key) == -1);
    rows = json_array ();
    CHECK (agent_rows_each (store, keep_row, rows) == -1 && json_array_size (rows) == 0);
    json_decref (rows);
    CHECK (store_begin (store) == 0);
    CHECK (agent_rows_hello (store, &b, 400, &id2) == -1 && id2 == 0);
    store_commit (store);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO agents") == SQLITE_OK);
    CHECK (store_fx_exec (store, "ALTER TABLE rejected_keys RENAME TO away") == SQLITE_OK);
    CHECK (rejected_keys_list (store) == NULL);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO rejected_keys") == SQLITE_OK);
    CHECK (store_fx_exec (store, "ALTER TABLE counters RENAME TO away") == SQLITE_OK);
    counters = json_object ();
    CHECK (store_counters (store, counters) == -1 && json_object_size (counters) == 0);
    json_decref (counters);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO counters") == SQLITE_OK);

    store_fx_close (&store, dir);
    printf ("test_agent_rows: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
