/*  lockfile.h: one process at a time on something (a database, a spool
    directory), by flock(2) on a lock file that also says, as text, which
    process holds it.

    flock, not a pid file: the kernel drops the lock with its holder, so a
    holder that dies (kill -9, a crash, a power cut) never leaves a stale
    lock behind.  The text ("key: value" lines: pid, host, started, and
    what the holder adds, such as its endpoints) is only for the message of
    whoever finds the lock taken.  A release removes the file while still
    holding the lock; a taker checks that the file it locked is the one
    the path names, so no two processes ever hold "the" lock of one path.
*/
#ifndef IOF_LOCKFILE_H
#define IOF_LOCKFILE_H

#include <stdbool.h>
#include <stddef.h>

#define LOCKFILE_FIELDS     8
#define LOCKFILE_KEY_MAX    32
#define LOCKFILE_VALUE_MAX  512

/* What a lock file says: up to LOCKFILE_FIELDS (key, value) pairs. */
typedef struct {
    int n;
    char key[LOCKFILE_FIELDS][LOCKFILE_KEY_MAX];
    char value[LOCKFILE_FIELDS][LOCKFILE_VALUE_MAX];
} lockfile_info_t;

typedef struct lockfile lockfile_t;

/* Takes path's lock without waiting (path is created, mode 0600, when
   missing) and writes pid, host, started and then info's fields (info may
   be NULL) into it; text that cannot be written (a full disk) leaves the
   lock taken all the same.  Returns the lock, or NULL with *rc set:
   -EWOULDBLOCK when another process holds it (then holder, when not NULL,
   says what that process wrote, n 0 if nothing yet), or another -errno
   when path cannot be created or locked. */
lockfile_t *lockfile_take (const char *path, const lockfile_info_t *info,
                           lockfile_info_t *holder, int *rc);

/* Rewrites the text: pid, host and started as before, then info's fields
   (endpoints known only once bound, say).  Returns 0 or -errno. */
int lockfile_describe (lockfile_t *self, const lockfile_info_t *info);

/* Removes the file and releases the lock.  Can't fail. */
void lockfile_destroy (lockfile_t **self_p);

/* Whether a process holds path's lock, found without taking it and
   without creating anything.  Returns 0 (nobody, or no such file), 1 with
   holder filled (n 0 if its text is not written yet), or -errno when it
   cannot be told. */
int lockfile_holder (const char *path, lockfile_info_t *holder);

/* Whether holder is the process that $MAINPID names, on this host: the
   main process of a systemd unit, which a restart of the unit stops before
   it starts the next one (a package checks the new release's configuration
   with MAINPID set so, as systemd sets it for ExecReload=).  Can't fail. */
bool lockfile_held_by_mainpid (const lockfile_info_t *holder);

/* Adds (key, value) to info; ignored when info is full.  Can't fail. */
void lockfile_set (lockfile_info_t *info, const char *key, const char *value);

/* The value of key in info, or "?" when it has none.  Can't fail. */
const char *lockfile_get (const lockfile_info_t *info, const char *key);

#endif
