/*  store_backup.c: consistent copies of the database (iofleet db backup,
    and the copy taken before a migration), fsynced under their name.  */
#include "store.h"
#include "store_internal.h"
#include "log.h"
#include "util.h"

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

/* Tells progress (when given) what a long step is doing. */
void
store_say (store_progress_fn *progress, void *arg, uint64_t expect_ns, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
void
store_say (store_progress_fn *progress, void *arg, uint64_t expect_ns, const char *fmt, ...)
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

/* fsync of path and of the directory that holds it, so that a copy just
   written survives a power cut under its name.  Returns 0 or -errno. */
int
store_fsync_path (const char *path)
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

/* A consistent copy of src's main database into path with SQLite's
   online backup API, checked (quick_check) and fsynced.  It is written as
   path.partial (mode 0600) and linked to path only once complete, so path
   never names a partial copy, and an existing path is never overwritten.
   Returns 0 with *pages, or -EEXIST when path exists, -errno when the copy
   cannot be created (msg: why), -EIO when the copy failed (msg: SQLite's
   reason; the partial copy is removed). */
int
store_backup_copy (sqlite3 *src, const char *path, int *pages, store_progress_fn *progress,
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
                store_say (progress, arg, 60 * NS_PER_SEC, "backing up to %s: %d of %d pages (%.0f%%)",
                     path, total - sqlite3_backup_remaining (b), total,
                     100.0 * (total - sqlite3_backup_remaining (b)) / total);
        } while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
        *pages = sqlite3_backup_pagecount (b);
        sqlite3_backup_finish (b);
    }
    if (rc != SQLITE_DONE)
        snprintf (msg, msglen, "%s", sqlite3_errmsg (dst));
    else {
        store_say (progress, arg, 600 * NS_PER_SEC, "checking the backup %s", path);
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
    if (!code && (code = store_fsync_path (partial)) != 0)
        snprintf (msg, msglen, "fsync: %s", strerror (-code));
    /* link(2), not rename(2): a path that appeared meanwhile stays. */
    if (!code && link (partial, path) != 0) {
        code = -errno;
        snprintf (msg, msglen, "%s", strerror (-code));
    }
    unlink (partial);
    if (!code && (code = store_fsync_path (path)) != 0) {
        snprintf (msg, msglen, "fsync: %s", strerror (-code));
        unlink (path);
    }
    return code;
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
    int rc = store_backup_copy (self->db, path, &pages, NULL, NULL, msg, sizeof msg);
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
