/*  opt_dirs.c: the handlers of fio's per-direction options (bs, blockalign,
    bsrange, bssplit, percentage_random, rate, rate_iops, rate_min,
    rate_iops_min).

    They take fio's "READS,WRITES[,TRIMS]" form: an empty part leaves that
    direction as it was (bs=,8k sets writes only), and the last part, when
    no comma follows it, also applies to the directions after it (bs=4k
    sets both, bs=4k, reads only).  A trim value is refused, as iofleet
    does not trim.  fio also splits bs= and rate_iops= at ':' and '-'
    (bs=4k-8k is reads 4k, writes 8k, not a range); we refuse those
    spellings as too easy to misread.

    Each option is a reader of one direction's part; the splitting, and
    the rule that a failed line changes nothing, are shared.
*/
#include "opt_dirs.h"
#include "job_opts.h"

#include <stdlib.h>
#include <string.h>

/* Reads the part of direction d into next.  Returns 0, or -1 with the
   error set. */
typedef int s_part_t (const opt_line_t *l, char *part, int d, job_t *next);

/* Copies the reads' value to the writes, for the options that cut their
   text up as they parse it and so cannot parse one part twice.  Can't
   fail. */
typedef void s_copy_t (job_t *next);

/* Returns 0, or -1 with the error set. */
static int
s_bs_part (const opt_line_t *l, char *part, int d, job_t *next)
{
    return optval_bs_part (l->p, l->line, l->key, l->value, part, &next->bs[d]);
}

/* Returns 0, or -1 with the error set. */
static int
s_blockalign_part (const opt_line_t *l, char *part, int d, job_t *next)
{
    return optval_bs_part (l->p, l->line, l->key, l->value, part, &next->blockalign[d]);
}

/* Returns 0, or -1 with the error set. */
static int
s_perc_random_part (const opt_line_t *l, char *part, int d, job_t *next)
{
    return optval_pct_part (l->p, l->line, l->key, l->value, part, &next->perc_random[d]);
}

/* Returns 0, or -1 with the error set. */
static int
s_rate_part (const opt_line_t *l, char *part, int d, job_t *next)
{
    return optval_bytes_rate_part (l->p, l->line, l->key, l->value, part, &next->rate[d]);
}

/* Returns 0, or -1 with the error set. */
static int
s_rate_iops_part (const opt_line_t *l, char *part, int d, job_t *next)
{
    return optval_rate_part (l->p, l->line, l->key, l->value, part, &next->rate_iops[d]);
}

/* Returns 0, or -1 with the error set. */
static int
s_rate_min_part (const opt_line_t *l, char *part, int d, job_t *next)
{
    return optval_bytes_rate_part (l->p, l->line, l->key, l->value, part, &next->rate_min[d]);
}

/* Returns 0, or -1 with the error set. */
static int
s_rate_iops_min_part (const opt_line_t *l, char *part, int d, job_t *next)
{
    return optval_rate_part (l->p, l->line, l->key, l->value, part, &next->rate_iops_min[d]);
}

/* Returns 0, or -1 with the error set. */
static int
s_bsrange_part (const opt_line_t *l, char *part, int d, job_t *next)
{
    return optval_range_part (l->p, l->line, l->key, l->value, part,
                              &next->bsrange_min[d], &next->bsrange_max[d]);
}

/* Can't fail. */
static void
s_bsrange_copy (job_t *next)
{
    next->bsrange_min[1] = next->bsrange_min[0];
    next->bsrange_max[1] = next->bsrange_max[0];
}

/* Returns 0, or -1 with the error set. */
static int
s_bssplit_part (const opt_line_t *l, char *part, int d, job_t *next)
{
    return optval_bssplit_part (l->p, l->line, l->key, l->value, part,
                                next->bssplit[d], &next->nbssplit[d]);
}

/* Can't fail. */
static void
s_bssplit_copy (job_t *next)
{
    memcpy (next->bssplit[1], next->bssplit[0], sizeof (next->bssplit[0]));
    next->nbssplit[1] = next->nbssplit[0];
}

/* Reads l's value into next, a copy of the job, one direction at a time,
   and says in set[d] which directions it gives a value.  copy is NULL
   when one part for both directions is simply parsed again.  Returns 0,
   or -1 with the error set (next then half written: the caller drops
   it). */
static int
s_parse (const opt_line_t *l, s_part_t *part_fn, s_copy_t *copy, job_t *next, bool set[2])
{
    char *buf = strdup (l->value);
    if (!buf) {
        optval_error (l->p, l->line, "out of memory");
        return -1;
    }
    char *part[2];
    int rc = optval_split_dirs (l->p, l->line, l->key, l->value, buf, part);
    for (int d = 0; d < 2 && rc == 0; d++) {
        if (!part[d])
            continue;
        if (d == 1 && part[1] == part[0] && copy)
            copy (next);
        else
            rc = part_fn (l, part[d], d, next);
    }
    if (rc == 0)
        for (int d = 0; d < 2; d++)
            set[d] = part[d] != NULL;
    free (buf);
    return rc;
}

