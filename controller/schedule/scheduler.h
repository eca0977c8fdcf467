/*  scheduler.h: cron schedules that queue runs.  */
#ifndef IOF_SCHEDULER_H
#define IOF_SCHEDULER_H

#include "controller.h"
#include "schedules.h"             /* SCHED_NAME_MAX */

/* schedule.c: cron schedules that queue runs, and the admin commands of
   the schedule family. */
/* hook: --on-regression CMD or NULL; test_clock: --test-clock EPOCH, or 0
   for the real clock.  NULL when out of memory. */
scheduler_t *scheduler_new (const char *hook, int64_t test_clock);
void scheduler_destroy (scheduler_t **self_p);
/* The scheduler's clock, Unix seconds. */
int64_t scheduler_now (ctl_t *ctl);
/* Fires what is due (a missed fire runs once, if catch-up is on), and
   starts and reaps the hook.  Can't fail (errors are logged). */
void scheduler_tick (ctl_t *ctl);
/* Admin commands schedule_add, schedule_list, schedule_rm,
   schedule_run_now, regressions, gc, test_clock.  NULL with err filled. */
json_t *scheduler_admin (ctl_t *ctl, const char *cmd, json_t *req, char *err, size_t errlen);

#endif
