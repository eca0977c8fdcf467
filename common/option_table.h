/*  option_table.h: the fio options iofleet implements, each with fio's
    alias and the handler that applies its value to a job, as fio's
    options.c pairs each option with its callback (fio's own options that
    iofleet does not run yet are in fio_names.c).

    The handlers live in files named for the rule they share: opt_field.c
    (one parse rule into the job_t field the table names), opt_dirs.c
    (fio's READS,WRITES options), opt_io.c (the I/O a job issues) and
    opt_run.c (how it runs: times, checks, logs, replay).
*/
#ifndef IOF_OPTION_TABLE_H
#define IOF_OPTION_TABLE_H

#include "optval.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct job_opts job_opts_t;     /* job_opts.h */
typedef struct option_entry option_t;

/* One option line as its handler sees it. */
typedef struct {
    parser_t *p;
    int line;
    bool in_global;             /* the line is in a [global] section */
    const option_t *opt;        /* its entry in the table */
    const char *key;            /* the name the line used (the option's or its
                                   alias), static: a job may keep it */
    const char *value;          /* never NULL: a bare "set" option reads "1" */
    bool bare;                  /* the line is the key alone */
} opt_line_t;

/* Applies one line's value to o.  Nothing the line does not set changes.
   Returns 0, or -1 with the error set. */
typedef int opt_apply_t (const opt_line_t *l, job_opts_t *o);

/* One option.  `bare` marks fio's "set" options, the only ones fio lets
   you write without '='. */
struct option_entry {
    const char *name;
    const char *alias;          /* fio's other name for it, or NULL */
    bool bare;
    opt_apply_t *apply;
    size_t field;               /* offsetof the job_t field, for the handlers
                                   of opt_field.h (0 for the others) */
};

/* The iofleet option called name (case-sensitive, as fio), or NULL.  On
   success *spelling, unless spelling is NULL, is the table's own copy of
   name (static).  Can't fail. */
const option_t *option_find (const char *name, const char **spelling);

#endif
