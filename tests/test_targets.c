/*  test_targets.c: unit tests for agent/targets.c and agent/guard.c.

    Usage: test_targets FIXTURES   (tests/fixtures/sysfs: the write guard's
    mount, holder and swap decisions run on its guard/, sata-ahci/ and
    loop/ trees)

    Works in a fresh directory under /var/tmp (O_DIRECT needs a real file
    system, not tmpfs), removed at exit whatever the checks said:

        TMP/work/               the agent's --workdir
        TMP/work/sub/           a directory
        TMP/work/real           a file, and TMP/work/alias -> real
        TMP/work/link        -> TMP/outside/secret   (escape by symlink)
        TMP/work/outdir      -> TMP/outside          (escape by directory)
        TMP/work2/file          a sibling sharing work's prefix
        TMP/worklink         -> TMP/work             (workdir given by symlink)
        TMP/outside/secret      not allowed
        TMP/dev-a               allowed by the glob TMP/dev-*
*/
#define _GNU_SOURCE
#include "targets.h"
#include "guard.h"
#include "log.h"
#include "testutil.h"

#include <dirent.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define STREQ(a, b)     (strcmp ((a), (b)) == 0)

//  CHECK_STR_CONTAINS for a char array (its NULL test would not compile).
#define CHECK_ERR(err, needle) \
    CHECK_MSG (strstr ((err), (needle)) != NULL, "'%s' does not contain '%s'", (err), (needle))



static char tmp[PATH_MAX];          // realpath of the mkdtemp directory
static char work[PATH_MAX], outside[PATH_MAX];

//  TMP/fmt: a path in a small ring of buffers.
static const char *
P (const char *fmt, ...)
{
    static char ring[8][PATH_MAX];
    static int next;
    char *out = ring[next++ % 8];
    char rel[PATH_MAX];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (rel, sizeof rel, fmt, ap);
    va_end (ap);
    snprintf (out, PATH_MAX, "%s/%s", tmp, rel);
    return out;
}

static int
rm_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) st;
    (void) ftw;
    if (flag == FTW_DP)
        rmdir (path);
    else
        unlink (path);
    return 0;
}

static void
cleanup (void)
{
    if (tmp[0])
        nftw (tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    tmp[0] = '\0';
}

static void
write_file (const char *path, char fill, size_t n)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        perror (path);
        exit (1);
    }
    char buf[4096];
    memset (buf, fill, sizeof buf);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < sizeof buf ? n - done : sizeof buf;
        if (write (fd, buf, k) != (ssize_t) k) {
            perror (path);
            exit (1);
        }
        done += k;
    }
    close (fd);
}

static void
setup (void)
{
    char tmpl[] = "/var/tmp/iofleet-test-targets-XXXXXX";
    if (!mkdtemp (tmpl)) {
        perror ("mkdtemp");
        exit (1);
    }
    if (!realpath (tmpl, tmp)) {
        perror ("realpath");
        rmdir (tmpl);
        exit (1);
    }
    atexit (cleanup);
    snprintf (work, sizeof work, "%s/work", tmp);
    snprintf (outside, sizeof outside, "%s/outside", tmp);
    int rc = mkdir (work, 0755) | mkdir (outside, 0755) | mkdir (P ("work/sub"), 0755)
             | mkdir (P ("work2"), 0755)
             | symlink (P ("outside/secret"), P ("work/link"))
             | symlink (outside, P ("work/outdir"))
             | symlink ("real", P ("work/alias"))
             | symlink (work, P ("worklink"))
             | symlink (P ("outside/made-by-dangling"), P ("work/dangling"));
    if (rc) {
        perror ("setup");
        exit (1);
    }
    write_file (P ("outside/secret"), 's', 4096);
    write_file (P ("work/real"), 'r', 4096);
    write_file (P ("work2/file"), 'w', 4096);
    write_file (P ("dev-a"), 'd', 4096);
}

