/*  store_migrate.c: the schema's migrations (the embedded schemas/ files),
    the backup before them, schema 19's snapshots converted into blocks,
    and the check of what an upgrade would do.  */
#include "store.h"
#include "store_internal.h"
#include "log.h"
#include "util.h"
#include "schemas.h"
#include "snapshot_store.h"
#include "snapshot_table.h"
#include "snapcodec.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>


/* Before the migrations take a database from schema old to newest: a copy
   as it is, <path>.schema<old>.bak (or .schema<old>.<unix-seconds>.bak
   when that exists; an earlier backup is never overwritten), so that an
   upgrade can be undone by putting the old database and the old
   controller back.  Returns 0, or -1 with err saying that the database
   was not touched and what to do. */
static int
backup_before_migrate (store_t *s, const char *path, int old, int newest,
                       store_progress_fn *progress, void *arg, char *err, size_t errlen)
{
    char bak[1100], msg[512];
    int pages;
    snprintf (bak, sizeof bak, "%s.schema%d.bak", path, old);
    int rc = store_backup_copy (s->db, bak, &pages, progress, arg, msg, sizeof msg);
    if (rc == -EEXIST) {
        snprintf (bak, sizeof bak, "%s.schema%d.%lld.bak", path, old,
                  (long long) (clock_real_ns () / 1000000000ULL));
        rc = store_backup_copy (s->db, bak, &pages, progress, arg, msg, sizeof msg);
    }
    if (rc) {
        int64_t npages = 0, page_size = 0;
        char todo[400];
        store_size (s, &npages, &page_size);
        if (rc == -EROFS)
            snprintf (todo, sizeof todo, "The directory is read-only (under the packaged unit "
                      "only /var/lib/iofleet is writable: keep the database there, or add "
                      "ReadWritePaths= with 'systemctl edit iofleet-controller')");
        else if (rc == -EACCES || rc == -EPERM)
            snprintf (todo, sizeof todo, "Let the controller's user write in the database's "
                      "directory, or move the database to one it can write");
        else if (rc == -ENOSPC || rc == -EDQUOT || rc == -EIO)
            snprintf (todo, sizeof todo, "Free space where the backup goes (it needs about %lld "
                      "bytes), or move the database to a file system with room",
                      (long long) (npages * page_size));
        else if (rc == -EEXIST)
            snprintf (todo, sizeof todo, "Move the earlier backups out of the way");
        else
            snprintf (todo, sizeof todo, "Fix what the error says");
        snprintf (err, errlen, "database %s: schema %d -> %d needs a backup first, and it could "
                  "not be written to %s: %s. The database was not touched (still schema %d). "
                  "%s, then start the controller again", path, old, newest, bak, msg, old, todo);
        return -1;
    }
    struct stat sb;
    log_info ("database %s: schema %d -> %d, backup written to %s (%lld bytes)", path, old,
              newest, bak, stat (bak, &sb) == 0 ? (long long) sb.st_size : 0LL);
    return 0;
}

/* After a conversion: the file rewritten (VACUUM) at STORE_PAGE_SIZE,
   which also gives back the pages the old table held (most of the file).
   SQLite changes a WAL database's page size only out of WAL mode; this
   runs before the checkpointer, on the one connection.  A failure (no
   room for the copy VACUUM makes) is logged, not fatal: the database is
   whole either way, only bigger. */
