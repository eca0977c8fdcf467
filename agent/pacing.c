/*  pacing.c: when a worker issues: precise sleeps, fio's rate quotas
    (rate_iops, rate=, rate_process=poisson), a replayed log's delays and
    rate_min's checks (see pacing.h).
*/
#define _GNU_SOURCE
#include "pacing.h"
#include "interval.h"
#include "iogen.h"
#include "job_state.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>

void
pace_sleep_until (uint64_t mono)
{
    struct timespec ts = { .tv_sec = (time_t) (mono / NS_PER_SEC),
                           .tv_nsec = (long) (mono % NS_PER_SEC) };
    while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* How late a 1 us nanosleep wakes on this host, at worst of 10 (fio's
   ns_granularity in fio_time_init). */
static uint64_t s_sleep_granularity;

static pthread_once_t s_granularity_once = PTHREAD_ONCE_INIT;

static void
measure_granularity (void)
{
    for (int i = 0; i < 10; i++) {
        uint64_t t0 = clock_mono_ns ();
        struct timespec ts = { 0, 1000 };
        nanosleep (&ts, NULL);
        uint64_t dt = clock_mono_ns () - t0;
        if (dt > s_sleep_granularity)
            s_sleep_granularity = dt;
    }
}

/* Sleeps until the clock `mono` and spins the last stretch a sleep would
   overshoot, as fio's usec_sleep does, so rate and thinktime waits end when
   they should and not a timer slack later.  Can't fail. */
void
pace_sleep_precise (uint64_t mono)
{
    pthread_once (&s_granularity_once, measure_granularity);
    uint64_t now = clock_mono_ns ();
    if (mono > now + s_sleep_granularity)
        pace_sleep_until (mono - s_sleep_granularity);
    while (clock_mono_ns () < mono)
        ;
}

/* Sleeps until the clock `until`, waking at each interval's end to publish
   it and at least every REAP_TIMEOUT_MAX_NS to notice a stop.  Returns early
   with the worker stopping when the run ends or is stopped.  Can't fail. */
void
pace_sleep (worker_t *w, uint64_t until)
{
    iojob_t *j = w->job;
    while (w->now < until) {
        uint64_t t = until;
        if (t - w->now > REAP_TIMEOUT_MAX_NS)
            t = w->now + REAP_TIMEOUT_MAX_NS;
        if (w->measuring && interval_end (j, w->k) < t)
            t = interval_end (j, w->k);
        else if (!w->measuring && j->measure_start > w->now && j->measure_start < t)
            t = j->measure_start;
        if (t == until)
            pace_sleep_precise (t);
        else
            pace_sleep_until (t);
        w->now = clock_mono_ns ();
        interval_advance (w, w->now);
        if (w->now >= j->measure_end || atomic_load_explicit (&j->stop, memory_order_relaxed)) {
            w->stopping = true;
            return;
        }
    }
}

/* Counts an issued I/O of len bytes toward direction d's quota (fio's
   usec_for_io: issued bytes over rate_iops x min bs, or one period per I/O
   when the direction has a bssplit).  Can't fail. */
void
pace_rate_account (worker_t *w, io_dir_t d, uint32_t len)
{
    iojob_t *j = w->job;
    if (!j->rate_bps[d])
        return;
    if (j->poisson_us[d]) {
        /* fio: (int64_t) (1000000 / iops) * -logf (uniform (0, 1]), in
           whole microseconds, added to the direction's schedule. */
        double u = (double) ((rng_next (w->prng) >> 11) + 1) * 0x1p-53;
        w->rate_next[d] += (uint64_t) ((double) j->poisson_us[d] * -log (u)) * 1000;
        return;
    }
    if (j->rate_period[d]) {
        w->rate_next[d] += j->rate_period[d];
        return;
    }
    w->rate_bytes[d] += len;
    uint64_t secs = w->rate_bytes[d] / j->rate_bps[d];
    uint64_t rem = w->rate_bytes[d] % j->rate_bps[d];
    w->rate_next[d] = secs * NS_PER_SEC + (uint64_t) ((unsigned __int128) rem * NS_PER_SEC
                                                      / j->rate_bps[d]);
}

/* fio's iolog_delay: waits delay_ns after the last issue, less the time
   since it and what the last wait overslept (which is carried on only when
   a wait overslept its whole delay).  Can't fail. */
void
pace_replay_delay (worker_t *w, uint64_t delay_ns)
{
    uint64_t orig = delay_ns, since = w->now - w->replay_last_issue;
    if (delay_ns < w->replay_offset_ns) {
        w->replay_offset_ns = 0;
        return;
    }
    delay_ns -= w->replay_offset_ns;
    if (delay_ns < since)
        return;
    delay_ns -= since;
    uint64_t t0 = w->now;
    pace_sleep (w, t0 + delay_ns);
    uint64_t slept = w->now - t0;
    w->replay_offset_ns = slept > orig ? slept - orig : 0;
}

/* See pacing.h.  Can't fail. */
void
pace_min_rate_check (worker_t *w)
{
    iojob_t *j = w->job;
    if (!w->measuring || w->stopping || w->now - w->wake_mono < 2 * NS_PER_SEC)
        return;
    for (int d = 0; d < 2; d++) {
        if ((!j->rate_min[d] && !j->rate_iops_min[d]) || !w->done_bytes[d])
            continue;
        if (w->mr_bytes[d] || w->mr_ios[d]) {
            uint64_t spent_ms = (w->now - w->mr_time[d]) / NS_PER_MS;
            if (spent_ms == 0 || spent_ms * NS_PER_MS < j->rate_cycle_ns)
                continue;
            uint64_t bytes = (w->done_bytes[d] - w->mr_bytes[d]) * 1000 / spent_ms;
            uint64_t iops = (w->done_ios[d] - w->mr_ios[d]) * 1000 / spent_ms;
            if (j->rate_min[d] ? bytes < j->rate_min[d] : iops < j->rate_iops_min[d]) {
                if (!w->error[0]) {
                    if (j->rate_min[d])
                        snprintf (w->error, sizeof w->error, "rate_min=%lluB/s not met by "
                                  "%s, got %lluB/s", (unsigned long long) j->rate_min[d],
                                  d ? "writes" : "reads", (unsigned long long) bytes);
                    else
                        snprintf (w->error, sizeof w->error, "rate_iops_min=%u not met by %s, "
                                  "got %llu IOPS", j->rate_iops_min[d], d ? "writes" : "reads",
                                  (unsigned long long) iops);
                }
                w->stopping = true;
                return;
            }
        }
        w->mr_bytes[d] = w->done_bytes[d];
        w->mr_ios[d] = w->done_ios[d];
        w->mr_time[d] = w->now;
    }
}

bool
pace_above (const iojob_t *j, const uint64_t ops[DIR_COUNT], const uint64_t bytes[DIR_COUNT],
            uint64_t len_ns)
{
    double secs = (double) len_ns / 1e9, n = j->nworkers > 0 ? j->nworkers : 1;
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!j->rate_bps[d])
            continue;
        if (j->poisson_us[d]) {
            /* random gaps of poisson_us on average, one I/O each */
            double allowed = n * secs * 1e6 / (double) j->poisson_us[d];
            if ((double) ops[d] > 2.0 * allowed + 4 * n)
                return true;
        } else if (j->rate_period[d]) {
            /* rate_iops with a bssplit: one I/O a period, whatever its size */
            double allowed = n * secs * 1e9 / (double) j->rate_period[d];
            if ((double) ops[d] > 1.25 * allowed + n)
                return true;
        } else {
            double allowed = n * secs * (double) j->rate_bps[d];
            if ((double) bytes[d] > 1.25 * allowed + n * j->max_bs)
                return true;
        }
    }
    return false;
}
