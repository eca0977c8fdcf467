/*  figures_json.c: the JSON of one direction's figures (a target's, a
    group's, the fleet's): "lat_ns", "percentiles" and "latency" from
    merged histograms, and fio's own figures of an imported result.  See
    figures_json.h.
*/
#include "controller.h"
#include "figures.h"
#include "histogram.h"
#include "snapshot_store.h"

#include <string.h>

static const double s_pcts[] = { 50, 90, 95, 99, 99.9, 99.99 };
static const char *s_pct_keys[] = { "p50", "p90", "p95", "p99", "p99.9", "p99.99" };

static json_t *
figures_percentiles (const histogram_t *h, const double *extra, int nextra)
{
    json_t *p = json_object ();
    for (size_t i = 0; i < sizeof s_pcts / sizeof s_pcts[0]; i++)
        json_object_set_new (p, s_pct_keys[i],
                             json_integer ((json_int_t) histogram_percentile (h, s_pcts[i])));
    for (int i = 0; i < nextra; i++) {
        char key[32];
        snprintf (key, sizeof key, "p%g", extra[i]);
        json_object_set_new (p, key, json_integer ((json_int_t) histogram_percentile (h, extra[i])));
    }
    return p;
}

static json_t *
figures_lat_stats (const histogram_t *h, const double *extra, int nextra)
{
    json_t *o = json_pack ("{s:I, s:I, s:f, s:f, s:I}",
        "min", (json_int_t) (h->count ? h->min : 0), "max", (json_int_t) h->max,
        "mean", histogram_mean (h), "stddev", histogram_stddev (h),
        "N", (json_int_t) h->count);
    json_object_set_new (o, "percentiles", figures_percentiles (h, extra, nextra));
    return o;
}

/* The latency figures of histograms h (clat, slat, lat) into o, as
   figures_add_latency.  Can't fail. */
void
figures_latency (json_t *o, const histogram_t h[LK_N], const double *extra, int nextra)
{
    const histogram_t *c = &h[LK_CLAT];
    json_object_set_new (o, "lat_ns", json_pack ("{s:I, s:I, s:f, s:f}",
        "min", (json_int_t) (c->count ? c->min : 0), "max", (json_int_t) c->max,
        "mean", histogram_mean (c), "stddev", histogram_stddev (c)));
    json_object_set_new (o, "percentiles", figures_percentiles (c, extra, nextra));
    json_object_set_new (o, "histogram_count", json_integer ((json_int_t) c->count));
    json_object_set_new (o, "latency", json_pack ("{s:o, s:o, s:o}",
        "slat", figures_lat_stats (&h[LK_SLAT], extra, nextra),
        "clat", figures_lat_stats (c, extra, nextra),
        "lat", figures_lat_stats (&h[LK_LAT], extra, nextra)));
}

/* The latency figures of the histogram columns col_clat, col_slat and
   col_lat of a row into o, as figures_latency.  Can't fail. */
void
figures_add_latency (json_t *o, sqlite3_stmt *st, int col_clat, int col_slat, int col_lat,
             const double *extra, int nextra)
{
    static _Thread_local histogram_t h[LK_N];
    int cols[LK_N] = { col_clat, col_slat, col_lat };
    for (int k = 0; k < LK_N; k++) {
        const void *blob = sqlite3_column_blob (st, cols[k]);
        int len = sqlite3_column_bytes (st, cols[k]);
        if (!blob || len <= 0 || histogram_decode (&h[k], blob, (size_t) len) != 0)
            histogram_reset (&h[k]);
    }
    figures_latency (o, h, extra, nextra);
}

/* For imported fio results (stored percentiles in column col_pct): fio's
   own min/max/mean/stddev, and, when no histogram came with them, fio's
   percentiles as they were, marked "percentiles_only".  col_stats < 0
   when the row has no stats columns (the fleet's). */
void
figures_add_imported (json_t *o, sqlite3_stmt *st, int col_pct, int col_stats)
{
    if (sqlite3_column_type (st, col_pct) == SQLITE_NULL)
        return;
    if (col_stats >= 0)
        json_object_set_new (o, "lat_ns", json_pack ("{s:I, s:I, s:f, s:f}",
            "min", (json_int_t) sqlite3_column_int64 (st, col_stats),
            "max", (json_int_t) sqlite3_column_int64 (st, col_stats + 1),
            "mean", sqlite3_column_double (st, col_stats + 2),
            "stddev", sqlite3_column_double (st, col_stats + 3)));
    if (json_integer_value (json_object_get (o, "histogram_count")) > 0)
        return;
    json_t *pct = json_loads ((const char *) sqlite3_column_text (st, col_pct),
                              JSON_DECODE_ANY, NULL);
    json_object_set_new (o, "percentiles", pct ? pct : json_null ());
    json_object_set_new (o, "percentiles_only", json_true ());
    json_object_set_new (o, "latency", json_null ());    /* no histograms to show */
    if (col_stats < 0)
        json_object_set_new (o, "lat_ns", json_null ());
}


/* Moves o's direction objects after its other keys, in direction order
   (rows come sorted by name: read, trim, write).  Can't fail. */
void
figures_dirs_in_order (json_t *o)
{
    for (int d = 0; d < DIR_COUNT; d++) {
        json_t *x = json_object_get (o, dir_name (d));
        if (!x)
            continue;
        json_incref (x);
        json_object_del (o, dir_name (d));
        json_object_set_new (o, dir_name (d), x);
    }
}
