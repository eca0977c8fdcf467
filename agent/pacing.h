/*  pacing.h: when a worker issues: sleeps, rate quotas, replay delays, rate_min.
*/
#ifndef IOF_PACING_H
#define IOF_PACING_H

#include "job_state.h"

void pace_sleep_until (uint64_t mono);

/* Sleeps until the clock `mono` and spins the last stretch a sleep would
   overshoot, as fio's usec_sleep does, so rate and thinktime waits end when
   they should and not a timer slack later.  Can't fail. */
void pace_sleep_precise (uint64_t mono);

/* Sleeps until the clock `until`, waking at each interval's end to publish
   it and at least every REAP_TIMEOUT_MAX_NS to notice a stop.  Returns early
   with the worker stopping when the run ends or is stopped.  Can't fail. */
void pace_sleep (worker_t *w, uint64_t until);

/* Counts an issued I/O of len bytes toward direction d's quota (fio's
   usec_for_io: issued bytes over rate_iops x min bs, or one period per I/O
   when the direction has a bssplit).  Can't fail. */
void pace_rate_account (worker_t *w, io_dir_t d, uint32_t len);

/* fio's iolog_delay: waits delay_ns after the last issue, less the time
   since it and what the last wait overslept (which is carried on only when
   a wait overslept its whole delay).  Can't fail. */
void pace_replay_delay (worker_t *w, uint64_t delay_ns);

/* fio's check_min_rate, once a loop after the ramp: 2 s after the start,
   each direction that has done I/O and has a minimum is held to it over
   each rate_cycle (the first check only takes its baseline); one below it
   fails the job, naming both figures.  Can't fail. */
void pace_min_rate_check (worker_t *w);

/* Whether job j issued above its pace in an interval of len_ns in which
   it did ops[d] I/Os of bytes[d] per direction (its targets summed): more
   than 1.25x what its rate_iops or rate allow all its workers, or 2x under
   rate_process=poisson (whose gaps are random), with one largest block per
   worker of slack.  A job without a rate has no pace.  Can't fail. */
bool pace_above (const iojob_t *j, const uint64_t ops[DIR_COUNT],
                 const uint64_t bytes[DIR_COUNT], uint64_t len_ns);

#endif
