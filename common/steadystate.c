/*  steadystate.c: fio's steady-state detection (steadystate=, ss_dur=,
    ss_ramp=), fed one sample per second.

    Source of the definitions: fio's steadystate.c (steadystate_slope and
    steadystate_deviation; the same code from fio 2.19, where steady state
    came in, to 3.3x) and the HOWTO entries for steadystate, ss_dur and
    ss_ramp.  Over a window of the last ss_dur one-second samples:

      iops, bw (fio's "mean dev"):
          mean      = sum(y) / n
          deviation = max over the window of |y_i - mean|
          criterion = deviation            (absolute limit)
                    = deviation / mean     (limit given with '%')
      iops_slope, bw_slope:
          slope     = least-squares slope of y_i against x_i = i,
                      i = 0 (oldest) .. n-1 (newest), so in units per second
          criterion = slope                (absolute limit)
                    = slope / mean         (limit given with '%'),
                      mean being the mean of the same window
      steady when |criterion| < limit.

    Subtleties, all as in fio:
      - The comparison is strict (fio: `if (criterion < limit)`), so a
        limit of 0 is never met, not even by a constant series.
      - The percentage forms are relative to the mean of the current window,
        not to the first sample or to the slope's intercept.
      - x is the sample index: samples are assumed exactly one second apart
        (fio says so in a comment, as its samples are often off by a few ms).
      - iops and bw are taken from the same per-second sample; the mode only
        chooses which one is judged.  bw is in bytes per second, so an
        absolute bw limit is in bytes per second (fio parses it as a size).
      - Nothing is judged until the window is full: the first verdict comes
        with the ss_dur-th sample after the ramp.
      - ss_ramp: fio starts recording one second after ss_ramp has elapsed;
        here the caller turns that into nramp samples, which are dropped.

    Differences from fio, none of which changes a verdict fio would reach on
    the same numbers:
      - fio writes the percentage criterion as 100 * x / mean and the limit
        in percent; here both are fractions (the contract of jobfile.h), so
        our criterion is fio's divided by 100.
      - fio's samples are integers (1000 * delta / elapsed_ms); ours are the
        caller's doubles.
      - fio keeps running sums (sum_y, sum_xy) updated in O(1); we recompute
        the window in O(n) each second (n is ss_dur in seconds, small).  The
        slope is computed in the centred form sum((x - x_mean) * y) / Sxx,
        which is algebraically fio's (sum_xy - sum_x * sum_y / n) /
        (sum_x2 - sum_x^2 / n) without its cancellation, and a stray NaN
        sample leaves the window after n samples instead of poisoning the
        sums for good.
      - With '%' and a window mean of 0, fio divides by zero (NaN, never
        steady); we report +infinity, which is never steady either.
      - The criterion we report is |criterion|: fio keeps the slope's sign,
        but the contract reserves negative values for "window not full".
*/
#include "steadystate.h"

#include <math.h>
#include <stdlib.h>

struct steadystate {
    job_ss_t mode;
    double limit;               /* fraction when pct */
    bool pct;
    uint32_t n;                 /* window length in samples */
    uint32_t nramp;             /* samples to drop first */
    uint64_t nseen;             /* samples given so far, ramp included */
    uint32_t nfilled;           /* samples in the window, <= n */
    uint32_t next;              /* ring slot of the next sample */
    double criterion;           /* of the last full window; -1 before */
    bool reached;               /* latched */
    double *ring;               /* n samples of the judged quantity */
};

steadystate_t *
steadystate_new (job_ss_t mode, double limit, bool pct, uint32_t nsamples, uint32_t nramp)
{
    if (mode != JOB_SS_IOPS && mode != JOB_SS_IOPS_SLOPE
        && mode != JOB_SS_BW && mode != JOB_SS_BW_SLOPE)
        return NULL;
    if (nsamples < 2 || !(limit >= 0) || isinf (limit))
        return NULL;                //  also NaN

    steadystate_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->ring = calloc (nsamples, sizeof *self->ring);
    if (!self->ring) {
        free (self);
        return NULL;
    }
    self->mode = mode;
    self->limit = limit;
    self->pct = pct;
    self->n = nsamples;
    self->nramp = nramp;
    self->criterion = -1;
    return self;
}

void
steadystate_destroy (steadystate_t **self_p)
{
    if (self_p && *self_p) {
        free ((*self_p)->ring);
        free (*self_p);
        *self_p = NULL;
    }
}

//  The criterion of the full window, see the header comment.  Can't fail.
static double
s_window_criterion (const steadystate_t *self)
{
    const uint32_t n = self->n;
    //  The window is full, so self->next is the oldest sample's slot.
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += self->ring[i];
    double mean = sum / n;

    double value;
    if (self->mode == JOB_SS_IOPS_SLOPE || self->mode == JOB_SS_BW_SLOPE) {
        //  x_i = i for the i-th oldest sample; x_mean = (n - 1) / 2 and
        //  Sxx = sum (i - x_mean)^2 = n (n^2 - 1) / 12.  sum (x_i - x_mean)
        //  is 0, so sum ((x_i - x_mean) * y_i) is the covariance sum.
        double xmean = (n - 1) / 2.0;
        double sxx = (double) n * ((double) n * n - 1) / 12.0;
        double sxy = 0;
        for (uint32_t i = 0; i < n; i++)
            sxy += (i - xmean) * self->ring[(self->next + i) % n];
        value = fabs (sxy / sxx);
    }
    else {
        value = 0;
        for (uint32_t i = 0; i < n; i++) {
            double d = fabs (self->ring[i] - mean);
            if (d > value || isnan (d))
                value = d;
        }
    }
    if (!self->pct)
        return value;
    if (mean == 0)
        return isnan (value) ? value : INFINITY;
    return value / fabs (mean);
}

bool
steadystate_add (steadystate_t *self, double iops, double bw)
{
    //  Can't fail.
    self->nseen++;
    if (self->nseen <= self->nramp)
        return false;

    bool use_iops = self->mode == JOB_SS_IOPS || self->mode == JOB_SS_IOPS_SLOPE;
    self->ring[self->next] = use_iops ? iops : bw;
    self->next = (self->next + 1) % self->n;
    if (self->nfilled < self->n)
        self->nfilled++;
    if (self->nfilled < self->n)
        return false;

    self->criterion = s_window_criterion (self);
    //  Strict, as fio; false for a NaN criterion.
    bool met = self->criterion < self->limit;
    if (met)
        self->reached = true;
    return met;
}

double
steadystate_criterion (const steadystate_t *self)
{
    return self->criterion;
}

bool
steadystate_reached (const steadystate_t *self)
{
    return self->reached;
}
