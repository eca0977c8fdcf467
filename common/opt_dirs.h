/*  opt_dirs.h: the handlers of fio's per-direction options, the ones that
    take "READS,WRITES[,TRIMS]" (see opt_dirs.c for the rule).
*/
#ifndef IOF_OPT_DIRS_H
#define IOF_OPT_DIRS_H

#include "option_table.h"

/* bs=: a size per direction, or three sizes or more as a sweep. */
opt_apply_t opt_dirs_bs;

/* blockalign=, percentage_random=, rate=, rate_iops=, rate_min=,
   rate_iops_min=: one number per direction. */
opt_apply_t opt_dirs_blockalign;
opt_apply_t opt_dirs_perc_random;
opt_apply_t opt_dirs_rate;
opt_apply_t opt_dirs_rate_iops;
opt_apply_t opt_dirs_rate_min;
opt_apply_t opt_dirs_rate_iops_min;

/* bsrange= (MIN-MAX) and bssplit= (SIZE/PCT:...) per direction. */
opt_apply_t opt_dirs_bsrange;
opt_apply_t opt_dirs_bssplit;

#endif
