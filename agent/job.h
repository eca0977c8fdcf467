/*  job.h: one step running on an agent: its targets, its worker threads and
    the aligned snapshot intervals they fill.

    Workers own their engine and their histograms.  Interval k of a step
    covers [measure_start + k*interval, measure_start + (k+1)*interval) on
    the monotonic clock; a worker files each completion into the interval of
    its completion time, and publishes interval k when its clock passes the
    end of k.  The main thread collects interval k from every worker
    (job_collect) into one snapshot.  Each worker has two interval slots, so
    no lock is taken on the I/O path: slot k%2 belongs to the worker until it
    publishes k, then to the main thread until it marks k consumed.
*/
#ifndef IOF_JOB_H
#define IOF_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "dir_stats.h"
#include "histogram.h"
#include "message.h"
#include "targets.h"

typedef struct job iojob_t;   /* not jobfile.h's job_t: that is the parsed job */

/* Creates a job from a validated JobSpec: job_plan, job_check_space of
   it alone, job_open.  Returns NULL with a reason in err (the REFUSED
   reason) on any failure. */
iojob_t *job_new (const Iofleet__JobSpec *spec, uint64_t run, uint32_t step,
                const target_policy_t *pol, char *err, size_t errlen);

/* The first half of job_new: the job's settings, and every filename
   resolved against the policy; nothing is created, opened or written.
   Returns NULL with a reason in err. */
iojob_t *job_plan (const Iofleet__JobSpec *spec, uint64_t run, uint32_t step,
                   const target_policy_t *pol, char *err, size_t errlen);

/* Whether what the planned jobs lay out fits where it goes (files that
   grow, on each file system; block devices that must hold a region),
   before any of them writes a byte: jobs that run together share the
   space.  Returns 0, or -ENOSPC (or another -errno) with err naming the
   option, both numbers and what to do. */
int job_check_space (iojob_t *const *jobs, int njobs, char *err, size_t errlen);

/* The second half of job_new, on a planned job and its spec: opens every
   target (creating and laying files out; stopped by the policy's hooks),
   plans the regions, allocates the workers.  Warns (log) when iodepth is
   more than the blocks of a worker's region.  Returns 0, or -1 with err
   filled (destroy the job then). */
int job_open (iojob_t *self, const Iofleet__JobSpec *spec, const target_policy_t *pol,
              char *err, size_t errlen);

/* Stops workers (if started), closes targets, frees, NULLs *self_p. */
void job_destroy (iojob_t **self_p);

uint64_t job_run (const iojob_t *self);
uint32_t job_step (const iojob_t *self);
int job_ntargets (const iojob_t *self);
const char *job_target_path (const iojob_t *self, int i);
/* The bytes the opened job will move on its target i if it runs to its
   size-bound end: each worker's io_limit (trims and writes of trimwrite
   counted both) times loops, shared equally by the targets it goes round;
   0 when the job is time-bound or counts I/Os (number_ios): unknown.  For
   the controller's per-drive progress (READY's planned_bytes).  Can't
   fail. */
uint64_t job_planned_bytes (const iojob_t *self, int i);

/* Starts the workers; they sleep until mono_start, then run.  Returns 0 or
   -errno (threads could not be created; the job is then stopped). */
int job_start (iojob_t *self, uint64_t mono_start);

/* Asks the workers to stop at their next completion (abort). */
void job_stop (iojob_t *self);

/* Turns latency recording off (counting only): for measuring what the
   histograms cost.  Call before job_start. */
void job_set_histograms (iojob_t *self, bool on);

/* True once the job's steadystate= criterion was met (the job then ended
   early, as fio's does). */
bool job_steady (const iojob_t *self);

/* Wall time from the first worker's start to the last one's end, in ns
   (0 while running). */
uint64_t job_elapsed (const iojob_t *self);

/* The longest time a worker spent reading back a pass's writes at its end
   (verify=, verify_only), in ns: fio's runtime of reads in a job that
   does not read (0 with verify_backlog, whose read-backs go with the
   writes).  Meaningful once the job ended. */
uint64_t job_read_back_ns (const iojob_t *self);

/* latency_target: the depth its search settled on (or stood at when the
   job ended); 0 when the job has no target.  Call after the job ended. */
uint32_t job_latency_depth (const iojob_t *self);

/* Whether job_collect keeps each worker's figures apart (fio's report per
   job copy, without group_reporting).  Off by default.  Can't fail. */
void job_set_per_worker (iojob_t *self, bool on);

/* exitall: when this job ends, the jobs running with it are to stop. */
bool job_exitall (const iojob_t *self);
int job_nworkers (const iojob_t *self);

/* If every worker has published interval k (the next uncollected one),
   merges them into out[target][dir] (ntargets x DIR_COUNT entries (direction.h), reset first;
   per worker: out[worker][target][dir], nworkers x ntargets x DIR_COUNT),
   marks k consumed, fills *seq, *t_start_mono and *t_end_mono and returns 1.
   Returns 0 when not ready yet.  Returns -1 when the job has ended and all
   its intervals were collected. */
int job_collect (iojob_t *self, dir_stats_t *out, uint32_t *seq, uint64_t *t_start_mono,
                 uint64_t *t_end_mono);

/* Monotonic time at which the first worker actually began I/O (0 = not yet). */
uint64_t job_actual_start (const iojob_t *self);

/* First error of a worker ("" when none): one that stopped it, or a
   read-back that did not match what was written, which starts with
   JOB_VERIFY_ERROR (the worker goes on unless verify_fatal). */
const char *job_error (const iojob_t *self);
#define JOB_VERIFY_ERROR "verify: "

/* Worker i's first error, as job_error ("" when none or still running). */
const char *job_worker_error (const iojob_t *self, int i);

#endif
