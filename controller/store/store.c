/*  store.c: see store.h. */
#include "store.h"
#include "store_internal.h"
#include "log.h"
#include "schemas.h"
#include "snapshot_store.h"
#include "snapshot_table.h"
#include "util.h"
#include "snapcodec.h"

#include <assert.h>
#include <czmq.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <sys/statvfs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>



void
store_on_commit (store_t *self, void (*fn) (void *arg), void *arg)
{
    self->on_commit = fn;
    self->on_commit_arg = arg;
}

int
store_exec (store_t *s, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec (s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf (err, errlen, "%s", msg ? msg : sqlite3_errmsg (s->db));
        sqlite3_free (msg);
        return -1;
    }
    return 0;
}

/* A write failed (rc: its SQLite result code): says so once, plainly, then
   once a minute while it lasts.  Can't fail. */
void
store_failed_rc (store_t *self, const char *what, int rc)
{
    self->failures++;
    self->fail_rc = rc;
    uint64_t now = clock_mono_ns ();
    if (!self->failing) {
        self->failing = true;
        self->failing_since = now;
        self->fail_logged_at = now;
        log_err ("database %s: cannot write (%s: %s)%s. Results are held: nothing more is "
                 "acknowledged to the agents, which keep their snapshots spooled and send them "
                 "again; runs pause; reads (reports, history) still answer. %s", self->path,
                 what, sqlite3_errstr (rc),
                 (rc & 0xff) == SQLITE_FULL ? ": the disk is full" : "",
                 (rc & 0xff) == SQLITE_FULL ? "Free space on its file system; the controller "
                 "goes on by itself when it can write again"
                 : "Check the file system; the controller goes on by itself when it can write "
                 "again");
        return;
    }
    if (log_ratelimit (&self->fail_logged_at, 60 * NS_PER_SEC))
        log_err ("database %s: still cannot write (%s) after %.0f s; %llu write(s) failed so far",
                 self->path, sqlite3_errstr (rc), (double) (now - self->failing_since) / 1e9,
                 (unsigned long long) self->failures);
}





void
store_end_read (store_t *self)
{
    IOF_ASSERT (self->reader);
    for (sqlite3_stmt *st = sqlite3_next_stmt (self->db, NULL); st;
         st = sqlite3_next_stmt (self->db, st))
        if (sqlite3_stmt_busy (st))
            sqlite3_reset (st);
    /* Every statement reset: no read transaction is left open. */
    IOF_ASSERT (sqlite3_get_autocommit (self->db));
}


sqlite3 *store_db (store_t *self) { return self->db; }
snapcodec_t *store_codec (store_t *self) { return self->codec; }
bool store_in_tx (store_t *self) { return self->in_tx; }

int
store_schema_version (store_t *self)
{
    sqlite3_stmt *st;
    int v = 0;
    if (sqlite3_prepare_v2 (self->db, "SELECT COALESCE(MAX(version), 0) FROM schema_version", -1,
                            &st, NULL) == SQLITE_OK) {
        if (sqlite3_step (st) == SQLITE_ROW)
            v = sqlite3_column_int (st, 0);
        sqlite3_finalize (st);
    }
    return v;
}


/* Pages written to the WAL since the last call: cleared after BEGIN, the
   transaction's size after a COMMIT that succeeded (kept for store_held:
   what a held transaction needs).  Can't fail. */
static void
s_tx_pages (store_t *self, bool committed)
{
    int cur = 0, hi = 0;
    if (sqlite3_db_status (self->db, SQLITE_DBSTATUS_CACHE_WRITE, &cur, &hi, 1) == SQLITE_OK
        && committed && cur > 0)
        self->tx_pages = (uint64_t) cur;
}

int
store_begin (store_t *self)
{
    if (self->in_tx)
        return 0;
    char why[256];
    if (store_exec (self, "BEGIN IMMEDIATE", why, sizeof why)) {
        store_failed_rc (self, "BEGIN", sqlite3_extended_errcode (self->db));
        return -1;
    }
    self->in_tx = true;
    self->failures_at_begin = self->failures;
    s_tx_pages (self, false);
    return 0;
}

int
store_commit (store_t *self)
{
    if (!self->in_tx)
        return 0;
    char why[256];
    if (self->on_commit)
        self->on_commit (self->on_commit_arg);
    self->in_tx = false;
    /* A write of this transaction failed (a snapshot stored for some
       targets only, ...): none of it is kept, so nothing half-stored is
       ever taken for stored.  Its writers see store_failures move. */
    if (self->failures != self->failures_at_begin) {
        store_exec (self, "ROLLBACK", why, sizeof why);
        return -1;
    }
    if (store_exec (self, "COMMIT", why, sizeof why)) {
        store_failed_rc (self, "COMMIT", sqlite3_extended_errcode (self->db));
        store_exec (self, "ROLLBACK", why, sizeof why);
        return -1;
    }
    s_tx_pages (self, true);
    if (self->failing) {
        self->failing = false;
        log_info ("database %s: writable again after %.0f s; held results are being stored",
                  self->path, (double) (clock_mono_ns () - self->failing_since) / 1e9);
    }
    return 0;
}

