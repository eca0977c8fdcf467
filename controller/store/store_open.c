/*  store_open.c: a database opened as its one writer (its lock, the
    migrations it lacks, the checkpointer) or as a reader, and closed.  */
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

/* The lock file of the database at path: PATH.lock, PATH resolved (the
   database, or its directory when it does not exist yet), so that every
   spelling of one database finds one lock.  Can't fail (path itself when
   it cannot be resolved: then the open fails and says why). */
static void
lock_path (const char *path, char *out, size_t cap)
{
    char *real = realpath (path, NULL);
    if (!real) {
        char dir[4096], base[4096];
        str_copy (dir, sizeof dir, path);
        str_copy (base, sizeof base, path);
        char *rdir = realpath (dirname (dir), NULL);
        if (rdir)
            snprintf (out, cap, "%s/%s.lock", rdir, basename (base));
        else
            snprintf (out, cap, "%s.lock", path);
        free (rdir);
        return;
    }
    snprintf (out, cap, "%s.lock", real);
    free (real);
}

/* Says who holds the lock of the database at path, and what to do:
   "database PATH is in use by pid N on HOST (admin ENDPOINT): ...", the
   words of every message about a database taken.  Can't fail. */
static void
say_in_use (const char *path, const lockfile_info_t *holder, char *msg, size_t msglen)
{
    if (holder->n == 0)
        snprintf (msg, msglen, "database %s is in use by another controller, starting: stop "
                  "that one, or start this one with another --db", path);
    else
        snprintf (msg, msglen, "database %s is in use by pid %s on %s (admin %s): another "
                  "controller runs on it (agents on %s, since %s), one controller per "
                  "database.  Stop that one (on %s: systemctl stop iofleet-controller, or "
                  "kill %s), or start this one with another --db", path, lockfile_get (holder, "pid"),
                  lockfile_get (holder, "host"), lockfile_get (holder, "admin"),
                  lockfile_get (holder, "agents"), lockfile_get (holder, "started"),
                  lockfile_get (holder, "host"), lockfile_get (holder, "pid"));
}

int
store_check_lock (const char *path, lockfile_info_t *holder_out, char *msg, size_t msglen)
{
    char lp[4200];
    lock_path (path, lp, sizeof lp);
    lockfile_info_t holder;
    int rc = lockfile_holder (lp, &holder);
    if (holder_out)
        *holder_out = holder;
    msg[0] = '\0';
    if (rc == 0)
        return 0;
    if (rc < 0) {
        snprintf (msg, msglen, "database %s: cannot tell whether a controller uses it: lock "
                  "file %s: %s", path, lp, strerror (-rc));
        return -1;
    }
    say_in_use (path, &holder, msg, msglen);
    return 1;
}

void
store_describe_owner (store_t *self, const lockfile_info_t *owner)
{
    int rc = lockfile_describe (self->lock, owner);
    if (rc)
        log_warn ("database %s: cannot write who uses it into its lock file: %s", self->path,
                  strerror (-rc));
}

