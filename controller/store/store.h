/*  store.h: the controller's SQLite database.

    One writer connection, WAL mode, synchronous=FULL, prepared
    statements; a second connection on its own thread only copies the WAL
    into the database file (checkpoints), off the event loop; read-only
    connections (store_open_reader), one per thread, answer reads.  Writes made while
    handling messages go into one transaction per event-loop tick
    (store_begin is idempotent; the loop calls store_commit once per tick),
    so a burst of snapshots costs one fsync, not one each.
*/
#ifndef IOF_STORE_H
#define IOF_STORE_H

#include "lockfile.h"
#include "snapcodec.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct store store_t;

/* What a long step of store_open (a backup, a migration) is doing, as a
   line of text, and how long it may take before it says more (for a
   service manager's start timeout).  Called from store_open's thread. */
typedef void (store_progress_fn) (void *arg, const char *text, uint64_t expect_ns);

/* Opens (creating if needed) the database at path and applies every
   embedded migration newer than its schema_version; full_sync: SQLite's
   synchronous=FULL, else NORMAL.

   First of all, before the database is opened or anything beside it is
   read or written (no migration, no backup), it takes the database's
   lock: PATH.lock (lockfile.h; PATH resolved, so a symlink or another
   spelling of it finds the same lock), held until store_close.  One
   controller per database, whatever it would do with it: SQLite's own
   locking lets a second process read and write a WAL database between
   the first one's transactions.  owner (may be NULL): what the lock file
   says of this process besides its pid, host and start time (its
   endpoints: "admin", "agents").

   A database made by an older controller (schema version > 0) is first
   copied, with SQLite's backup API, to <path>.schema<OLD>.bak
   (<path>.schema<OLD>.<unix-seconds>.bak if that exists), fsynced, and
   logged; when that copy cannot be written nothing is migrated.  progress
   (may be NULL) hears about the backup and each migration.  Returns NULL
   with a message in err naming the path and what to do; *in_use is then
   true when another process holds the lock (err names it: pid, host,
   endpoints). */
store_t *store_open (const char *path, const lockfile_info_t *owner, bool full_sync,
                     store_progress_fn *progress, void *arg, bool *in_use, char *err,
                     size_t errlen);

/* Rewrites what the lock file says of this process (endpoints known only
   once bound).  Can't fail (a file that cannot be written is logged). */
void store_describe_owner (store_t *self, const lockfile_info_t *owner);

/* For --check-config, without taking the lock or writing anything:
   whether a process holds the lock of the database at path.  Returns 0
   when none does, 1 with msg "database PATH is in use by pid N on HOST
   (admin ENDPOINT): ..." (its agents' endpoint, since when, what to do)
   when one does (holder, when not NULL, says what it wrote), or -1 with
   msg saying why that cannot be told. */
int store_check_lock (const char *path, lockfile_info_t *holder, char *msg, size_t msglen);

/* A read-only connection to the database at path, which a controller
   of this process holds (store_open): for a thread that answers reads
   (reports, history) off the event loop, WAL letting it read the last
   committed state while the writer goes on.  No lock, no checkpointer,
   no migration; its statement cache is its own, so one store_t per
   thread.  Returns NULL with err filled. */
store_t *store_open_reader (const char *path, char *err, size_t errlen);

/* Ends the read transaction a statement of a reader may still hold (a
   cached statement stepped but not reset keeps its snapshot, and every
   later read would see that old state): the next read sees every commit
   made before it.  Call after each request.  Can't fail. */
void store_end_read (store_t *self);

void store_close (store_t **self_p);

/* For --check-config, without writing anything: whether the database at
   path, when at an older schema, has room beside it for the backup that
   store_open would write before migrating.  Returns 0 (msg says what the
   start will do, or is empty when nothing), or -1 with msg saying how much
   is missing and what to do. */
int store_check_upgrade (const char *path, char *msg, size_t msglen);

/* The raw handle, for queries that live with their callers (report.c). */
sqlite3 *store_db (store_t *self);

/* The writer's snapshot codec (snapshot_codec.h): NULL on a reader. */
typedef struct snapcodec snapcodec_t;
snapcodec_t *store_codec (store_t *self);

/* Highest migration applied.  Can't fail. */
int store_schema_version (store_t *self);

/* Opens the tick's transaction if none is open.  Returns 0 or -1. */
int store_begin (store_t *self);
/* The background checkpointer's counts: runs, runs the writer kept
   busy, failures (the WAL keeps everything then), and the WAL's size in
   frames (pages) at its last run.  All 0 without one.  Can't fail. */
void store_checkpoints (store_t *self, uint64_t *runs, uint64_t *busy, uint64_t *failed,
                        uint64_t *wal_frames);
