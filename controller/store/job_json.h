/*  job_json.h: a parsed job as the JSON the plans and steps tables keep.  */
#ifndef IOF_JOB_JSON_H
#define IOF_JOB_JSON_H

#include "controller.h"

/* job_json.c */
/* The parsed job as JSON (plans.steps, steps.spec).  Can't fail. */
json_t *job_json (const job_t *j);

#endif
