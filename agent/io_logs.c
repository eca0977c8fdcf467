/*  io_logs.c: fio's per-I/O logs: write_lat_log (clat, slat, lat),
    write_bw_log, write_iops_log and write_iolog (see io_logs.h).
*/
#define _GNU_SOURCE
#include "io_logs.h"
#include "job_state.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* write_lat_log: stdio buffer per log file, so the I/O path only copies a
   line, and a write(2) comes every few thousand I/Os.  Many workers share
   a budget rather than each taking the maximum. */
#define LAT_LOG_BUF_MAX     (1u << 20)
#define LAT_LOG_BUF_MIN     (64u << 10)
#define LAT_LOG_BUF_BUDGET  (96u << 20)     /* over all of a job's log files */

static const char *const s_log_kind[LOG_KINDS] = { "clat", "slat", "lat", "bw", "iops" };

static const char *const s_log_option[LOG_KINDS] = { "write_lat_log", "write_lat_log",
                                                     "write_lat_log", "write_bw_log",
                                                     "write_iops_log" };

/* Appends v in decimal at p and returns the new end.  Can't fail. */
static inline char *
put_u64 (char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char) ('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* See io_logs.h.  Returns 0, or -1 with the worker's error set; the logs
   are then left alone. */
int
lat_log_add (worker_t *w, const io_unit_t *u, uint64_t now)
{
    lat_log_t *l = w->lat_log;
    if (l->failed)
        return -1;
    uint64_t clat = now - u->t_issue;
    const uint64_t v[LOG_KINDS] = {
        [LOG_CLAT] = clat,
        [LOG_SLAT] = u->t_issue - u->t_start,
        [LOG_LAT] = now - u->t_start,
        /* fio's add_bw_sample: bytes * 1000000 / clat in ns (0 for none). */
        [LOG_BW] = clat ? (uint64_t) u->len * 1000000u / clat : 0,
        [LOG_IOPS] = 1,
    };
    char head[24], tail[64];
    char *h = put_u64 (head, (now - w->job->measure_start) / NS_PER_MS);
    *h++ = ',';
    *h++ = ' ';
    char *t = tail;
    memcpy (t, u->dir == IO_TRIM ? ", 2, " : u->dir == IO_WRITE ? ", 1, " : ", 0, ", 5);
    t = put_u64 (t + 5, u->len);
    if (w->job->log_offset) {
        memcpy (t, ", ", 2);
        t = put_u64 (t + 2, u->offset);
    }
    memcpy (t, ", 0\n", 4);
    t += 4;
    for (int k = 0; k < LOG_KINDS; k++) {
        if (!l->f[k] || (k == LOG_SLAT && (u->dir == IO_TRIM || !w->job->slat)))
            continue;
        char line[128];
        char *p = line;
        memcpy (p, head, (size_t) (h - head));
        p = put_u64 (p + (h - head), v[k]);
        memcpy (p, tail, (size_t) (t - tail));
        p += t - tail;
        size_t n = (size_t) (p - line);
        /* Only this worker touches its files: no stdio locking needed. */
        if (fwrite_unlocked (line, 1, n, l->f[k]) != n) {
            int e = errno;
            l->failed = true;
            if (!w->error[0])
                snprintf (w->error, sizeof w->error, "%s: writing '%s': %s", s_log_option[k],
                          l->path[k], strerror (e));
            return -1;
        }
    }
    return 0;
}

/* Flushes and closes a worker's latency logs and frees them.  Returns 0,
   or -1 when a buffered write failed now (the worker's error is then set,
   unless it already held one).  Safe when the worker has none. */
int
lat_log_close (worker_t *w)
{
    lat_log_t *l = w->lat_log;
    if (!l)
        return 0;
    int rc = 0;
    for (int k = 0; k < LOG_KINDS; k++) {
        /* fclose flushes what is buffered: a full disk shows here. */
        if (l->f[k] && fclose (l->f[k]) != 0 && !l->failed) {
            int e = errno;
            l->failed = true;
            rc = -1;
            if (!w->error[0])
                snprintf (w->error, sizeof w->error, "%s: writing '%s': %s", s_log_option[k],
                          l->path[k], strerror (e));
        }
        free (l->buf[k]);
    }
    free (l);
    w->lat_log = NULL;
    return rc;
}

/* Keeps the first failure of a write to the iolog (rc < 0), for the
   worker's error once the log is closed.  Can't fail. */
static void
iolog_check (iojob_t *j, int rc)
{
    if (rc < 0 && !j->iolog_failed) {
        j->iolog_failed = true;
        j->iolog_errno = errno;
    }
}

/* write_iolog: one line of fio's version 3 iolog, "USEC NAME ACTION[ OFFSET
   LEN]", the time in microseconds since the worker began and the file as
   the job names it, as fio's log_io_u and log_file print them.  A failed
   write is the worker's error once the log is closed.  Can't fail. */
static void
iolog_line (worker_t *w, uint64_t at, uint32_t t, const char *action, const io_unit_t *u)
{
    iojob_t *j = w->job;
    unsigned long long us = (at > w->wake_mono ? at - w->wake_mono : 0) / 1000;
    iolog_check (j, u ? fprintf (j->iolog, "%llu %s %s %llu %u\n", us, j->iolog_names[t],
                                 action, (unsigned long long) u->offset, u->len)
                      : fprintf (j->iolog, "%llu %s %s\n", us, j->iolog_names[t], action));
}

void
iolog_io (worker_t *w, const io_unit_t *u)
{
    iolog_line (w, u->t_start, u->target, dir_name ((int) u->dir), u);
}

/* The log's head (its version, and each file added and opened), or its
   tail (each file closed, and the log flushed and closed).  Returns 0, or
   -1 with the worker's error set when the log could not be written. */
int
iolog_edge (worker_t *w, bool head)
{
    iojob_t *j = w->job;
    if (!j->iolog)
        return 0;
    uint64_t now = head ? w->wake_mono : clock_mono_ns ();
    if (head)
        iolog_check (j, fprintf (j->iolog, "fio version 3 iolog\n"));
    for (int t = 0; t < j->ntargets; t++) {
        if (head)
            iolog_line (w, now, (uint32_t) t, "add", NULL);
        iolog_line (w, now, (uint32_t) t, head ? "open" : "close", NULL);
    }
    if (head)
        return 0;
    iolog_check (j, fclose (j->iolog) == 0 ? 0 : -1);
    j->iolog = NULL;
    if (!j->iolog_failed)
        return 0;
    if (!w->error[0])
        snprintf (w->error, sizeof w->error, "write_iolog: writing '%s': %s", j->iolog_path,
                  strerror (j->iolog_errno));
    return -1;
}

/* Resolves name, a log the job writes, as a target's path is resolved
   (the agent's --allow, relative in its --workdir), and refuses one of the
   job's targets.  Returns 0, or -1 with err naming the option. */
static int
log_resolve (const iojob_t *j, const target_policy_t *pol, const char *name, const char *option,
             const char *noun, target_t *t, char *err, size_t errlen)
{
    char why[1024];
    if (target_resolve (pol, name, t, why, sizeof why)) {
        snprintf (err, errlen, "%s: %s", option, why);
        return -1;
    }
    for (int i = 0; i < j->ntargets; i++)
        if (strcmp (t->path, j->targets[i].path) == 0) {
            snprintf (err, errlen, "%s: the log '%s' is a target of the job; choose another %s",
                      option, t->path, noun);
            return -1;
        }
    return 0;
}

/* See io_logs.h.  Returns 0, or -1 with the REFUSED reason in err. */
int
lat_log_open (iojob_t *j, worker_t *w, const Iofleet__JobSpec *spec, const target_policy_t *pol,
              char *err, size_t errlen)
{
    lat_log_t *l = calloc (1, sizeof *l);
    if (!l) {
        snprintf (err, errlen, "out of memory for the latency logs of worker %d", w->id);
        return -1;
    }
    w->lat_log = l;
    if (spec->shared_logs && j->nworkers > 1) {
        /* fio appends every job's lines to the one file; iofleet's
           workers write theirs as they go, and would interleave. */
        snprintf (err, errlen, "per_job_logs=0 with %d workers (numjobs): not supported yet "
                  "(fio puts them all in one file): give per_job_logs=1", j->nworkers);
        return -1;
    }
    uint32_t n = (spec->thread_number ? spec->thread_number : 1) + (uint32_t) w->id;
    const char *prefix[LOG_KINDS] = { spec->write_lat_log, spec->write_lat_log,
                                      spec->write_lat_log, spec->write_bw_log,
                                      spec->write_iops_log };
    size_t bufsize = LAT_LOG_BUF_BUDGET / ((size_t) j->nworkers * LOG_KINDS);
    bufsize = bufsize > LAT_LOG_BUF_MAX ? LAT_LOG_BUF_MAX
            : bufsize < LAT_LOG_BUF_MIN ? LAT_LOG_BUF_MIN : bufsize;
    for (int k = 0; k < LOG_KINDS; k++) {
        if (!prefix[k] || !prefix[k][0])
            continue;
        char name[JOB_LATLOG_MAX + 32], why[1024];
        if (spec->shared_logs)
            snprintf (name, sizeof name, "%s_%s.log", prefix[k], s_log_kind[k]);
        else
            snprintf (name, sizeof name, "%s_%s.%u.log", prefix[k], s_log_kind[k], n);
        target_t t;
        if (log_resolve (j, pol, name, s_log_option[k], "prefix", &t, err, errlen))
            return -1;
        str_copy (l->path[k], sizeof l->path[k], t.path);
        int fd = target_open_log (&t, false, why, sizeof why);
        if (fd < 0) {
            snprintf (err, errlen, "%s: %s", s_log_option[k], why);
            return -1;
        }
        l->f[k] = fdopen (fd, "w");
        l->buf[k] = malloc (bufsize);
        if (!l->f[k] || !l->buf[k]) {
            if (!l->f[k])
                close (fd);
            snprintf (err, errlen, "%s: out of memory for '%s'", s_log_option[k], t.path);
            return -1;
        }
        setvbuf (l->f[k], l->buf[k], _IOFBF, bufsize);
    }
    return 0;
}

/* Opens write_iolog's file (its path resolved as a target's, never one of
   the job's targets) and keeps each target's name as the job gives it,
   which is how fio names files in its log.  Returns 0, or -1 with err set. */
int
iolog_open (iojob_t *j, const Iofleet__JobSpec *spec, const char *const *names,
            const target_policy_t *pol, char *err, size_t errlen)
{
    char why[1024];
    target_t t;
    if (log_resolve (j, pol, spec->write_iolog, "write_iolog", "path", &t, err, errlen))
        return -1;
    IOF_ASSERT (j->ntargets > 0);
    j->iolog_names = calloc ((size_t) (unsigned) j->ntargets, sizeof *j->iolog_names);
    if (!j->iolog_names) {
        snprintf (err, errlen, "write_iolog: out of memory");
        return -1;
    }
    for (int i = 0; i < j->ntargets; i++)
        if (!(j->iolog_names[i] = strdup (names[i]))) {
            snprintf (err, errlen, "write_iolog: out of memory");
            return -1;
        }
    str_copy (j->iolog_path, sizeof j->iolog_path, t.path);
    /* fio appends a run's log to what the file holds (seen on fio 3.33:
       two runs, two logs one after the other). */
    int fd = target_open_log (&t, true, why, sizeof why);
    if (fd < 0) {
        snprintf (err, errlen, "write_iolog: %s", why);
        return -1;
    }
    if (!(j->iolog = fdopen (fd, "w"))) {
        close (fd);
        snprintf (err, errlen, "write_iolog: out of memory for '%s'", t.path);
        return -1;
    }
    return 0;
}
