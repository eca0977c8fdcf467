/*  jobspec.h: a parsed job (job_t) as the JobSpec message that tells an
    agent what to run.  The controller sends it in PREPARE; the agent's
    local mode (iofleet-agent run) builds one the same way. */
#ifndef IOF_JOBSPEC_H
#define IOF_JOBSPEC_H

#include "jobfile.h"
#include "message.h"

typedef struct {
    Iofleet__JobSpec spec;
    /* Storage the spec points into. */
    char list[JOB_FILENAME_MAX];
    char *names[MSG_TARGETS_MAX];
    Iofleet__BsSplit split[2][JOB_BSSPLIT_MAX];
    Iofleet__BsSplit *split_ptrs[2][JOB_BSSPLIT_MAX];
} jobspec_t;

/* Fills out from j.  The filename list is split on ':'; an empty one
   becomes the job's name, as fio names files after the job.  Can't fail
   (j comes from the parser, inside every bound). */
void jobspec_from_job (jobspec_t *out, const job_t *j, uint64_t interval_ns);

#endif
