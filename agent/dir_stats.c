/*  dir_stats.c: one direction's counts and latency histograms (see
    dir_stats.h).
*/
#include "dir_stats.h"

/* Resets counters and histograms.  Can't fail. */
void
dir_stats_reset (dir_stats_t *d)
{
    d->ops = d->bytes = d->errors = 0;
    histogram_reset (&d->slat);
    histogram_reset (&d->clat);
    histogram_reset (&d->lat);
}

/* Adds src into dst.  Can't fail. */
void
dir_stats_merge (dir_stats_t *dst, const dir_stats_t *src)
{
    dst->ops += src->ops;
    dst->bytes += src->bytes;
    dst->errors += src->errors;
    histogram_merge (&dst->slat, &src->slat);
    histogram_merge (&dst->clat, &src->clat);
    histogram_merge (&dst->lat, &src->lat);
}
