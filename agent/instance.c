/*  instance.c: see instance.h. */
#define _GNU_SOURCE
#include "instance.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* Whether text is an id: INSTANCE_ID_LEN lowercase hex digits. */
static int
is_id (const char *text)
{
    for (int i = 0; i < INSTANCE_ID_LEN; i++)
        if (!isxdigit ((unsigned char) text[i]) || isupper ((unsigned char) text[i]))
            return 0;
    return 1;
}

int
instance_load (const char *dir, char id[INSTANCE_ID_LEN + 1], char *err, size_t errlen)
{
    char path[4200], tmp[4300];
    snprintf (path, sizeof path, "%s/instance", dir);
    char text[INSTANCE_ID_LEN + 2] = "";
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read (fd, text, sizeof text - 1);
        close (fd);
        if (n >= INSTANCE_ID_LEN && is_id (text)) {
            memcpy (id, text, INSTANCE_ID_LEN);
            id[INSTANCE_ID_LEN] = '\0';
            return 0;
        }
    } else if (errno != ENOENT) {
        int e = errno;
        snprintf (err, errlen, "cannot read this agent's instance id %s: %s", path,
                  strerror (e));
        return -e;
    }
    /* None yet (or not one): a new agent. */
    uint8_t raw[INSTANCE_ID_LEN / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom (raw + got, sizeof raw - got, 0);
        if (n < 0 && errno != EINTR) {
            int e = errno;
            snprintf (err, errlen, "cannot make an instance id: getrandom: %s", strerror (e));
            return -e;
        }
        if (n > 0)
            got += (size_t) n;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf (id + 2 * i, 3, "%02x", raw[i]);
    snprintf (text, sizeof text, "%s\n", id);
    snprintf (tmp, sizeof tmp, "%s.tmp", path);
    fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int rc = 0;
    if (fd < 0)
        rc = -errno;
    else {
        size_t len = strlen (text);
        errno = 0;
        if (write (fd, text, len) != (ssize_t) len)
            rc = errno ? -errno : -ENOSPC;
        else if (fsync (fd) != 0)
            rc = -errno;
        close (fd);
    }
    if (rc == 0 && rename (tmp, path) != 0)
        rc = -errno;
    if (rc) {
        unlink (tmp);
        snprintf (err, errlen, "cannot write this agent's instance id %s: %s (the spool "
                  "directory must be writable)", path, strerror (-rc));
        return rc;
    }
    return 0;
}
