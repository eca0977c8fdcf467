/*  figures_json.h: the JSON of one direction's figures (a target's, a
    group's, the fleet's), shared by every report that shows them.
*/
#ifndef IOF_FIGURES_JSON_H
#define IOF_FIGURES_JSON_H

#include <jansson.h>
#include <sqlite3.h>

#include "histogram.h"
#include "controller.h"        /* LK_N */
#include "snapshot_store.h"

/* The latency figures of histograms h (clat, slat, lat) into o: "lat_ns"
   and "percentiles" are clat's (the default figure, as fio's), "latency"
   holds slat, clat and lat; extra[0..nextra) are percentiles added to
   the six every report has.  Can't fail. */
void figures_latency (json_t *o, const histogram_t h[LK_N], const double *extra, int nextra);
/* The same from the histogram columns col_clat, col_slat and col_lat of
   a row.  Can't fail. */
void figures_add_latency (json_t *o, sqlite3_stmt *st, int col_clat, int col_slat, int col_lat,
                          const double *extra, int nextra);
/* For imported fio results (stored percentiles in column col_pct): fio's
   own min/max/mean/stddev, and, when no histogram came with them, fio's
   percentiles as they were, marked "percentiles_only".  col_stats < 0
   when the row has no stats columns (the fleet's).  Can't fail. */
void figures_add_imported (json_t *o, sqlite3_stmt *st, int col_pct, int col_stats);
/* Moves o's direction objects after its other keys, in direction order
   (rows come sorted by name: read, trim, write).  Can't fail. */
void figures_dirs_in_order (json_t *o);

#endif
