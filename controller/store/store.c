/*  store.c: see store.h. */
#include "store.h"
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

/* Every statement is a literal in the code: this bounds them all, one
   slot per literal (127 call sites of store_stmt today, close to the 128
   this once was: one more, and a release build, whose assert was compiled
   out, would have written past the array; the bound is now checked in
   every build). */
#define STMT_CACHE 512

/* The page size of a new database, and of one rewritten after its
   snapshots were converted into blocks.  A block (an agent's interval,
   about 2.3 KiB at 24 drives) must share its page: one to a 4 KiB page
   (two do not fit) wastes 40% of the file; seven fill 16 KiB
   (docs/design.md, Compact per-interval storage). */
#define STORE_PAGE_SIZE 16384

struct store {
    sqlite3 *db;
    lockfile_t *lock;           /* PATH.lock: this process is the database's one writer */
    char path[1024];
    bool in_tx;
    bool reader;                /* store_open_reader: read-only, no lock, no checkpointer */
    uint64_t failures;          /* writes lost: statements or commits that failed */
    bool failing;               /* since the last failure, no commit succeeded */
    uint64_t failures_at_begin; /* a write failed in this transaction if different */
    uint64_t failing_since;     /* monotonic ns */
    uint64_t fail_logged_at;
    int nstmts;
    struct { const char *sql; sqlite3_stmt *st; } stmts[STMT_CACHE];
    void (*on_commit) (void *arg);
    void *on_commit_arg;
    /* The checkpointer: its own connection and thread (see checkpointer). */
    sqlite3 *ck_db;
    pthread_t ck_thread;
    bool ck_running, ck_stop;
    pthread_mutex_t ck_mu;
    pthread_cond_t ck_cv;
    uint64_t ck_runs, ck_busy, ck_failed;
    uint64_t ck_wal_frames, ck_frames;  /* the WAL at the last run, and how much of it is copied */
    snapcodec_t *codec;         /* the writer's: blocks stored by ingest (snapshot_codec.h) */
};

/* Copies the WAL into the database file every CK_EVERY_MS, on its own
   thread and connection: the event loop's commits then only append to
   the WAL and fsync it, instead of stopping every few megabytes for a
   checkpoint (copy, fsync of the database file).  PASSIVE: it never
   waits for the writer, and a WAL wholly copied is started again from
   its beginning by the writer's next transaction.  The writer keeps
   SQLite's own checkpoint as a backstop (wal_autocheckpoint, much
   larger): a reader's long transaction (a report of 24,000 targets takes
   7 s, and ingest adds 5 MB a second) keeps the WAL from being started
   again, and past the backstop the writer tried to checkpoint after every
   commit, copying no further than the checkpointer and stalling the loop
   for hundreds of ms each time (bench/report-load: stats p99 178 ms during
   reports with a 64 MiB backstop, 131 ms with 4 GiB).  1 GiB still bounds
   the WAL should the checkpointer stop. */
#define CK_EVERY_MS 200
#define CK_BACKSTOP_PAGES 262144

static void *
checkpointer (void *arg)
{
    store_t *s = arg;
    pthread_mutex_lock (&s->ck_mu);
    while (!s->ck_stop) {
        struct timespec ts;
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_nsec += CK_EVERY_MS * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait (&s->ck_cv, &s->ck_mu, &ts);
        if (s->ck_stop)
            break;
        pthread_mutex_unlock (&s->ck_mu);
        int log_frames = 0, copied = 0;
        int rc = sqlite3_wal_checkpoint_v2 (s->ck_db, NULL, SQLITE_CHECKPOINT_PASSIVE,
                                            &log_frames, &copied);
        pthread_mutex_lock (&s->ck_mu);
        s->ck_runs++;
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
            s->ck_busy++;
        else if (rc != SQLITE_OK)
            s->ck_failed++;     /* the disk is full, say: the WAL keeps it all */
        else {
            s->ck_wal_frames = log_frames > 0 ? (uint64_t) log_frames : 0;
            s->ck_frames = copied > 0 ? (uint64_t) copied : 0;
        }
    }
    pthread_mutex_unlock (&s->ck_mu);
    return NULL;
}

