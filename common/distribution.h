/*  distribution.h: fio's random_distribution=, its kinds, parameters and
    rules.  One home for the rules: the job-file parser (jobfile.c) and the
    check of a JobSpec that came over the wire (message.c) both ask
    dist_check; the agent draws offsets from it (agent/offsets.c).

    As in fio 3.33 (options.c, lib/zipf.c, lib/gauss.c, zone-dist.c):
      zipf:THETA[:CENTER]     THETA > 0 and not 1 (fio's default 1.1)
      pareto:H[:CENTER]       0 < H < 1 (default 0.2)
      normal:DEV[:CENTER]     0 <= DEV < 100, percent of the region (default 0)
      zoned:A/S:A/S...        A percent of the I/O goes to the next S percent
                              of the region; the A sum to 100, the S to at
                              most 100 (a missing S takes an equal share of
                              what the others leave)
      zoned_abs:A/SIZE:...    the same with zones of SIZE bytes
    CENTER (0..1) only rotates where the hashed ranks land, as in fio.
    fio turns the random map off for every one of them.
*/
#ifndef IOF_DISTRIBUTION_H
#define IOF_DISTRIBUTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIST_ZONES_MAX 256          /* fio's ZONESPLIT_MAX */
#define DIST_PARAM_MAX 100          /* zipf's theta stays below it */

typedef enum {
    JOB_DIST_RANDOM = 0,            /* random (uniform) */
    JOB_DIST_ZIPF,
    JOB_DIST_PARETO,
    JOB_DIST_NORMAL,
    JOB_DIST_ZONED,
    JOB_DIST_ZONED_ABS,
} job_dist_t;

#define JOB_DIST_LAST JOB_DIST_ZONED_ABS

typedef struct {
    uint32_t access_pct;            /* percent of the I/Os */
    uint64_t size;                  /* percent of the region (zoned) or bytes (zoned_abs) */
} dist_zone_t;

typedef struct {
    job_dist_t kind;
    double param;                   /* zipf's theta, pareto's H, normal's deviation */
    bool centered;
    double center;                  /* 0..1, when centered */
    int nzones;
    dist_zone_t zones[DIST_ZONES_MAX];
} dist_t;

/* fio's name of a kind ("random", "zipf", ...).  Can't fail. */
const char *dist_name (job_dist_t kind);

/* Checks d against fio's rules (above).  Returns 0, or -1 with err saying
   which value breaks which limit. */
int dist_check (const dist_t *d, char *err, size_t errlen);

#endif
