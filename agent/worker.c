/*  worker.c: a worker thread: the submit/reap loop over its engine, its
    phases (ramp, measure, loops, read-backs), fio's rate and thinktime
    waits and latency_target's search of depths.
*/
#define _GNU_SOURCE
#include "worker.h"
#include "format.h"
#include "iogen.h"
#include "pacing.h"
#include "interval.h"
#include "io_logs.h"
#include "log.h"
#include "job_state.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/fs.h>

/* Commits the *queued units of batch, stamping their issue time (*now,
   read again), and counts them in flight.  Returns 0, or -1 with the
   worker's error set and the worker stopping. */
static int
commit_batch (worker_t *w, io_unit_t **batch, unsigned *queued, uint64_t *now)
{
    iojob_t *j = w->job;
    int rc = j->ops->commit (&w->engine);
    *now = w->now = clock_mono_ns ();
    if (rc < 0) {
        snprintf (w->error, sizeof w->error, "%s: submit failed: %s", j->ops->name,
                  strerror (-rc));
        w->stopping = true;
        return -1;
    }
    /* A synchronous engine stamped each unit around its call (t_done);
       the null engine does no call. */
    for (unsigned k = 0; k < *queued; k++)
        if (!batch[k]->t_done)
            batch[k]->t_issue = *now;
    w->inflight += *queued;
    *queued = 0;
    return 0;
}

/* Trims u's range now, as fio's os_trim: ioctl BLKDISCARD on the block
   device (a job that trims has only block devices: job_new checks), timed
   from start; u waits in the trimmed list for the next reap, in flight
   until then.  Can't fail (a failed trim is u's res, -errno). */
static void
trim_one (worker_t *w, io_unit_t *u, uint64_t start)
{
    uint64_t range[2] = { u->offset, u->len };
    u->t_start = u->t_issue = start;
    int rc = 0;
    /* fio's null engine completes a trim as anything else. */
    while (!w->job->diskless && (rc = ioctl (u->fd, BLKDISCARD, range)) < 0 && errno == EINTR)
        ;
    u->res = rc < 0 ? -(int64_t) errno : (int64_t) u->len;
    u->t_done = clock_mono_ns ();
    w->trimmed[w->ntrimmed++] = u;
    w->inflight++;
}

/* Queues units[0..n) (already prepared) with the job's submit batching,
   stamping start and issue times, and counts them in flight.  Returns 0,
   or -errno with the worker's error set and the worker stopping. */
static int
submit (worker_t *w, io_unit_t **units, unsigned n)
{
    iojob_t *j = w->job;
    unsigned queued = 0;
    io_unit_t *batch[64];
    uint64_t now = w->now;
    for (unsigned i = 0; i < n; i++) {
        io_unit_t *u = units[i];
        /* slat starts here.  The clock read that ended the previous submit
           is reused when nothing waited in between: the difference is the
           few ns of preparing this unit, and it halves clock reads. */
        u->t_start = now;
        u->t_done = 0;
        if (j->iolog)
            iolog_io (w, u);
        if (u->dir == IO_TRIM) {
            /* As fio's engines: what is queued goes out first, then the
               trim is done inline (BLKDISCARD), one at a time. */
            if (queued && commit_batch (w, batch, &queued, &now) < 0)
                return -1;
            trim_one (w, u, now);
            now = w->now = u->t_done;
            continue;
        }
        int rc = j->ops->queue (&w->engine, u);
        if (rc < 0) {
            snprintf (w->error, sizeof w->error, "%s: queueing an I/O failed: %s",
                      j->ops->name, strerror (-rc));
            w->stopping = true;
            return rc;
        }
        batch[queued++] = u;
        if ((queued == j->batch_submit || queued == 64 || i + 1 == n)
            && commit_batch (w, batch, &queued, &now) < 0)
            return -1;
    }
    if (queued && commit_batch (w, batch, &queued, &now) < 0)
        return -1;
    return 0;
}