/* Starts the checkpointer; without it (no thread, no connection) SQLite
   checkpoints in the writer as before.  Can't fail. */
static void
checkpointer_start (store_t *s, bool full_sync)
{
    if (sqlite3_open_v2 (s->path, &s->ck_db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK
        || sqlite3_exec (s->ck_db, full_sync ? "PRAGMA synchronous=FULL"
                                             : "PRAGMA synchronous=NORMAL", NULL, NULL, NULL)
           != SQLITE_OK) {
        log_warn ("database %s: no background checkpointer (%s); SQLite checkpoints in the "
                  "writer", s->path, s->ck_db ? sqlite3_errmsg (s->ck_db) : "out of memory");
        sqlite3_close (s->ck_db);
        s->ck_db = NULL;
        return;
    }
    pthread_mutex_init (&s->ck_mu, NULL);
    pthread_cond_init (&s->ck_cv, NULL);
    if (pthread_create (&s->ck_thread, NULL, checkpointer, s) != 0) {
        sqlite3_close (s->ck_db);
        s->ck_db = NULL;
        return;
    }
    s->ck_running = true;
    char sql[64];
    snprintf (sql, sizeof sql, "PRAGMA wal_autocheckpoint=%d", CK_BACKSTOP_PAGES);
    sqlite3_exec (s->db, sql, NULL, NULL, NULL);
}

static void
checkpointer_stop (store_t *s)
{
    if (s->ck_running) {
        pthread_mutex_lock (&s->ck_mu);
        s->ck_stop = true;
        pthread_cond_signal (&s->ck_cv);
        pthread_mutex_unlock (&s->ck_mu);
        pthread_join (s->ck_thread, NULL);
        s->ck_running = false;
    }
    sqlite3_close (s->ck_db);
    s->ck_db = NULL;
}

void
store_checkpoints (store_t *self, uint64_t *runs, uint64_t *busy, uint64_t *failed,
                   uint64_t *wal_frames)
{
    *runs = *busy = *failed = *wal_frames = 0;
    if (!self->ck_running)
        return;
    pthread_mutex_lock (&self->ck_mu);
    *runs = self->ck_runs;
    *busy = self->ck_busy;
    *failed = self->ck_failed;
    *wal_frames = self->ck_wal_frames;
    pthread_mutex_unlock (&self->ck_mu);
}

void
store_on_commit (store_t *self, void (*fn) (void *arg), void *arg)
{
    self->on_commit = fn;
    self->on_commit_arg = arg;
}

static int
exec (store_t *s, const char *sql, char *err, size_t errlen)
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
static void
note_failure (store_t *self, const char *what, int rc)
{
    self->failures++;
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

/* fsync of path and of the directory that holds it, so that a copy just
   written survives a power cut under its name.  Returns 0 or -errno. */
static int
fsync_file_and_dir (const char *path)
{
    char dir[1100];
    str_copy (dir, sizeof dir, path);
    int rc = 0;
    const char *names[2] = { path, dirname (dir) };
    for (int i = 0; i < 2 && rc == 0; i++) {
        int fd = open (names[i], O_RDONLY | O_CLOEXEC | (i ? O_DIRECTORY : 0));
        if (fd < 0 || fsync (fd) != 0)
            rc = -errno;
        if (fd >= 0)
            close (fd);
    }
    return rc;
}

/* Tells progress (when given) what a long step is doing. */
static void
say (store_progress_fn *progress, void *arg, uint64_t expect_ns, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
static void
say (store_progress_fn *progress, void *arg, uint64_t expect_ns, const char *fmt, ...)
{
    if (!progress)
        return;
    char text[512];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (text, sizeof text, fmt, ap);
    va_end (ap);
    progress (arg, text, expect_ns);
}

/* A consistent copy of src's main database into path with SQLite's
   online backup API, checked (quick_check) and fsynced.  It is written as
   path.partial (mode 0600) and linked to path only once complete, so path
   never names a partial copy, and an existing path is never overwritten.
   Returns 0 with *pages, or -EEXIST when path exists, -errno when the copy
   cannot be created (msg: why), -EIO when the copy failed (msg: SQLite's
   reason; the partial copy is removed). */
static int
backup_copy (sqlite3 *src, const char *path, int *pages, store_progress_fn *progress,
             void *arg, char *msg, size_t msglen)
{
    *pages = 0;
    msg[0] = '\0';
    char partial[1200], journal[1300];
    snprintf (partial, sizeof partial, "%s.partial", path);
    snprintf (journal, sizeof journal, "%s-journal", partial);
    /* What a killed copy left: never a backup. */
    unlink (partial);
    unlink (journal);
    if (access (path, F_OK) == 0)
        return -EEXIST;
    int fd = open (partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        snprintf (msg, msglen, "%s", strerror (e));
        return -e;
    }
    close (fd);
    sqlite3 *dst = NULL;
    if (sqlite3_open_v2 (partial, &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        snprintf (msg, msglen, "%s", dst ? sqlite3_errmsg (dst) : "out of memory");
        sqlite3_close (dst);
        unlink (partial);
        return -EIO;
    }
    sqlite3_backup *b = sqlite3_backup_init (dst, "main", src, "main");
    int rc = b ? SQLITE_OK : sqlite3_errcode (dst);
    if (b) {
        /* Some pages at a time; our own connection's writes between steps
           restart it, which cannot happen here: this runs in the loop. */
        do {
            rc = sqlite3_backup_step (b, 4096);
            if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
                sqlite3_sleep (10);
            int total = sqlite3_backup_pagecount (b);
            if (rc == SQLITE_OK && total > 0)
                say (progress, arg, 60 * NS_PER_SEC, "backing up to %s: %d of %d pages (%.0f%%)",
                     path, total - sqlite3_backup_remaining (b), total,
                     100.0 * (total - sqlite3_backup_remaining (b)) / total);
        } while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
        *pages = sqlite3_backup_pagecount (b);
        sqlite3_backup_finish (b);
    }
    if (rc != SQLITE_DONE)
        snprintf (msg, msglen, "%s", sqlite3_errmsg (dst));
    else {
        say (progress, arg, 600 * NS_PER_SEC, "checking the backup %s", path);
        sqlite3_stmt *st = NULL;
        const char *res = NULL;
        if (sqlite3_prepare_v2 (dst, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK
            && sqlite3_step (st) == SQLITE_ROW)
            res = (const char *) sqlite3_column_text (st, 0);
        if (!res || strcmp (res, "ok") != 0)
            snprintf (msg, msglen, "the copy failed its check (quick_check: %s)",
                      res ? res : sqlite3_errmsg (dst));
        sqlite3_finalize (st);
    }
    if (sqlite3_close (dst) != SQLITE_OK && !msg[0])
        snprintf (msg, msglen, "%s", sqlite3_errmsg (dst));
    int code = msg[0] ? -EIO : 0;                                 /* 0 or -errno */
    if (!code && (code = fsync_file_and_dir (partial)) != 0)
        snprintf (msg, msglen, "fsync: %s", strerror (-code));
    /* link(2), not rename(2): a path that appeared meanwhile stays. */
    if (!code && link (partial, path) != 0) {
        code = -errno;
        snprintf (msg, msglen, "%s", strerror (-code));
    }
    unlink (partial);
    if (!code && (code = fsync_file_and_dir (path)) != 0) {
        snprintf (msg, msglen, "fsync: %s", strerror (-code));
        unlink (path);
    }
    return code;
}

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
    int rc = backup_copy (s->db, bak, &pages, progress, arg, msg, sizeof msg);
    if (rc == -EEXIST) {
        snprintf (bak, sizeof bak, "%s.schema%d.%lld.bak", path, old,
                  (long long) (clock_real_ns () / 1000000000ULL));
        rc = backup_copy (s->db, bak, &pages, progress, arg, msg, sizeof msg);
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
    say (progress, arg, 3600 * NS_PER_SEC, "database %s: rewriting it at %d-byte pages (%lld "
         "MiB, %lld MiB of them free)", path, STORE_PAGE_SIZE,
         (long long) (pages * page_size >> 20), (long long) (free_pages * page_size >> 20));
    char why[512], page[64], ignored[512];
    snprintf (page, sizeof page, "PRAGMA page_size=%d", STORE_PAGE_SIZE);
    if (exec (s, "PRAGMA journal_mode=DELETE", why, sizeof why) || exec (s, page, why, sizeof why)
        || exec (s, "VACUUM", why, sizeof why)) {
        log_warn ("database %s: rewriting it at %d-byte pages failed: %s; it stays as it is "
                  "(whole; iofleet gc gives the free pages back later)", path, STORE_PAGE_SIZE,
                  why);
        exec (s, "PRAGMA journal_mode=WAL", ignored, sizeof ignored);
        return;
    }
    if (exec (s, "PRAGMA journal_mode=WAL", why, sizeof why))
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
    say (c->progress, c->arg, left + 600 * NS_PER_SEC, "database %s: snapshots converted into "
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
        say (progress, arg, 600 * NS_PER_SEC, "database %s: converting the snapshots into "
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

static int
migrate (store_t *s, const char *path, store_progress_fn *progress, void *arg, char *err,
         size_t errlen)
{
    char why[512];
    if (exec (s, "CREATE TABLE IF NOT EXISTS schema_version ("
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
            say (progress, arg, 3600 * NS_PER_SEC, "database %s: applying migration %s", path,
                 m->name);
        if (exec (s, "BEGIN IMMEDIATE", why, sizeof why) || exec (s, m->sql, why, sizeof why)) {
            exec (s, "ROLLBACK", why, sizeof why);
            snprintf (err, errlen, "%s: migration %s failed: %s", path, m->name, why);
            return -1;
        }
        sqlite3_stmt *st = store_stmt (s, "INSERT INTO schema_version (version, name, applied_at) "
                                          "VALUES (?, ?, ?)");
        sqlite3_bind_int (st, 1, m->version);
        sqlite3_bind_text (st, 2, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64 (st, 3, (sqlite3_int64) clock_real_ns ());
        if (store_step_done (s, st, "record migration") || exec (s, "COMMIT", why, sizeof why)) {
            exec (s, "ROLLBACK", why, sizeof why);
            snprintf (err, errlen, "%s: recording migration %s failed", path, m->name);
            return -1;
        }
        log_info ("database %s: applied migration %s", path, m->name);
    }
    return convert_snapshots (s, path, progress, arg, err, errlen);
}

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
    if (exec (s, page, why, sizeof why)
        || exec (s, "PRAGMA journal_mode=WAL", why, sizeof why)
        || exec (s, full_sync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL", why,
                 sizeof why)
        || exec (s, "PRAGMA foreign_keys=ON", why, sizeof why)
        /* Snapshots of a thousand agents land in a thousand places of the
           table each second: keep those pages in memory rather than
           reading them back from the file for every tick. */
        || exec (s, "PRAGMA cache_size=-32768", why, sizeof why)) {
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
    if (migrate (s, path, progress, arg, err, errlen)) {
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
    checkpointer_start (s, full_sync);
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
    if (exec (s, "PRAGMA query_only=1", why, sizeof why)
        || exec (s, "PRAGMA cache_size=-8192", why, sizeof why)
        || snapshot_table_register (s->db) != SQLITE_OK) {
        snprintf (err, errlen, "cannot read database '%s': %s", path, why);
        store_close (&s);
        return NULL;
    }
    return s;
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

void
store_close (store_t **self_p)
{
    store_t *s = *self_p;
    if (!s)
        return;
    if (s->in_tx)
        store_commit (s);
    checkpointer_stop (s);
    for (int i = 0; i < s->nstmts; i++)
        sqlite3_finalize (s->stmts[i].st);
    sqlite3_close (s->db);
    snapcodec_free (&s->codec);
    /* Released last: until the database is closed it is ours alone. */
    lockfile_destroy (&s->lock);
    free (s);
    *self_p = NULL;
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

int
store_begin (store_t *self)
{
    if (self->in_tx)
        return 0;
    char why[256];
    if (exec (self, "BEGIN IMMEDIATE", why, sizeof why)) {
        note_failure (self, "BEGIN", sqlite3_extended_errcode (self->db));
        return -1;
    }
    self->in_tx = true;
    self->failures_at_begin = self->failures;
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
        exec (self, "ROLLBACK", why, sizeof why);
        return -1;
    }
    if (exec (self, "COMMIT", why, sizeof why)) {
        note_failure (self, "COMMIT", sqlite3_extended_errcode (self->db));
        exec (self, "ROLLBACK", why, sizeof why);
        return -1;
    }
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
        note_failure (self, what, rc);
}

int
store_step_done (store_t *self, sqlite3_stmt *st, const char *what)
{
    if (!st)
        return -1;
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

void
store_size (store_t *self, int64_t *pages, int64_t *page_size)
{
    sqlite3_stmt *st;
    *pages = *page_size = 0;
    if (sqlite3_prepare_v2 (self->db, "SELECT (SELECT page_count FROM pragma_page_count), "
                            "(SELECT page_size FROM pragma_page_size)", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step (st) == SQLITE_ROW) {
            *pages = sqlite3_column_int64 (st, 0);
            *page_size = sqlite3_column_int64 (st, 1);
        }
        sqlite3_finalize (st);
    }
}

int64_t
store_free_pages (store_t *self)
{
    sqlite3_stmt *st = store_stmt (self, "PRAGMA freelist_count");
    int64_t n = store_row (self, st, "read the free list") == 1 ? sqlite3_column_int64 (st, 0)
                                                                : 0;
    if (st)
        sqlite3_reset (st);
    return n;
}

json_t *
store_usage (store_t *self, char *err, size_t errlen)
{
    /* A table's rows are the cells of its own b-tree's leaves, and of its
       interior pages too when it is WITHOUT ROWID (a b-tree of keys keeps
       rows there; a rowid table keeps only rowids). */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2 (self->db,
            "SELECT t, SUM(pgsize), SUM(CASE WHEN own AND (pagetype = 'leaf' OR (wr AND pagetype "
            "  = 'internal')) THEN ncell END), "
            "  SUM(CASE WHEN own THEN 0 ELSE pgsize END) FROM (SELECT d.pgsize, d.ncell, "
            "  d.pagetype, COALESCE(m.tbl_name, d.name) AS t, "
            "  COALESCE(m.tbl_name, d.name) = d.name AS own, "
            "  COALESCE(m.sql LIKE '%WITHOUT ROWID%', 0) AS wr "
            "  FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name) "
            "GROUP BY t ORDER BY 2 DESC", -1, &st, NULL) != SQLITE_OK) {
        snprintf (err, errlen, "database usage: %s", sqlite3_errmsg (self->db));
        return NULL;
    }
    json_t *tables = json_array ();
    int rc;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW)
        json_array_append_new (tables, json_pack ("{s:s, s:I, s:I, s:I}",
            "table", (const char *) sqlite3_column_text (st, 0),
            "rows", (json_int_t) sqlite3_column_int64 (st, 2),
            "bytes", (json_int_t) sqlite3_column_int64 (st, 1),
            "index_bytes", (json_int_t) sqlite3_column_int64 (st, 3)));
    if (rc != SQLITE_DONE) {
        snprintf (err, errlen, "database usage: %s", sqlite3_errmsg (self->db));
        sqlite3_finalize (st);
        json_decref (tables);
        return NULL;
    }
    sqlite3_finalize (st);
    /* What the per-interval data costs: its blocks with their index, per
       target-interval they hold (docs/design.md, Compact per-interval
       storage). */
    int64_t blocks = 0, tiv = 0, with_dict = 0, bytes = 0;
    if (sqlite3_prepare_v2 (self->db, "SELECT COUNT(*), COALESCE(SUM(targets), 0), "
                            "COALESCE(SUM(dict_id != 0), 0) FROM snapshot_blocks", -1, &st, NULL)
        == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW) {
        blocks = sqlite3_column_int64 (st, 0);
        tiv = sqlite3_column_int64 (st, 1);
        with_dict = sqlite3_column_int64 (st, 2);
    }
    sqlite3_finalize (st);
    size_t i;
    json_t *t;
    json_array_foreach (tables, i, t)
        if (strcmp (json_string_value (json_object_get (t, "table")), "snapshot_blocks") == 0)
            bytes = json_integer_value (json_object_get (t, "bytes"));
    int64_t pages, page_size;
    store_size (self, &pages, &page_size);
    return json_pack ("{s:I, s:I, s:I, s:I, s:o, s:{s:I, s:I, s:I, s:I, s:f}}", "pages",
                      (json_int_t) pages, "page_size",
                      (json_int_t) page_size, "bytes", (json_int_t) (pages * page_size),
                      "free_bytes", (json_int_t) (store_free_pages (self) * page_size),
                      "tables", tables, "snapshots", "blocks", (json_int_t) blocks,
                      "target_intervals", (json_int_t) tiv, "blocks_with_dictionary",
                      (json_int_t) with_dict, "bytes", (json_int_t) bytes,
                      "bytes_per_target_interval", tiv ? (double) bytes / (double) tiv : 0.0);
}

json_t *
store_check (store_t *self, char *err, size_t errlen)
{
    store_commit (self);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2 (self->db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
        snprintf (err, errlen, "integrity check: %s", sqlite3_errmsg (self->db));
        return NULL;
    }
    json_t *problems = json_array ();
    int rc;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        const char *m = (const char *) sqlite3_column_text (st, 0);
        if (m && strcmp (m, "ok") != 0)
            json_array_append_new (problems, json_string (m));
    }
    sqlite3_finalize (st);
    if (rc != SQLITE_DONE) {
        json_decref (problems);
        snprintf (err, errlen, "integrity check: %s", sqlite3_errmsg (self->db));
        return NULL;
    }
    int64_t pages = 0, page_size = 0;
    store_size (self, &pages, &page_size);
    return json_pack ("{s:b, s:o, s:I, s:I, s:I}", "ok", json_array_size (problems) == 0,
                      "problems", problems, "pages", (json_int_t) pages,
                      "page_size", (json_int_t) page_size, "bytes", (json_int_t) (pages * page_size));
}

json_t *
store_backup (store_t *self, const char *path, char *err, size_t errlen)
{
    if (!path || path[0] != '/') {
        snprintf (err, errlen, "backup path '%s': give an absolute path on the controller's host",
                  path ? path : "");
        return NULL;
    }
    store_commit (self);
    uint64_t t0 = clock_mono_ns ();
    char msg[512];
    int pages = 0;
    int rc = backup_copy (self->db, path, &pages, NULL, NULL, msg, sizeof msg);
    if (rc == -EEXIST) {
        snprintf (err, errlen, "backup path '%s' exists; not overwriting it (choose a new name)",
                  path);
        return NULL;
    }
    if (rc == -EROFS) {
        snprintf (err, errlen, "backup path '%s': read-only file system (under the packaged "
                  "unit the controller writes only in /var/lib/iofleet: back up there, or add "
                  "ReadWritePaths= with 'systemctl edit iofleet-controller')", path);
        return NULL;
    }
    if (rc == -EIO) {
        snprintf (err, errlen, "backup to '%s' failed: %s (disk full? the partial copy was "
                  "removed)", path, msg);
        return NULL;
    }
    if (rc) {
        snprintf (err, errlen, "backup path '%s': %s", path, msg);
        return NULL;
    }
    struct stat sb;
    int64_t bytes = stat (path, &sb) == 0 ? (int64_t) sb.st_size : 0;
    return json_pack ("{s:s, s:I, s:i, s:f}", "path", path, "bytes", (json_int_t) bytes,
                      "pages", pages, "ms", (double) (clock_mono_ns () - t0) / 1e6);
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
    note_failure (self, what, sqlite3_extended_errcode (self->db));
}
