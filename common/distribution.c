/*  distribution.c: see distribution.h. */
#include "distribution.h"

#include <stdio.h>

const char *
dist_name (job_dist_t kind)
{
    static const char *const names[] = { "random", "zipf", "pareto", "normal", "zoned",
                                         "zoned_abs" };
    return (unsigned) kind <= JOB_DIST_LAST ? names[kind] : "unknown";
}

int
dist_check (const dist_t *d, char *err, size_t errlen)
{
    if ((unsigned) d->kind > JOB_DIST_LAST) {
        snprintf (err, errlen, "distribution %d is not one of fio's (0..%d)", (int) d->kind,
                  JOB_DIST_LAST);
        return -1;
    }
    double p = d->param;
    switch (d->kind) {
    case JOB_DIST_ZIPF:
        if (!(p > 0 && p < DIST_PARAM_MAX && p != 1.0)) {
            snprintf (err, errlen, "the zipf theta %g must be above 0, below %d and not 1", p,
                      DIST_PARAM_MAX);
            return -1;
        }
        break;
    case JOB_DIST_PARETO:
        if (!(p > 0 && p < 1)) {
            snprintf (err, errlen, "the pareto value %g must be above 0 and below 1 (fio's "
                      "range)", p);
            return -1;
        }
        break;
    case JOB_DIST_NORMAL:
        if (!(p >= 0 && p < 100)) {
            snprintf (err, errlen, "the normal deviation %g must be 0 or more and below 100 "
                      "(percent of the region)", p);
            return -1;
        }
        break;
    default:
        break;
    }
    bool ranked = d->kind == JOB_DIST_ZIPF || d->kind == JOB_DIST_PARETO
               || d->kind == JOB_DIST_NORMAL;
    if (d->centered && !ranked) {
        snprintf (err, errlen, "%s takes no center", dist_name (d->kind));
        return -1;
    }
    if (d->centered && !(d->center >= 0 && d->center <= 1)) {
        snprintf (err, errlen, "the center %g must be within 0..1 (fio's range)", d->center);
        return -1;
    }
    bool zoned = d->kind == JOB_DIST_ZONED || d->kind == JOB_DIST_ZONED_ABS;
    if (!zoned) {
        if (d->nzones != 0) {
            snprintf (err, errlen, "%s takes no zones", dist_name (d->kind));
            return -1;
        }
        return 0;
    }
    if (d->nzones < 1 || d->nzones > DIST_ZONES_MAX) {
        snprintf (err, errlen, "%d zones, limit 1..%d", d->nzones, DIST_ZONES_MAX);
        return -1;
    }
    uint64_t access = 0, size = 0;
    for (int i = 0; i < d->nzones; i++) {
        if (d->zones[i].access_pct > 100) {
            snprintf (err, errlen, "zone %d takes %u%% of the I/O, over 100", i + 1,
                      d->zones[i].access_pct);
            return -1;
        }
        access += d->zones[i].access_pct;
        if (d->kind == JOB_DIST_ZONED) {
            if (d->zones[i].size > 100) {
                snprintf (err, errlen, "zone %d is %llu%% of the region, over 100", i + 1,
                          (unsigned long long) d->zones[i].size);
                return -1;
            }
            size += d->zones[i].size;
        }
        else if (d->zones[i].size > UINT64_MAX / 2 - size) {
            snprintf (err, errlen, "the zones' sizes add up past %llu bytes",
                      (unsigned long long) (UINT64_MAX / 2));
            return -1;
        }
        else
            size += d->zones[i].size;
    }
    if (access != 100) {
        snprintf (err, errlen, "the zones' access percentages add up to %llu, not 100 (as fio "
                  "requires)", (unsigned long long) access);
        return -1;
    }
    if (d->kind == JOB_DIST_ZONED && size > 100) {
        snprintf (err, errlen, "the zones' sizes add up to %llu%% of the region, over 100",
                  (unsigned long long) size);
        return -1;
    }
    return 0;
}