static void
rewrite_pages (store_t *s, const char *path, store_progress_fn *progress, void *arg)
{
    int64_t pages = 0, page_size = 0, free_pages = store_free_pages (s);
    store_size (s, &pages, &page_size);
    if (page_size == STORE_PAGE_SIZE && free_pages * 4 < pages)
        return;
    uint64_t t0 = clock_mono_ns ();
    store_say (progress, arg, 3600 * NS_PER_SEC, "database %s: rewriting it at %d-byte pages (%lld "
         "MiB, %lld MiB of them free)", path, STORE_PAGE_SIZE,
         (long long) (pages * page_size >> 20), (long long) (free_pages * page_size >> 20));
    char why[512], page[64], ignored[512];
    snprintf (page, sizeof page, "PRAGMA page_size=%d", STORE_PAGE_SIZE);
    if (store_exec (s, "PRAGMA journal_mode=DELETE", why, sizeof why) || store_exec (s, page, why, sizeof why)
        || store_exec (s, "VACUUM", why, sizeof why)) {
        log_warn ("database %s: rewriting it at %d-byte pages failed: %s; it stays as it is "
                  "(whole; iofleet gc gives the free pages back later)", path, STORE_PAGE_SIZE,
                  why);
        store_exec (s, "PRAGMA journal_mode=WAL", ignored, sizeof ignored);
        return;
    }
    if (store_exec (s, "PRAGMA journal_mode=WAL", why, sizeof why))
        log_warn ("database %s: back to WAL mode: %s", path, why);
    int64_t after = 0, psize = 0;
    store_size (s, &after, &psize);
    log_info ("database %s: rewritten at %lld-byte pages in %.1f s: %lld -> %lld MiB", path,
              (long long) psize, (double) (clock_mono_ns () - t0) / 1e9,
              (long long) (pages * page_size >> 20), (long long) (after * psize >> 20));
}

typedef struct {
    store_progress_fn *progress;
    void *arg;
    const char *path;
    uint64_t t0;
} convert_say_t;

static void
convert_say (void *arg, int64_t done, int64_t total)
{
    convert_say_t *c = arg;
    uint64_t el = clock_mono_ns () - c->t0;
    /* The rest at the pace so far: what the caller allows before it
       calls the conversion stuck. */
    uint64_t left = done > 0 && total > done
        ? (uint64_t) ((double) el * (double) (total - done) / (double) done) : 0;
    store_say (c->progress, c->arg, left + 600 * NS_PER_SEC, "database %s: snapshots converted into "
         "compressed blocks: %lld of %lld rows (%.0f%%)", c->path, (long long) done,
         (long long) total, total ? 100.0 * (double) done / (double) total : 100.0);
}

/* The rows of schemas 1-19's snapshots table into blocks (020's
   snapshots_v19), once, right after the migrations (again after an
   interrupted one: the blocks written stay). */
