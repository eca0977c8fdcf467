/*  engine_psync.c: synchronous pread/pwrite, as fio's psync.

    commit does the queued I/Os one after the other, each with a single
    pread or pwrite: a short transfer is reported as is, and a failure is
    the unit's res (-errno), never commit's, as with the async engines.
    getevents then hands out what commit completed, without blocking. */
#include "engine_sync.h"

#include <errno.h>
#include <unistd.h>

static void
psync_do (sync_queue_t *q, io_unit_t *u)
{
    (void) q;
    ssize_t r;
    do
        r = u->dir == IO_READ ? pread (u->fd, u->buf, u->len, (off_t) u->offset)
                              : pwrite (u->fd, u->buf, u->len, (off_t) u->offset);
    while (r < 0 && errno == EINTR);
    u->res = r < 0 ? -(int64_t) errno : (int64_t) r;
}

static int
psync_commit (engine_t *e)
{
    return sync_commit (e, psync_do, true);
}

const engine_ops_t engine_psync_ops = {
    .name = "psync",
    .completes_at_commit = true,
    .one_at_a_time = true,
    .init = sync_init,
    .queue = sync_queue,
    .commit = psync_commit,
    .getevents = sync_getevents,
    .event = sync_event,
    .cleanup = sync_cleanup,
};
