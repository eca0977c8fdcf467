/*  step.h: the jobs an agent runs together in one step (fio runs job
    sections without stonewall between them concurrently).  A step is used
    like one job: its targets are its jobs' targets one after the other,
    and interval k of the step is interval k of every job, merged.  A fleet
    run (workload.c) and the local mode (local.c, one step per group of a
    job file, collected job by job) both run their jobs through it. */
#ifndef IOF_STEP_H
#define IOF_STEP_H

#include "job.h"
#include "message.h"

typedef struct step step_t;

/* Creates every job of the PREPARE (job, then more_jobs): all planned,
   the space their layouts take checked together (job_check_space), and
   only then opened and laid out (stopped by the policy's hooks).  Returns
   NULL with the REFUSED reason in err (naming the job) if any cannot be
   set up; nothing is left open then. */
step_t *step_new (const Iofleet__Prepare *p, const target_policy_t *pol, char *err,
                  size_t errlen);

/* As step_new, from the specs of njobs jobs (any number) numbered run and
   step, into *out.  Returns 0; or -EINVAL with *failed the index of the
   job that could not be planned or opened, or another -errno (-ENOSPC:
   job_check_space) with *failed -1; err then holds the reason alone,
   naming no job. */
int step_open (step_t **out, const Iofleet__JobSpec *const *specs, int njobs, uint64_t run,
               uint32_t step, const target_policy_t *pol, int *failed, char *err,
               size_t errlen);

void step_destroy (step_t **self_p);

uint64_t step_run (const step_t *self);
uint32_t step_step (const step_t *self);
int step_ntargets (const step_t *self);
int step_njobs (const step_t *self);
/* Job j of the step, in the order given.  Can't fail. */
iojob_t *step_job (const step_t *self, int j);
const char *step_target_path (const step_t *self, int i);
/* job_planned_bytes of the step's target i (0: unknown).  Can't fail. */
uint64_t step_planned_bytes (const step_t *self, int i);

/* Starts every job's workers at mono_start.  Returns 0, or -errno with the
   index of the job that could not start in *failed (when not NULL) and
   every job stopped. */
int step_start (step_t *self, uint64_t mono_start, int *failed);
void step_stop (step_t *self);

/* job_collect of job j alone, into out (its targets only), with fio's
   exitall: when j ends and has it, every job of the step is stopped.
   For a caller that keeps each job's figures apart; not to be mixed with
   step_collect. */
int step_collect_job (step_t *self, int j, dir_stats_t *out, uint32_t *seq, uint64_t *t_start,
                      uint64_t *t_end);

/* As job_collect, over all jobs: returns 1 with interval *seq merged into
   out (step_ntargets x DIR_COUNT entries) once every job that still runs has
   published it, 0 when not yet, -1 when every job has ended and every
   interval was collected. */
int step_collect (step_t *self, dir_stats_t *out, uint32_t *seq, uint64_t *t_start,
                  uint64_t *t_end);

/* Earliest actual start over the jobs (monotonic ns; 0 = not yet). */
uint64_t step_actual_start (const step_t *self);
/* The first error of any job ("" when none). */
const char *step_error (const step_t *self);

/* latency_target: each job's depth found (job_latency_depth) into
   out[0..njobs), the Prepare's order; returns njobs, or 0 when no job of
   the step has a target.  out holds MSG_JOBS_MAX.  Can't fail. */
int step_latency_depths (const step_t *self, uint32_t *out);

/* Whether some rate-limited job of the step issued above its pace in the
   interval just collected (interval: step_collect's out; len_ns: its
   length): pacing.h's pace_above, per job.  Can't fail. */
bool step_above_pace (const step_t *self, const dir_stats_t *interval, uint64_t len_ns);

#endif
