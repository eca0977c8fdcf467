/*  job_check.h: the checks and fio defaults that need a job's final
    options (direct may come after bs, iodepth after iodepth_batch, and
    any of them from a [global]).
*/
#ifndef IOF_JOB_CHECK_H
#define IOF_JOB_CHECK_H

#include "job_opts.h"

/* Checks the job of o, whose section has ended, and gives it fio's
   defaults where the file left them (iodepth_batch_submit=0 is the
   iodepth, ss_dur= alone is steadystate=iops_slope:0.01%, ...).  Returns
   0, or -1 with the error set at the line of the option to fix. */
int job_check_finish (parser_t *p, job_opts_t *o);

#endif