/* Is a transaction open?  Can't fail. */
bool store_in_tx (store_t *self);
/* Commits the open transaction, if any.  Returns 0 or -1 (logged). */
int store_commit (store_t *self);
/* fn(arg) runs in every store_commit of an open transaction, just before
   COMMIT, to write what it keeps back (its writes fail the commit like
   any other).  One hook; NULL removes it. */
void store_on_commit (store_t *self, void (*fn) (void *arg), void *arg);

/* Returns a cached prepared statement for sql (reset, bindings cleared), or
   NULL (logged).  The statement stays owned by the store. */
sqlite3_stmt *store_stmt (store_t *self, const char *sql);

/* Runs a statement built with store_stmt to completion (SQLITE_DONE).
   Returns 0 or -1 with the SQLite error logged with context what. */
int store_step_done (store_t *self, sqlite3_stmt *st, const char *what);

/* One step of a query built with store_stmt: 1 a row is ready, 0 no more
   rows, -1 an error, logged with context what (a NULL st, whose prepare
   failed and was logged, is -1 too).  "No row" and "could not read" are
   told apart, so a read error is never taken for an empty answer. */
int store_row (store_t *self, sqlite3_stmt *st, const char *what);

/* The database's pages and page size (both 0 on an error).  Can't fail. */
void store_size (store_t *self, int64_t *pages, int64_t *page_size);
/* The pages on the free list, in this connection's transaction: freed by
   deletes, reused by new rows before the file grows (0 on an error).
   Can't fail. */
int64_t store_free_pages (store_t *self);

/* What each table holds, with its indexes: {"pages", "page_size",
   "bytes", "free_bytes", "tables": [{"table", "rows", "bytes",
   "index_bytes"}, ...] biggest first}, from SQLite's dbstat (it reads
   every page: seconds per GiB).  NULL on a database error, with err
   filled. */
json_t *store_usage (store_t *self, char *err, size_t errlen);

/* PRAGMA integrity_check: {"ok", "problems": [...], "pages", "page_size",
   "bytes"}.  Commits the open transaction first.  NULL on a database
   error (err filled). */
json_t *store_check (store_t *self, char *err, size_t errlen);

/* An online, consistent copy of the database into path (absolute, must
   not exist), made with SQLite's backup API while the controller keeps
   its connection, then checked (quick_check) and fsynced.  Returns {"path", "bytes",
   "pages", "ms"} or NULL with err naming the path and what to do. */
json_t *store_backup (store_t *self, const char *path, char *err, size_t errlen);

/* Writes lost so far (failed statements and commits: a full disk, an I/O
   error); a caller that compares it before and after a commit knows
   whether everything it wrote in between is stored.  Can't fail. */
uint64_t store_failures (store_t *self);
/* True from a failed write until the next commit that succeeds. */
bool store_failing (store_t *self);

/* Why the writer is held (store_failing), in figures (store_held.c). */
typedef struct {
    bool disk_full;             /* the last failed write was SQLITE_FULL */
    int rc;                     /* its SQLite result code */
    /* Bytes the held writes need, at the least: what the database file
       must grow by before the WAL can be copied into it (the pages it
       holds past the file's end), plus the frames of one transaction as
       large as the last one stored (the held tick's own).  What the rest
       of the run adds comes on top. */
    uint64_t needed_bytes;
    uint64_t free_bytes;        /* statvfs of the database's folder: f_bavail */
    bool free_known;            /* false: statvfs failed, free_bytes is 0 */
    double since_s;             /* since the first failed write */
} store_held_t;

/* Is the writer held (store_failing)?  When it is, fills h and returns
   true; else returns false, h untouched.  Reads the database's size and
   its file system's (a size that cannot be read counts as 0).  Can't
   fail. */
bool store_held (store_t *self, store_held_t *h);
/* The line that says why a held run is held, into buf (truncated to
   cap): "held: the database's disk is full (N MiB needed, M MiB free)",
   N rounded up and M down to a tenth; any other failure "held: the
   database cannot be written (SQLite's words; M MiB free)".  Can't
   fail. */
void store_held_text (const store_held_t *h, char *buf, size_t cap);
/* {"reason": "disk_full" | "write_error", "error", "needed_bytes",
   "free_bytes" (absent when unknown), "since_s", "message":
   store_held_text} while the writer is held; NULL when it is not (or out
   of memory). */
json_t *store_held_json (store_t *self);

/* The database's path, as store_open was given it.  Can't fail. */
const char *store_path (store_t *self);
/* Counts a write of the open transaction, made on store_db's handle
   without store_step_done, as failed (what says which, for the log): the
   commit rolls it back, as for a failed store_step_done.  Can't fail. */
void store_note_failure (store_t *self, const char *what);

/* Adds delta to the named counter (bad messages and the like). */
void store_count (store_t *self, const char *name, int64_t delta);
/* Sets each counter as a member of the object into (name: value).
   Returns 0, or -1 on a database error (logged) with the counters read
   before it set. */
int store_counters (store_t *self, json_t *into);

#endif
