/*  rounds.h: [iofleet] rounds=MAX and steady_state=STEP:METRIC[,...], the
    SNIA Solid State Storage Performance Test Specification's steady state
    as iofleet runs it fleet-wide.

    A plan with rounds= runs its steps (all but the precondition step) as
    rounds, again and again, at most MAX times.  With steady_state= a
    figure of one step (the "tracking variable": iops, bw or mean latency
    of each drive) is judged after every round, per drive, by the PTS's
    rule over the window of the last W rounds (W = window=, 5 in the
    PTS):
      range:  max - min of the window's figures  <= range% of their mean
      slope:  the excursion of the window's least-squares line, |slope| x
              (W - 1), the line's max - min over the window,
                                                 <= slope% of their mean
    (the PTS: 20% and 10%; both comparisons inclusive, as the PTS's "within").
    A drive is steady at the first round whose window meets both; the
    rounds stop once every drive measured in the round is steady, or after
    MAX rounds (the PTS: 25).  A drive never steady is named in the report
    and fails its verdict.  TKperf (StdyState.py) judges the same way.

    This differs from fio's steadystate= (steadystate.h), which judges one
    job's per-second samples within a run, not rounds of a test matrix.
*/
#ifndef IOF_ROUNDS_H
#define IOF_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>

#define ROUNDS_MAX          100     /* rounds=: 1..this */
#define ROUNDS_DEFAULT      25      /* steady_state= without rounds= (the PTS's) */
#define ROUNDS_WINDOW       5       /* window= by default (the PTS's) */
#define ROUNDS_RANGE_PCT    20.0    /* range= by default (the PTS's) */
#define ROUNDS_SLOPE_PCT    10.0    /* slope= by default (the PTS's) */
#define ROUNDS_STEP_MAX     64      /* a step's name, with its NUL (JOB_NAME_MAX) */

/* The tracked figure of a drive in a round, over all its directions: IOPS,
   bytes per second, or the ops-weighted mean completion latency (ns). */
typedef enum { ROUNDS_IOPS, ROUNDS_BW, ROUNDS_MEAN, ROUNDS_NMETRICS } rounds_metric_t;

/* The metric's name as written in plans and reports. */
extern const char *const rounds_metric_names[ROUNDS_NMETRICS];

typedef struct {
    char step[ROUNDS_STEP_MAX];     /* the step tracked, by its job name */
    rounds_metric_t metric;
    int window;                     /* rounds judged together, 2..ROUNDS_MAX */
    double range_pct, slope_pct;    /* limits, percent of the window's mean */
} rounds_rule_t;

/* What the rule found over one window. */
typedef struct {
    double mean;                    /* of the window's figures */
    double range_pct;               /* (max - min) / mean, percent */
    double slope;                   /* least-squares slope, per round */
    double excursion_pct;           /* |slope| x (window - 1) / mean, percent */
    bool range_ok, slope_ok;        /* each limit met */
    bool steady;                    /* both */
} rounds_window_t;

/* Parses steady_state='s value ("randwrite:iops,window=5,range=20%,slope=10%")
   into out, defaults for what it leaves.  Returns 0, or -1 with why
   naming the part and what is expected. */
int rounds_rule_parse (const char *text, rounds_rule_t *out, char *why, size_t whylen);

/* The rule as text, every setting given (for reports and logs). */
void rounds_rule_text (const rounds_rule_t *rule, char *buf, size_t cap);

/* Judges the window of rule->window figures ending at y[n - 1] (rounds
   1..n in order).  Returns false (and leaves out) when n < window.  A
   window whose mean is not positive is not steady. */
bool rounds_judge (const rounds_rule_t *rule, const double *y, int n, rounds_window_t *out);

/* The first round (1-based) whose window is steady, with its window in
   out; 0 when none of rounds window..n is. */
int rounds_first_steady (const rounds_rule_t *rule, const double *y, int n,
                         rounds_window_t *out);

#endif