/* Reaps between min and max completions, waiting at most timeout ns, and
   files them into the interval they completed in; their units go back to
   the free stack.  An I/O that completes after the end of a time-based run
   still counts, as in fio, which drains and counts what it issued.
   Trims done inline are filed first, and while any wait the engine is not
   waited on.  Returns the number reaped, or -1 with the worker's error set
   (it then stops at once). */
static int
reap (worker_t *w, unsigned min, unsigned max, uint64_t timeout)
{
    iojob_t *j = w->job;
    unsigned nt = w->ntrimmed;
    int n = 0;
    if (w->inflight > nt)
        n = j->ops->getevents (&w->engine, nt >= min ? 0 : min - nt, max,
                               nt ? 0 : timeout);
    if (n < 0) {
        snprintf (w->error, sizeof w->error, "%s: reaping completions failed: %s",
                  j->ops->name, strerror (-n));
        w->stopping = true;
        return -1;
    }
    uint64_t now = w->now = clock_mono_ns ();
    /* Close the intervals this moment has passed, before filing the
       completions reaped now into the interval they belong to. */
    interval_advance (w, now);
    const bool counted = w->measuring;
    const bool hist = j->histograms;
    dir_stats_t *slot = w->slot[w->k % 2];
    w->ntrimmed = 0;
    for (unsigned i = 0; i < nt + (unsigned) n; i++) {
        io_unit_t *u = i < nt ? w->trimmed[i] : j->ops->event (&w->engine, i - nt);
        IOF_ASSERT (w->inflight > 0 && w->nfree < w->depth);
        w->inflight--;
        w->completed++;
        w->free_units[w->nfree++] = u;
        dir_stats_t *d = &slot[u->target * DIR_COUNT + u->dir];
        /* A trim ended when its ioctl returned. */
        uint64_t done = u->t_done ? u->t_done : now;
        if (u->res != (int64_t) u->len) {
            if (counted)
                d->errors++;
            if (!w->error[0])
                snprintf (w->error, sizeof w->error, "%s of %u bytes at offset %llu of '%s' "
                          "failed: %s", dir_name ((int) u->dir), u->len,
                          (unsigned long long) u->offset, j->targets[u->target].path,
                          u->res < 0 ? strerror ((int) -u->res) : "short transfer");
            w->stopping = true;
            continue;
        }
        if (j->lat_target_ns && w->lat_started) {
            /* fio counts total latency, after the ramp. */
            w->lat_done++;
            if (done - u->t_start > j->lat_target_ns) {
                if (j->lat_pct < 100)
                    w->lat_failed++;
                else if (w->lat_qd > 1)
                    w->lat_fail_now = true;
                else if (!w->stopping) {
                    /* fio's lat_fatal: at depth 1 nothing is left to try. */
                    if (!w->error[0])
                        snprintf (w->error, sizeof w->error, "latency_target: a latency of "
                                  "%llu ns at depth 1 exceeds the target of %llu ns (%s of %u "
                                  "bytes at offset %llu of '%s')",
                                  (unsigned long long) (done - u->t_start),
                                  (unsigned long long) j->lat_target_ns, dir_name ((int) u->dir),
                                  u->len, (unsigned long long) u->offset,
                                  j->targets[u->target].path);
                    w->stopping = true;
                }
            }
        }
        /* An engine that only pretends to read has nothing to check. */
        if (u->verify && !j->ops->fake_io)
            iogen_check_read_back (w, u, counted ? d : NULL);
        else if (u->dir == IO_WRITE && w->vlog)
            iogen_vlog_add (w, u);
        if (counted) {
            d->ops++;
            d->bytes += u->len;
            if (u->dir <= IO_WRITE) {
                w->done_bytes[u->dir] += u->len;
                w->done_ios[u->dir]++;
            }
            if (hist) {
                /* fio records no submission latency for a trim, nor for
                   an I/O that completed as it was submitted (its sync
                   engines, null at iodepth=1: slat N 0). */
                if (u->dir != IO_TRIM && j->slat)
                    histogram_record (&d->slat, u->t_issue - u->t_start);
                histogram_record (&d->clat, done - u->t_issue);
                histogram_record (&d->lat, done - u->t_start);
            }
            /* Logged exactly when counted: the log holds the I/Os of
               the reported figures, no ramp. */
            if (w->lat_log && lat_log_add (w, u, done) < 0)
                w->stopping = true;
        }
    }
    if (now >= j->measure_end || atomic_load_explicit (&j->stop, memory_order_relaxed))
        w->stopping = true;
    return (int) nt + n;
}

