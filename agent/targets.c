/*  targets.c: see targets.h. */
#define _GNU_SOURCE
#include "targets.h"
#include "guard.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* True when path is dir itself or below it (both absolute, normalized). */
static bool
path_under (const char *path, const char *dir)
{
    size_t n = strlen (dir);
    while (n > 0 && dir[n - 1] == '/')
        n--;
    /* n == 0: dir is "/", under which every absolute path lies. */
    return strncmp (path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static bool
glob_any (const char *const *globs, int n, const char *path)
{
    for (int i = 0; i < n; i++)
        if (fnmatch (globs[i], path, 0) == 0)
            return true;
    return false;
}

/* realpath() of path, or of its parent plus the last name when the file does
   not exist yet (it will be created).  Returns 0 or -errno. */
static int
resolve_real (const char *path, char *out, size_t cap)
{
    char buf[PATH_MAX];
    if (realpath (path, buf))
        return str_copy (out, cap, buf);
    if (errno != ENOENT)
        return -errno;
    /* A dangling symlink: creating "it" would create its target, wherever
       that is.  Refuse rather than resolve it by hand; but what exists now
       may have been created since realpath() looked (another agent that
       shares the file), and then resolves. */
    struct stat st;
    if (lstat (path, &st) == 0)
        return realpath (path, buf) ? str_copy (out, cap, buf) : -ELOOP;
    char tmp[PATH_MAX];
    if (str_copy (tmp, sizeof tmp, path))
        return -ENAMETOOLONG;
    char tmp2[PATH_MAX];
    memcpy (tmp2, tmp, sizeof tmp);
    const char *dir = dirname (tmp);
    const char *base = basename (tmp2);
    if (!realpath (dir, buf))
        return -errno;
    int n = snprintf (out, cap, "%s/%s", strcmp (buf, "/") ? buf : "", base);
    return n < 0 || (size_t) n >= cap ? -ENAMETOOLONG : 0;
}

int
target_resolve (const target_policy_t *pol, const char *name, target_t *out,
                char *err, size_t errlen)
{
    memset (out, 0, sizeof *out);
    out->fd = -1;
    char joined[8192];
    if (name[0] == '/')
        snprintf (joined, sizeof joined, "%s", name);
    else if (pol->workdir)
        snprintf (joined, sizeof joined, "%s/%s", pol->workdir, name);
    else {
        snprintf (err, errlen, "filename '%s' is relative and this agent has no --workdir "
                  "(start it with --workdir DIR, or use an absolute path)", name);
        return -EINVAL;
    }
    char workdir_real[PATH_MAX] = "";
    if (pol->workdir && !realpath (pol->workdir, workdir_real)) {
        snprintf (err, errlen, "workdir '%s': %s", pol->workdir, strerror (errno));
        return -errno;
    }
    int rc = resolve_real (joined, out->path, sizeof out->path);
    if (rc == -ELOOP) {
        snprintf (err, errlen, "'%s' is a symlink to a file that does not exist; point the "
                  "plan at a real file or device", joined);
        return -EACCES;
    }
    if (rc) {
        snprintf (err, errlen, "cannot resolve '%s': %s", joined, strerror (-rc));
        return rc;
    }
    /* Checked as resolved: a symlink inside an allowed directory must not
       lead to a device that is not allowed. */
    out->in_workdir = workdir_real[0] && path_under (out->path, workdir_real);
    if (!out->in_workdir && !glob_any (pol->allow, pol->nallow, out->path)) {
        snprintf (err, errlen, "'%s' (resolved to '%s') is not allowed on this agent (rule: "
                  "allow): start the agent with --allow '%s' (or a glob covering it)",
                  name, out->path, out->path);
        return -EACCES;
    }
    out->pol = pol;
    return 0;
}

/* Writes [from, need) of the file with random data through a buffered
   descriptor of its own, so an unaligned old end is extended exactly (no
   O_DIRECT alignment to round to) and existing bytes are never touched.
   Returns 0 or -errno with err filled. */
static int
layout (target_t *t, uint64_t from, uint64_t need, char *err, size_t errlen)
{
    const size_t chunk = 1 << 20;
    int fd = open (t->path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        int e = errno;
        snprintf (err, errlen, "cannot open '%s' to lay it out: %s", t->path, strerror (e));
        return -e;
    }
    uint64_t *buf = malloc (chunk);
    if (!buf) {
        close (fd);
        snprintf (err, errlen, "out of memory laying out '%s'", t->path);
        return -ENOMEM;
    }
    /* Random data: reads hit real blocks that compress like real data. */
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t) getpid ();
    for (size_t i = 0; i < chunk / 8; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[i] = x;
    }
    int rc = 0;
    for (uint64_t off = from; off < need && rc == 0; ) {
        size_t n = need - off < chunk ? (size_t) (need - off) : chunk;
        ssize_t w = pwrite (fd, buf, n, (off_t) off);
        if (w <= 0) {
            rc = w < 0 ? -errno : -EIO;
            snprintf (err, errlen, "laying out '%s' at offset %llu: %s", t->path,
                      (unsigned long long) off, w < 0 ? strerror (errno) : "short write");
        } else
            off += (uint64_t) w;
    }
    free (buf);
    if (rc == 0 && fsync (fd) < 0) {
        rc = -errno;
        snprintf (err, errlen, "fsync '%s': %s", t->path, strerror (errno));
    }
    /* What the job reads must come from the drive, not from this cache. */
    posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
    close (fd);
    return rc;
}

/* Whether t may be written (writes) or laid out (created, or extended to
   need bytes), st its stat (NULL when it does not exist yet): outside the
   workdir an --allow-write glob must match it, and a block device must
   pass the write guard.  Returns 0, or -EACCES / the guard's -errno with
   err naming the rule. */
static int
check_write (const target_t *t, const struct stat *st, bool writes, uint64_t need, char *err,
             size_t errlen)
{
    const target_policy_t *pol = t->pol;
    if (!pol) {
        snprintf (err, errlen, "'%s' was not resolved against this agent's policy: refusing "
                  "to write it", t->path);
        return -EACCES;
    }
    if (!t->in_workdir && !glob_any (pol->allow_write, pol->nallow_write, t->path)) {
        if (writes)
            snprintf (err, errlen, "write to '%s' refused: no --allow-write glob matches it "
                      "(rule: allow-write); start the agent with --allow-write '%s' (or a glob "
                      "covering it) to let plans write there", t->path, t->path);
        else
            snprintf (err, errlen, "%s '%s' to %llu bytes refused: laying a file out writes "
                      "it, and no --allow-write glob matches it (rule: allow-write); create the "
                      "file beforehand, or start the agent with --allow-write '%s'",
                      st ? "extending" : "creating", t->path, (unsigned long long) need, t->path);
        return -EACCES;
    }
    if (writes && st && S_ISBLK (st->st_mode)) {
        bool formatted_ok = glob_any (pol->allow_formatted, pol->nallow_formatted, t->path);
        char why[768];
        int rc = guard_block_write (pol->sysfs_root, pol->procfs_root, t->path, st->st_rdev,
                                    !formatted_ok, why, sizeof why);
        if (rc) {
            snprintf (err, errlen, "write to '%s' refused: %s", t->path, why);
            return rc;
        }
        if (formatted_ok)
            log_info ("%s: writing without the signature check (--allow-write-formatted)",
                      t->path);
    }
    return 0;
}

int
target_open (target_t *t, bool direct, bool writes, uint64_t need, char *err, size_t errlen)
{
    struct stat st;
    bool exists = stat (t->path, &st) == 0;
    if (!exists && need == 0) {
        snprintf (err, errlen, "'%s' does not exist and the job gives no size= to create "
                  "it with", t->path);
        return -ENOENT;
    }
    if (exists && !S_ISREG (st.st_mode) && !S_ISBLK (st.st_mode)) {
        snprintf (err, errlen, "'%s' is neither a regular file nor a block device", t->path);
        return -EINVAL;
    }
    bool grow = !exists || (S_ISREG (st.st_mode) && (uint64_t) st.st_size < need);
    /* Checked before anything is created or opened for writing. */
    dev_t checked = 0;
    if (writes || grow) {
        int rc = check_write (t, exists ? &st : NULL, writes, need, err, errlen);
        if (rc)
            return rc;
        if (exists && S_ISBLK (st.st_mode))
            checked = st.st_rdev;
    }
    if (!exists) {
        /* Exclusive and without following a link: the name was checked by
           target_resolve, and must still be what gets created. */
        int fd = open (t->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0)
            close (fd);
        else if (errno == EEXIST && lstat (t->path, &st) == 0 && S_ISREG (st.st_mode)) {
            /* Another process (an agent sharing this file) created it
               first: use it as an existing file, extended if short. */
            exists = true;
            grow = (uint64_t) st.st_size < need;
        } else {
            int e = errno;
            snprintf (err, errlen, "cannot create '%s': %s", t->path, strerror (e));
            return -e;
        }
    }
    int flags = writes ? O_RDWR : O_RDONLY;
    if (direct)
        flags |= O_DIRECT;
    t->fd = open (t->path, flags | O_CLOEXEC | O_NOFOLLOW);
    if (t->fd < 0) {
        int e = errno;
        snprintf (err, errlen, "cannot open '%s'%s: %s", t->path,
                  direct ? " with O_DIRECT" : "", strerror (e));
        return -e;
    }
    t->created = !exists;
    if (fstat (t->fd, &st) < 0) {
        int e = errno;
        snprintf (err, errlen, "fstat '%s': %s", t->path, strerror (e));
        target_close (t);
        return -e;
    }
    t->is_block = S_ISBLK (st.st_mode);
    /* What opened for writing must be the device the guard checked, not
       one swapped in under the same name since. */
    if (writes && t->is_block && st.st_rdev != checked) {
        snprintf (err, errlen, "'%s' changed between the write guard's check and its opening; "
                  "try again", t->path);
        target_close (t);
        return -EAGAIN;
    }
    if (t->is_block) {
        if (ioctl (t->fd, BLKGETSIZE64, &t->size) < 0) {
            int e = errno;
            snprintf (err, errlen, "BLKGETSIZE64 '%s': %s", t->path, strerror (e));
            target_close (t);
            return -e;
        }
    } else {
        t->size = (uint64_t) st.st_size;
        if (grow) {
            log_info ("laying out %s: %llu MiB", t->path, (unsigned long long) (need >> 20));
            int rc = layout (t, t->size, need, err, errlen);
            if (rc) {
                target_close (t);
                return rc;
            }
            if (fstat (t->fd, &st) == 0)
                t->size = (uint64_t) st.st_size;
        }
    }
    if (need > t->size) {
        snprintf (err, errlen, "'%s' is %llu bytes, the job needs %llu", t->path,
                  (unsigned long long) t->size, (unsigned long long) need);
        target_close (t);
        return -ENOSPC;
    }
    return 0;
}

void
target_close (target_t *t)
{
    if (t->fd >= 0)
        close (t->fd);
    t->fd = -1;
}

int
target_open_log (const target_t *t, bool append, char *err, size_t errlen)
{
    /* Not O_TRUNC: what is there is checked first.  O_NONBLOCK: opening a
       FIFO must fail or return, never wait for a reader. */
    int fd = open (t->path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        int e = errno;
        snprintf (err, errlen, "cannot create '%s': %s", t->path, strerror (e));
        return -e;
    }
    struct stat st;
    if (fstat (fd, &st) < 0) {
        int e = errno;
        snprintf (err, errlen, "fstat '%s': %s", t->path, strerror (e));
        close (fd);
        return -e;
    }
    if (!S_ISREG (st.st_mode)) {
        snprintf (err, errlen, "'%s' exists and is not a regular file; a log is never "
                  "written over it (choose another prefix)", t->path);
        close (fd);
        return -EINVAL;
    }
    int flags = fcntl (fd, F_GETFL);
    if ((append ? lseek (fd, 0, SEEK_END) < 0 : ftruncate (fd, 0) < 0) || flags < 0
        || fcntl (fd, F_SETFL, (flags & ~O_NONBLOCK) | (append ? O_APPEND : 0)) < 0) {
        int e = errno;
        snprintf (err, errlen, "cannot %s '%s': %s", append ? "append to" : "empty", t->path,
                  strerror (e));
        close (fd);
        return -e;
    }
    return fd;
}

int
target_prepare_cache (const target_t *t, bool invalidate, int advice, uint64_t off,
                      uint64_t len, char *err, size_t errlen)
{
    int rc = 0;
    if (invalidate) {
        if (t->is_block)
            rc = ioctl (t->fd, BLKFLSBUF, 0) < 0 ? errno : 0;
        else
            rc = posix_fadvise (t->fd, (off_t) off, (off_t) len, POSIX_FADV_DONTNEED);
        if (rc) {
            snprintf (err, errlen, "dropping the page cache of '%s' (invalidate): %s", t->path,
                      strerror (rc));
            return -1;
        }
    }
    if (advice >= 0 && (rc = posix_fadvise (t->fd, (off_t) off, (off_t) len, advice)) != 0) {
        snprintf (err, errlen, "fadvise_hint on '%s': %s", t->path, strerror (rc));
        return -1;
    }
    return 0;
}
