/*  targets.h: turning a plan's filename into an open, sized target,
    inside what the agent's own configuration allows.

    The controller cannot make an agent touch a path its --allow globs and
    --workdir do not cover: the check is here, in the agent, on the path as
    resolved (symlinks followed), not on the name the plan used.

    Writing is a second permission.  The workdir is the agent's scratch
    space, written freely; anything else is written (a write workload, or a
    file laid out to size=) only when an --allow-write glob matches it too,
    and a block device only when the write guard (guard.h) finds it unused:
    not mounted, not swap, not the system disk, nothing stacked on it, and
    no partition table or file-system signature unless --allow-write-
    formatted names it.  Every refusal says "(rule: NAME)".
*/
#ifndef IOF_TARGETS_H
#define IOF_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TARGET_ALLOW_MAX 64

/* What long work on a target (laying a file out) asks of the program that
   runs it, every TARGET_POLL_NS or so, so that it can be stopped. */
typedef struct {
    /* NULL to go on, or why the work is to stop now ("the run was
       cancelled", "the agent is stopping (SIGTERM)"). */
    const char *(*stop) (void *arg);
    /* A progress line ("laying out PATH: ..."); NULL: log_info. */
    void (*progress) (void *arg, const char *line);
    /* A note on a job that runs but not as its author may think (a queue
       deeper than its region's blocks); NULL: log_warn. */
    void (*note) (void *arg, const char *line);
    void *arg;
} target_hooks_t;

#define TARGET_POLL_NS      (200 * 1000000ull)
/* A layout says how far it got after this long, then every TARGET_
   PROGRESS_NS; and checks this often that its file still has a name. */
#define TARGET_PROGRESS_FIRST_NS (2000 * 1000000ull)
#define TARGET_PROGRESS_NS  (5000 * 1000000ull)
#define TARGET_NLINK_NS     (1000 * 1000000ull)

typedef struct {
    const char *workdir;                    /* NULL: relative names refused */
    const char *allow[TARGET_ALLOW_MAX];    /* fnmatch(3) globs */
    int nallow;
    /* Writes outside the workdir need a match here as well as in allow. */
    const char *allow_write[TARGET_ALLOW_MAX];
    int nallow_write;
    /* Devices written although they carry a partition table or signature. */
    const char *allow_formatted[TARGET_ALLOW_MAX];
    int nallow_formatted;
    /* Devices a plan's purge step may discard (--allow-purge). */
    const char *allow_purge[TARGET_ALLOW_MAX];
    int nallow_purge;
    const char *sysfs_root, *procfs_root;   /* for the write guard; NULL: /sys, /proc */
    const target_hooks_t *hooks;            /* NULL: a layout is never stopped */
} target_policy_t;

typedef struct {
    char path[4096];        /* resolved absolute path */
    int fd;
    bool is_block;
    bool created;
    uint64_t size;          /* bytes of the file or device */
    bool in_workdir;        /* under the policy's workdir: its scratch space */
    const target_policy_t *pol;     /* resolved under it (NULL: never written) */
} target_t;

/* Resolves name against the policy into out->path, and remembers pol (it
   must outlive out) for target_open's write checks.  Returns 0, or -EACCES
   / -EINVAL with a reason in err that names the path and what to change. */
int target_resolve (const target_policy_t *pol, const char *name, target_t *out,
                    char *err, size_t errlen);

/* Whether a plan's purge step ([iofleet] purge=, purge.h) may discard t:
   an --allow-purge glob matches it (--allow-write and the write guard
   are checked when it is opened for writing, as for any write).  Returns
   0, or -EACCES with err naming the rule and the flag to give. */
int target_check_purge (const target_t *t, char *err, size_t errlen);

/* One target of a space check: a regular file to be laid out to need bytes
   (or a block device that must hold them), and what asked for them ("size=10t"),
   for the message. */
typedef struct {
    const target_t *t;
    uint64_t need;
    const char *what;
} target_need_t;

/* Whether the layouts of n targets fit, before a byte is written: what
   each regular file grows by (need less its size now; a file named twice
   counted once, at its largest need) is summed per file system and held
   against the space free there to a user (statvfs f_bavail x f_frsize),
   and a block device must hold its need.  Returns 0, or -ENOSPC (or a
   stat error's -errno) with err naming both numbers and what to do. */
int target_space_check (const target_need_t *needs, int n, char *err, size_t errlen);

/* Opens a resolved target (O_DIRECT when direct, read-write when writes).
   A regular file that does not exist is created and laid out (written with
   data, as fio does, so reads hit real blocks) up to need bytes; an existing
   one shorter than need is extended the same way.  Writing and laying out
   are checked first (allow-write, and the write guard for a block device).
   A layout logs its progress, stops when the policy's hooks say so
   (-ECANCELED) and when its file is unlinked meanwhile (-ENOENT); a file
   this call created is removed again when its layout does not finish.
   Returns 0 or -errno with err filled. */
int target_open (target_t *t, bool direct, bool writes, uint64_t need, char *err,
                 size_t errlen);

void target_close (target_t *t);

/* As fio does when it opens a file for a job: drops what the page cache
   holds of [off, off + len) (invalidate: fadvise DONTNEED on a file,
   BLKFLSBUF on a block device, which only root may), then advises the
   kernel of the pattern (advice: POSIX_FADV_RANDOM or _SEQUENTIAL; -1
   none).  Neither is fatal, as in fio: returns 0, or -1 with err saying
   what failed, for the caller to log.  */
int target_prepare_cache (const target_t *t, bool invalidate, int advice, uint64_t off,
                          uint64_t len, char *err, size_t errlen);

/* Opens a resolved path for a log the job writes (write_lat_log, emptied;
   write_iolog, appended to): created (0644), and only ever a regular file,
   so a log can never be written over a device or block on a FIFO that an
   --allow glob covers.  Returns the descriptor, or -errno with err naming
   the path. */
int target_open_log (const target_t *t, bool append, char *err, size_t errlen);

#endif