/* The most completions one reap takes: fio's iodepth_batch_complete_max,
   which defaults to iodepth_batch_complete_min; an engine that completes at
   commit has them all at once.  Can't fail. */
static inline unsigned
reap_max (const worker_t *w)
{
    return w->job->ops->completes_at_commit ? w->depth : w->job->batch_complete;
}

/* Waits for every I/O in flight and files it, as fio's io_u_quiesce does
   before a rate or thinktime sleep, so no completion waits out the sleep
   unreaped and the latency measured is the device's.  Returns 0, or -1 when
   reaping failed (the worker's error is set). */
static int
quiesce (worker_t *w)
{
    while (w->inflight > 0)
        if (reap (w, w->inflight, w->depth, REAP_TIMEOUT_MAX_NS) < 0)
            return -1;
    return 0;
}

/* fio's rate_ddir: the direction to issue next, given that d was drawn.
   A direction behind its quota goes now; when d is ahead, the other one
   goes if it is behind; when both are ahead, the worker quiesces and
   sleeps until the earlier is due and issues that one.  Can't fail (a
   failed reap leaves the worker stopping). */
static io_dir_t
rate_dir (worker_t *w, io_dir_t d)
{
    iojob_t *j = w->job;
    uint64_t t = w->now - w->rate_epoch;
    if (w->rate_next[d] <= t)
        return d;
    io_dir_t o = d == IO_READ ? IO_WRITE : IO_READ;
    uint64_t due = w->rate_next[d];
    if (j->rw == IOFLEET__RW__RW_RW || j->rw == IOFLEET__RW__RW_RANDRW) {
        if (iogen_rw_has (j->rw, j->rwmixread, o)) {
            if (w->rate_next[o] <= t)
                return o;
            if (w->rate_next[o] < due) {
                due = w->rate_next[o];
                d = o;
            }
        }
    }
    if (quiesce (w) == 0)
        pace_sleep (w, w->rate_epoch + due);
    return d;
}

/* fio's handle_thinktime with thinktime_blocks=1 counted at completion:
   once an I/O completed since the last think, quiesce and sleep thinktime.
   Can't fail (a failed reap leaves the worker stopping). */
static void
think (worker_t *w)
{
    iojob_t *j = w->job;
    if (w->completed < w->think_last + 1)
        return;
    uint64_t b = w->completed;
    if (quiesce (w) == 0)
        pace_sleep (w, w->now + j->thinktime_ns);
    w->think_last = b;
}

/* Read-backs into the idle units, unpaced, with the job's submit batching:
   the ring's oldest writes (verify_backlog), or the pass's writes replayed
   as reads, its reads drawn and skipped so the generator goes as it went.
   Can't fail (errors leave the worker stopping). */
static void
fill_read_back (worker_t *w)
{
    iojob_t *j = w->job;
    unsigned n = 0;
    while (w->nfree > 0) {
        io_unit_t *u = w->free_units[w->nfree - 1];
        if (w->vlog_drain) {
            if (w->vlog_n == 0) {
                w->vlog_drain = false;
                break;
            }
            struct vlog_entry *e = &w->vlog[w->vlog_head];
            w->vlog_head = (w->vlog_head + 1) % w->vlog_cap;
            w->vlog_n--;
            u->offset = e->offset;
            u->len = e->len;
            u->target = e->target;
            u->fd = j->targets[e->target].fd;
        } else {
            if (iogen_limit_reached (w))
                break;
            io_dir_t d = iogen_pick_dir (w);
            if (!iogen_unit (w, u, d))
                break;
            if (d == IO_READ)
                continue;
        }
        u->dir = IO_READ;
        u->verify = true;
        w->nfree--;
        w->batch[n++] = u;
    }
    if (n)
        submit (w, w->batch, n);
}

