/*  precondition.h: [iofleet] precondition=COUNT, the plan's targets
    written COUNT times before its first step.

    The SNIA Solid State Storage Performance Test Specification's
    workload-independent preconditioning: 128 KiB sequential writes over
    the whole region a test uses (its "ActiveRange"), twice its size in
    the PTS, so that a drive's write figures are those of a drive in
    service and not of one fresh out of the box.  The plan gets a first
    step named "precondition": one job for each distinct region its jobs
    test (the same filename=, directory=, size= and offset=), each
    rw=write bs=128k iodepth=32 loops=COUNT with new random data in every
    write (refill_buffers), on libaio (or the job's null engine), with
    the job's direct=.  The agent's write guard applies to it as to any
    write (--allow-write).
*/
#ifndef IOF_PRECONDITION_H
#define IOF_PRECONDITION_H

#include "job_opts.h"

#define PRECONDITION_MAX   16           /* precondition=COUNT: 1..this */
#define PRECONDITION_NAME  "precondition"

/* The precondition job (into o) for the region job src tests, written
   count times; line: the [iofleet] line that asked for it, for messages.
   Returns 0, or -1 with the error set (src has no filename=). */
int precondition_job (parser_t *p, int line, const job_t *src, uint32_t count, job_opts_t *o);

/* The region job src tests (filename=, directory=, size=, offset=,
   nrfiles=, filesize=) set in dst, as src has it: the precondition's and
   the purge's (purge.h) jobs cover it.  Can't fail. */
void precondition_copy_region (job_t *dst, const job_t *src);

/* Whether jobs a and b test the same region of the same targets (one
   precondition job serves both).  Can't fail. */
bool precondition_same_region (const job_t *a, const job_t *b);

#endif
