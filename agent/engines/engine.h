/*  engine.h: the I/O engine ops table, after fio's struct ioengine_ops.

    A worker owns one engine instance.  It queues io units, commits them,
    and reaps completions; the worker never asks which engine it runs.
    Adding an engine is adding one engine_NAME.c with an ops table and one
    line in engine.c.
*/
#ifndef IOF_ENGINE_H
#define IOF_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

/* The directions (common/direction.h's order).  Trims never reach an
   engine: the worker issues them itself (BLKDISCARD), as fio's engines
   do them inline. */
typedef enum { IO_READ = 0, IO_WRITE = 1, IO_TRIM = 2 } io_dir_t;

typedef struct {
    int fd;
    void *buf;
    uint32_t len;
    uint64_t offset;
    io_dir_t dir;
    uint32_t target;        /* index of the target in the job */
    uint64_t t_start;       /* CLOCK_MONOTONIC ns: prepared (slat starts) */
    uint64_t t_issue;       /* CLOCK_MONOTONIC ns: clat starts: when commit returned, or
                               when a synchronous engine began the I/O's system call */
    uint64_t t_done;        /* the I/O's end when its engine (or the worker, for a trim)
                               did it inline; 0: the completion time is the reap's */
    int64_t res;            /* bytes transferred, or -errno */
    bool verify;            /* a read back of a write: its data is checked */
    void *engine_data;      /* the engine's per-unit state (an iocb, ...) */
} io_unit_t;

typedef struct engine engine_t;

typedef struct {
    const char *name;
    /* Its I/Os are complete when commit returns (null, psync, the sync
       engines): the worker reaps all of them at once, since reaping one at
       a time would only add the time spent on the others to their
       latency.  Such an engine stamps each unit's t_issue and t_done
       around its system call (as fio times a synchronous I/O: clat is the
       call, there is no slat), except null, whose I/O takes no time.
       Engines with real asynchronous completions reap as fio does, at most
       iodepth_batch_complete_min at a time. */
    bool completes_at_commit;
    /* One I/O in flight whatever iodepth says (fio's FIO_SYNCIO engines,
       which print "queue depth will be capped at 1"): psync, pvsync,
       pvsync2, sync. */
    bool one_at_a_time;
    /* Does no I/O (fio's FIO_DISKLESSIO: null): no file is opened, laid
       out, discarded or invalidated for it. */
    bool diskless;
    /* Only pretends to do I/O (fio's FIO_FAKEIO: null): what a read returns
       is not what was written, so a read-back is issued and counted but its
       data is not checked, as fio's verify_io_u passes it. */
    bool fake_io;
    /* Synchronous at iodepth=1, queued above it, as fio's null engine
       (FIO_SYNCIO at depth 1; deeper, its commit stamps the batch's issue
       time): deeper, its I/Os have a submission latency, from being
       prepared to the commit that issues them, and lat = slat + clat. */
    bool queued_above_depth_1;
    /* What to tell an operator when init fails with -EPERM or -ENOSYS, the
       engine being off on this host (a sysctl, a seccomp filter), and what
       to use instead; NULL when the errno says it all. */
    const char *unavailable_hint;
    /* Creates the engine's context for up to depth units in flight.
       Returns 0 or -errno. */
    int (*init) (engine_t *e, unsigned depth);
    /* Adds u to the batch of the next commit.  Returns 0 or -errno. */
    int (*queue) (engine_t *e, io_unit_t *u);
    /* Submits everything queued.  Returns the number submitted or -errno. */
    int (*commit) (engine_t *e);
    /* Waits up to timeout_ns for at least min completions; returns how many
       (0 on timeout) or -errno.  Completed units come from event(). */
    int (*getevents) (engine_t *e, unsigned min, unsigned max, uint64_t timeout_ns);
    /* The i-th unit completed by the last getevents, with res filled. */
    io_unit_t *(*event) (engine_t *e, unsigned i);
    void (*cleanup) (engine_t *e);
} engine_ops_t;

struct engine {
    const engine_ops_t *ops;
    void *data;
};

/* The ops table for an ioengine name, or NULL when unknown. */
const engine_ops_t *engine_find (const char *name);

/* Comma-separated names of the engines built in, for messages. */
const char *engine_names (void);

#endif