/* read_iolog: issues the log's next entries into the idle units, one at a
   time, each after its wait (version 3: the logged gap to the line before,
   scaled by replay_time_scale; version 2: until its "wait" time), as fio
   replays them: I/O in flight is not reaped first.  Syncs are done inline
   and file actions only take their time.  Can't fail (errors leave the
   worker stopping). */
static void
replay_fill (worker_t *w)
{
    iojob_t *j = w->job;
    const replay_log_t *log = j->replay;
    while (w->nfree > 0 && !w->stopping && w->replay_next < log->n) {
        const replay_entry_t *e = &log->entries[w->replay_next];
        w->now = clock_mono_ns ();
        if (log->version == 3) {
            /* fio: no wait after a line at time 0, nor when time goes back. */
            uint64_t prev = w->replay_prev_usec;
            w->replay_prev_usec = e->usec;
            if (!j->replay_no_stall && prev && e->usec > prev)
                pace_replay_delay (w, (e->usec - prev) * 1000 * 100 / j->replay_time_scale);
        } else if (e->kind == REPLAY_WAIT && !j->replay_no_stall) {
            uint64_t due = w->replay_t0 + e->offset * NS_PER_MS;
            if (due > w->now)
                pace_sleep (w, due);
        }
        if (w->stopping)
            break;
        w->replay_next++;
        if (e->kind == REPLAY_FILE || e->kind == REPLAY_WAIT)
            continue;
        uint32_t t = j->replay_redirect ? 0 : e->file;
        if (e->kind == REPLAY_SYNC || e->kind == REPLAY_DATASYNC) {
            int rc = e->kind == REPLAY_SYNC ? fsync (j->targets[t].fd)
                                            : fdatasync (j->targets[t].fd);
            if (rc < 0 && !w->error[0]) {
                snprintf (w->error, sizeof w->error, "read_iolog: %s of '%s' failed: %s",
                          e->kind == REPLAY_SYNC ? "sync" : "datasync", j->targets[t].path,
                          strerror (errno));
                w->stopping = true;
            }
            continue;
        }
        io_unit_t *u = w->free_units[--w->nfree];
        u->dir = (io_dir_t) e->kind;
        u->len = e->len;
        u->target = t;
        u->fd = j->targets[t].fd;
        u->offset = e->offset / j->replay_scale;
        if (j->replay_align)
            u->offset &= ~((uint64_t) j->replay_align - 1);
        u->verify = false;
        if (u->dir == IO_WRITE)
            iogen_write_data (w, u);
        w->bytes_issued += u->len;
        w->ios_issued++;
        if (submit (w, &u, 1) < 0)
            break;
        w->replay_last_issue = u->t_start;
    }
}

/* Issues I/Os into the idle units.  Unpaced, all at once with the job's
   submit batching; paced (rate_iops, thinktime), one at a time as fio's
   inline submission does: a rate wait or think quiesces first, and a full
   queue is reaped before the think, as fio's do_io loop does.  Can't fail
   (errors leave the worker stopping). */
