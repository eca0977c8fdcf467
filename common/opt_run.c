/*  opt_run.c: the handlers of the options that say how a job runs, is
    named, checked and logged (see opt_run.h).
*/
#include "opt_run.h"
#include "job_opts.h"
#include "sla.h"

#include <string.h>

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* Returns 0, or -1 with the error set. */
int
opt_run_name (const opt_line_t *l, job_opts_t *o)
{
    /* fio: every job section names its job, so a name= in [global] is
       overridden by each section's (its JSON shows the section names). */
    if (optval_name (l->p, l->line, "job name", l->value))
        return -1;
    if (l->in_global)
        return 0;
    strcpy (o->job.name, l->value);
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_sla (const opt_line_t *l, job_opts_t *o)
{
    /* iofleet's own option: service-level conditions (common/sla.h). */
    const char *value = l->value;
    sla_t sla;
    char why[256];
    if (strlen (value) >= sizeof o->job.sla || sla_parse (value, &sla, why, sizeof why)) {
        optval_error (l->p, l->line, "iofleet_sla: %s", strlen (value) >= sizeof o->job.sla
                      ? "longer than 511 characters" : why);
        return -1;
    }
    memcpy (o->job.sla, value, strlen (value) + 1);
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_exit_what (const opt_line_t *l, job_opts_t *o)
{
    /* Measured on fio 3.33 with exitall, [a] 1 s, [b] 3 s, then [c]
       after a stonewall: group and stonewall stop b when a ends and
       still run c; all runs nothing more (c 0 I/Os). */
    const char *value = l->value;
    if (strcmp (value, "group") && strcmp (value, "stonewall") && strcmp (value, "all")) {
        optval_error (l->p, l->line, "exit_what=%.*s is not one of fio's: group, stonewall, all",
                      OPTVAL_SHOW, value);
        return -1;
    }
    o->job.exit_what_all = strcmp (value, "all") == 0;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_runtime (const opt_line_t *l, job_opts_t *o)
{
    return optval_duration (l->p, l->line, l->key, l->value, &o->job.runtime_ns);
}

/* Returns 0, or -1 with the error set. */
int
opt_run_time_based (const opt_line_t *l, job_opts_t *o)
{
    if (optval_bool (l->p, l->line, l->key, l->value, &o->job.time_based))
        return -1;
    o->time_based_line = l->line;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_ramp_time (const opt_line_t *l, job_opts_t *o)
{
    return optval_duration_upto (l->p, l->line, l->key, l->value, JOB_MAX_DELAY_S, "1 hour",
                                 &o->job.ramp_time_ns);
}

/* Returns 0, or -1 with the error set. */
int
opt_run_startdelay (const opt_line_t *l, job_opts_t *o)
{
    /* fio reads "startdelay=10-20" (or 10:20, 10,20) as a range to pick a
       random delay from. */
    const char *value = l->value;
    if (strpbrk (value, ",:") || (value[0] && strchr (value + 1, '-'))) {
        optval_error (l->p, l->line, "%s=%.*s: fio's random start delay range is not "
                      "supported by iofleet yet", l->key, OPTVAL_SHOW, value);
        return -1;
    }
    return optval_duration_upto (l->p, l->line, l->key, value, JOB_MAX_DELAY_S, "1 hour",
                                 &o->job.startdelay_ns);
}

/* Returns 0, or -1 with the error set. */
int
opt_run_rate_cycle (const opt_line_t *l, job_opts_t *o)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 1, 3600000, &v))
        return -1;
    o->job.rate_cycle_ms = (uint32_t) v;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_rate_process (const opt_line_t *l, job_opts_t *o)
{
    const char *value = l->value;
    if (strcmp (value, "linear") && strcmp (value, "poisson")) {
        optval_error (l->p, l->line, "rate_process=%.*s is not an fio rate process (fio's: "
                      "linear, poisson)", OPTVAL_SHOW, value);
        return -1;
    }
    o->job.rate_poisson = strcmp (value, "poisson") == 0;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_latency_percentile (const opt_line_t *l, job_opts_t *o)
{
    double v;
    if (units_parse_decimal (l->value, &v) || v > 100) {
        optval_error (l->p, l->line, "%s=%.*s is not a percentage 0..100", l->key, OPTVAL_SHOW,
                      l->value);
        return -1;
    }
    o->job.latency_percentile = v;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_steadystate (const opt_line_t *l, job_opts_t *o)
{
    if (optval_steadystate (l->p, l->line, l->key, l->value, &o->job))
        return -1;
    o->ss_line = l->line;
    o->ss_key = l->key;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_ss_dur (const opt_line_t *l, job_opts_t *o)
{
    uint64_t ns;
    if (optval_seconds (l->p, l->line, l->key, l->value, &ns))
        return -1;
    if (ns == 1000000000u) {
        optval_error (l->p, l->line, "%s=%.*s is too short (allowed: 0 (off), or from 2s: a "
                      "slope needs two samples)", l->key, OPTVAL_SHOW, l->value);
        return -1;
    }
    o->job.ss_dur_ns = ns;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_ss_ramp (const opt_line_t *l, job_opts_t *o)
{
    return optval_seconds (l->p, l->line, l->key, l->value, &o->job.ss_ramp_ns);
}

/* Returns 0, or -1 with the error set. */
int
opt_run_randseed (const opt_line_t *l, job_opts_t *o)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 0, UINT64_MAX, &v))
        return -1;
    o->job.randseed = v;
    o->job.randseed_set = true;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_random_distribution (const opt_line_t *l, job_opts_t *o)
{
    return optval_distribution (l->p, l->line, l->key, l->value, &o->job);
}

/* Returns 0, or -1 with the error set. */
int
opt_run_random_generator (const opt_line_t *l, job_opts_t *o)
{
    /* iofleet's order is its own generator's whichever fio names (the
       conformance suite compares coverage, not order); what lfsr changes
       is that no block repeats in a pass, norandommap or not. */
    const char *value = l->value;
    if (strcmp (value, "tausworthe") && strcmp (value, "tausworthe64")
        && strcmp (value, "lfsr")) {
        optval_error (l->p, l->line, "random_generator=%.*s is not an fio random generator "
                      "(fio's: tausworthe, lfsr, tausworthe64)", OPTVAL_SHOW, value);
        return -1;
    }
    o->job.lfsr = strcmp (value, "lfsr") == 0;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_percentiles (const opt_line_t *l, job_opts_t *o)
{
    return optval_percentiles (l->p, l->line, l->key, l->value, &o->job);
}

/* Returns 0, or -1 with the error set. */
int
opt_run_log_avg (const opt_line_t *l, job_opts_t *o)
{
    (void) o;
    /* 0, fio's default, logs every I/O, as write_lat_log does here. */
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 0, UINT32_MAX, &v))
        return -1;
    if (v != 0) {
        optval_error (l->p, l->line,
                      "%s=%.*s: averaged latency logs are not supported by iofleet yet "
                      "(0, fio's default, logs every I/O)", l->key, OPTVAL_SHOW, l->value);
        return -1;
    }
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_verify (const opt_line_t *l, job_opts_t *o)
{
    static const struct { const char *name; job_verify_t kind; } kinds[] = {
        { "0", JOB_VERIFY_NONE }, { "crc32c", JOB_VERIFY_CRC32C },
        { "crc32c-intel", JOB_VERIFY_CRC32C }, { "md5", JOB_VERIFY_MD5 },
    };
    for (size_t i = 0; i < NELEM (kinds); i++)
        if (strcmp (l->value, kinds[i].name) == 0) {
            o->job.verify = kinds[i].kind;
            o->verify_line = l->line;
            return 0;
        }
    optval_error (l->p, l->line, "verify=%.*s %s (supported: crc32c, crc32c-intel, md5, 0)",
                  OPTVAL_SHOW, l->value, fio_verify_unsupported (l->value)
                      ? "is not supported by iofleet yet" : "is not an fio verify method");
    return -1;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_verify_backlog (const opt_line_t *l, job_opts_t *o)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 0, JOB_MAX_VERIFY_BACKLOG, &v))
        return -1;
    o->job.verify_backlog = (uint32_t) v;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_write_iolog (const opt_line_t *l, job_opts_t *o)
{
    if (optval_log_path (l->p, l->line, l->key, l->value, "path", "it", o->job.write_iolog))
        return -1;
    o->iolog_line = l->line;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_read_iolog (const opt_line_t *l, job_opts_t *o)
{
    if (optval_log_path (l->p, l->line, l->key, l->value, "path", "it", o->job.read_iolog))
        return -1;
    o->read_iolog_line = l->line;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_replay_redirect (const opt_line_t *l, job_opts_t *o)
{
    return optval_log_path (l->p, l->line, l->key, l->value, "path", "the replay",
                            o->job.replay_redirect);
}

/* Returns 0, or -1 with the error set. */
int
opt_run_replay_time_scale (const opt_line_t *l, job_opts_t *o)
{
    /* fio: percent of the logged pace (200 replays twice as fast). */
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 1, 1000000, &v))
        return -1;
    o->job.replay_time_scale = (uint32_t) v;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_replay_align (const opt_line_t *l, job_opts_t *o)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 1, JOB_MAX_BS, &v))
        return -1;
    if (v & (v - 1)) {
        optval_error (l->p, l->line, "%s=%.*s is not a power of 2 (fio masks offsets with it)",
                      l->key, OPTVAL_SHOW, l->value);
        return -1;
    }
    o->job.replay_align = (uint32_t) v;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_run_replay_scale (const opt_line_t *l, job_opts_t *o)
{
    uint64_t v;
    if (optval_uint (l->p, l->line, l->key, l->value, 1, UINT32_MAX, &v))
        return -1;
    o->job.replay_scale = (uint32_t) v;
    return 0;
}
