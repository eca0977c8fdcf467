/*  opt_field.c: the handlers that apply one parse rule to the job_t
    field the option's table entry names (see opt_field.h).
*/
#include "opt_field.h"
#include "job_opts.h"
#include "util.h"

#include <string.h>

/* The job_t field the table names for l's option, of size bytes.  Can't
   fail (asserts that it lies inside job_t). */
static void *
s_field (const opt_line_t *l, job_opts_t *o, size_t size)
{
    IOF_ASSERT (l->opt->field + size <= sizeof (job_t));
    return (char *) &o->job + l->opt->field;
}

/* Returns 0, or -1 with the error set (the field is then unchanged). */
int
opt_field_bool (const opt_line_t *l, job_opts_t *o)
{
    return optval_bool (l->p, l->line, l->key, l->value, s_field (l, o, sizeof (bool)));
}

/* Returns 0, or -1 with the error set. */
int
opt_field_log (const opt_line_t *l, job_opts_t *o)
{
    /* Only the write_*_log prefixes share this rule; the iolog paths
       note their lines too (opt_run.c).  Given alone, the prefix is the
       job's name, as fio's (JOB_LOG_JOBNAME until the job is known). */
    if (l->bare) {
        char *f = s_field (l, o, JOB_LATLOG_MAX);
        memcpy (f, JOB_LOG_JOBNAME, sizeof JOB_LOG_JOBNAME);
        return 0;
    }
    return optval_log_path (l->p, l->line, l->key, l->value, "prefix", "the logs",
                            s_field (l, o, JOB_LATLOG_MAX));
}

/* Returns 0, or -1 with the error set. */
int
opt_field_usec (const opt_line_t *l, job_opts_t *o)
{
    return optval_usec_time (l->p, l->line, l->key, l->value, s_field (l, o, sizeof (uint64_t)));
}

/* Returns 0, or -1 with the error set. */
int
opt_field_checked (const opt_line_t *l, job_opts_t *o)
{
    (void) o;
    bool b;
    return optval_bool (l->p, l->line, l->key, l->value, &b);
}

/* Can't fail. */
int
opt_field_ignored (const opt_line_t *l, job_opts_t *o)
{
    (void) l;
    (void) o;
    return 0;
}