store_t *
store_open (const char *path, const lockfile_info_t *owner, bool full_sync,
            store_progress_fn *progress, void *arg, bool *in_use, char *err, size_t errlen)
{
    *in_use = false;
    store_t *s = calloc (1, sizeof *s);
    if (!s) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    str_copy (s->path, sizeof s->path, path);
    /* The lock before anything else: a second controller must not resume
       (and so spoil) the first one's runs, nor migrate under it. */
    char lp[4200];
    lock_path (path, lp, sizeof lp);
    lockfile_info_t holder;
    int lrc;
    s->lock = lockfile_take (lp, owner, &holder, &lrc);
    if (!s->lock) {
        if (lrc == -EWOULDBLOCK) {
            *in_use = true;
            say_in_use (path, &holder, err, errlen);
        } else
            snprintf (err, errlen, "cannot open database '%s': its lock file %s: %s (check "
                      "that the directory exists and is writable, or pass another --db)", path,
                      lp, strerror (-lrc));
        store_close (&s);
        return NULL;
    }
    int rc = sqlite3_open_v2 (path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    char why[512];
    if (rc != SQLITE_OK) {
        snprintf (err, errlen, "cannot open database '%s': %s (check that the directory exists "
                  "and is writable, or pass another --db)", path,
                  s->db ? sqlite3_errmsg (s->db) : sqlite3_errstr (rc));
        store_close (&s);
        return NULL;
    }
    sqlite3_busy_timeout (s->db, 5000);
    /* WAL: readers (reports) never block the writer.  FULL: a commit is on
       disk (fsynced) before it returns, and only then are the snapshots in
       it acknowledged to their agents (one fsync per event-loop tick).
       NORMAL (--db-sync normal) skips that fsync: a crash of the process
       loses nothing, a power cut the last ticks. */
    /* A new database's page size (set before its first table; an
       existing one keeps its own). */
    char page[64];
    snprintf (page, sizeof page, "PRAGMA page_size=%d", STORE_PAGE_SIZE);
    if (store_exec (s, page, why, sizeof why)
        || store_exec (s, "PRAGMA journal_mode=WAL", why, sizeof why)
        || store_exec (s, full_sync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL", why,
                 sizeof why)
        || store_exec (s, "PRAGMA foreign_keys=ON", why, sizeof why)
        /* Snapshots of a thousand agents land in a thousand places of the
           table each second: keep those pages in memory rather than
           reading them back from the file for every tick. */
        || store_exec (s, "PRAGMA cache_size=-32768", why, sizeof why)) {
        snprintf (err, errlen, "cannot use database '%s': %s (check that the directory exists "
                  "and is writable, or pass another --db)", path, why);
        store_close (&s);
        return NULL;
    }
    s->codec = snapcodec_new (s->db);
    if (!s->codec) {
        snprintf (err, errlen, "out of memory");
        store_close (&s);
        return NULL;
    }
    if (store_migrate (s, path, progress, arg, err, errlen)) {
        store_close (&s);
        return NULL;
    }
    if (snapcodec_reload (s->codec, why, sizeof why)
        || (snapshot_table_register (s->db) != SQLITE_OK
            && snprintf (why, sizeof why, "%s", sqlite3_errmsg (s->db)))) {
        snprintf (err, errlen, "cannot use database '%s': %s", path, why);
        store_close (&s);
        return NULL;
    }
    store_checkpoint_start (s, full_sync);
    return s;
}

store_t *
store_open_reader (const char *path, char *err, size_t errlen)
{
    store_t *s = calloc (1, sizeof *s);
    if (!s) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    str_copy (s->path, sizeof s->path, path);
    s->reader = true;
    /* No lock: the writer holds it, and a reader changes nothing.  WAL
       lets it read a committed state while the writer goes on. */
    int rc = sqlite3_open_v2 (path, &s->db, SQLITE_OPEN_READONLY, NULL);
    char why[512];
    if (rc != SQLITE_OK) {
        snprintf (err, errlen, "cannot open database '%s' for reading: %s", path,
                  s->db ? sqlite3_errmsg (s->db) : sqlite3_errstr (rc));
        store_close (&s);
        return NULL;
    }
    sqlite3_busy_timeout (s->db, 5000);
    if (store_exec (s, "PRAGMA query_only=1", why, sizeof why)
        || store_exec (s, "PRAGMA cache_size=-8192", why, sizeof why)
        || snapshot_table_register (s->db) != SQLITE_OK) {
        snprintf (err, errlen, "cannot read database '%s': %s", path, why);
        store_close (&s);
        return NULL;
    }
    return s;
}

void
store_close (store_t **self_p)
{
    store_t *s = *self_p;
    if (!s)
        return;
    if (s->in_tx)
        store_commit (s);
    store_checkpoint_stop (s);
    for (int i = 0; i < s->nstmts; i++)
        sqlite3_finalize (s->stmts[i].st);
    sqlite3_close (s->db);
    snapcodec_free (&s->codec);
    /* Released last: until the database is closed it is ours alone. */
    lockfile_destroy (&s->lock);
    free (s);
    *self_p = NULL;
}
