/*  lockfile.c: see lockfile.h. */
#define _GNU_SOURCE
#include "lockfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TEXT_MAX    (LOCKFILE_FIELDS * (LOCKFILE_KEY_MAX + LOCKFILE_VALUE_MAX + 3))

struct lockfile {
    int fd;
    char *path;
    char started[32];       /* UTC, ISO 8601 */
};

void
lockfile_set (lockfile_info_t *info, const char *key, const char *value)
{
    IOF_ASSERT (info && key && value);
    if (info->n == LOCKFILE_FIELDS)
        return;
    str_copy (info->key[info->n], LOCKFILE_KEY_MAX, key);
    str_copy (info->value[info->n], LOCKFILE_VALUE_MAX, value);
    /* One field a line: a newline in a value would start another. */
    for (char *p = info->value[info->n]; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    info->n++;
}

const char *
lockfile_get (const lockfile_info_t *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp (info->key[i], key) == 0)
            return info->value[i];
    return "?";
}

/* "key: value" lines into info (the first of each key counts).  Can't
   fail. */
static void
parse (const char *text, lockfile_info_t *info)
{
    memset (info, 0, sizeof *info);
    const char *p = text;
    while (*p && info->n < LOCKFILE_FIELDS) {
        const char *nl = strchr (p, '\n');
        size_t n = nl ? (size_t) (nl - p) : strlen (p);
        const char *colon = memchr (p, ':', n);
        if (colon && colon > p && (size_t) (colon - p) < LOCKFILE_KEY_MAX) {
            char key[LOCKFILE_KEY_MAX], value[LOCKFILE_VALUE_MAX];
            snprintf (key, sizeof key, "%.*s", (int) (colon - p), p);
            const char *v = colon + 1;
            while (*v == ' ')
                v++;
            snprintf (value, sizeof value, "%.*s", (int) (p + n - v), v);
            if (strcmp (lockfile_get (info, key), "?") == 0)
                lockfile_set (info, key, value);
        }
        p += n + (nl ? 1 : 0);
    }
}

/* Reads what the holder of fd's lock wrote.  Right after taking the lock
   a holder has not written yet: a moment is allowed for that.  Can't
   fail (holder->n 0 when there is nothing to read). */
static void
read_holder (int fd, lockfile_info_t *holder)
{
    char text[TEXT_MAX + 1];
    memset (holder, 0, sizeof *holder);
    for (int tries = 0; tries < 20; tries++) {
        ssize_t n = pread (fd, text, TEXT_MAX, 0);
        if (n > 0) {
            text[n] = '\0';
            parse (text, holder);
            if (holder->n)
                return;
        }
        sleep_ns (10 * NS_PER_MS);
    }
}

/* The text of a lock: this process, then info's fields.  Returns 0 or
   -errno (nothing of a text that did not fit is written). */
static int
write_text (lockfile_t *self, const lockfile_info_t *info)
{
    char host[256] = "";
    gethostname (host, sizeof host - 1);
    char text[TEXT_MAX + 128];
    int len = snprintf (text, sizeof text, "pid: %ld\nhost: %s\nstarted: %s\n", (long) getpid (),
                        host, self->started);
    for (int i = 0; info && i < info->n && len > 0 && (size_t) len < sizeof text; i++)
        len += snprintf (text + len, sizeof text - (size_t) len, "%s: %s\n", info->key[i],
                         info->value[i]);
    if (len < 0 || (size_t) len >= sizeof text)
        return -ENAMETOOLONG;
    /* Written over the old text, then cut to size: a reader never finds
       it empty once it was written. */
    ssize_t n = pwrite (self->fd, text, (size_t) len, 0);
    if (n != len)
        return n < 0 ? -errno : -ENOSPC;
    return ftruncate (self->fd, len) != 0 ? -errno : 0;
}

lockfile_t *
lockfile_take (const char *path, const lockfile_info_t *info, lockfile_info_t *holder, int *rc)
{
    IOF_ASSERT (path && rc);
    *rc = 0;
    if (holder)
        memset (holder, 0, sizeof *holder);
    lockfile_t *self = calloc (1, sizeof *self);
    if (!self || !(self->path = strdup (path))) {
        free (self);
        *rc = -ENOMEM;
        return NULL;
    }
    /* A holder that releases removes the file: the one locked here may be
       gone (or replaced) by the time the lock is had, then try again. */
    for (int tries = 0; ; tries++) {
        self->fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (self->fd < 0) {
            *rc = -errno;
            break;
        }
        /* A --check-config's shared lock lasts a moment: not a holder. */
        int e = EWOULDBLOCK;
        for (int i = 0; i < 10 && e == EWOULDBLOCK; i++) {
            e = flock (self->fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
            if (e == EWOULDBLOCK)
                sleep_ns (20 * NS_PER_MS);
        }
        if (e) {
            *rc = -e;
            if (*rc == -EWOULDBLOCK && holder)
                read_holder (self->fd, holder);
            break;
        }
        struct stat mine, named;
        if (fstat (self->fd, &mine) != 0) {
            *rc = -errno;
            break;
        }
        if (stat (path, &named) == 0 && named.st_dev == mine.st_dev
            && named.st_ino == mine.st_ino)
            break;          /* the lock is ours */
        close (self->fd);
        self->fd = -1;
        if (tries == 100) {
            *rc = -EAGAIN;
            break;
        }
    }
    if (*rc) {
        if (self->fd >= 0)
            close (self->fd);
        free (self->path);
        free (self);
        return NULL;
    }
    time_t now = time (NULL);
    struct tm tm;
    gmtime_r (&now, &tm);
    strftime (self->started, sizeof self->started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    write_text (self, info);    /* the lock holds without it */
    return self;
}

int
lockfile_describe (lockfile_t *self, const lockfile_info_t *info)
{
    IOF_ASSERT (self);
    return write_text (self, info);
}

void
lockfile_destroy (lockfile_t **self_p)
{
    IOF_ASSERT (self_p);
    lockfile_t *self = *self_p;
    if (!self)
        return;
    /* Removed while locked: a taker that opened it meanwhile finds, once
       it has the lock, that the path no longer names its file. */
    unlink (self->path);
    close (self->fd);
    free (self->path);
    free (self);
    *self_p = NULL;
}

bool
lockfile_held_by_mainpid (const lockfile_info_t *holder)
{
    const char *main_pid = getenv ("MAINPID");
    char host[256] = "";
    gethostname (host, sizeof host - 1);
    return main_pid && *main_pid && strcmp (main_pid, "0") != 0
           && strcmp (lockfile_get (holder, "pid"), main_pid) == 0
           && strcmp (lockfile_get (holder, "host"), host) == 0;
}

int
lockfile_holder (const char *path, lockfile_info_t *holder)
{
    IOF_ASSERT (path && holder);
    memset (holder, 0, sizeof *holder);
    int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT ? 0 : -errno;
    /* Shared: held for a moment only, it never stands in a taker's way
       for longer than that. */
    int rc = 0;
    if (flock (fd, LOCK_SH | LOCK_NB) == 0)
        flock (fd, LOCK_UN);
    else if (errno == EWOULDBLOCK) {
        read_holder (fd, holder);
        rc = 1;
    } else
        rc = -errno;
    close (fd);
    return rc;
}