sqlite3_stmt *
store_stmt (store_t *self, const char *sql)
{
    /* Statements are keyed by the address of their literal SQL text. */
    for (int i = 0; i < self->nstmts; i++)
        if (self->stmts[i].sql == sql) {
            sqlite3_reset (self->stmts[i].st);
            sqlite3_clear_bindings (self->stmts[i].st);
            return self->stmts[i].st;
        }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2 (self->db, sql, -1, &st, NULL) != SQLITE_OK) {
        log_err ("database: cannot prepare '%.60s...': %s", sql, sqlite3_errmsg (self->db));
        return NULL;
    }
    /* More distinct statements than literals in the code: a caller built
       SQL at run time, which this store does not allow. */
    IOF_ASSERT (self->nstmts < STMT_CACHE);
    self->stmts[self->nstmts].sql = sql;
    self->stmts[self->nstmts].st = st;
    self->nstmts++;
    return st;
}

/* A step of st that failed: logged (once while the database is failing)
   and, when the write it was part of is lost, counted.  Can't fail. */
static void
step_failed (store_t *self, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_extended_errcode (self->db);
    if (!self->failing)
        log_err ("database%s: %s: %s", self->reader ? " (reader)" : "", what,
                 sqlite3_errmsg (self->db));
    sqlite3_reset (st);
    /* A reader writes nothing: its read failed, and that is all. */
    if (self->reader)
        return;
    /* On a full disk or an I/O error SQLite may roll the whole
       transaction back: this tick's earlier writes are gone too. */
    bool rolled_back = self->in_tx && sqlite3_get_autocommit (self->db);
    if (rolled_back)
        self->in_tx = false;
    int prim = rc & 0xff;
    if (rolled_back || prim == SQLITE_FULL || prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN
        || prim == SQLITE_READONLY || prim == SQLITE_NOMEM || prim == SQLITE_CORRUPT)
        store_failed_rc (self, what, rc);
}

int
store_step_done (store_t *self, sqlite3_stmt *st, const char *what)
{
    if (!st)
        return -1;
    /* The writer's writes are batched: each inside a transaction its
       caller began (store_begin), committed once per tick, never a commit
       (and an fsync) of its own.  While the database is failing (a BEGIN
       that failed, or a full disk or an I/O error that rolled the tick's
       transaction back) the writes that follow run on their own and fail
       or not: the store counts them, it does not stop the controller. */
    IOF_ASSERT (!sqlite3_get_autocommit (self->db) || self->reader || self->failing
                || sqlite3_stmt_readonly (st));
    if (sqlite3_step (st) != SQLITE_DONE) {
        step_failed (self, st, what);
        return -1;
    }
    sqlite3_reset (st);
    return 0;
}

int
store_row (store_t *self, sqlite3_stmt *st, const char *what)
{
    if (!st)
        return -1;
    int rc = sqlite3_step (st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    step_failed (self, st, what);
    return -1;
}

uint64_t store_failures (store_t *self) { return self->failures; }
bool store_failing (store_t *self) { return self->failing; }

void
store_count (store_t *self, const char *name, int64_t delta)
{
    store_begin (self);
    sqlite3_stmt *st = store_stmt (self, "INSERT INTO counters (name, value) VALUES (?, ?) "
                                         "ON CONFLICT (name) DO UPDATE SET value = value + excluded.value");
    if (!st)
        return;
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, delta);
    store_step_done (self, st, "count");
}

int
store_counters (store_t *self, json_t *into)
{
    IOF_ASSERT (self && json_is_object (into));
    sqlite3_stmt *st = store_stmt (self, "SELECT name, value FROM counters ORDER BY name");
    int rc;
    while ((rc = store_row (self, st, "read the counters")) == 1)
        json_object_set_new (into, (const char *) sqlite3_column_text (st, 0),
                             json_integer (sqlite3_column_int64 (st, 1)));
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}



/* ---- For a second connection's work on the loop's behalf ---------------- */

const char *
store_path (store_t *self)
{
    return self->path;
}

void
store_note_failure (store_t *self, const char *what)
{
    store_failed_rc (self, what, sqlite3_extended_errcode (self->db));
}
