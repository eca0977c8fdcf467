/*  opt_field.h: the handlers that apply one parse rule to the job_t field
    the option's table entry names (option_table.c), as fio's options do
    with their off1: an option of such a family is one line of the table.
*/
#ifndef IOF_OPT_FIELD_H
#define IOF_OPT_FIELD_H

#include "option_table.h"

/* 0 or 1 (fio's bool) into a bool field. */
opt_apply_t opt_field_bool;

/* A log's path or prefix (optval_log_path) into a char[JOB_LATLOG_MAX]
   field. */
opt_apply_t opt_field_log;

/* A time, microseconds when it has no unit (optval_usec_time), into a
   uint64_t field of nanoseconds. */
opt_apply_t opt_field_usec;

/* fio's bool, checked and kept nowhere: options that change fio's
   workings but not the I/O it issues (the table says why for each). */
opt_apply_t opt_field_checked;

/* Any value, kept nowhere (description=). */
opt_apply_t opt_field_ignored;

#endif
