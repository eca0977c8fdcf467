/*  fio_json.h: results in fio's own output formats, so that tools which
    read fio's JSON read iofleet's: --output-format json and json+ (with
    "bins"), and fio-like normal text.

    Built with jansson.  Field names, units and nesting follow fio 3.x:
    bw in KiB/s, bw_bytes in B/s, runtime in ms, *_ns objects with min, max,
    mean, stddev, N, and on clat_ns only (fio 3.33's defaults:
    clat_percentiles=1, lat_percentiles=0) "percentile" keyed "99.000000";
    json+ adds "bins" to clat_ns, keyed by each non-empty bin's value in ns
    (fio's 64-sub-bucket layout: ours merged two by two, which is exact).
*/
#ifndef IOF_FIO_JSON_H
#define IOF_FIO_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "direction.h"
#include "histogram.h"
#include "jobfile.h"

typedef struct {
    uint64_t ops;                   /* total_ios */
    uint64_t bytes;                 /* io_bytes */
    uint64_t errors;
    uint64_t runtime_ns;            /* the measured window */
    const histogram_t *slat;        /* NULL: not measured (zeros and N 0 in
                                       JSON, as fio; no line in text) */
    const histogram_t *clat;        /* NULL only in a direction without I/O */
    const histogram_t *lat;         /* the same */
    const double *iops_samples;     /* per-second samples, for iops_min ... */
    const double *bw_samples;       /* bytes per second, same count */
    int nsamples;
} fio_dir_t;

typedef struct {
    const char *jobname;
    const char *hostname;           /* NULL in local mode; set in fleet reports */
    int groupid;
    int error;                      /* errno of the first error, 0 */
    const job_t *job;               /* for "job options"; may be NULL */
    fio_dir_t dir[DIR_COUNT];       /* read, write, trim (direction.h); one
                                       left all zero prints as fio prints a
                                       direction without I/O */
    double usr_cpu, sys_cpu;        /* percent of the job's runtime */
    uint64_t ctx;                   /* context switches */
    uint64_t job_runtime_ms;        /* wall time of the job */
    uint32_t latency_depth;         /* latency_target: the depth found; 0 = none */
    int members;                    /* the job copies merged into this entry
                                       (group_reporting): text's jobs=; 0: 1 */
    const double *percentiles;      /* NULL (or npercentiles 0): fio's
                                       default list */
    int npercentiles;
} fio_job_t;

/* fio's default percentile_list. */
extern const double fio_default_percentiles[];
extern const int fio_default_npercentiles;

/* The whole fio-compatible JSON document:
   {"fio version": version, "timestamp", "timestamp_ms", "time",
    "global options": {}, "jobs": [...], "disk_util": []}.
   plus adds "bins" to clat_ns.  Returns a new reference, or NULL
   on allocation failure. */
json_t *fio_json_report (const fio_job_t *jobs, int njobs, bool plus, const char *version,
                         uint64_t timestamp_ms);

/* fio-like normal text output for the same jobs. */
void fio_text_report (FILE *f, const fio_job_t *jobs, int njobs, const char *version);

#endif
