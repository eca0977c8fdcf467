/*  engine_filepos.c: fio's engines that move the file position, sync and
    vsync, measured on fio 3.33 under strace:
      sync   read/write, with an lseek first only when the descriptor is
             not already where the I/O starts (a sequential job seeks
             never; a random one almost always);
      vsync  readv/writev with an lseek before every call; the I/Os of one
             commit (iodepth_batch) that follow each other on the same file
             in the same direction go in one call, an iovec each, as fio's
             vsync joins them (so it joins nothing with iodepth_batch=1).
    Both complete when commit returns. */
#include "engine_sync.h"

#include <errno.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

static void
sync_do (sync_queue_t *q, io_unit_t *u)
{
    int rc = sync_seek (q, u->fd, u->offset, false);
    if (rc < 0) {
        u->res = rc;
        return;
    }
    ssize_t r;
    do
        r = u->dir == IO_READ ? read (u->fd, u->buf, u->len) : write (u->fd, u->buf, u->len);
    while (r < 0 && errno == EINTR);
    u->res = r < 0 ? -(int64_t) errno : (int64_t) r;
    sync_moved (q, u->fd, u->offset, u->res);
}

static int
sync_rw_commit (engine_t *e)
{
    return sync_commit (e, sync_do, true);
}

/* Whether b follows a on the same file, in the same direction. */
static bool
joins (const io_unit_t *a, const io_unit_t *b)
{
    return a->fd == b->fd && a->dir == b->dir && a->offset + a->len == b->offset;
}

/* One readv/writev for units[0..n), which follow each other: each gets
   its share of what was transferred, in order. */
static void
vsync_run (sync_queue_t *q, io_unit_t **units, unsigned n)
{
    struct iovec iov[64];
    io_unit_t *u0 = units[0];
    /* The units joined in one call share its time, as in fio's vsync. */
    uint64_t t0 = clock_mono_ns ();
    int rc = sync_seek (q, u0->fd, u0->offset, true);
    ssize_t r;
    if (rc < 0) {
        r = -1;
        errno = -rc;
    }
    else {
        for (unsigned i = 0; i < n; i++)
            iov[i] = (struct iovec) { units[i]->buf, units[i]->len };
        do
            r = u0->dir == IO_READ ? readv (u0->fd, iov, (int) n) : writev (u0->fd, iov, (int) n);
        while (r < 0 && errno == EINTR);
    }
    int64_t left = r < 0 ? 0 : (int64_t) r;
    uint64_t done = clock_mono_ns ();
    for (unsigned i = 0; i < n; i++) {
        units[i]->t_issue = t0;
        units[i]->t_done = done;
        if (r < 0)
            units[i]->res = -(int64_t) errno;
        else {
            units[i]->res = left < (int64_t) units[i]->len ? left : (int64_t) units[i]->len;
            left -= units[i]->res;
        }
    }
    sync_moved (q, u0->fd, u0->offset, r < 0 ? -1 : (int64_t) r);
}

static int
vsync_commit (engine_t *e)
{
    sync_queue_t *q = e->data;
    unsigned n = q->nqueued, first = 0;
    for (unsigned i = 1; i <= n; i++) {
        if (i < n && i - first < 64 && joins (q->queued[i - 1], q->queued[i]))
            continue;
        vsync_run (q, q->queued + first, i - first);
        first = i;
    }
    for (unsigned i = 0; i < n; i++)
        q->done[q->ndone++] = q->queued[i];
    q->nqueued = 0;
    return (int) n;
}

const engine_ops_t engine_sync_ops = {
    .name = "sync",
    .completes_at_commit = true,
    .one_at_a_time = true,
    .init = sync_init,
    .queue = sync_queue,
    .commit = sync_rw_commit,
    .getevents = sync_getevents,
    .event = sync_event,
    .cleanup = sync_cleanup,
};

const engine_ops_t engine_vsync_ops = {
    .name = "vsync",
    .completes_at_commit = true,
    .init = sync_init,
    .queue = sync_queue,
    .commit = vsync_commit,
    .getevents = sync_getevents,
    .event = sync_event,
    .cleanup = sync_cleanup,
};