/* Reads l's value into o's job and, when line_of is not NULL, notes l's
   line for each direction it sets.  Nothing changes on error.  Returns 0,
   or -1 with the error set. */
static int
s_apply (const opt_line_t *l, job_opts_t *o, s_part_t *part_fn, s_copy_t *copy, int line_of[2])
{
    job_t next = o->job;
    bool set[2];
    if (s_parse (l, part_fn, copy, &next, set))
        return -1;
    o->job = next;
    for (int d = 0; d < 2 && line_of; d++)
        if (set[d])
            line_of[d] = l->line;
    return 0;
}

/* The options of one number per direction, where fio's ':' and '-'
   separators are refused.  Returns 0, or -1 with the error set. */
static int
s_apply_number (const opt_line_t *l, job_opts_t *o, s_part_t *part_fn)
{
    if (optval_refuse_colon_dash (l->p, l->line, l->key, l->value, ""))
        return -1;
    return s_apply (l, o, part_fn, NULL, NULL);
}

/* Returns 0, or -1 with the error set. */
int
opt_dirs_bs (const opt_line_t *l, job_opts_t *o)
{
    if (sweep_count_parts (l->value) >= 3) {
        /* A sweep: fio's bs takes at most reads,writes,trims, and a trim
           size is refused anyway, so three sizes or more are a list. */
        if (sweep_parse (l->p, l->line, l->key, l->value, SWEEP_BS, &o->sweep_bs))
            return -1;
        o->job.bs[0] = o->job.bs[1] = o->sweep_bs.v[0];
        o->bs_line[0] = o->bs_line[1] = l->line;
        return 0;
    }
    if (optval_refuse_colon_dash (l->p, l->line, l->key, l->value,
                                  "; bsrange= gives a range of sizes"))
        return -1;
    job_t next = o->job;
    bool set[2];
    if (s_parse (l, s_bs_part, NULL, &next, set))
        return -1;
    if (o->sweep_bs.n) {
        /* A bs sweep sets both directions; a later bs= replaces it only
           when it does too. */
        if (!set[0] || !set[1]) {
            optval_error (l->p, l->line, "%s=%.*s sets only %s, but the bs sweep of line %d "
                          "sets both directions (give both, bs=READS,WRITES, to replace the "
                          "sweep)", l->key, OPTVAL_SHOW, l->value, set[0] ? "reads" : "writes",
                          o->sweep_bs.line);
            return -1;
        }
        o->sweep_bs.n = 0;
    }
    o->job = next;
    for (int d = 0; d < 2; d++)
        if (set[d])
            o->bs_line[d] = l->line;
    return 0;
}

/* Returns 0, or -1 with the error set. */
int
opt_dirs_blockalign (const opt_line_t *l, job_opts_t *o)
{
    return s_apply_number (l, o, s_blockalign_part);
}

/* Returns 0, or -1 with the error set. */
int
opt_dirs_perc_random (const opt_line_t *l, job_opts_t *o)
{
    return s_apply_number (l, o, s_perc_random_part);
}

/* Returns 0, or -1 with the error set. */
int
opt_dirs_rate (const opt_line_t *l, job_opts_t *o)
{
    return s_apply_number (l, o, s_rate_part);
}

/* Returns 0, or -1 with the error set. */
int
opt_dirs_rate_iops (const opt_line_t *l, job_opts_t *o)
{
    return s_apply_number (l, o, s_rate_iops_part);
}

/* Returns 0, or -1 with the error set. */
int
opt_dirs_rate_min (const opt_line_t *l, job_opts_t *o)
{
    return s_apply_number (l, o, s_rate_min_part);
}

/* Returns 0, or -1 with the error set. */
int
opt_dirs_rate_iops_min (const opt_line_t *l, job_opts_t *o)
{
    return s_apply_number (l, o, s_rate_iops_min_part);
}

/* Returns 0, or -1 with the error set. */
int
opt_dirs_bsrange (const opt_line_t *l, job_opts_t *o)
{
    return s_apply (l, o, s_bsrange_part, s_bsrange_copy, o->bsrange_line);
}

/* Returns 0, or -1 with the error set. */
int
opt_dirs_bssplit (const opt_line_t *l, job_opts_t *o)
{
    return s_apply (l, o, s_bssplit_part, s_bssplit_copy, o->bssplit_line);
}
