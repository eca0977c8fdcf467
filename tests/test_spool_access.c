/*  test_spool_access.c: unit tests for agent/spool.c, who may use a spool
    directory and what becomes of a spool that cannot use it.

    Covered: the lock between two spools; readonly opens that change
    nothing; directories that cannot be used; write failures
    (RLIMIT_FSIZE: a short write and EFBIG) kept in memory.  The lock
    between two processes is test_spool_recovery.c's (a holder killed).
    Not covered: a directory that is not writable (root, as the tests run
    here, writes anyway: that check runs only as another user) and
    running out of memory.  The directory, the child the checks run in
    and the self-describing payloads are test_spool.c's, from spool_fx.c.
*/
#define _GNU_SOURCE
#include "spool_fx.h"
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

//  Every file in dir: name, size, mtime (to show nothing changed).
typedef struct {
    char name[64];
    long long size;
    struct timespec mtime;
    ino_t ino;
} fent_t;

typedef struct {
    fent_t v[64];
    int n;
} snap_t;

static int
cmp_fent (const void *a, const void *b)
{
    return strcmp (((const fent_t *) a)->name, ((const fent_t *) b)->name);
}

static void
snapshot (const char *dir, snap_t *s)
{
    memset (s, 0, sizeof *s);
    DIR *d = opendir (dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir (d)) && s->n < 64) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX];
        snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat (path, &st) != 0)
            continue;
        fent_t *f = &s->v[s->n++];
        snprintf (f->name, sizeof f->name, "%s", e->d_name);
        f->size = (long long) st.st_size;
        f->mtime = st.st_mtim;
        f->ino = st.st_ino;
    }
    closedir (d);
    qsort (s->v, (size_t) s->n, sizeof s->v[0], cmp_fent);
}

static bool
snap_equal (const snap_t *a, const snap_t *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++) {
        const fent_t *x = &a->v[i], *y = &b->v[i];
        if (strcmp (x->name, y->name) || x->size != y->size || x->ino != y->ino
            || x->mtime.tv_sec != y->mtime.tv_sec || x->mtime.tv_nsec != y->mtime.tv_nsec)
            return false;
    }
    return true;
}

