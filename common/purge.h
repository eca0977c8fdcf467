/*  purge.h: [iofleet] purge=discard, the plan's targets purged before
    its first step (and before the precondition step).

    The SNIA PTS starts each test from a purged drive, as TKperf does
    (a secure erase): a drive's figures then do not depend on what an
    earlier test left on it.  purge=discard gives the plan a first step
    named "purge": one job for each distinct region its jobs test (as
    precondition=, precondition.h), each rw=randtrim bsrange=4k-64m, one
    discard at a time (BLKDISCARD, as fio's trims): fio's random map
    gives every 4 KiB block of the region to exactly one discard (each cut
    at the first block already discarded, or the region's end), so the
    whole region is discarded once whatever its size, where a fixed
    bs=64m would leave the region's last partial 64 MiB.  fio runs the
    same job the same way.  Only block devices take it.  It writes: an agent runs it only on targets
    that an --allow-purge glob matches as well as an --allow-write glob,
    and through the write guard (a mounted or claimed device is refused).
    The plan's other steps run only on agents whose purge step ended done.

    purge=format makes the same step, its job marked purge_format: the
    agent formats each of its devices instead of trimming them
    (agent/format.h: an NVMe Format NVM with user data erase, or a SCSI
    FORMAT UNIT), under the same --allow-purge, --allow-write and guard.
    A format erases the whole device, so a plan whose jobs test part of
    one (size=, offset=) is refused.  purge=none is the default.  fio has
    no purge: a plan that uses it is an iofleet plan.
*/
#ifndef IOF_PURGE_H
#define IOF_PURGE_H

#include "job_opts.h"

#define PURGE_NAME        "purge"
#define PURGE_BSRANGE     "4k-64m"      /* a discard's bytes (JOB_MAX_BS at most) */

typedef enum { PURGE_NONE = 0, PURGE_DISCARD, PURGE_FORMAT } purge_t;

/* Parses purge='s value.  Returns 0, or -1 with why saying what is
   expected. */
int purge_parse (const char *value, purge_t *out, char *why, size_t whylen);

/* The purge job (into o) of method how for the region job src tests;
   line: the [iofleet] line that asked for it.  Returns 0, or -1 with the
   error set (src has no filename=, its engine is not libaio or null, or
   purge=format where src tests part of its device: size= or offset=). */
int purge_job (parser_t *p, int line, const job_t *src, purge_t how, job_opts_t *o);

#endif
