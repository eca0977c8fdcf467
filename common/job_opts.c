/*  job_opts.c: a job's options as its section's lines set them, each
    line applied as fio would read it (see job_opts.h): this file reads a
    line's name and value and refuses what no option takes; the option's
    handler in the table (option_table.c) applies the value.
*/
#include "job_opts.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/* The defaults of a job with no options: fio's (ioengine=psync, its HOWTO's
   "default on all supported operating systems except for Windows", so an
   iodepth without ioengine= runs one I/O at a time there too).  Can't fail. */
void
job_opts_default (job_opts_t *o)
{
    memset (o, 0, sizeof (*o));
    strcpy (o->job.ioengine, "psync");
    o->job.direct = false;
    o->job.rw = JOB_RW_READ;
    o->job.rwmixread = 50;
    o->job.bs[0] = o->job.bs[1] = 4096;
    o->job.iodepth = 1;
    o->job.iodepth_batch_submit = 1;
    o->job.iodepth_batch_complete_min = 1;
    o->job.numjobs = 1;
    o->job.nrfiles = 1;
    o->job.scramble_buffers = true;
    o->job.loops = JOB_DEFAULT_LOOPS;
    o->job.replay_time_scale = JOB_DEFAULT_REPLAY_TIME_SCALE;
    o->job.perc_random[0] = o->job.perc_random[1] = 100;
    o->job.latency_percentile = JOB_DEFAULT_LAT_PERCENTILE;
    o->job.replay_scale = JOB_DEFAULT_REPLAY_SCALE;
    o->job.do_verify = true;
    o->job.randrepeat = true;
    o->job.dist.kind = JOB_DIST_RANDOM;
    o->job.ss = JOB_SS_NONE;
    o->batch_submit_key = "iodepth_batch_submit";
    o->batch_complete_key = "iodepth_batch_complete_min";
    o->ss_key = "steadystate";
}

/* Refuses key, which names no option iofleet implements: fio's options
   iofleet does not run yet, names in the wrong case, and the rest.
   Returns -1 with the error set. */
static int
s_refuse_unknown (parser_t *p, int line, const char *key)
{
    if (fio_option_unsupported (key)) {
        optval_error (p, line, "fio option '%s' is not supported by iofleet yet", key);
        return -1;
    }
    char lower[64];
    size_t len = strlen (key);
    if (len < sizeof (lower)) {
        for (size_t i = 0; i <= len; i++)
            lower[i] = units_lower (key[i]);
        if (strcmp (lower, key) != 0
        && (option_find (lower, NULL) || fio_option_unsupported (lower))) {
            optval_error (p, line,
                          "unknown option '%s' (fio option names are case-sensitive: '%s')",
                          key, lower);
            return -1;
        }
    }
    optval_error (p, line, "unknown option '%.*s'", OPTVAL_SHOW, key);
    return -1;
}

/* Checks the value of key (NULL: the line is the bare key) against the
   rules every option shares: a value where the option needs one, and
   none of fio's expansions iofleet does not make.  Returns 0, or -1 with
   the error set. */
static int
s_check_value (parser_t *p, int line, const option_t *opt, const char *key, const char *value)
{
    if (!value && !opt->bare) {
        optval_error (p, line, "option '%s' needs a value", key);
        return -1;
    }
    if (!value)
        return 0;
    if (*value == '\0') {
        optval_error (p, line, "option '%s' needs a value", key);
        return -1;
    }
    if (strstr (value, "${") || strstr (value, "$pagesize")
    ||  strstr (value, "$mb_memory") || strstr (value, "$ncpus")) {
        optval_error (p, line, "%s=%.*s: fio's $ substitutions are not supported by iofleet yet",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    if (value[0] == '(') {
        optval_error (p, line,
                      "%s=%.*s: fio's arithmetic expressions are not supported by iofleet yet",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    return 0;
}

/* Handles one "key=value" or bare "key" line of a section.  Returns 0, or
   -1 with the error set. */
int
job_opts_line (parser_t *p, int line, bool in_global, job_opts_t *o, char *s)
{
    char *value = NULL;
    char *eq = strchr (s, '=');
    if (eq) {
        *eq = '\0';
        value = optval_trim (eq + 1);
    }
    char *key = optval_trim (s);
    if (*key == '\0') {
        optval_error (p, line, "'=%.*s' has no option name", OPTVAL_SHOW, value);
        return -1;
    }
    if (strncmp (key, "include", 7) == 0 && (key[7] == '\0' || optval_is_blank (key[7]))) {
        optval_error (p, line, "fio's 'include' directive is not supported by iofleet yet");
        return -1;
    }
    const char *spelling;
    const option_t *opt = option_find (key, &spelling);
    if (!opt)
        return s_refuse_unknown (p, line, key);
    if (s_check_value (p, line, opt, key, value))
        return -1;
    /* Only fio's "set" options get here bare (s_check_value). */
    opt_line_t l = { p, line, in_global, opt, spelling, value ? value : "1", !value };
    return opt->apply (&l, o);
}

int
job_opts_text (parser_t *p, int line, job_opts_t *o, const char *text)
{
    char buf[128];
    snprintf (buf, sizeof buf, "%s", text);
    return job_opts_line (p, line, false, o, buf);
}
