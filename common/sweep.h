/*  sweep.h: iofleet's one extension to fio's syntax.

    A comma-separated list in rw= or iodepth= (fio takes neither with a
    comma), or in bs= with three or more non-empty sizes (bs=R,W and bs=R,W,
    keep fio's per-direction meaning, so a sweep of exactly two sizes is
    written as two sections).  Each value is checked like a single one, at
    the line of the list; the section then expands, when it ends, into one
    step per combination (rw outermost, then bs, then iodepth, each in the
    order written), named SECTION-RW-BS-qdN with only the swept parts, and
    each step gets the end-of-section checks of its own values
    (jobfile.c).  A later single value replaces the list (in a job, a
    [global] sweep too).
*/
#ifndef IOF_SWEEP_H
#define IOF_SWEEP_H

#include "optval.h"

/* One swept option: its values in the order written (job_rw_t for rw,
   bytes for bs, the depth for iodepth) and the line of the list.  n == 0:
   the option is not swept. */
typedef struct {
    int n;
    int line;
    uint32_t v[JOB_MAX_STEPS];
} sweep_t;

typedef enum { SWEEP_RW, SWEEP_BS, SWEEP_IODEPTH } sweep_kind_t;

/* Parses a sweep list, key=V1,V2[,..], checking every value like a single
   one and refusing empty entries and repeats.  *out is written only on
   success.  Returns 0, or -1 with the error set. */
int sweep_parse (parser_t *p, int line, const char *key, const char *value,
                 sweep_kind_t kind, sweep_t *out);

/* Number of non-empty comma-separated parts of value (bs= with three or
   more is a sweep).  Can't fail. */
int sweep_count_parts (const char *value);

/* The number of steps the sweeps sr, sb and sq (rw, bs, iodepth; n == 0:
   not swept) make of section job, 0 when it sweeps nothing; before is the
   number of steps already in the file.  Returns -1 with the error set when
   they would be more than JOB_MAX_STEPS. */
int sweep_count (parser_t *p, const job_t *job, const sweep_t *sr, const sweep_t *sb,
                 const sweep_t *sq, int before);

/* Makes step k (0 .. sweep_count - 1) in *step: a copy of job with the
   step's values and name.  Returns 0, or -1 with the error set when the
   name is too long. */
int sweep_step (parser_t *p, const job_t *job, const sweep_t *sr, const sweep_t *sb,
                const sweep_t *sq, int k, job_t *step);

#endif
