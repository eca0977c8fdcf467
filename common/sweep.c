/*  sweep.c: iofleet's one extension to fio's syntax (see sweep.h).
*/
#include "sweep.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a sweep list, key=V1,V2[,..], checking every value like a single
   one and refusing empty entries and repeats.  *out is written only on
   success.  Returns 0, or -1 with the error set. */
int
sweep_parse (parser_t *p, int line, const char *key, const char *value,
             sweep_kind_t kind, sweep_t *out)
{
    char *buf = strdup (value);
    sweep_t *sw = malloc (sizeof (*sw));
    if (!buf || !sw) {
        free (buf);
        free (sw);
        optval_error (p, line, "out of memory");
        return -1;
    }
    int n = 0, rc = 0;
    for (char *c = buf; rc == 0;) {
        char *comma = strchr (c, ',');
        if (comma)
            *comma = '\0';
        if (*c == '\0') {
            optval_error (p, line, "%s=%.*s has an empty value (a sweep lists its values "
                          "separated by ',')", key, OPTVAL_SHOW, value);
            rc = -1;
            break;
        }
        if (n == JOB_MAX_STEPS) {
            optval_error (p, line, "%s=%.*s: a sweep has more than %d values", key, OPTVAL_SHOW,
                          value, JOB_MAX_STEPS);
            rc = -1;
            break;
        }
        uint32_t v = 0;
        if (kind == SWEEP_RW) {
            job_rw_t m = JOB_RW_READ;
            rc = optval_rw_mode (p, line, key, value, c, &m, NULL);
            v = (uint32_t) m;
        }
        else if (kind == SWEEP_BS)
            rc = optval_bs_part (p, line, key, value, c, &v);
        else {
            uint64_t x = 0;
            rc = optval_uint_part (p, line, key, value, c, 1, JOB_MAX_IODEPTH, &x);
            v = (uint32_t) x;
        }
        if (rc)
            break;
        for (int i = 0; i < n; i++) {
            if (sw->v[i] == v) {
                optval_error (p, line, "%s=%.*s: '%.*s' repeats an earlier value (the values of "
                              "a sweep must all differ)", key, OPTVAL_SHOW, value, OPTVAL_SHOW, c);
                rc = -1;
                break;
            }
        }
        if (rc)
            break;
        sw->v[n++] = v;
        if (!comma)
            break;
        c = comma + 1;
    }
    if (rc == 0 && n < 2) {
        optval_error (p, line, "%s=%.*s: a sweep needs two or more values", key, OPTVAL_SHOW,
                      value);
        rc = -1;
    }
    if (rc == 0) {
        sw->n = n;
        sw->line = line;
        *out = *sw;
    }
    free (buf);
    free (sw);
    return rc;
}

/* Number of non-empty comma-separated parts of value.  Can't fail. */
int
sweep_count_parts (const char *value)
{
    int n = 0;
    for (const char *c = value;;) {
        const char *comma = strchr (c, ',');
        size_t len = comma ? (size_t) (comma - c) : strlen (c);
        n += len > 0;
        if (!comma)
            return n;
        c = comma + 1;
    }
}

/* Appends bs, compactly (4k, 64k, 1m; bytes when not a multiple of 1k),
   to the name being built in buf.  Can't fail (truncates). */
static void
s_name_bs (char *buf, size_t size, uint32_t bs)
{
    size_t len = strlen (buf);
    if (bs % (1u << 20) == 0)
        snprintf (buf + len, size - len, "-%um", bs >> 20);
    else if (bs % 1024 == 0)
        snprintf (buf + len, size - len, "-%uk", bs >> 10);
    else
        snprintf (buf + len, size - len, "-%u", bs);
}

/* The number of steps the sweeps rw, bs and qd (n == 0: not swept) make
   of section job, 0 when it sweeps nothing; before is the number of steps
   already in the file.  Returns -1 with the error set when they would be
   more than JOB_MAX_STEPS. */
int
sweep_count (parser_t *p, const job_t *job, const sweep_t *sr, const sweep_t *sb,
             const sweep_t *sq, int before)
{
    if (!sr->n && !sb->n && !sq->n)
        return 0;
    const char *base = job->name;
    int nr = sr->n ? sr->n : 1, nb = sb->n ? sb->n : 1, nq = sq->n ? sq->n : 1;
    uint64_t total = (uint64_t) nr * (uint64_t) nb * (uint64_t) nq;
    if ((uint64_t) before + total > JOB_MAX_STEPS) {
        if (before == 0)
            optval_error (p, job->line, "section '%s' would expand to %llu steps by its "
                          "sweeps, more than the limit of %d", base, (unsigned long long) total,
                          JOB_MAX_STEPS);
        else
            optval_error (p, job->line, "section '%s' would expand to %llu steps by its "
                          "sweeps, %llu with the %d steps before it, more than the limit of %d",
                          base, (unsigned long long) total,
                          (unsigned long long) total + (uint64_t) before, before, JOB_MAX_STEPS);
        return -1;
    }
    return (int) total;
}

/* Makes step k (0 .. sweep_count - 1) of section job's sweeps in *step, a
   copy of the job with the step's rw, bs and iodepth, named
   SECTION-RW-BS-qdN with only the swept parts: rw outermost, then bs, then
   iodepth, each in the order written.  Returns 0, or -1 with the error set
   when the name is too long. */
int
sweep_step (parser_t *p, const job_t *job, const sweep_t *sr, const sweep_t *sb,
            const sweep_t *sq, int k, job_t *step)
{
    const char *base = job->name;
    int nb = sb->n ? sb->n : 1, nq = sq->n ? sq->n : 1;
    int r = k / (nb * nq), b = k / nq % nb, q = k % nq;
    unsigned bits = (sr->n ? JOB_SWEEP_RW : 0u) | (sb->n ? JOB_SWEEP_BS : 0u)
                  | (sq->n ? JOB_SWEEP_IODEPTH : 0u);
    IOF_ASSERT (bits != 0);
    *step = *job;
    char name[JOB_NAME_MAX + 96];
    snprintf (name, sizeof name, "%s", base);
    size_t len = strlen (name);
    if (sr->n) {
        step->rw = (job_rw_t) sr->v[r];
        snprintf (name + len, sizeof name - len, "-%s", job_rw_name (step->rw));
    }
    if (sb->n) {
        step->bs[0] = step->bs[1] = sb->v[b];
        s_name_bs (name, sizeof name, sb->v[b]);
    }
    if (sq->n) {
        step->iodepth = sq->v[q];
        len = strlen (name);
        snprintf (name + len, sizeof name - len, "-qd%u", step->iodepth);
    }
    len = strlen (name);
    if (len > JOB_NAME_MAX - 1) {
        optval_error (p, job->line, "section '%s': the sweep step name '%s' is %zu "
                      "characters long (the limit is %d); shorten the section name",
                      base, name, len, JOB_NAME_MAX - 1);
        return -1;
    }
    memcpy (step->name, name, len + 1);
    snprintf (step->sweep_of, sizeof step->sweep_of, "%s", base);
    step->sweep = bits;
    return 0;
}
