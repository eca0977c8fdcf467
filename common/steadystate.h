/*  steadystate.h: fio's steady-state detection (steadystate=, ss_dur=,
    ss_ramp=), fed one sample per second.

    As fio defines it, over the last ss_dur seconds of samples (after ss_ramp):
      iops / bw:             max |x_i - mean|        < limit
      iops_slope / bw_slope: |least-squares slope|   < limit
    where with a '%' limit both sides are taken relative to the mean
    (deviation / mean, slope / mean).  The comparison is strict, as fio's
    (so a limit of 0 is never met).
*/
#ifndef IOF_STEADYSTATE_H
#define IOF_STEADYSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "jobfile.h"

typedef struct steadystate steadystate_t;

/* A detector for mode (JOB_SS_IOPS ... JOB_SS_BW_SLOPE) over a window of
   nsamples samples (ss_dur / 1 s), ignoring the first nramp samples.
   limit is the limit as parsed (a fraction when pct).  Returns NULL on
   bad arguments (mode NONE, nsamples < 2) or no memory. */
steadystate_t *steadystate_new (job_ss_t mode, double limit, bool pct, uint32_t nsamples,
                                uint32_t nramp);

void steadystate_destroy (steadystate_t **self_p);

/* Adds one per-second sample (IOPS and bytes per second).  Returns true
   when the window is full and meets the criterion.  Can't fail. */
bool steadystate_add (steadystate_t *self, double iops, double bw);

/* The criterion of the last full window (deviation or slope, relative
   when pct), or a negative value while the window is not full yet. */
double steadystate_criterion (const steadystate_t *self);

/* Whether the criterion has been met (latched once true). */
bool steadystate_reached (const steadystate_t *self);

#endif
