/*  pts.h: a run's SNIA PTS report (iofleet report RUN --template pts), the
    shape TKperf gives its IOPS, latency and throughput tests, for every
    drive of a run with rounds= (rounds.h), computed here so that the CLI
    only renders it:

      drives   per drive: whether and where it became steady, its
               measurement window (the steady window; for a drive never
               steady the last window, flagged; without steady_state= all
               the rounds run), and per step of the plan (a cell of the
               test matrix: rw, rwmixread, bs) the mean over the window's
               rounds of its IOPS and bandwidth (all directions) and its
               mean completion latency (weighted by ops); with
               steady_state=, the PTS's verification of its window
               ("verification": the tracked figures, mean, range,
               least-squares slope and the line's ends, the bands the page
               draws, each rule's verdict);
      fleet    per cell the mean of the drives' figures (per drive), over
               the steady drives only when some are, with their count;
      matrix   the matrix's layout: rows (block sizes) and columns (each
               cell's "column": its mix, "R65/W35", or its rw), in the
               plan's order, so that the renderers only lay it out;

      write_saturation  per size-bound random-write step (plans/pts-wsat.fio's
               4 KiB writes until the drive is written 4 times): per
               interval of the fleet's series the IOPS per drive, the
               writes' p99 and mean, the bytes written per drive so far;
               the first and the last minute's IOPS and the change.  A run
               with such a step and no rounds gets this section alone.

    The per-round figures, the rule and the steady rounds are the run's
    "rounds" (rounds.c); this reads what those stored.
*/
#ifndef IOF_PTS_H
#define IOF_PTS_H

#include "store.h"

#include <jansson.h>
#include <stdbool.h>

/* The PTS report of run (see above): {"template", "run", "plan",
   "status", "rounds" (the report's), "write_saturation", "drives",
   "fleet"}.  NULL with err: a run with neither rounds= nor a
   write-saturation step (named, with what to run instead), a database
   error, out of memory. */
json_t *pts_json (store_t *store, int64_t run, char *err, size_t errlen);

/* Whether a step's job (its JSON) is a write-saturation test: size-bound
   random writes (rw=randwrite, not time_based). */
bool pts_is_wsat (json_t *job);

#endif
