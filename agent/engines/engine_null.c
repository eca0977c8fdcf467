/*  engine_null.c: no I/O at all, as fio's ioengine=null: every unit
    completes at commit with res = len.  What it measures is the cost of
    everything else: the worker, the histograms, the engine interface.
    Its flags are fio's: diskless, fake I/O (verify checks nothing it
    reads), and synchronous only at iodepth=1. */
#include "engine_sync.h"

static void
null_do (sync_queue_t *q, io_unit_t *u)
{
    (void) q;
    u->res = u->len;
}

static int
null_commit (engine_t *e)
{
    return sync_commit (e, null_do, false);
}

const engine_ops_t engine_null_ops = {
    .name = "null",
    .completes_at_commit = true,
    .diskless = true,
    .fake_io = true,
    .queued_above_depth_1 = true,
    .init = sync_init,
    .queue = sync_queue,
    .commit = null_commit,
    .getevents = sync_getevents,
    .event = sync_event,
    .cleanup = sync_cleanup,
};
