/*  dir_stats.h: one direction's counts and latency histograms, the unit a
    job's workers fill and its snapshots carry.
*/
#ifndef IOF_DIR_STATS_H
#define IOF_DIR_STATS_H

#include <stdint.h>

#include "histogram.h"

/* One direction of one target over one interval (or a whole step).
   Latencies as fio splits them: slat from preparing an I/O to its
   submission returning, clat from there to its completion being reaped,
   lat the sum (clat is the figure reported by default, as in fio). */
typedef struct {
    uint64_t ops, bytes, errors;
    histogram_t slat, clat, lat;
} dir_stats_t;

/* Resets counters and histograms.  Can't fail. */
void dir_stats_reset (dir_stats_t *d);
/* Adds src into dst.  Can't fail. */
void dir_stats_merge (dir_stats_t *dst, const dir_stats_t *src);

#endif
