/*  buckets.h: Prometheus's cumulative "le" buckets, derived exactly from
    iofleet's log-linear histogram (histogram.h).

    The edges are split per power of two from 2^BUCKETS_LOW_BITS ns (about
    1 us) to 2^BUCKETS_HIGH_BITS ns (about 69 s): at split 8 (the fleet's
    histograms) 2^b, 2^b x 1.125, ..., 2^b x 1.875, each bucket at most
    12.5% of its lower edge wide; at split 1 (each target's) the powers of
    two alone.  Every edge is an edge of iofleet's own buckets, so each of
    these is an exact union of them: a sample is counted under le = edge
    less 1 ns exactly when it is below the edge.  Summed over any set of
    series, the buckets are those of the merged histogram, and
    histogram_quantile() is a quantile of the merge, off by at most the
    width of the bucket it falls in.

    A histogram is held as its slots: slot k (0 <= k < BUCKETS_EDGES) the
    samples below edge k and at or above edge k-1, slot BUCKETS_EDGES
    those from the last edge to iofleet's range's end; samples past that
    range (histogram.h's overflow) are in no slot, only in the count
    (le="+Inf").
*/
#ifndef IOF_BUCKETS_H
#define IOF_BUCKETS_H

#include <stdint.h>
#include <stdio.h>

#include "histogram.h"

#define BUCKETS_LOW_BITS    10
#define BUCKETS_HIGH_BITS   36
#define BUCKETS_FLEET       8       /* the fleet's split per power of two */
#define BUCKETS_TARGET      1       /* a target's */
/* The finite edges at split s. */
#define BUCKETS_EDGES(s)    ((BUCKETS_HIGH_BITS - BUCKETS_LOW_BITS) * (s) + 1)
/* The slots of a histogram at split s. */
#define BUCKETS_SLOTS(s)    (BUCKETS_EDGES (s) + 1)

/* Edge k at split s (1 or 8), in ns.  Can't fail. */
uint64_t buckets_edge (int split, int k);

/* The slot of each of iofleet's buckets at split s (1 or 8): an array of
   HIST_NBUCKETS.  Can't fail (the tables are made at the first call, under
   pthread_once). */
const uint8_t *buckets_slots (int split);

/* Adds h's samples to slots (BUCKETS_SLOTS (split) of them), visiting
   only the buckets h's min and max span.  Can't fail. */
void buckets_add (int split, const histogram_t *h, uint64_t *slots);

/* The exposition's lines of histogram name (label text labels, "" for
   none) from its slots at split, its count and sum (ns) into f: _bucket
   per edge and +Inf, _sum, _count.  Can't fail (f's errors are f's). */
void buckets_write (FILE *f, const char *name, const char *labels, int split,
                    const uint64_t *slots, uint64_t count, uint64_t sum_ns);

/* The same with the edges lo..hi alone.  Of a set of histograms written
   with the span buckets_span made over all of them, every bucket left
   out is 0 in every one (below the first samples of any) or its count
   without overflow in every one (above the last samples of any): summed
   over any of them, the buckets written are still exactly the merge's,
   and histogram_quantile() of the sum the same. */
void buckets_write_range (FILE *f, const char *name, const char *labels, int split,
                          const uint64_t *slots, uint64_t count, uint64_t sum_ns, int lo, int hi);

/* Widens the edges [*lo, *hi] (*lo < 0: none yet) to those that slots
   (at split) needs: from the edge below its first samples to the edge
   above its last (the last edge, for samples past it); an empty one needs
   none.  Can't fail. */
void buckets_span (int split, const uint64_t *slots, int *lo, int *hi);

#endif