static int
count_fds (void)
{
    DIR *d = opendir ("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    while (readdir (d))
        n++;
    closedir (d);
    return n;
}

static bool
exists (const char *path)
{
    struct stat st;
    return lstat (path, &st) == 0;
}

//  Resolves name under pol into t; err gets the reason.
static int
resolve (const target_policy_t *pol, const char *name, target_t *t, char *err, size_t errlen)
{
    err[0] = '\0';
    memset (t, 0x5a, sizeof *t);        // target_resolve must set every field
    return target_resolve (pol, name, t, err, errlen);
}

//  ---------------------------------------------------------------------

static void
test_relative (void)
{
    target_t t;
    char err[1024];
    target_policy_t pol = { .workdir = work };

    int rc = resolve (&pol, "data.bin", &t, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    CHECK_MSG (STREQ (t.path, P ("work/data.bin")), "%s", t.path);
    CHECK (t.fd == -1);
    CHECK (!t.is_block && !t.created && t.size == 0);
    CHECK (!exists (P ("work/data.bin")));      // resolving creates nothing

    rc = resolve (&pol, "./sub/../sub/f1", &t, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    CHECK_MSG (STREQ (t.path, P ("work/sub/f1")), "%s", t.path);

    rc = resolve (&pol, "real", &t, err, sizeof err);
    CHECK (rc == 0 && STREQ (t.path, P ("work/real")));

    //  Workdir with a trailing slash, or reached through a symlink: the
    //  resolved path is the real one.
    char slash[PATH_MAX];
    snprintf (slash, sizeof slash, "%s/", work);
    target_policy_t pol2 = { .workdir = slash };
    rc = resolve (&pol2, "x", &t, err, sizeof err);
    CHECK_MSG (rc == 0 && STREQ (t.path, P ("work/x")), "%d %s %s", rc, t.path, err);
    target_policy_t pol3 = { .workdir = P ("worklink") };
    rc = resolve (&pol3, "x", &t, err, sizeof err);
    CHECK_MSG (rc == 0 && STREQ (t.path, P ("work/x")), "%d %s %s", rc, t.path, err);

    //  No workdir: refused, naming the file and --workdir.
    target_policy_t none = { 0 };
    rc = resolve (&none, "data.bin", &t, err, sizeof err);
    CHECK (rc == -EINVAL);
    CHECK_ERR (err, "--workdir");
    CHECK_ERR (err, "data.bin");
    CHECK (t.fd == -1);
    //  ...even if a glob would match it.
    target_policy_t globonly = { .allow = { "*" }, .nallow = 1 };
    rc = resolve (&globonly, "data.bin", &t, err, sizeof err);
    CHECK (rc == -EINVAL);
    CHECK_ERR (err, "--workdir");

    //  A workdir that does not exist.
    target_policy_t gone = { .workdir = P ("no-such-dir") };
    rc = resolve (&gone, "x", &t, err, sizeof err);
    CHECK (rc == -ENOENT);
    CHECK_ERR (err, "workdir");
    CHECK_ERR (err, "no-such-dir");

    //  A missing parent directory cannot be resolved.
    rc = resolve (&pol, "nodir/file", &t, err, sizeof err);
    CHECK (rc == -ENOENT);
    CHECK_ERR (err, "cannot resolve");
    CHECK_ERR (err, "nodir/file");

    //  A name far too long is refused, not truncated into another path.
    char *longname = malloc (6000);
    memset (longname, 'a', 5999);
    longname[5999] = '\0';
    rc = resolve (&pol, longname, &t, err, sizeof err);
    CHECK (rc < 0);
    free (longname);
}

static void
test_absolute (void)
{
    target_t t;
    char err[2048];
    target_policy_t pol = { .workdir = work };

    int rc = resolve (&pol, P ("work/abs.dat"), &t, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    CHECK (STREQ (t.path, P ("work/abs.dat")));

    //  The workdir itself is inside it (target_open then refuses a dir).
    rc = resolve (&pol, work, &t, err, sizeof err);
    CHECK (rc == 0 && STREQ (t.path, work));

    //  Outside, no glob: -EACCES naming the path and --allow.
    rc = resolve (&pol, P ("outside/secret"), &t, err, sizeof err);
    CHECK (rc == -EACCES);
    CHECK_ERR (err, "--allow");
    CHECK_ERR (err, P ("outside/secret"));
    CHECK (t.fd == -1);
    rc = resolve (&pol, "/etc/passwd", &t, err, sizeof err);
    CHECK (rc == -EACCES);

    //  A sibling that shares the workdir's prefix is not inside it.
    rc = resolve (&pol, P ("work2/file"), &t, err, sizeof err);
    CHECK_MSG (rc == -EACCES, "%s/work2/file: rc %d", tmp, rc);
    rc = resolve (&pol, P ("work2"), &t, err, sizeof err);
    CHECK (rc == -EACCES);
    rc = resolve (&pol, P ("workx"), &t, err, sizeof err);
    CHECK (rc == -EACCES);

    //  A matching glob allows, existing or to be created.
    char glob[PATH_MAX], other[PATH_MAX];
    snprintf (glob, sizeof glob, "%s/dev-*", tmp);
    snprintf (other, sizeof other, "%s/nothing-*", tmp);
    target_policy_t gp = { .workdir = work, .allow = { other, glob }, .nallow = 2 };
    rc = resolve (&gp, P ("dev-a"), &t, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    CHECK (STREQ (t.path, P ("dev-a")));
    rc = resolve (&gp, P ("dev-new"), &t, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    rc = resolve (&gp, P ("outside/secret"), &t, err, sizeof err);
    CHECK (rc == -EACCES);
    rc = resolve (&gp, P ("dev"), &t, err, sizeof err);
    CHECK (rc == -EACCES);
    //  Globs only: no workdir needed for absolute names.
    target_policy_t gonly = { .allow = { glob }, .nallow = 1 };
    rc = resolve (&gonly, P ("dev-a"), &t, err, sizeof err);
    CHECK (rc == 0);
    rc = resolve (&gonly, P ("work/real"), &t, err, sizeof err);
    CHECK (rc == -EACCES);
    CHECK_ERR (err, "--allow");
    //  nallow bounds the globs looked at.
    target_policy_t gzero = { .allow = { glob }, .nallow = 0 };
    rc = resolve (&gzero, P ("dev-a"), &t, err, sizeof err);
    CHECK (rc == -EACCES);

    //  A glob is matched against the resolved path, not the name: a dotted
    //  name that resolves to an allowed path is fine.
    rc = resolve (&gp, P ("work/../dev-a"), &t, err, sizeof err);
    CHECK (rc == 0 && STREQ (t.path, P ("dev-a")));

    //  workdir "/" covers everything below it.
    target_policy_t root = { .workdir = "/" };
    rc = resolve (&root, P ("work/real"), &t, err, sizeof err);
    CHECK_MSG (rc == 0, "--workdir / refuses the absolute path %s: rc %d: %s",
               P ("work/real"), rc, err);
    rc = resolve (&root, P ("work/real") + 1, &t, err, sizeof err);
    CHECK_MSG (rc == 0, "--workdir / refuses the relative name %s: rc %d: %s",
               P ("work/real") + 1, rc, err);
}

static void
test_escape (void)
{
    target_t t;
    char err[2048];
    target_policy_t pol = { .workdir = work };

    //  A symlink in the workdir to a file outside: checked as resolved.
    int rc = resolve (&pol, "link", &t, err, sizeof err);
    CHECK (rc == -EACCES);
    CHECK_ERR (err, P ("outside/secret"));
    CHECK_ERR (err, "--allow");
    rc = resolve (&pol, P ("work/link"), &t, err, sizeof err);
    CHECK (rc == -EACCES);

    //  When the destination is allowed, the resolved path is what opens.
    char glob[PATH_MAX];
    snprintf (glob, sizeof glob, "%s/outside/*", tmp);
    target_policy_t gp = { .workdir = work, .allow = { glob }, .nallow = 1 };
    rc = resolve (&gp, "link", &t, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    CHECK_MSG (STREQ (t.path, P ("outside/secret")), "%s", t.path);

    //  A symlink inside to a file inside: allowed, resolved.
    rc = resolve (&pol, "alias", &t, err, sizeof err);
    CHECK (rc == 0 && STREQ (t.path, P ("work/real")));

    //  ../ escapes, relative and absolute, existing or to be created.
    rc = resolve (&pol, "../outside/secret", &t, err, sizeof err);
    CHECK (rc == -EACCES);
    CHECK_ERR (err, P ("outside/secret"));
    rc = resolve (&pol, P ("work/../outside/secret"), &t, err, sizeof err);
    CHECK (rc == -EACCES);
    rc = resolve (&pol, "sub/../../outside/secret", &t, err, sizeof err);
    CHECK (rc == -EACCES);
    rc = resolve (&pol, "../outside/new-file", &t, err, sizeof err);
    CHECK (rc == -EACCES);
    rc = resolve (&pol, "..", &t, err, sizeof err);
    CHECK (rc == -EACCES);
    rc = resolve (&pol, "../work2/file", &t, err, sizeof err);
    CHECK (rc == -EACCES);

    //  A file to be created in a symlinked directory that leads outside.
    rc = resolve (&pol, "outdir/new-file", &t, err, sizeof err);
    CHECK (rc == -EACCES);
    CHECK_ERR (err, P ("outside/new-file"));
    rc = resolve (&pol, "outdir/secret", &t, err, sizeof err);
    CHECK (rc == -EACCES);

    //  A dangling symlink in the workdir that points outside: realpath()
    //  fails (ENOENT), so the link itself (inside) is checked, and
    //  target_open's O_CREAT then follows it and creates the file outside.
    rc = resolve (&pol, "dangling", &t, err, sizeof err);
    CHECK_MSG (rc == -EACCES, "dangling symlink work/dangling -> outside/made-by-dangling "
               "resolved to '%s' (rc %d), allowed", t.path, rc);
    if (rc == 0) {
        int orc = target_open (&t, false, true, 4096, err, sizeof err);
        target_close (&t);
        CHECK_MSG (!exists (P ("outside/made-by-dangling")),
                   "target_open (rc %d) created %s outside the workdir", orc,
                   P ("outside/made-by-dangling"));
        unlink (P ("outside/made-by-dangling"));
    }
}

//  ---------------------------------------------------------------------

//  Reads n bytes at off through a fresh descriptor (no O_DIRECT).
static bool
read_at (const char *path, void *buf, size_t n, off_t off)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t got = pread (fd, buf, n, off);
    close (fd);
    return got == (ssize_t) n;
}

static bool
all_bytes (const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

static uint64_t
file_size (const char *path)
{
    struct stat st;
    return stat (path, &st) == 0 ? (uint64_t) st.st_size : 0;
}

static void
test_open_create (void)
{
    target_t t;
    char err[1024];
    target_policy_t pol = { .workdir = work };
    static uint8_t buf[4096];

    //  Missing file, O_DIRECT, need not a multiple of anything.
    const uint64_t need = (1u << 20) + 512 + 3;
    int rc = resolve (&pol, "new.dat", &t, err, sizeof err);
    CHECK (rc == 0);
    rc = target_open (&t, true, true, need, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    if (rc == 0) {
        CHECK (t.fd >= 0);
        CHECK (t.created);
        CHECK (!t.is_block);
        CHECK (t.size >= need);
        CHECK (t.size == file_size (t.path));
        int fl = fcntl (t.fd, F_GETFL);
        CHECK (fl != -1 && (fl & O_DIRECT));
        CHECK (fl != -1 && (fl & O_ACCMODE) == O_RDWR);
        CHECK (fcntl (t.fd, F_GETFD) & FD_CLOEXEC);
        //  Laid out with data: first, middle and last block up to need.
        CHECK (read_at (t.path, buf, sizeof buf, 0) && !all_bytes (buf, sizeof buf, 0));
        CHECK (read_at (t.path, buf, sizeof buf, 1 << 19) && !all_bytes (buf, sizeof buf, 0));
        CHECK (read_at (t.path, buf, 4096, (off_t) ((need - 4096) & ~4095ull))
               && !all_bytes (buf, 4096, 0));
        //  No holes: the file is allocated up to need.
        struct stat st;
        CHECK (fstat (t.fd, &st) == 0 && (uint64_t) st.st_blocks * 512 >= need);
    }
    int fd = t.fd;
    target_close (&t);
    CHECK (t.fd == -1);
    CHECK (fd < 0 || (fcntl (fd, F_GETFD) == -1 && errno == EBADF));
    target_close (&t);          // idempotent
    CHECK (t.fd == -1);

    //  Opened again, read-only, no growth needed: not created, not changed.
    uint64_t before = file_size (P ("work/new.dat"));
    static uint8_t head1[4096], head2[4096];
    CHECK (read_at (P ("work/new.dat"), head1, sizeof head1, 0));
    rc = resolve (&pol, "new.dat", &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, true, false, need, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    if (rc == 0) {
        CHECK (!t.created);
        CHECK (t.size == before);
        int fl = fcntl (t.fd, F_GETFL);
        CHECK (fl != -1 && (fl & O_ACCMODE) == O_RDONLY);
        CHECK (read_at (t.path, head2, sizeof head2, 0) && memcmp (head1, head2, 4096) == 0);
    }
    target_close (&t);
    CHECK (file_size (P ("work/new.dat")) == before);

    //  need = 0 on an existing file: fine, size is the file's.
    rc = resolve (&pol, "real", &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, false, false, 0, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    CHECK (t.size == 4096 && !t.created);
    target_close (&t);

    //  Missing file and need = 0: refused, nothing created, no fd.
    rc = resolve (&pol, "absent.dat", &t, err, sizeof err);
    CHECK (rc == 0);
    rc = target_open (&t, true, true, 0, err, sizeof err);
    CHECK (rc == -ENOENT);
    CHECK_ERR (err, "size=");
    CHECK_ERR (err, "absent.dat");
    CHECK (t.fd == -1);
    CHECK (!exists (P ("work/absent.dat")));
    target_close (&t);
    CHECK (t.fd == -1);
}

static void
test_open_extend (void)
{
    target_t t;
    char err[1024];
    target_policy_t pol = { .workdir = work };
    static uint8_t buf[8192];

    //  Existing 5000-byte file, need 64 KiB, opened read-only with O_DIRECT:
    //  grown (so opened read-write after all) with data past the old end.
    write_file (P ("work/short.dat"), 'A', 5000);
    const uint64_t need = 64 << 10;
    int rc = resolve (&pol, "short.dat", &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, true, false, need, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    if (rc == 0) {
        CHECK (!t.created);
        CHECK (t.size >= need);
        CHECK (t.size == file_size (t.path));
        CHECK (read_at (t.path, buf, 4096, 0) && all_bytes (buf, 4096, 'A'));
        CHECK (read_at (t.path, buf, 8192, 8192) && !all_bytes (buf, 8192, 0)
               && !all_bytes (buf, 8192, 'A'));
        //  The old content is kept whole.
        CHECK (read_at (t.path, buf, 5000, 0));
        CHECK_MSG (all_bytes (buf, 5000, 'A'),
                   "extending a 5000-byte file overwrote bytes 4096..4999 (layout "
                   "starts at from & ~4095)");
    }
    target_close (&t);

    //  Existing but larger than need: left alone.
    write_file (P ("work/big.dat"), 'B', 3 * 4096);
    rc = resolve (&pol, "big.dat", &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, false, true, 4096, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    CHECK (t.size == 3 * 4096);
    CHECK (file_size (P ("work/big.dat")) == 3 * 4096);
    CHECK (read_at (P ("work/big.dat"), buf, 8192, 4096) && all_bytes (buf, 8192, 'B'));
    target_close (&t);
}

static void
test_open_refused (void)
{
    target_t t;
    char err[1024];
    target_policy_t pol = { .workdir = work };

    //  A directory.
    int rc = resolve (&pol, "sub", &t, err, sizeof err);
    CHECK (rc == 0);
    rc = target_open (&t, false, true, 4096, err, sizeof err);
    CHECK (rc == -EINVAL);
    CHECK_ERR (err, "neither a regular file nor a block device");
    CHECK (t.fd == -1);
    rc = target_open (&t, true, false, 0, err, sizeof err);
    CHECK (rc == -EINVAL && t.fd == -1);

    //  A path whose directory does not exist (resolved earlier, then gone).
    rc = resolve (&pol, "sub/gone/file", &t, err, sizeof err);
    CHECK (rc == -ENOENT);
    memset (&t, 0, sizeof t);
    t.fd = -1;
    t.pol = &pol;
    t.in_workdir = true;
    snprintf (t.path, sizeof t.path, "%s", P ("work/sub/gone/file"));
    rc = target_open (&t, false, true, 4096, err, sizeof err);
    CHECK (rc == -ENOENT);
    CHECK_ERR (err, "cannot create");
    CHECK (t.fd == -1);

    //  A file that cannot grow to need (RLIMIT_FSIZE as the stand-in for a
    //  full disk; works as root too): refused, fd closed.
    struct rlimit old, lim;
    getrlimit (RLIMIT_FSIZE, &old);
    void (*oldsig) (int) = signal (SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = 256 << 10;
    CHECK (setrlimit (RLIMIT_FSIZE, &lim) == 0);

    write_file (P ("work/capped.dat"), 'C', 4096);
    rc = resolve (&pol, "capped.dat", &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, false, false, 4u << 20, err, sizeof err);
    CHECK (rc == -EFBIG);
    CHECK_ERR (err, "laying out");
    CHECK_ERR (err, "capped.dat");
    CHECK (t.fd == -1);

    //  Created: the first 1 MiB write comes back short at the limit; with
    //  need = 1 MiB the loop ends there and the size check must catch it.
    rc = resolve (&pol, "capped-new.dat", &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, true, true, 1u << 20, err, sizeof err);
    CHECK_MSG (rc < 0, "short layout accepted: size %llu", (unsigned long long) t.size);
    CHECK (t.fd == -1);
    target_close (&t);

    CHECK (setrlimit (RLIMIT_FSIZE, &old) == 0);
    signal (SIGXFSZ, oldsig);
}

/* Agents on one host may share a file: when several create it at once,
   every one of them must get it (the losers of O_EXCL use the winner's). */
static void
test_open_concurrent_create (void)
{
    for (int round = 0; round < 20; round++) {
        char path[PATH_MAX];
        snprintf (path, sizeof path, "%s", P ("work/shared-%d", round));
        int gate[2];
        CHECK (pipe (gate) == 0);
        pid_t kids[6];
        for (int k = 0; k < 6; k++) {
            kids[k] = fork ();
            if (kids[k] == 0) {
                char c;
                close (gate[1]);
                if (read (gate[0], &c, 1) < 0)
                    _exit (3);
                target_policy_t pol = { .workdir = work };
                target_t t;
                char err[512];
                int rc = target_resolve (&pol, path, &t, err, sizeof err);
                if (rc == 0)
                    rc = target_open (&t, true, false, 1 << 20, err, sizeof err);
                if (rc)
                    fprintf (stderr, "child %d: %s\n", k, err);
                target_close (&t);
                _exit (rc ? 1 : 0);
            }
        }
        close (gate[0]);
        close (gate[1]);        /* all children wake at once */
        int failed = 0;
        for (int k = 0; k < 6; k++) {
            int status;
            waitpid (kids[k], &status, 0);
            failed += !(WIFEXITED (status) && WEXITSTATUS (status) == 0);
        }
        CHECK_MSG (failed == 0, "round %d: %d of 6 concurrent opens of a new file failed", round,
                   failed);
        struct stat st;
        CHECK (stat (path, &st) == 0 && st.st_size >= (1 << 20));
        unlink (path);
    }
}


//  ---------------------------------------------------------------------
//  Writing: --allow-write outside the workdir, for writes and layouts.

static void
test_write_policy (void)
{
    target_t t;
    char err[2048];
    char outglob[PATH_MAX], devglob[PATH_MAX];
    snprintf (outglob, sizeof outglob, "%s/outside/*", tmp);
    snprintf (devglob, sizeof devglob, "%s/dev-*", tmp);

    //  The workdir is scratch space: written and laid out without a glob.
    target_policy_t wd = { .workdir = work };
    int rc = resolve (&wd, "w-new.dat", &t, err, sizeof err);
    CHECK (rc == 0 && t.in_workdir && t.pol == &wd);
    rc = rc ? rc : target_open (&t, false, true, 8192, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    target_close (&t);

    //  Allowed to read, not to write: reads open, writes are refused
    //  naming the rule and the flag, and nothing is opened.
    target_policy_t ro = { .workdir = work, .allow = { outglob }, .nallow = 1 };
    rc = resolve (&ro, P ("outside/secret"), &t, err, sizeof err);
    CHECK (rc == 0 && !t.in_workdir);
    rc = target_open (&t, false, false, 0, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    target_close (&t);
    rc = target_open (&t, false, true, 0, err, sizeof err);
    CHECK (rc == -EACCES && t.fd == -1);
    CHECK_ERR (err, "(rule: allow-write)");
    CHECK_ERR (err, "--allow-write");
    CHECK_ERR (err, P ("outside/secret"));
    static uint8_t buf[4096];
    CHECK (read_at (P ("outside/secret"), buf, sizeof buf, 0) && all_bytes (buf, sizeof buf, 's'));

    //  Laying a file out is a write: a read job may not create one, nor
    //  extend a short one, outside the workdir without --allow-write.
    rc = resolve (&ro, P ("outside/laid-out"), &t, err, sizeof err);
    CHECK (rc == 0);
    rc = target_open (&t, false, false, 8192, err, sizeof err);
    CHECK (rc == -EACCES);
    CHECK_ERR (err, "creating");
    CHECK_ERR (err, "(rule: allow-write)");
    CHECK (!exists (P ("outside/laid-out")));
    rc = resolve (&ro, P ("outside/secret"), &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, false, false, 3 * 4096, err, sizeof err);
    CHECK (rc == -EACCES);
    CHECK_ERR (err, "extending");
    CHECK (file_size (P ("outside/secret")) == 4096);

    //  A symlink in the workdir to an allowed file outside: the write is
    //  judged on the resolved path, so the workdir does not lend its
    //  freedom to it.
    rc = resolve (&ro, "link", &t, err, sizeof err);
    CHECK (rc == 0 && STREQ (t.path, P ("outside/secret")) && !t.in_workdir);
    rc = target_open (&t, false, true, 0, err, sizeof err);
    CHECK (rc == -EACCES);
    CHECK_ERR (err, "(rule: allow-write)");
    //  ...nor does an --allow-write glob for some other place.
    target_policy_t other = { .workdir = work, .allow = { outglob }, .nallow = 1,
                              .allow_write = { devglob }, .nallow_write = 1 };
    rc = resolve (&other, "link", &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, false, true, 0, err, sizeof err);
    CHECK (rc == -EACCES);

    //  With --allow-write: written, and laid out.
    target_policy_t rw = { .workdir = work, .allow = { outglob }, .nallow = 1,
                           .allow_write = { outglob }, .nallow_write = 1 };
    rc = resolve (&rw, P ("outside/laid-out"), &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, false, false, 8192, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    CHECK (file_size (P ("outside/laid-out")) == 8192);
    target_close (&t);
    rc = resolve (&rw, "link", &t, err, sizeof err);
    rc = rc ? rc : target_open (&t, false, true, 0, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    target_close (&t);

    //  --allow-write alone does not allow: --allow is still needed.
    target_policy_t wonly = { .workdir = work, .allow_write = { outglob }, .nallow_write = 1 };
    rc = resolve (&wonly, P ("outside/secret"), &t, err, sizeof err);
    CHECK (rc == -EACCES);
    CHECK_ERR (err, "(rule: allow)");

    //  A target that never went through target_resolve is never written.
    memset (&t, 0, sizeof t);
    t.fd = -1;
    snprintf (t.path, sizeof t.path, "%s", P ("work/unresolved"));
    rc = target_open (&t, false, true, 4096, err, sizeof err);
    CHECK (rc == -EACCES && !exists (P ("work/unresolved")));
    CHECK_ERR (err, "not resolved");
}

//  ---------------------------------------------------------------------
//  The write guard's decisions on fixture trees (no device is touched).

static const char *s_fixtures;

//  guard_in_use on fixture NAME for MAJ:MIN; err gets the reason.
static int
in_use (const char *name, unsigned ma, unsigned mi, char *err, size_t errlen)
{
    char sys[PATH_MAX], proc[PATH_MAX];
    snprintf (sys, sizeof sys, "%s/%s/sys", s_fixtures, name);
    snprintf (proc, sizeof proc, "%s/%s/proc", s_fixtures, name);
    err[0] = '\0';
    return guard_in_use (sys, proc, makedev (ma, mi), err, errlen);
}

static void
test_guard_in_use (void)
{
    char err[1024];
    //  The system disk: / on LVM on sda2, /boot/efi on sda1.  The disk, its
    //  partitions and the LV all hold a system file system; / wins over
    //  /boot, and the message says through what.
    int rc = in_use ("guard", 8, 0, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "(rule: root-fs)");
    CHECK_ERR (err, "dm-0 (vg0-root) on top of its partition sda2");
    rc = in_use ("guard", 8, 2, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "(rule: root-fs)");
    rc = in_use ("guard", 253, 0, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "it holds the root file system");
    rc = in_use ("guard", 8, 1, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "(rule: boot-fs)");
    CHECK_ERR (err, "/boot/efi");

    //  A partition mounted (found by number; the mount point unescaped).
    rc = in_use ("guard", 8, 16, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "(rule: mounted)");
    CHECK_ERR (err, "its partition sdb1 is mounted at /srv/bulk data");
    rc = in_use ("guard", 8, 17, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "it is mounted at /srv/bulk data");

    //  btrfs: mountinfo shows an anonymous 0:N; the source names the disk.
    rc = in_use ("guard", 8, 80, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "(rule: mounted)");
    CHECK_ERR (err, "/srv/btrfs");

    //  An md member, nothing mounted: held.
    rc = in_use ("guard", 8, 32, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "(rule: holders)");
    CHECK_ERR (err, "md0 is stacked on it");

    //  Swap on a partition, and swap on LVM (swap is named before holders).
    rc = in_use ("guard", 8, 48, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "(rule: swap)");
    CHECK_ERR (err, "its partition sdd2 is active swap");
    rc = in_use ("guard", 8, 49, err, sizeof err);       //  sdd1 itself is free
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    rc = in_use ("guard", 8, 112, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "(rule: swap)");
    CHECK_ERR (err, "dm-1 (vg1-swap) on top of it");

    //  Free: a blank disk, a partitioned one with nothing in use (the
    //  signature rule is libblkid's, not this one's).
    rc = in_use ("guard", 8, 64, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    rc = in_use ("guard", 8, 96, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);

    //  A device sysfs does not know: refused, never assumed free.
    rc = in_use ("guard", 8, 200, err, sizeof err);
    CHECK (rc == -ENOENT);
    CHECK_ERR (err, "8:200");
    CHECK_ERR (err, "(rule: holders)");

    //  No mount table to read: refused (fail closed).
    char sys[PATH_MAX];
    snprintf (sys, sizeof sys, "%s/guard/sys", s_fixtures);
    rc = guard_in_use (sys, P ("outside"), makedev (8, 64), err, sizeof err);
    CHECK (rc < 0);
    CHECK_ERR (err, "(rule: mounted)");

    //  Older trees: no sysfs dev/block index, only proc/mounts by name.
    rc = in_use ("sata-ahci", 8, 0, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "its partition sda2 holds the root file system");
    rc = in_use ("sata-ahci", 8, 1, err, sizeof err);
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "(rule: boot-fs)");
    rc = in_use ("sata-ahci", 7, 1, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    rc = in_use ("loop", 7, 0, err, sizeof err);      //  held by dm-0 (vg-x) at /mnt/x
    CHECK (rc == -EBUSY);
    CHECK_ERR (err, "dm-0 (vg-x) on top of it is mounted at /mnt/x");
    rc = in_use ("loop", 7, 1, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
}

//  Writes an image of 1 MiB of zeros with bytes at offsets.
static void
write_image (const char *path, const void *a, size_t alen, off_t aoff, const void *b,
             size_t blen, off_t boff)
{
    write_file (path, 0, 1 << 20);
    int fd = open (path, O_WRONLY | O_CLOEXEC);
    CHECK (fd >= 0);
    if (fd < 0)
        return;
    if (a)
        CHECK (pwrite (fd, a, alen, aoff) == (ssize_t) alen);
    if (b)
        CHECK (pwrite (fd, b, blen, boff) == (ssize_t) blen);
    close (fd);
}

static void
test_guard_signature (void)
{
    char err[1024];
    //  Blank: nothing found.
    write_image (P ("blank.img"), NULL, 0, 0, NULL, 0, 0);
    int rc = guard_signature (P ("blank.img"), 0, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);

    //  A DOS partition table with one partition.
    uint8_t entry[16] = { 0x00, 0, 0, 0, 0x83, 0, 0, 0, 0x00, 0x08, 0, 0, 100, 0, 0, 0 };
    uint8_t sig[2] = { 0x55, 0xaa };
    write_image (P ("mbr.img"), entry, sizeof entry, 446, sig, sizeof sig, 510);
    rc = guard_signature (P ("mbr.img"), 0, err, sizeof err);
    CHECK (rc == -EEXIST);
    CHECK_ERR (err, "partition table (dos)");
    CHECK_ERR (err, "(rule: signature)");
    CHECK_ERR (err, "--allow-write-formatted");

    //  A swap signature (version 1 header, magic at the end of the page).
    uint32_t hdr[2] = { 1, 255 };
    write_image (P ("swap.img"), hdr, sizeof hdr, 1024, "SWAPSPACE2", 10, 4096 - 10);
    rc = guard_signature (P ("swap.img"), 0, err, sizeof err);
    CHECK (rc == -EEXIST);
    CHECK_ERR (err, "(swap)");

    //  What cannot be probed is refused, not taken as blank.
    rc = guard_signature (P ("no-such.img"), 0, err, sizeof err);
    CHECK (rc < 0);
    CHECK_ERR (err, "(rule: signature)");
    //  A probe that reads another device than the one checked: refused.
    rc = guard_signature (P ("blank.img"), makedev (8, 64), err, sizeof err);
    CHECK (rc == -EAGAIN);
    unlink (P ("blank.img"));
    unlink (P ("mbr.img"));
    unlink (P ("swap.img"));
}

//  The space check, before a byte is written: beyond the free space is
//  refused naming both numbers; one file named twice counts once; two
//  files on one file system count together.
static void
test_space_check (void)
{
    target_policy_t pol = { .workdir = work };
    char err[1024];
    struct statvfs sv;
    CHECK (statvfs (work, &sv) == 0);
    uint64_t avail = (uint64_t) sv.f_bavail * sv.f_frsize;
    target_t a, b;
    CHECK (resolve (&pol, "space-a.dat", &a, err, sizeof err) == 0);
    CHECK (resolve (&pol, "space-b.dat", &b, err, sizeof err) == 0);

    target_need_t huge[1] = { { &a, 1000ull << 40, "size=1000t" } };
    int rc = target_space_check (huge, 1, err, sizeof err);
    CHECK_MSG (rc == -ENOSPC, "%d %s", rc, err);
    CHECK_ERR (err, "size=1000t (1000.0 TiB to lay out) is more than the ");
    CHECK_ERR (err, " free on ");
    CHECK_ERR (err, a.path);
    CHECK_ERR (err, "lower size= or free space");
    CHECK (!exists (a.path));

    target_need_t small[1] = { { &a, 1 << 20, "size=1m" } };
    CHECK (target_space_check (small, 1, err, sizeof err) == 0);
    CHECK (!exists (a.path));

    //  Three quarters of what is free, twice: one file, or two.
    uint64_t q = avail / 4 * 3;
    target_need_t same[2] = { { &a, q, "size=x" }, { &a, q, "size=x" } };
    rc = target_space_check (same, 2, err, sizeof err);
    CHECK_MSG (rc == 0, "%d %s", rc, err);
    target_need_t two[2] = { { &a, q, "filesize=x" }, { &b, q, "filesize=x" } };
    rc = target_space_check (two, 2, err, sizeof err);
    CHECK_MSG (rc == -ENOSPC, "%d %s", rc, err);
    CHECK_ERR (err, "to lay out in all");
    CHECK_ERR (err, "and 1 more");
    CHECK_ERR (err, "lower filesize= or free space");
    CHECK (!exists (a.path) && !exists (b.path));
}

static const char *
stop_now (void *arg)
{
    ++*(int *) arg;
    return "told to stop by the test";
}

//  A layout the hooks stop ends with -ECANCELED and leaves no file it
//  created behind.
static void
test_layout_stop (void)
{
    int asked = 0;
    target_hooks_t hooks = { .stop = stop_now, .arg = &asked };
    target_policy_t pol = { .workdir = work, .hooks = &hooks };
    char err[1024];
    target_t t;
    CHECK (resolve (&pol, "stopped.dat", &t, err, sizeof err) == 0);
    int rc = target_open (&t, false, true, 64u << 20, err, sizeof err);
    CHECK_MSG (rc == -ECANCELED, "%d %s", rc, err);
    CHECK (asked == 1);
    CHECK_ERR (err, "stopped at ");
    CHECK_ERR (err, "told to stop by the test");
    CHECK (t.fd == -1);
    CHECK (!exists (P ("work/stopped.dat")));
}

int
main (int argc, char **argv)
{
    s_fixtures = argc > 1 ? argv[1] : "tests/fixtures/sysfs";
    log_init ("test_targets", LL_WARN);
    int fds0 = count_fds ();
    setup ();
    test_relative ();
    test_absolute ();
    test_escape ();
    test_open_create ();
    test_open_extend ();
    test_open_refused ();
    test_open_concurrent_create ();
    test_space_check ();
    test_layout_stop ();
    test_write_policy ();
    test_guard_in_use ();
    test_guard_signature ();
    CHECK_MSG (count_fds () == fds0, "fds: %d at start, %d at end", fds0, count_fds ());
    char dir[PATH_MAX];
    snprintf (dir, sizeof dir, "%s", tmp);
    cleanup ();
    CHECK_MSG (!exists (dir), "%s left behind", dir);
    return TEST_DONE ();
}
