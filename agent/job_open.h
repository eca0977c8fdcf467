/*  job_open.h: what job_open shares with job_plan (job_open itself is in job.h).
*/
#ifndef IOF_JOB_OPEN_H
#define IOF_JOB_OPEN_H

#include "job_state.h"

/* True for rw=trimwrite and randtrimwrite: each trim followed by a write
   of the same blocks.  Can't fail. */
bool job_trimwrite_of (const iojob_t *j);

/* Each file's region in bytes when the job says it: filesize=, or size=
   shared over the files (a worker's own, or all of them); 0 when it comes
   from each target's size (size=N%, or no size).  Can't fail. */
uint64_t job_file_share (const iojob_t *j, const Iofleet__JobSpec *spec);

#endif
