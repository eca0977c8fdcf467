/*  ab.h: iofleet compare ... --template ab: a comparison in the shape of
    the backplane A/B report iofleet grew from (../shared/seeds, "001"):
    per test (step, and group when the comparison has groups) the change
    of B against A in percent of throughput (IOPS, bandwidth) and latency
    (p50, p99), each with its significance (compare.c's rule), and a
    conclusion per test and overall from a stated threshold:

      B worse     some figure is significantly worse (throughput down,
                  latency up) by at least threshold_pct, none better;
      B better    the other way round;
      mixed       both;
      not judged  none of those, and some figure compare could not judge
                  (significance null: too few intervals, see compare.c);
      no significant difference beyond threshold_pct  otherwise.

    The overall conclusion counts the tests of each kind and names the
    largest significant change for the worse.  The rows are compare_run's;
    this only arranges and judges them.

    For the report's charts, from the two sides' reports:
      by_bs              the tests of one kind (rw, mix, group) at two or
                         more block sizes: per block size A's and B's IOPS
                         and bandwidth and the deltas (the report's
                         throughput by block size, 4k .. 1024k);
      write_saturation   per write-saturation step (pts.h's: size-bound
                         random writes) in both, A's and B's series: per
                         interval the seconds since the step's first, the
                         IOPS per drive and the writes' p99.
*/
#ifndef IOF_AB_H
#define IOF_AB_H

#include <jansson.h>

#define AB_THRESHOLD_PCT 5.0        /* --ab-threshold by default */

/* The "ab" object of the comparison cmp (compare_run's result of the
   reports rep_a and rep_b) at threshold_pct.  New reference; NULL only when out of memory. */
json_t *ab_json (json_t *cmp, double threshold_pct, json_t *rep_a, json_t *rep_b);

#endif