static void
fill (worker_t *w)
{
    iojob_t *j = w->job;
    if (j->replay) {
        replay_fill (w);
        return;
    }
    if (w->vlog_drain || w->read_back) {
        fill_read_back (w);
        if (w->vlog_drain || w->read_back || w->nfree == 0)
            return;
    }
    /* latency_target: fio's queue_full caps what is in flight at the
       search's depth. */
    unsigned cap = j->lat_target_ns ? w->lat_qd : w->depth;
    if (!j->paced) {
        unsigned n = 0;
        while (w->nfree > 0 && !iogen_limit_reached (w) && w->inflight + n < cap) {
            io_unit_t *u = w->free_units[w->nfree - 1];
            if (!iogen_prep_unit (w, u, iogen_pick_dir (w)))
                break;
            w->nfree--;
            w->batch[n++] = u;
        }
        if (n)
            submit (w, w->batch, n);
        return;
    }
    while (w->nfree > 0 && !w->stopping && !iogen_limit_reached (w) && w->inflight < cap) {
        io_dir_t d = iogen_pick_dir (w);
        if (j->rate_bps[0] || j->rate_bps[1]) {
            d = rate_dir (w, d);
            if (w->stopping || w->nfree == 0)
                break;
        }
        io_unit_t *u = w->free_units[w->nfree - 1];
        if (!iogen_prep_unit (w, u, d))
            break;
        w->nfree--;
        if (submit (w, &u, 1) < 0)
            break;
        pace_rate_account (w, d, u->len);
        if (w->nfree == 0 && reap (w, j->batch_complete, reap_max (w), REAP_TIMEOUT_MAX_NS) < 0)
            break;
        if (j->thinktime_ns)
            think (w);
    }
}

/* Starts pass w's generator over as at the job's start: positions,
   random map and random numbers (fio 3.33 repeats a randread loop's
   offsets exactly, and reads a pass's writes back in the order written).
   Can't fail. */
static void
rewind_pass (worker_t *w)
{
    iojob_t *j = w->job;
    w->bytes_issued = w->ios_issued = 0;
    for (int g = 0; g < j->ntargets * DIR_COUNT; g++)
        if (w->offsets[g])
            offsets_rewind (w->offsets[g]);
    memcpy (w->rng, w->rng_loop, sizeof w->rng);
    w->seq_done = false;
    w->seq_left = 1;
    for (int g = 0; w->last_end && g < j->ntargets * DIR_COUNT; g++)
        w->last_end[g] = iogen_region_start (j, w->id, (uint32_t) (g / DIR_COUNT));
}

/* After a size-bound pass drained at its limit: what comes next, as fio
   does it.  The writes still in the backlog ring are read back; or, with
   verify= and do_verify, the pass's writes are (replayed in the order
   written); then, with loops=N, the next loop starts as the first did.
   Returns true when there is more to issue.  Can't fail. */
static bool
next_phase (worker_t *w)
{
    iojob_t *j = w->job;
    if (w->stopping || j->time_based || !iogen_limit_reached (w)
        || atomic_load_explicit (&j->stop, memory_order_relaxed))
        return false;
    uint64_t now = clock_mono_ns ();
    if (w->timing) {
        w->read_back_ns += now - w->read_back_start;
        w->timing = false;
    }
    if (w->vlog_n > 0) {
        w->vlog_drain = true;
        w->read_back = false;
    } else if (w->read_back) {
        w->read_back = false;
        w->read_back_done = true;
    } else if (j->verify != VERIFY_NONE && j->verify_read_back && !j->verify_backlog
               && !w->read_back_done) {
        rewind_pass (w);
        w->read_back = true;
    }
    if (!w->vlog_drain && !w->read_back) {
        if (w->loop + 1 >= j->loops)
            return false;
        w->loop++;
        rewind_pass (w);
        w->read_back = j->verify_only;
        w->read_back_done = false;
    }
    w->timing = w->vlog_drain || w->read_back;
    w->read_back_start = now;
    return true;
}

/* latency_target: a window starts now (fio's lat_new_cycle).  Can't fail. */
static void
lat_new_cycle (worker_t *w)
{
    w->lat_ts = w->now;
    w->lat_ios = w->lat_done;
    w->lat_failed = 0;
}

/* Measuring starts now: the search has settled (or, stuck at depth 1, will
   not move), as fio resets its statistics then.  Can't fail. */
static void
lat_measure_from_now (worker_t *w)
{
    iojob_t *j = w->job;
    if (j->measure_start == UINT64_MAX)
        j->measure_start = w->now;
}

