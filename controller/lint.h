/*  lint.h: the tuning checklist of the source report, applied to every
    drive a step runs on. */
#ifndef IOF_LINT_H
#define IOF_LINT_H

#include <jansson.h>

#include "jobfile.h"

/* Warnings for drive d (an entry of inv's "drives") under job jd: NVMe
   with a scheduler other than none; nr_requests below iodepth x numjobs;
   the drive's controller on a PCIe link below its maximum speed or width.
   Returns a new JSON list of strings, possibly empty.  Can't fail (but for
   memory). */
json_t *tuning_lint (json_t *inv, json_t *d, const job_t *jd);

#endif
