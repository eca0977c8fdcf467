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
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

/* Progress of a layout, through the policy's hooks or the log. */
static void
layout_note (const target_t *t, const char *fmt, ...)
{
    char line[PATH_MAX + 256];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (line, sizeof line, fmt, ap);
    va_end (ap);
    const target_hooks_t *h = t->pol ? t->pol->hooks : NULL;
    if (h && h->progress)
        h->progress (h->arg, line);
    else
        log_info ("%s", line);
}

/* Writes [from, need) of the file with random data through a buffered
   descriptor of its own, so an unaligned old end is extended exactly (no
   O_DIRECT alignment to round to) and existing bytes are never touched.
   What is written goes to the drive as it goes (a window behind), so the
   page cache never holds gigabytes to flush, the rate logged is the
   drive's, and a stop leaves little behind.  Every TARGET_POLL_NS it asks
   the policy's hooks whether to stop (-ECANCELED), and every
   TARGET_NLINK_NS whether the file still has a name (-ENOENT when it was
   unlinked: writing on would only fill the disk with a file nobody can
   reach).  Returns 0 or -errno with err filled. */
static int
layout (target_t *t, uint64_t from, uint64_t need, char *err, size_t errlen)
{
    const size_t chunk = 1 << 20;
    const uint64_t window = 32u << 20;
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
    const target_hooks_t *h = t->pol ? t->pol->hooks : NULL;
    uint64_t t0 = clock_mono_ns ();
    uint64_t poll_at = t0, nlink_at = t0 + TARGET_NLINK_NS;    /* asked at once, then now and then */
    uint64_t note_at = t0 + TARGET_PROGRESS_FIRST_NS;
    uint64_t flushed = from;            /* written back up to here */
    char a[32], b[32], c[32];
    int rc = 0;
    for (uint64_t off = from; off < need && rc == 0; ) {
        size_t n = need - off < chunk ? (size_t) (need - off) : chunk;
        ssize_t w = pwrite (fd, buf, n, (off_t) off);
        if (w <= 0) {
            rc = w < 0 ? -errno : -EIO;
            snprintf (err, errlen, "laying out '%s' at offset %llu: %s", t->path,
                      (unsigned long long) off, w < 0 ? strerror (errno) : "short write");
            break;
        }
        off += (uint64_t) w;
        /* Write-behind: start the window just written, wait for the one
           before it, and drop that from the cache. */
        if (off - flushed >= 2 * window) {
            sync_file_range (fd, (off_t) (flushed + window), (off_t) window,
                             SYNC_FILE_RANGE_WRITE);
            sync_file_range (fd, (off_t) flushed, (off_t) window,
                             SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE
                             | SYNC_FILE_RANGE_WAIT_AFTER);
            posix_fadvise (fd, (off_t) flushed, (off_t) window, POSIX_FADV_DONTNEED);
            flushed += window;
        }
        uint64_t now = clock_mono_ns ();
        if (now >= nlink_at) {
            nlink_at = now + TARGET_NLINK_NS;
            struct stat st;
            if (fstat (fd, &st) == 0 && st.st_nlink == 0) {
                rc = -ENOENT;
                snprintf (err, errlen, "'%s' was removed (unlinked) while being laid out, at %s "
                          "of %s: stopped (writing on would fill the disk with a file nobody can "
                          "reach); run the step again", t->path, fmt_size (off, a, sizeof a),
                          fmt_size (need, b, sizeof b));
                break;
            }
        }
        if (now >= poll_at && h && h->stop) {
            poll_at = now + TARGET_POLL_NS;
            const char *why = h->stop (h->arg);
            if (why) {
                rc = -ECANCELED;
                snprintf (err, errlen, "laying out '%s' stopped at %s of %s: %s", t->path,
                          fmt_size (off, a, sizeof a), fmt_size (need, b, sizeof b), why);
                break;
            }
        }
        if (now >= note_at) {
            note_at = now + TARGET_PROGRESS_NS;
            double secs = (double) (now - t0) / 1e9;
            double rate = (double) (off - from) / secs;
            double left = rate > 0 ? (double) (need - off) / rate : 0;
            layout_note (t, "laying out %s: %s of %s (%.0f%%), %s, %.0f s left", t->path,
                         fmt_size (off, a, sizeof a), fmt_size (need, b, sizeof b),
                         100.0 * (double) off / (double) need, fmt_bw (rate, c, sizeof c), left);
        }
    }
    free (buf);
    if (rc == 0 && fsync (fd) < 0) {
        rc = -errno;
        snprintf (err, errlen, "fsync '%s': %s", t->path, strerror (errno));
    }
    /* What the job reads must come from the drive, not from this cache. */
    posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
    close (fd);
    if (rc == 0 && clock_mono_ns () - t0 >= TARGET_PROGRESS_FIRST_NS) {
        uint64_t ns = clock_mono_ns () - t0;
        layout_note (t, "laid out %s: %s in %.1f s, %s", t->path,
                     fmt_size (need - from, a, sizeof a), (double) ns / 1e9,
                     fmt_bw ((double) (need - from) / ((double) ns / 1e9), c, sizeof c));
    }
    return rc;
}

