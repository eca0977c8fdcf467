/*  opt_io.h: the handlers of the options that say what I/O a job issues
    and where: engine, pattern, depth, sizes, files (see opt_io.c).
*/
#ifndef IOF_OPT_IO_H
#define IOF_OPT_IO_H

#include "option_table.h"

opt_apply_t opt_io_ioengine;
opt_apply_t opt_io_direct;
opt_apply_t opt_io_buffered;
opt_apply_t opt_io_invalidate;
opt_apply_t opt_io_per_job_logs;
opt_apply_t opt_io_fadvise;
opt_apply_t opt_io_submit_mode;
opt_apply_t opt_io_rw;
opt_apply_t opt_io_rwmixread;
opt_apply_t opt_io_rwmixwrite;
opt_apply_t opt_io_iodepth;
opt_apply_t opt_io_batch_submit;
opt_apply_t opt_io_batch_complete;
opt_apply_t opt_io_numjobs;
opt_apply_t opt_io_size;
opt_apply_t opt_io_offset;
opt_apply_t opt_io_offset_increment;
opt_apply_t opt_io_io_size;
opt_apply_t opt_io_number_ios;
opt_apply_t opt_io_loops;
opt_apply_t opt_io_filename;
opt_apply_t opt_io_directory;
opt_apply_t opt_io_nrfiles;
opt_apply_t opt_io_filesize;
opt_apply_t opt_io_compress;
opt_apply_t opt_io_cpus;

#endif
