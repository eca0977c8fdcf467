/*  test_store_held.c: why the writer is held (store/store_held.c): the
    line a person reads, rounded so that it never says less is needed nor
    more is free than is so, and the held state of a real store, made to
    fail with SQLITE_FULL (PRAGMA max_page_count: a full disk without a
    small file system to fill) and cleared by the next commit.
*/
#include "testutil.h"
#include "store_fx.h"
#include "store.h"

#include <string.h>

#define MIB 1048576ull

static void
test_text (void)
{
    char buf[256];
    store_held_t h = { .disk_full = true, .rc = SQLITE_FULL, .needed_bytes = 1,
                       .free_bytes = 0, .free_known = true };
    store_held_text (&h, buf, sizeof buf);
    /* A byte needed is a tenth of a MiB, never "0.0 needed". */
    CHECK_MSG (!strcmp (buf, "held: the database's disk is full (0.1 MiB needed, 0.0 MiB free)"),
               "%s", buf);
    h.needed_bytes = 3 * MIB / 2;
    h.free_bytes = MIB - 1;             /* a byte short of 1 MiB: 0.9 free, not 1.0 */
    store_held_text (&h, buf, sizeof buf);
    CHECK_MSG (!strcmp (buf, "held: the database's disk is full (1.5 MiB needed, 0.9 MiB free)"),
               "%s", buf);
    h.needed_bytes = 3 * MIB / 2 + 1;
    h.free_bytes = 200 * MIB;
    store_held_text (&h, buf, sizeof buf);
    CHECK_MSG (!strcmp (buf, "held: the database's disk is full (1.6 MiB needed, 200.0 MiB free)"),
               "%s", buf);
    h.needed_bytes = 0;                 /* nothing measured: said as measured */
    h.free_known = false;
    h.free_bytes = 0;
    store_held_text (&h, buf, sizeof buf);
    CHECK_MSG (!strcmp (buf, "held: the database's disk is full (0.0 MiB needed, free space "
                             "unknown)"), "%s", buf);
    store_held_t io = { .disk_full = false, .rc = SQLITE_IOERR, .free_bytes = 2 * MIB,
                        .free_known = true };
    store_held_text (&io, buf, sizeof buf);
    CHECK_MSG (!strcmp (buf, "held: the database cannot be written (disk I/O error; 2.0 MiB "
                             "free)"), "%s", buf);
    /* Truncated to the buffer, always terminated. */
    char small[12];
    memset (small, 'x', sizeof small);
    store_held_text (&h, small, sizeof small);
    CHECK (!strcmp (small, "held: the d"));
}

/* Inserts counters with long names until a write fails.  Returns the
   number stored before the failure. */
static int
fill (store_t *store)
{
    char name[4000];
    int n = 0;
    CHECK (store_begin (store) == 0);
    for (; n < 10000; n++) {
        memset (name, 'a' + n % 26, sizeof name - 16);
        snprintf (name + sizeof name - 16, 16, "%d", n);
        sqlite3_stmt *st = store_stmt (store, "INSERT INTO counters (name, value) VALUES (?, 0)");
        sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
        if (store_step_done (store, st, "fill") != 0)
            break;
    }
    return n;
}

static void
test_store (void)
{
    char dir[] = "/tmp/iof-store-held-XXXXXX";
    store_t *store = store_fx_open (dir);
    if (!store)
        return;
    store_held_t h;
    memset (&h, 0x5a, sizeof h);
    CHECK (!store_held (store, &h));
    CHECK (((unsigned char *) &h)[0] == 0x5a);          /* untouched */
    CHECK (store_held_json (store) == NULL);

    /* A transaction stored: the size a held one is taken to have. */
    CHECK (store_begin (store) == 0);
    store_count (store, "one", 1);
    CHECK (store_commit (store) == 0);

    /* The database may not grow: the next pages a write needs fail with
       SQLITE_FULL, as on a full disk. */
    CHECK (store_fx_exec (store, "PRAGMA max_page_count = 1") == SQLITE_OK);
    int n = fill (store);
    CHECK_MSG (n < 10000, "%d rows and no failure", n);
    store_commit (store);       /* SQLite rolled the transaction back, or this does */
    CHECK (store_failing (store));
    CHECK (store_held (store, &h));
    CHECK (h.disk_full);
    CHECK ((h.rc & 0xff) == SQLITE_FULL);
    CHECK (h.free_known && h.free_bytes > 0);
    int64_t pages, page_size;
    store_size (store, &pages, &page_size);
    /* At least one frame: the last transaction stored wrote one page. */
    CHECK_MSG (h.needed_bytes >= (uint64_t) page_size + 24, "needed %llu, page %lld",
               (unsigned long long) h.needed_bytes, (long long) page_size);
    CHECK (h.since_s >= 0 && h.since_s < 60);
    json_t *j = store_held_json (store);
    CHECK (j != NULL);
    const char *msg = json_string_value (json_object_get (j, "message"));
    CHECK_STR_CONTAINS (msg, "held: the database's disk is full (");
    CHECK (!strcmp (json_string_value (json_object_get (j, "reason")), "disk_full"));
    CHECK (json_integer_value (json_object_get (j, "needed_bytes")) == (json_int_t) h.needed_bytes);
    CHECK (json_is_integer (json_object_get (j, "free_bytes")));
    json_decref (j);

    /* Room again: the next commit that succeeds ends the held state. */
    CHECK (store_fx_exec (store, "PRAGMA max_page_count = 1000000") == SQLITE_OK);
    CHECK (store_begin (store) == 0);
    store_count (store, "two", 1);
    CHECK (store_commit (store) == 0);
    CHECK (!store_failing (store));
    CHECK (!store_held (store, &h));
    CHECK (store_held_json (store) == NULL);
    store_fx_close (&store, dir);
}

int
main (void)
{
    test_text ();
    test_store ();
    return TEST_DONE ();
}
