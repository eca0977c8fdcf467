/*  health_judge.h: what a step did to a drive, from its health records
    before and after the step (health.h) and its temperature each interval.

    - temperature: the highest and the mean over the intervals (and the
      two records), and the time above the drive's warning threshold
      (the intervals whose end reading is at or above it);
    - throttling: thermal-management transitions (temperature 1 and 2)
      and their seconds, after minus before;
    - errors: media errors, error-log entries, and ATA/SCSI reallocated,
      pending, uncorrectable sectors and grown defects that grew;
    - critical warning bits set after and not before;
    - write amplification: the NAND bytes over the host bytes the drive
      counted during the step, where it counts both (a SATA drive: from
      HEALTH_WAF_ATA_MIN_BYTES written).
    A figure the drive does not report is unknown (-1, or NAN for the
    write amplification), never 0.  The controller judges; reports and
    the CLI print what it judged.
*/
#ifndef IOF_HEALTH_JUDGE_H
#define IOF_HEALTH_JUDGE_H

#include "health.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* The least a SATA drive must have written in a step for its write
   amplification: its counters are in 1 GiB or 32 MiB units (NAND_Writes_1GiB,
   Host_Writes_32MiB) and many drives update them lazily, so a step that
   wrote 2 GiB would read 0.5, 1.0 or 1.5.  NVMe counts in 512,000-byte
   units and has no such floor. */
#define HEALTH_WAF_ATA_MIN_BYTES (100ll << 30)

/* What "hot" is when a drive reports no warning threshold (degrees C). */
#define HEALTH_HOT_DEFAULT_C 70

/* A drive's temperatures over a step, summed as they are read (a report
   holds no drive's whole series: a long step of a big fleet would not
   fit). */
typedef struct {
    int n;                          /* readings */
    double sum_c, max_c;
    double above_warning_s;         /* at or above the warning threshold given */
} health_temps_t;

/* Adds a reading of mc milli-degrees over an interval of span_ns, against
   the drive's threshold warning_c (-1: none).  Can't fail. */
void health_temps_add (health_temps_t *t, int32_t mc, uint64_t span_ns, int64_t warning_c);

/* The drive's warning threshold from its records (after's, else
   before's; either may be NULL), or -1.  Can't fail. */
int64_t health_warning_c (const health_t *before, const health_t *after);

typedef struct {
    bool available;                 /* both records are */
    char reason[HEALTH_REASON_MAX + 1];   /* why not ("" when available) */
    int nsamples;                   /* intervals with a temperature */
    bool have_temp;                 /* a temperature from the series or the records */
    double temp_max_c, temp_mean_c;
    int64_t warning_c;              /* the drive's threshold, -1 unknown */
    double above_warning_s;         /* time at or above it (series), 0 without one */
    int64_t throttle_transitions, throttle_seconds;
    int64_t media_errors, error_log_entries;
    int64_t reallocated, pending, uncorrectable, grown_defects;
    int64_t new_critical_bits;      /* -1 unknown */
    int64_t host_written, nand_written;
    double waf;                     /* NAN unknown (or nothing written) */
} health_judgement_t;

/* Judges a step: the records before and after (either may be NULL: not
   sent), and the temperatures read during it (NULL: none; summed with
   health_warning_c's threshold).  The highest temperature is the
   series', or the records' where there is no series (a record read
   before the step says how the last one left the drive, not this one).
   Can't fail. */
void health_judge (const health_t *before, const health_t *after, const health_temps_t *temps,
                   health_judgement_t *j);

/* Whether the step ran it hot: at or above its warning threshold (else
   HEALTH_HOT_DEFAULT_C), or throttled.  Can't fail. */
bool health_judge_hot (const health_judgement_t *j);

/* The findings, one line each ("hot: 78 C, 12 throttle transitions",
   "3 new media errors", "critical warning appeared: temperature"), into
   lines; the first is the drive's cause when it is an outlier.  Returns
   how many (at most max).  Can't fail. */
int health_judge_findings (const health_judgement_t *j, char lines[][160], int max);

/* j as JSON: every figure, null where unknown, and "findings".  NULL only
   when out of memory. */
json_t *health_judge_json (const health_judgement_t *j);

#endif