/* fio's __lat_target_failed: halve the way down to the lower bound, after
   the I/O in flight completes.  At depth 1 fio changes nothing and keeps
   checking the window it is in.  Can't fail. */
static void
lat_failed (worker_t *w)
{
    if (w->lat_qd == 1) {
        lat_measure_from_now (w);
        return;
    }
    w->lat_high = w->lat_qd;
    if (w->lat_qd == w->lat_low)
        w->lat_low--;
    w->lat_qd = (w->lat_qd + w->lat_low) / 2;
    w->lat_stable = 0;
    quiesce (w);
    lat_new_cycle (w);
}

/* fio's lat_target_success: double while below the job's iodepth bound,
   else halve the way up; a depth that stays is the answer: measure one more
   window at it (fio resets its figures for it), and end when that one
   passes too, unless latency_run.  Can't fail. */
static void
lat_success (worker_t *w)
{
    iojob_t *j = w->job;
    uint32_t old = w->lat_qd;
    w->lat_low = w->lat_qd;
    if (w->lat_qd + 1 == w->lat_high && ++w->lat_stable >= 3) {
        w->lat_high++;
        w->lat_stable = 0;
    }
    w->lat_qd = w->lat_high != w->depth ? (w->lat_qd + w->lat_high) / 2 : w->lat_qd * 2;
    if (w->lat_qd > w->depth)
        w->lat_qd = w->depth;
    if (!j->lat_run && w->lat_qd == old) {
        if (w->lat_end_run)
            w->stopping = true;
        else {
            quiesce (w);
            w->lat_end_run = true;
            lat_measure_from_now (w);
        }
    }
    lat_new_cycle (w);
}

/* fio's lat_target_check, once a loop: when the window is over, the share
   of its completions within the target against latency_percentile.
   Can't fail. */
static void
lat_check (worker_t *w)
{
    iojob_t *j = w->job;
    if (!j->lat_target_ns || w->stopping)
        return;
    if (!w->lat_started) {
        if (w->now < j->search_start)
            return;
        /* fio's lat_target_init, at the ramp's end. */
        w->lat_started = true;
        w->lat_qd = w->lat_low = 1;
        w->lat_high = w->depth;
        lat_new_cycle (w);
        return;
    }
    if (w->lat_fail_now) {
        w->lat_fail_now = false;
        lat_failed (w);
        return;
    }
    if (w->lat_done == 0 || w->now - w->lat_ts < j->lat_window_ns)
        return;
    uint64_t ios = w->lat_done - w->lat_ios;
    bool ok = ios > 0 && 100.0 * (double) (ios - w->lat_failed) / (double) ios >= j->lat_pct;
    if (ok)
        lat_success (w);
    else
        lat_failed (w);
}