static int
convert_snapshots (store_t *s, const char *path, store_progress_fn *progress, void *arg,
                   char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (s, "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                                      "AND name = 'snapshots_v19'");
    int rc = store_row (s, st, "look for schema 19's snapshots");
    if (st)
        sqlite3_reset (st);
    if (rc <= 0) {
        if (rc < 0)
            snprintf (err, errlen, "%s: cannot read its tables", path);
        return rc;
    }
    convert_say_t c = { progress, arg, path, clock_mono_ns () };
    char why[512];
    st = store_stmt (s, "SELECT 1 FROM snapshots_v19 LIMIT 1");
    rc = store_row (s, st, "look for schema 19's snapshots");
    if (st)
        sqlite3_reset (st);
    if (rc == 1)
        store_say (progress, arg, 600 * NS_PER_SEC, "database %s: converting the snapshots into "
             "compressed blocks", path);
    int64_t rows = snapshot_store_convert (s->db, s->codec, "snapshots_v19",
                                           (int64_t) clock_real_ns (), convert_say, &c, why,
                                           sizeof why);
    if (rows < 0) {
        snprintf (err, errlen, "%s: converting the snapshots into compressed blocks failed: %s "
                  "(the rows not yet converted are still in snapshots_v19; starting the "
                  "controller again goes on from there)", path, why);
        return -1;
    }
    if (rows > 0)
        log_info ("database %s: %lld snapshot rows converted into compressed blocks in %.1f s",
                  path, (long long) rows, (double) (clock_mono_ns () - c.t0) / 1e9);
    if (rows > 0)
        rewrite_pages (s, path, progress, arg);
    return 0;
}

int
store_migrate (store_t *s, const char *path, store_progress_fn *progress, void *arg, char *err,
         size_t errlen)
{
    char why[512];
    if (store_exec (s, "CREATE TABLE IF NOT EXISTS schema_version ("
                 " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
              why, sizeof why)) {
        snprintf (err, errlen, "%s: cannot create schema_version: %s", path, why);
        return -1;
    }
    int current = store_schema_version (s);
    int newest = schema_nmigrations ? schema_migrations[schema_nmigrations - 1].version : 0;
    if (current > newest) {
        snprintf (err, errlen, "%s: database schema version %d is newer than this controller's "
                  "%d; use a newer iofleet-controller", path, current, newest);
        return -1;
    }
    /* Nothing is written before this copy exists: the CREATE above is a
       no-op on a database that has a version. */
    if (current > 0 && current < newest
        && backup_before_migrate (s, path, current, newest, progress, arg, err, errlen))
        return -1;
    for (int i = 0; i < schema_nmigrations; i++) {
        const schema_migration_t *m = &schema_migrations[i];
        if (m->version <= current)
            continue;
        /* One statement list: no progress within it, so a long allowance
           (a new database's are instant: nothing to say). */
        if (current > 0)
            store_say (progress, arg, 3600 * NS_PER_SEC, "database %s: applying migration %s", path,
                 m->name);
        if (store_exec (s, "BEGIN IMMEDIATE", why, sizeof why) || store_exec (s, m->sql, why, sizeof why)) {
            store_exec (s, "ROLLBACK", why, sizeof why);
            snprintf (err, errlen, "%s: migration %s failed: %s", path, m->name, why);
            return -1;
        }
        sqlite3_stmt *st = store_stmt (s, "INSERT INTO schema_version (version, name, applied_at) "
                                          "VALUES (?, ?, ?)");
        sqlite3_bind_int (st, 1, m->version);
        sqlite3_bind_text (st, 2, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64 (st, 3, (sqlite3_int64) clock_real_ns ());
        if (store_step_done (s, st, "record migration") || store_exec (s, "COMMIT", why, sizeof why)) {
            store_exec (s, "ROLLBACK", why, sizeof why);
            snprintf (err, errlen, "%s: recording migration %s failed", path, m->name);
            return -1;
        }
        log_info ("database %s: applied migration %s", path, m->name);
    }
    return convert_snapshots (s, path, progress, arg, err, errlen);
}

int
store_check_upgrade (const char *path, char *msg, size_t msglen)
{
    msg[0] = '\0';
    /* A WAL database opened even read-only gets -wal and -shm files: those
       this look creates (an empty WAL), it removes. */
    char wal[1100], shm[1100];
    snprintf (wal, sizeof wal, "%s-wal", path);
    snprintf (shm, sizeof shm, "%s-shm", path);
    bool had_wal = access (wal, F_OK) == 0, had_shm = access (shm, F_OK) == 0;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close (db);
        return 0;           /* store_open will say what is wrong */
    }
    sqlite3_stmt *st = NULL;
    int v = 0;
    int64_t bytes = 0;
    if (sqlite3_prepare_v2 (db, "SELECT COALESCE(MAX(version), 0) FROM schema_version", -1, &st,
                            NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW)
        v = sqlite3_column_int (st, 0);
    sqlite3_finalize (st);
    st = NULL;
    if (sqlite3_prepare_v2 (db, "SELECT page_count * page_size FROM pragma_page_count, "
                            "pragma_page_size", -1, &st, NULL) == SQLITE_OK
        && sqlite3_step (st) == SQLITE_ROW)
        bytes = sqlite3_column_int64 (st, 0);
    sqlite3_finalize (st);
    sqlite3_close (db);
    struct stat sb;
    if (!had_wal && stat (wal, &sb) == 0 && sb.st_size == 0) {
        unlink (wal);
        if (!had_shm)
            unlink (shm);
    }
    int newest = schema_nmigrations ? schema_migrations[schema_nmigrations - 1].version : 0;
    if (v == 0 || v >= newest)
        return 0;
    char dir[1100];
    str_copy (dir, sizeof dir, path);
    struct statvfs vfs;
    if (statvfs (dirname (dir), &vfs) != 0)
        return 0;
    uint64_t need = (uint64_t) bytes, free_b = (uint64_t) vfs.f_bavail * vfs.f_frsize;
    if (free_b >= need) {
        snprintf (msg, msglen, "database %s is at schema %d: starting will back it up (%llu "
                  "bytes, %llu free) and migrate it to %d", path, v, (unsigned long long) need,
                  (unsigned long long) free_b, newest);
        return 0;
    }
    snprintf (msg, msglen, "database %s is at schema %d: starting must back it up before "
              "migrating it to %d, which needs %llu bytes where it is, and %llu are free; free "
              "space or move the database first", path, v, newest, (unsigned long long) need,
              (unsigned long long) free_b);
    return -1;
}
