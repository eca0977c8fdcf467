/*  optval.h: one option's value read as fio reads it.

    Each parser takes the parser_t that says where messages go, the line,
    the option's name as written (key) and its value; it returns 0, or -1
    with "NAME:LINE: message" in the parser's buffer.  The *_part parsers
    read one direction's part of a per-direction value ("READS,WRITES"), or
    one entry of a list, and quote the part in their message.
*/
#ifndef IOF_OPTVAL_H
#define IOF_OPTVAL_H

#include "jobfile.h"

#define OPTVAL_SHOW 80              /* value bytes quoted in messages */

/* Where a parse's messages go. */
typedef struct {
    const char *name;       /* file name for messages */
    char *err;
    size_t errlen;
} parser_t;

/* Writes "NAME:LINE: message" (or "NAME: message" when line is 0) into
   the parser's buffer, truncating if needed.  Can't fail. */
void optval_error (parser_t *p, int line, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* True for the ASCII blanks; ctype's isspace depends on the locale and
   on the sign of char.  Can't fail. */
bool optval_is_blank (char c);

/* Removes blanks at both ends of s in place; returns the new start.
   Can't fail. */
char *optval_trim (char *s);

/* Checks a job or section name: it ends up in reports and on the wire,
   so no brackets and no control bytes.  Returns 0, or -1 with the error
   set. */
int optval_name (parser_t *p, int line, const char *what, const char *name);

/* Parses key=value as an unsigned integer within lo..hi (fio parses its
   integer options with the size parser, suffixes included).  Returns 0,
   or -1 with the error set. */
int optval_uint (parser_t *p, int line, const char *key, const char *value,
                 uint64_t lo, uint64_t hi, uint64_t *out);

/* Parses key=value as bytes within lo..hi, where fio would also take a
   percentage (io_size, offset_increment), which iofleet does not yet.
   Returns 0, or -1 with the error set. */
int optval_bytes (parser_t *p, int line, const char *key, const char *value,
                  uint64_t lo, uint64_t hi, uint64_t *out);

/* Parses a 0/1 value (fio's bool and "set" options accept nothing else).
   Returns 0, or -1 with the error set. */
int optval_bool (parser_t *p, int line, const char *key, const char *value, bool *out);

/* Parses a time of at most max_s seconds (max_text says it in words).
   Returns 0, or -1 with the error set. */
int optval_duration_upto (parser_t *p, int line, const char *key, const char *value,
                          uint64_t max_s, const char *max_text, uint64_t *out_ns);

/* Parses a time of at most JOB_MAX_RUNTIME_S (7 days).  Returns 0, or -1
   with the error set. */
int optval_duration (parser_t *p, int line, const char *key, const char *value,
                     uint64_t *out_ns);

/* Parses a time of at most an hour that fio reads in microseconds when it
   has no unit (thinktime, latency_target, latency_window), unlike runtime.
   Returns 0, or -1 with the error set. */
int optval_usec_time (parser_t *p, int line, const char *key, const char *value, uint64_t *out_ns);

/* Parses ss_dur= or ss_ramp=: a duration in whole seconds, as fio's
   steady state takes one sample a second.  Returns 0, or -1 with the
   error set. */
int optval_seconds (parser_t *p, int line, const char *key, const char *value,
                    uint64_t *out_ns);

/* Parses size= or offset=: bytes, or N% of the target with N in
   pct_lo..pct_hi.  Sets one of *bytes / *pct and clears the other, so the
   later of size=1g and size=50% wins.  Returns 0, or -1 with the error
   set. */
int optval_size_or_pct (parser_t *p, int line, const char *key, const char *value,
                        uint32_t pct_lo, uint32_t pct_hi,
                        uint64_t *bytes, uint32_t *pct);

/* Reports that part of value is "not a ..." (quoted) or "out of range"
   (unquoted): "KEY='PART' what" when the part is the whole value, else
   "KEY=VALUE: 'PART' what".  Can't fail. */
void optval_part_error (parser_t *p, int line, const char *key, const char *value,
                        const char *part, bool quote, const char *what);

/* Splits buf (a copy of value) in place into fio's per-direction parts,
   "READS,WRITES[,TRIMS]" (see the top of this file), and points part[d]
   at the text for each direction d that gets a value, NULL for the
   others.  Returns 0, or -1 with the error set. */
int optval_split_dirs (parser_t *p, int line, const char *key, const char *value,
                       char *buf, char *part[2]);

/* Parses one block size of key=value (part is the text for one
   direction, or one bound or entry).  Returns 0, or -1 with the error
   set. */
int optval_bs_part (parser_t *p, int line, const char *key, const char *value,
                    const char *part, uint32_t *out);

/* Refuses fio's other separators of per-direction integer values, ':'
   and '-' (a leading '-' is a minus sign, and not a number anyway).
   Returns 0, or -1 with the error set. */
int optval_refuse_colon_dash (parser_t *p, int line, const char *key, const char *value,
                              const char *hint);

/* Parses bsrange's "MIN-MAX" (or fio's "MIN:MAX"), swapping the bounds
   when MIN is the larger like fio does.  part is modified.  Returns 0, or
   -1 with the error set. */
int optval_range_part (parser_t *p, int line, const char *key, const char *value,
                       char *part, uint32_t *min, uint32_t *max);

/* Parses one direction of bssplit, "SIZE/PCT:SIZE/PCT...", part modified.
   As in fio, an entry with no percentage (or 0) gets an equal share of
   what the others leave; fio's integer division can leave a percent or
   two unassigned, which fio's I/O loop ends up giving to the entry with
   the largest share, so that is where it goes here (the last of equals),
   and the shares always sum to 100.  Returns 0, or -1 with the error set. */
int optval_bssplit_part (parser_t *p, int line, const char *key, const char *value,
                         char *part, job_bssplit_t *out, int *nout);

/* Parses one direction of rate_iops.  Returns 0, or -1 with the error
   set. */
int optval_rate_part (parser_t *p, int line, const char *key, const char *value,
                      const char *part, uint32_t *out);

/* Parses one direction's part of percentage_random=: 0..100.  Returns 0,
   or -1 with the error set. */
int optval_pct_part (parser_t *p, int line, const char *key, const char *value,
                     const char *part, uint32_t *out);

/* Parses one direction's part of rate=: bytes a second, fio's suffixes
   (500k, 100m).  Returns 0, or -1 with the error set. */
int optval_bytes_rate_part (parser_t *p, int line, const char *key, const char *value,
                            const char *part, uint64_t *out);

/* Parses one rw mode, part of key=value (the whole value, or one entry
   of a sweep list).  A sequential mode may carry fio's ':SIZE', bytes
   skipped after each I/O (rw=write:8k), into *skip when skip is not NULL
   (a sweep's entries take none).  Returns 0, or -1 with the error set. */
int optval_rw_mode (parser_t *p, int line, const char *key, const char *value,
                    const char *part, job_rw_t *out, uint64_t *skip);

/* Parses one entry of an integer sweep list as a number within lo..hi.
   Returns 0, or -1 with the error set. */
int optval_uint_part (parser_t *p, int line, const char *key, const char *value,
                      const char *part, uint64_t lo, uint64_t hi, uint64_t *out);

/* Parses random_distribution=: random, zipf|pareto|normal[:VALUE[:CENTER]],
   zoned:A/S:..., zoned_abs:A/SIZE:... (distribution.h); dist_check holds
   the limits.  Returns 0, or -1 with the error set. */
int optval_distribution (parser_t *p, int line, const char *key, const char *value,
                         job_t *job);

/* Parses percentile_list=P:P:...: each in (0,100], at most fio's 20,
   stored sorted.  Returns 0, or -1 with the error set. */
int optval_percentiles (parser_t *p, int line, const char *key, const char *value,
                        job_t *job);

/* Parses steadystate=CRITERION:LIMIT, fio's syntax: the limit is a
   percentage of the mean ("5%", stored as the fraction 0.05), or an
   absolute value: IOPS for iops and iops_slope (a decimal), bytes per
   second for bw and bw_slope (a size, like 10m).  Returns 0, or -1 with
   the error set. */
int optval_steadystate (parser_t *p, int line, const char *key, const char *value,
                        job_t *job);

/* Paths go to the agents in PREPARE, whose validation refuses control
   characters (message.c); refuse them here, where the line is known.
   Returns 0, or -1 with the error set. */
int optval_path_text (parser_t *p, int line, const char *key, const char *value);

/* Parses the path (or prefix) of a log an agent writes (write_lat_log,
   write_iolog) into out, JOB_LATLOG_MAX bytes.  A relative one is written
   inside the agent's --workdir: one that climbs out with '..' could only be
   refused there, at run time, so it is refused here.  Returns 0, or -1 with
   the error set. */
int optval_log_path (parser_t *p, int line, const char *key, const char *value, const char *noun,
                     const char *what, char *out);

#endif