void *
worker_main (void *arg)
{
    worker_t *w = arg;
    iojob_t *j = w->job;
    /* A sleep of a paced worker (rate, thinktime) ends when it should, not
       up to the default 50 us timer slack later: the stretch spun at its
       end (sleep_precise_until) shrinks from ~60 us to a few, and with it
       the CPU a paced I/O costs.  A difference from fio kept on purpose
       (docs/conformance.md): the I/O and its timing are the same. */
    (void) prctl (PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    if (j->have_cpus) {
        int rc = pthread_setaffinity_np (pthread_self (), sizeof j->cpus, &j->cpus);
        if (rc)
            log_warn ("worker %d: cpus_allowed not applied: %s", w->id, strerror (rc));
    }
    /* The start (and a startdelay of hours) is waited for in slices, so a
       stop ends the wait too. */
    for (uint64_t now = clock_mono_ns ();
         now < j->mono_start && !atomic_load_explicit (&j->stop, memory_order_relaxed);
         now = clock_mono_ns ())
        pace_sleep_until (j->mono_start - now > REAP_TIMEOUT_MAX_NS ? now + REAP_TIMEOUT_MAX_NS
                                                                : j->mono_start);
    w->stopping = atomic_load_explicit (&j->stop, memory_order_relaxed);
    w->now = w->rate_epoch = clock_mono_ns ();
    w->wake_mono = w->now;
    iolog_edge (w, true);
    w->read_back_start = w->now;
    w->timing = w->read_back;       /* verify_only: the pass is a read-back */
    w->replay_t0 = w->replay_last_issue = w->now;

    w->free_units = calloc (w->depth, sizeof *w->free_units);
    w->batch = calloc (w->depth, sizeof *w->batch);
    if (j->purge_format) {
        /* purge=format (format.h): the job's first worker formats each
           device; no I/O.  The agent's loop goes on answering meanwhile. */
        for (int t = 0; w->id == 0 && t < j->ntargets && !w->error[0]; t++) {
            log_info ("purge=format: formatting %s", j->targets[t].path);
            if (format_device (j->targets[t].fd, j->targets[t].path, w->error,
                               sizeof w->error) == 0)
                log_info ("purge=format: %s formatted", j->targets[t].path);
        }
    } else if (!w->free_units || !w->batch) {
        snprintf (w->error, sizeof w->error, "out of memory");
        w->stopping = true;
    } else {
        /* Unit 0 on top: the first I/O goes out in the first unit. */
        for (unsigned i = 0; i < w->depth; i++)
            w->free_units[w->nfree++] = &w->units[w->depth - 1 - i];
        /* latency_target: the ramp runs at full depth (fio searches from
           its end). */
        w->lat_qd = w->depth;
        lat_check (w);
        fill (w);
        while (w->inflight == 0 && next_phase (w))
            fill (w);
    }
    while (w->inflight > 0) {
        uint64_t timeout = REAP_TIMEOUT_MAX_NS;
        uint64_t now = clock_mono_ns ();
        if (w->measuring) {
            uint64_t b = interval_end (j, w->k);
            timeout = b > now ? b - now : 0;
            if (timeout > REAP_TIMEOUT_MAX_NS)
                timeout = REAP_TIMEOUT_MAX_NS;
        } else if (j->measure_start > now && j->measure_start - now < timeout)
            timeout = j->measure_start - now;
        /* One completion, one new I/O by default, as fio's. */
        unsigned min = j->batch_complete < w->inflight ? j->batch_complete : w->inflight;
        if (reap (w, min, reap_max (w), timeout) < 0)
            break;
        lat_check (w);
        pace_min_rate_check (w);
        /* A size-limited job issues exactly its size, as fio's: the units
           beyond it just stay idle while the last I/Os drain. */
        if (!w->stopping)
            fill (w);
        /* Drained at its limit: a read-back or the next loop, if any. */
        while (w->inflight == 0 && next_phase (w))
            fill (w);
    }
    free (w->free_units);
    free (w->batch);
    w->free_units = w->batch = NULL;

    uint64_t now = clock_mono_ns ();
    w->end_mono = now < j->measure_end ? now : j->measure_end;
    /* The last, possibly partial, interval. */
    if (w->measuring && w->end_mono > j->measure_start + (uint64_t) w->k * j->interval_ns)
        atomic_store_explicit (&w->published, w->k + 1, memory_order_release);
    /* The logs are complete before the worker counts as finished, so a
       failure to write their end is in the step's error. */
    lat_log_close (w);
    iolog_edge (w, false);
    if (w->verify_errors > 1) {
        size_t n = strlen (w->error);
        snprintf (w->error + n, sizeof w->error - n, " (the first of %llu mismatches)",
                  (unsigned long long) w->verify_errors);
    }
    /* A message cut to the buffer may end inside a UTF-8 sequence, and the
       controller refuses a DONE whose error is not UTF-8. */
    long bad = utf8_invalid_at (w->error, strlen (w->error));
    if (bad >= 0)
        w->error[bad] = '\0';
    atomic_store_explicit (&w->finished, true, memory_order_release);
    return NULL;
}
