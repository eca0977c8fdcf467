/*  job_opts.h: a job's options as its section's lines set them, each line
    applied by its option's handler (option_table.h).
*/
#ifndef IOF_JOB_OPTS_H
#define IOF_JOB_OPTS_H

#include "option_table.h"
#include "optval.h"
#include "sweep.h"

/* A job's options plus where the ones that the end-of-section checks
   complain about were set, so the message can point at that line (which
   may be in a [global] section above the job).  Index 0 is reads, 1
   writes; a line of 0 means "never set" (the default).  (The typedef
   job_opts_t is in option_table.h, whose handlers take one.) */
struct job_opts {
    job_t job;
    sweep_t sweep_rw;           /* rw=MODE,MODE[,..] */
    sweep_t sweep_bs;           /* bs=SIZE,SIZE,SIZE[,..] (both directions) */
    sweep_t sweep_iodepth;      /* iodepth=N,N[,..] */
    int bs_line[2];
    int bsrange_line[2];
    int bssplit_line[2];
    int direct_line;
    int numjobs_line;
    int nrfiles_line;
    int iolog_line;
    int read_iolog_line;
    int rw_line;
    int loops_line;
    int verify_line;
    int time_based_line;
    int batch_submit_line;
    const char *batch_submit_key;   /* the name used (iodepth_batch, ...) */
    int batch_complete_line;
    const char *batch_complete_key;
    int ss_line;
    const char *ss_key;
};

/* The defaults of a job with no options (fio's).  Can't fail. */
void job_opts_default (job_opts_t *o);

/* Handles one "key=value" or bare "key" line of a section (in_global: of a
   [global]), s modified.  Returns 0, or -1 with the error set. */
int job_opts_line (parser_t *p, int line, bool in_global, job_opts_t *o, char *s);

/* The same for a line iofleet writes itself (the jobs of purge= and
   precondition=), text left as it is (at most 127 characters).  Returns 0,
   or -1 with the error set. */
int job_opts_text (parser_t *p, int line, job_opts_t *o, const char *text);

#endif