//  The lock; readonly opens change nothing.
static void
test_lock_readonly (void)
{
    const char *dir = P ("lock");
    char err[1024];
    spool_t *a = open_spool (dir, MIB, false);
    for (uint32_t q = 0; q < 6; q++)
        CHECK (put (a, 2, 7, q, 80) == 0);
    snap_t before, after;
    snapshot (dir, &before);

    err[0] = '\0';
    spool_t *b = spool_new (dir, MIB, false, err, sizeof err);
    CHECK (b == NULL);
    CHECK_ERR (err, "in use");
    CHECK_ERR (err, dir);
    spool_destroy (&b);
    snapshot (dir, &after);
    CHECK_MSG (snap_equal (&before, &after), "a refused open changed the directory");

    //  The holder goes on.
    CHECK (put (a, 2, 7, 6, 80) == 0);
    CHECK (resend_all (a) == 7);
    check_sent_range ("the holder", 2, 7, 0, 6);

    //  Readonly while held: sees what is on disk.
    spool_t *r = open_spool (dir, MIB, true);
    spool_stats_t st = stats (r);
    CHECK (st.recovered == 7 && st.unacked == 7 && st.bytes == 7 * REC (80));
    CHECK (resend_all (r) == 7);
    check_sent_range ("readonly", 2, 7, 0, 6);
    json_t *j = spool_steps_json (r);
    CHECK (j && json_array_size (j) == 1);
    json_decref (j);
    spool_ack (r, 2, 7, UINT32_MAX);        // in memory only
    spool_destroy (&r);
    CHECK (exists (seg_file (dir, 1)) && file_size (seg_file (dir, 1)) == 7 * (long long) REC (80));
    spool_destroy (&a);

    //  Released: the next one gets it.
    b = open_spool (dir, MIB, false);
    CHECK (stats (b).recovered == 7);
    spool_destroy (&b);

    //  Readonly over a torn tail and no lock file: nothing is cut, created
    //  or removed (an empty segment included).
    uint8_t junk[40];
    memset (junk, 0xa5, sizeof junk);
    append_bytes (seg_file (dir, 1), junk, sizeof junk);
    int fd = open (seg_file (dir, 7), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK (fd >= 0);
    close (fd);
    CHECK (!exists (P ("lock/lock")));              //  released: gone
    snapshot (dir, &before);
    char log[4096];
    r = open_logged (dir, true, log, sizeof log);
    st = stats (r);
    CHECK (st.recovered == 7 && st.torn_bytes == sizeof junk);
    CHECK_MSG (strstr (log, "cut") == NULL, "readonly logs a cut: %s", log);
    CHECK (resend_all (r) == 7);
    check_sent_range ("readonly, torn", 2, 7, 0, 6);
    spool_ack (r, 2, 7, UINT32_MAX);
    CHECK (spool_keep_only (r, 0, 0) == 0);
    spool_destroy (&r);
    snapshot (dir, &after);
    CHECK_MSG (snap_equal (&before, &after), "a readonly open changed the directory");
    CHECK (!exists (P ("lock/lock")));

    //  Readonly of a directory that is not there: an error, nothing made.
    err[0] = '\0';
    r = spool_new (P ("lock-missing"), MIB, true, err, sizeof err);
    CHECK (r == NULL);
    CHECK_ERR (err, P ("lock-missing"));
    CHECK (!exists (P ("lock-missing")));
}

//  Directories that cannot be used.
static void
test_bad_dir (void)
{
    char err[1024];
    int fd = open (P ("plain-file"), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK (fd >= 0);
    close (fd);

    err[0] = '\0';
    spool_t *sp = spool_new (P ("plain-file/spool"), MIB, false, err, sizeof err);
    CHECK (sp == NULL);
    CHECK_ERR (err, P ("plain-file/spool"));
    CHECK_ERR (err, "cannot create");

    err[0] = '\0';
    sp = spool_new (P ("plain-file"), MIB, false, err, sizeof err);
    CHECK (sp == NULL);
    CHECK_ERR (err, P ("plain-file"));

    err[0] = '\0';
    sp = spool_new (P ("no-parent/spool"), MIB, false, err, sizeof err);
    CHECK (sp == NULL);
    CHECK_ERR (err, P ("no-parent/spool"));
    CHECK (!exists (P ("no-parent")));

    static char longdir[5000];
    memset (longdir, 'x', sizeof longdir - 1);
    memcpy (longdir, "/var/tmp/", 9);
    err[0] = '\0';
    sp = spool_new (longdir, MIB, false, err, sizeof err);
    CHECK (sp == NULL);
    CHECK_ERR (err, "too long");

    //  Not writable (root writes anyway: only as another user).
    if (geteuid () != 0) {
        const char *dir = P ("ro-dir");
        CHECK (mkdir (dir, 0500) == 0);
        err[0] = '\0';
        sp = spool_new (dir, MIB, false, err, sizeof err);
        CHECK (sp == NULL);
        CHECK_ERR (err, dir);
        CHECK_ERR (err, "writable");
        chmod (dir, 0700);
    }

    //  Created, mode 0700.
    sp = open_spool (P ("made"), MIB, false);
    struct stat st;
    CHECK (stat (P ("made"), &st) == 0 && S_ISDIR (st.st_mode) && (st.st_mode & 0777) == 0700);
    spool_destroy (&sp);
}

//  A write that fails keeps the record in memory (RLIMIT_FSIZE: first a
//  short write at the limit, then EFBIG past it).
static void
test_write_failure (void)
{
    const char *dir = P ("wfail");
    const char *f = seg_file (dir, 1);
    spool_t *sp = open_spool (dir, MIB, false);
    for (uint32_t q = 0; q < 3; q++)
        CHECK (put (sp, 1, 1, q, 300) == 0);
    const long long good = 3 * (long long) REC (300);
    CHECK (file_size (f) == good);

    struct rlimit old, lim;
    CHECK (getrlimit (RLIMIT_FSIZE, &old) == 0);
    void (*oldsig) (int) = signal (SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = (rlim_t) good + 16;      // room for 16 bytes of the next
    char log[4096];
    capture_begin ();
    bool limited = setrlimit (RLIMIT_FSIZE, &lim) == 0;
    int rc3 = put (sp, 1, 1, 3, 300);       // short write, cut back
    lim.rlim_cur = (rlim_t) good;
    limited = limited && setrlimit (RLIMIT_FSIZE, &lim) == 0;
    int rc4 = put (sp, 1, 1, 4, 300);       // EFBIG
    CHECK (setrlimit (RLIMIT_FSIZE, &old) == 0);
    capture_end (log, sizeof log);
    signal (SIGXFSZ, oldsig);
    CHECK (limited);
    CHECK (rc3 == 0 && rc4 == 0);
    CHECK_ERR (log, "cannot write");
    CHECK_ERR (log, "memory");

    spool_stats_t st = stats (sp);
    CHECK_MSG (st.write_errors == 2, "write_errors %llu", (unsigned long long) st.write_errors);
    CHECK (st.records == 5 && st.unacked == 5);
    CHECK_MSG (file_size (f) == good, "the short write left %lld bytes, not %lld",
               file_size (f), good);
    check_disk ("write failures", sp, dir);

    //  Writable again: on disk after the good ones.
    CHECK (put (sp, 1, 1, 5, 300) == 0);
    CHECK (put (sp, 1, 1, 6, 300) == 0);
    CHECK (stats (sp).write_errors == 2);
    CHECK (file_size (f) == good + 2 * (long long) REC (300));
    CHECK (resend_all (sp) == 7);
    check_sent_range ("disk, memory, disk", 1, 1, 0, 6);

    //  Acknowledged, the one in memory goes; the other is still sent.
    spool_ack (sp, 1, 1, 3);
    st = stats (sp);
    CHECK (st.unacked == 3 && st.records == 6);
    CHECK (resend_all (sp) == 3);
    check_sent_range ("after ack", 1, 1, 4, 6);
    json_t *j = spool_steps_json (sp);
    json_t *o = json_array_get (j, 0);
    CHECK (o && json_integer_value (json_object_get (o, "records")) == 6);
    CHECK (o && json_integer_value (json_object_get (o, "unacked")) == 3);
    json_decref (j);
    spool_destroy (&sp);

    //  What was in memory does not outlive the spool.
    sp = open_spool (dir, MIB, false);
    CHECK (stats (sp).recovered == 5);
    CHECK (resend_all (sp) == 5);
    {
        want_t want[] = { { 1, 1, 0 }, { 1, 1, 1 }, { 1, 1, 2 }, { 1, 1, 5 }, { 1, 1, 6 } };
        check_sent ("recovered from disk only", want, 5);
    }
    spool_destroy (&sp);
}

static int
run_tests (void)
{
    int fds0 = count_fds ();
    test_lock_readonly ();
    test_bad_dir ();
    test_write_failure ();
    CHECK_MSG (count_fds () == fds0, "fds: %d at start, %d at end", fds0, count_fds ());
    return TEST_DONE ();
}

int
main (void)
{
    return spool_fx_main ("test_spool_access", run_tests);
}
