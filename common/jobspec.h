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
    char list[MSG_TARGETS_MAX * (JOB_DIRECTORY_MAX + JOB_NAME_MAX + 16)];
    char *names[MSG_TARGETS_MAX];
    Iofleet__BsSplit split[2][JOB_BSSPLIT_MAX];
    Iofleet__BsSplit *split_ptrs[2][JOB_BSSPLIT_MAX];
    Iofleet__Zone zones[DIST_ZONES_MAX];
    Iofleet__Zone *zone_ptrs[DIST_ZONES_MAX];
} jobspec_t;

/* Fills out from j.  The filename list is split on ':'.  Without one, as
   fio (filename_format's default $jobname.$jobnum.$filenum), each of the
   numjobs workers gets nrfiles files of its own, NAME.N.F (N and F from
   0), and the spec says files_per_worker; a sweep's steps share their
   section's files.  directory= goes before each relative name.  Can't fail
   (j comes from the parser, inside every bound: numjobs x nrfiles is at
   most MSG_TARGETS_MAX without filename=). */
void jobspec_from_job (jobspec_t *out, const job_t *j, uint64_t interval_ns);

/* The release that first runs everything s asks for ("0.3.0" for the
   fields 47.. of JobSpec), and in *what the first option an older agent
   would ignore (its protobuf skips fields it does not know, so it would
   run the job otherwise without a word: verify= unchecked, say).  Returns
   NULL, *what untouched, when any release of protocol 2 runs it.  Can't
   fail. */
const char *jobspec_needs (const Iofleet__JobSpec *s, const char **what);

/* True when release a ("MAJOR.MINOR.PATCH") is older than b; an empty or
   unreadable a counts as older.  Can't fail. */
bool jobspec_release_older (const char *a, const char *b);

#endif