/* The mount point of dir (on device dev): the last directory up from it
   still on dev.  Can't fail (dir itself at worst). */
static void
mount_dir (const char *dir, dev_t dev, char *out, size_t cap)
{
    char cur[PATH_MAX];
    str_copy (cur, sizeof cur, dir);
    while (strcmp (cur, "/") != 0) {
        char up[PATH_MAX];
        str_copy (up, sizeof up, cur);
        char *slash = strrchr (up, '/');
        if (!slash)
            break;
        if (slash == up)
            slash[1] = '\0';
        else
            *slash = '\0';
        struct stat st;
        if (stat (up, &st) != 0 || st.st_dev != dev)
            break;
        str_copy (cur, sizeof cur, up);
    }
    str_copy (out, cap, cur);
}

/* The option part of what ("size=" of "size=10t"), for the advice. */
static void
option_of (const char *what, char *out, size_t cap)
{
    const char *eq = strchr (what, '=');
    snprintf (out, cap, "%.*s", eq ? (int) (eq - what + 1) : (int) strlen (what), what);
}

int
target_space_check (const target_need_t *needs, int n, char *err, size_t errlen)
{
    typedef struct {
        dev_t dev;
        uint64_t grow, held;
        int nfiles, first;
        char dir[PATH_MAX];
    } fs_t;
    fs_t *fs = calloc ((size_t) (n > 0 ? n : 1), sizeof *fs);
    if (!fs) {
        snprintf (err, errlen, "out of memory checking free space");
        return -ENOMEM;
    }
    int nfs = 0, rc = 0;
    char a[32], b[32], opt[64];
    for (int i = 0; i < n && rc == 0; i++) {
        const target_t *t = needs[i].t;
        bool seen = false;
        uint64_t need = needs[i].need;
        for (int k = 0; k < n; k++) {
            if (strcmp (needs[k].t->path, t->path) != 0)
                continue;
            seen |= k < i;
            need = needs[k].need > need ? needs[k].need : need;
        }
        if (seen || need == 0)
            continue;
        struct stat st;
        uint64_t size = 0;
        char dir[PATH_MAX];
        str_copy (dir, sizeof dir, t->path);
        char *slash = strrchr (dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
        if (stat (t->path, &st) == 0) {
            if (S_ISBLK (st.st_mode)) {
                int fd = open (t->path, O_RDONLY | O_CLOEXEC);
                uint64_t dsize = 0;
                if (fd < 0 || ioctl (fd, BLKGETSIZE64, &dsize) < 0) {
                    rc = -errno;
                    snprintf (err, errlen, "cannot read the size of '%s': %s", t->path,
                              strerror (errno));
                } else if (need > dsize) {
                    rc = -ENOSPC;
                    option_of (needs[i].what, opt, sizeof opt);
                    snprintf (err, errlen, "'%s' is %llu bytes, the job needs %llu (%s: %s of "
                              "the device's %s), and a device cannot grow: lower %s", t->path,
                              (unsigned long long) dsize, (unsigned long long) need,
                              needs[i].what, fmt_size (need, a, sizeof a),
                              fmt_size (dsize, b, sizeof b), opt);
                }
                if (fd >= 0)
                    close (fd);
                continue;
            }
            if (!S_ISREG (st.st_mode))
                continue;           /* target_open says what is wrong with it */
            size = (uint64_t) st.st_size;
        } else if (errno != ENOENT || stat (dir, &st) != 0) {
            rc = -errno;
            snprintf (err, errlen, "cannot stat '%s': %s", errno == ENOENT ? dir : t->path,
                      strerror (errno));
            continue;
        }
        if (need <= size)
            continue;
        int f = 0;
        while (f < nfs && fs[f].dev != st.st_dev)
            f++;
        if (f == nfs) {
            fs[f].dev = st.st_dev;
            fs[f].first = i;
            str_copy (fs[f].dir, sizeof fs[f].dir, dir);
            nfs++;
        }
        fs[f].grow += need - size;
        fs[f].held += size;
        fs[f].nfiles++;
    }
    for (int f = 0; f < nfs && rc == 0; f++) {
        struct statvfs sv;
        if (statvfs (fs[f].dir, &sv) != 0) {
            rc = -errno;
            snprintf (err, errlen, "cannot read the free space of '%s': %s", fs[f].dir,
                      strerror (errno));
            break;
        }
        uint64_t avail = (uint64_t) sv.f_bavail * (uint64_t) sv.f_frsize;
        if (fs[f].grow <= avail)
            continue;
        rc = -ENOSPC;
        char mnt[PATH_MAX], c[32], files[PATH_MAX + 64], held[96] = "";
        mount_dir (fs[f].dir, fs[f].dev, mnt, sizeof mnt);
        const target_need_t *first = &needs[fs[f].first];
        option_of (first->what, opt, sizeof opt);
        if (fs[f].nfiles > 1)
            snprintf (files, sizeof files, "files %s and %d more", first->t->path,
                      fs[f].nfiles - 1);
        else
            snprintf (files, sizeof files, "file %s", first->t->path);
        if (fs[f].held)
            snprintf (held, sizeof held, " beyond the %s %s already", fmt_size (fs[f].held, c,
                      sizeof c), fs[f].nfiles > 1 ? "they hold" : "it holds");
        snprintf (err, errlen, "%s (%s to lay out%s%s) is more than the %s free on %s (%s): "
                  "lower %s or free space", first->what, fmt_size (fs[f].grow, a, sizeof a),
                  fs[f].nfiles > 1 ? " in all" : "", held, fmt_size (avail, b, sizeof b), mnt,
                  files, opt);
    }
    free (fs);
    return rc;
}

int
target_check_purge (const target_t *t, char *err, size_t errlen)
{
    if (t->pol && glob_any (t->pol->allow_purge, t->pol->nallow_purge, t->path))
        return 0;
    snprintf (err, errlen, "purge of '%s' refused: no --allow-purge glob matches it (rule: "
              "allow-purge); a purge discards everything on the device: start the agent with "
              "--allow-purge '%s' (and --allow-write) to let plans purge it", t->path, t->path);
    return -EACCES;
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
            char a[32], b[32];
            /* As fio's "Laying out IO file" notice: the hooks' progress
               (iofleet-agent run's stdout), or the log. */
            if (t->size)
                layout_note (t, "laying out %s: from %s to %s", t->path,
                             fmt_size (t->size, a, sizeof a), fmt_size (need, b, sizeof b));
            else
                layout_note (t, "laying out %s: %s", t->path, fmt_size (need, a, sizeof a));
            int rc = layout (t, t->size, need, err, errlen);
            if (rc) {
                /* A file this call created holds nothing yet worth keeping:
                   a layout stopped or failed half way is removed, not left
                   to fill the disk (unless another file took its name). */
                struct stat now, named;
                if (t->created && fstat (t->fd, &now) == 0 && now.st_nlink > 0
                    && lstat (t->path, &named) == 0 && named.st_ino == now.st_ino
                    && named.st_dev == now.st_dev && unlink (t->path) == 0)
                    log_info ("removed %s: created for a layout that did not finish", t->path);
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
