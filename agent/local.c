/*  local.c: iofleet-agent run JOBFILE.

    Runs each job section of a fio job file on this host, one after the
    other, through the same engines and workers as a fleet run, and prints
    the result the way fio does: normal text, or fio-compatible JSON / json+
    so tools that read fio's output read ours.  Entries are fio's: one per
    job copy (numjobs), or with group_reporting one per reporting group
    (started by stonewall or new_group), its jobs and copies merged.
*/
#define _GNU_SOURCE
#include "local.h"
#include "fio_json.h"
#include "health_judge.h"
#include "health_probe.h"
#include "job.h"
#include "jobfile.h"
#include "jobspec.h"
#include "log.h"
#include "step.h"
#include "util.h"
#include "direction.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define LOCAL_INTERVAL_NS NS_PER_SEC

static volatile sig_atomic_t s_interrupted;     /* the signal's number */
/* --output-format text: notes and progress are printed on stdout, where
   fio prints its own (its layout notice, its notes, its ETA line); with
   JSON they are not printed, as fio's layout notice is not, so stdout is
   the document and stderr holds only errors and warnings. */
static bool s_text = true;
/* --allow-write-formatted: devices written despite a signature. */
static const char *s_formatted[TARGET_ALLOW_MAX];
static int s_nformatted;
/* --allow-purge: devices a purge step ([iofleet] purge=) may discard. */
static const char *s_purge[TARGET_ALLOW_MAX];
static int s_npurge;

static void
on_signal (int sig)
{
    s_interrupted = sig;
}

/* "interrupted (SIGINT)", or NULL while no signal came.  Can't fail. */
static const char *
s_interruption (void)
{
    if (!s_interrupted)
        return NULL;
    return s_interrupted == SIGINT ? "interrupted (SIGINT)" : "interrupted (SIGTERM)";
}

/* target_hooks_t: a layout stops at SIGINT or SIGTERM, and says how far
   it got on stdout, as fio's "Laying out IO file" (text only). */
static const char *
layout_stop (void *arg)
{
    (void) arg;
    return s_interruption ();
}

static void
layout_progress (void *arg, const char *line)
{
    (void) arg;
    if (!s_text)
        return;
    printf ("%s\n", line);
    fflush (stdout);
}

/* target_hooks_t: a note on a job, printed as fio prints its own
   ("note: ...", on stdout; text only). */
static void
job_note (void *arg, const char *line)
{
    (void) arg;
    if (!s_text)
        return;
    printf ("note: %s\n", line);
    fflush (stdout);
}

static const target_hooks_t s_hooks = { .stop = layout_stop, .progress = layout_progress,
                                        .note = job_note };

static void
usage (FILE *f)
{
    fprintf (f,
"usage: iofleet-agent run JOBFILE [options]\n"
"\n"
"Runs the fio job file on this host alone (no controller): job sections\n"
"separated by stonewall one after the other, those without it together (as\n"
"fio does), with iofleet's engines (" JOB_ENGINES "),\n"
"and prints the results as fio does.  Relative filenames resolve in the current\n"
"directory.  Unlike a fleet run, any path the job file names may be used:\n"
"you are running it yourself, as with fio.  Writing a block device still\n"
"passes the write guard: one that is mounted (or a partition of it), swap,\n"
"the root or boot disk, held by dm/md/LVM, or that carries a partition table\n"
"or file-system signature is refused, naming the rule.  SIGINT or SIGTERM stops\n"
"it as it stops fio: what was measured is printed (a job stopped during its\n"
"I/O keeps err=0, as fio's does; one stopped while laying out its file shows\n"
"err=4, EINTR), and it exits 128, as fio does.\n"
"\n"
"options:\n"
"  --output-format FMT   text (default), json, or json+ (json with the\n"
"                        latency histogram bins, as fio's json+)\n"
"  --no-histograms       count I/Os but record no latencies (to measure what\n"
"                        the histograms cost; latency figures are then empty)\n"
"  --allow-write-formatted GLOB  write devices matching GLOB although they\n"
"                        carry a partition table or signature (repeatable)\n"
"  --allow-purge GLOB    let the plan's purge step ([iofleet] purge=discard or\n"
"                        purge=format) discard or format devices matching\n"
"                        GLOB (repeatable)\n"
"  --help\n");
}

typedef struct result {
    dir_stats_t dir[DIR_COUNT];         /* merged over targets and workers */
    double *iops[DIR_COUNT], *bw[DIR_COUNT];    /* per-interval samples */
    int nsamples, capsamples;
    uint64_t runtime_ns;                /* measured window */
    uint64_t elapsed_ns;
    uint64_t read_back_ns;              /* verify=: the read-back phases */
    uint32_t latency_depth;             /* latency_target: the depth found */
    double usr_cpu, sys_cpu;
    uint64_t ctx;
    int error;
    char errmsg[512];
    struct result *copies;              /* per job copy, when reported apart; or NULL */
    int ncopies;
    /* A reporting group's merge (group_add): each direction timed over
       the longest of its members' times for it, and how many job copies
       it holds. */
    bool merged;
    uint64_t dir_runtime_ns[DIR_COUNT];
    int members;
} result_t;

static void
result_free (result_t *r)
{
    for (int d = 0; d < DIR_COUNT; d++) {
        free (r->iops[d]);
        free (r->bw[d]);
    }
    for (int c = 0; c < r->ncopies; c++)
        result_free (&r->copies[c]);
    free (r->copies);
}

static int
add_sample (result_t *r, const dir_stats_t *iv, int nd, uint64_t t0, uint64_t t1)
{
    if (r->nsamples == r->capsamples) {
        int cap = r->capsamples ? r->capsamples * 2 : 64;
        for (int d = 0; d < DIR_COUNT; d++) {
            double *a = realloc (r->iops[d], (size_t) cap * sizeof *a);
            if (a)
                r->iops[d] = a;
            double *b = realloc (r->bw[d], (size_t) cap * sizeof *b);
            if (b)
                r->bw[d] = b;
            if (!a || !b)
                return -ENOMEM;
        }
        r->capsamples = cap;
    }
    double secs = (double) (t1 - t0) / 1e9;
    for (int d = 0; d < DIR_COUNT; d++) {
        uint64_t ops = 0, bytes = 0;
        for (int i = d; i < nd; i += DIR_COUNT) {
            ops += iv[i].ops;
            bytes += iv[i].bytes;
        }
        r->iops[d][r->nsamples] = secs > 0 ? (double) ops / secs : 0;
        r->bw[d][r->nsamples] = secs > 0 ? (double) bytes / secs : 0;
    }
    r->nsamples++;
    return 0;
}

/* fio's errno for a job's first error: EILSEQ (84) for data that did not
   verify, EIO for any other, 0 for none.  Can't fail. */
static int
error_code (const char *e)
{
    if (!e[0])
        return 0;
    return strncmp (e, JOB_VERIFY_ERROR, strlen (JOB_VERIFY_ERROR)) == 0 ? EILSEQ : EIO;
}

static double
tv_s (struct timeval tv)
{
    return (double) tv.tv_sec + (double) tv.tv_usec / 1e6;
}

/* How long r, the figures of job jd or of one of its copies, measured
   direction d: its window; but fio times a direction its rw does not have
   (a write job's read-backs) only over its read-back phase: 0 with
   verify_backlog, so bw and iops 0 beside the I/Os counted.  0 without
   I/O.  Can't fail. */
static uint64_t
dir_runtime (const job_t *jd, const result_t *r, int d)
{
    if (!r->dir[d].ops)
        return 0;
    return d == DIR_READ && !job_rw_reads (jd->rw) ? r->read_back_ns : r->runtime_ns;
}

/* Fills f, an entry of fio's report, from r, the figures of job jd (or of
   one of its copies, or of its reporting group, named after jd, its first
   job).  Can't fail. */
static void
entry_from (fio_job_t *f, const job_t *jd, const result_t *r, int groupid)
{
    f->jobname = jd->name;
    f->groupid = groupid;
    f->error = r->error;
    f->job = jd;
    f->usr_cpu = r->usr_cpu;
    f->sys_cpu = r->sys_cpu;
    f->ctx = r->ctx;
    f->job_runtime_ms = r->elapsed_ns / NS_PER_MS;
    f->latency_depth = r->latency_depth;
    f->percentiles = jd->npercentiles ? jd->percentile_list : NULL;
    f->npercentiles = jd->npercentiles;
    f->members = r->merged ? r->members : 1;
    for (int d = 0; d < DIR_COUNT; d++) {
        fio_dir_t *fd = &f->dir[d];
        fd->ops = r->dir[d].ops;
        fd->bytes = r->dir[d].bytes;
        fd->errors = r->dir[d].errors;
        /* A group's, each direction its members': the head's rw is not
           the group's (a write job first, a read job after it). */
        fd->runtime_ns = r->merged ? r->dir_runtime_ns[d] : dir_runtime (jd, r, d);
        fd->slat = &r->dir[d].slat;
        fd->clat = &r->dir[d].clat;
        fd->lat = &r->dir[d].lat;
        fd->iops_samples = r->iops[d];
        fd->bw_samples = r->bw[d];
        fd->nsamples = r->iops[d] ? r->nsamples : 0;
    }
}

/* Adds src, the figures of job jd's ncopies copies, into dst, a reporting
   group's (fio's group_reporting, measured on fio 3.33: each direction's
   runtime the longest member's for it, job_runtime and CPU time summed,
   I/Os and latencies merged, jobs= its copies; samples added interval by
   interval, the members running together).  Returns 0, or -ENOMEM. */
static int
group_add (result_t *dst, const result_t *src, const job_t *jd, int ncopies)
{
    dst->merged = true;
    dst->members += ncopies;
    for (int d = 0; d < DIR_COUNT; d++) {
        dir_stats_merge (&dst->dir[d], &src->dir[d]);
        uint64_t t = dir_runtime (jd, src, d);
        if (t > dst->dir_runtime_ns[d])
            dst->dir_runtime_ns[d] = t;
    }
    if (src->runtime_ns > dst->runtime_ns)
        dst->runtime_ns = src->runtime_ns;
    if (src->read_back_ns > dst->read_back_ns)
        dst->read_back_ns = src->read_back_ns;
    /* CPU in percent of each one's time: weighted by it, over the sum. */
    uint64_t t = src->elapsed_ns * (uint64_t) ncopies;
    double tot = (double) dst->elapsed_ns + (double) t;
    if (tot > 0) {
        dst->usr_cpu = (dst->usr_cpu * (double) dst->elapsed_ns + src->usr_cpu * (double) t) / tot;
        dst->sys_cpu = (dst->sys_cpu * (double) dst->elapsed_ns + src->sys_cpu * (double) t) / tot;
    }
    dst->elapsed_ns += t;
    dst->ctx += src->ctx;
    if (!dst->error)
        dst->error = src->error;
    for (int k = 0; k < src->nsamples; k++) {
        if (k == dst->nsamples) {
            dir_stats_t none[DIR_COUNT];
            for (int d = 0; d < DIR_COUNT; d++)
                dir_stats_reset (&none[d]);
            if (add_sample (dst, none, DIR_COUNT, 0, 1) < 0)
                return -ENOMEM;
        }
        for (int d = 0; d < DIR_COUNT; d++) {
            dst->iops[d][k] += src->iops[d][k];
            dst->bw[d][k] += src->bw[d][k];
        }
    }
    return 0;
}

/* fio's entries for the jobs [0, ran) that ran, into fj: reporting groups
   start at each stonewall or new_group (groupid); a job with
   group_reporting goes into its group's one entry, named after the group's
   first such job; otherwise one entry per job copy.  merged holds the
   groups' figures.  Returns the number of entries. */
static int
report_entries (const jobfile_t *jf, int ran, result_t *res, result_t *merged, fio_job_t *fj)
{
    int n = 0, groupid = 0;
    /* The open group's merge: its first job, figures and entry; or none. */
    const job_t *head = NULL;
    result_t *acc = NULL;
    fio_job_t *entry = NULL;
    for (int i = 0; i < ran; i++) {
        const job_t *jd = &jf->steps[i];
        if (i > 0 && (jd->stonewall || jd->new_group)) {
            groupid++;
            head = NULL;
        }
        if (jd->group_reporting) {
            if (!head) {
                head = jd;
                acc = &merged[i];
                entry = &fj[n++];
                for (int d = 0; d < DIR_COUNT; d++)
                    dir_stats_reset (&acc->dir[d]);
            }
            group_add (acc, &res[i], jd, (int) jd->numjobs);
            entry_from (entry, head, acc, groupid);
            continue;
        }
        if (res[i].ncopies == 0)
            entry_from (&fj[n++], jd, &res[i], groupid);
        for (int c = 0; c < res[i].ncopies; c++)
            entry_from (&fj[n++], jd, &res[i].copies[c], groupid);
    }
    return n;
}

/* Runs jobs [first, last) of the file together (fio: no stonewall between
   them) to their end, as one step (step.c, as a fleet run does), filling
   res[first..last) job by job.  Returns 0, or -1 with the failing job's
   errmsg set. */
/* Each target's drive health before the step (health_probe.h), into
   probes and before (nt each; a probe left NULL when out of memory), and
   how long it took (ns).  Can't fail. */
static uint64_t
health_before (step_t *step, int nt, health_probe_t **probes, health_t *before)
{
    uint64_t t0 = clock_mono_ns ();
    for (int t = 0; t < nt; t++) {
        probes[t] = health_probe_new (step_target_path (step, t), "/sys", "/dev");
        if (probes[t])
            health_probe_read (probes[t], &before[t]);
        else
            health_unavailable (&before[t], "out of memory");
    }
    return clock_mono_ns () - t0;
}

/* Each target's health after the step, judged against before (health_judge.h)
   and logged, a line a target; the probes freed.  Can't fail. */
static void
health_after (step_t *step, int nt, health_probe_t **probes, const health_t *before,
              uint64_t before_ns)
{
    uint64_t t0 = clock_mono_ns ();
    health_t *after = calloc ((size_t) nt, sizeof *after);
    for (int t = 0; after && t < nt; t++) {
        if (probes[t])
            health_probe_read (probes[t], &after[t]);
        else
            health_unavailable (&after[t], "out of memory");
    }
    double ms = (double) (before_ns + clock_mono_ns () - t0) / 1e6;
    int navail = 0;
    /* Before fio's output, on stdout as fio's notes (text; with JSON only
       logged, stdout being the document): a drive that reports its health
       gets a line; one that does not is only logged. */
    for (int t = 0; after && t < nt; t++) {
        health_judgement_t j;
        health_judge (&before[t], &after[t], NULL, &j);
        if (!j.available) {
            log_info ("health %s: unavailable: %s", step_target_path (step, t), j.reason);
            continue;
        }
        char lines[8][160], text[900] = "";
        int n = health_judge_findings (&j, lines, 8);
        size_t off = 0;
        for (int k = 0; k < n && off < sizeof text; k++)
            off += (size_t) snprintf (text + off, sizeof text - off, "; %s", lines[k]);
        char temp[48] = "no temperature";
        if (health_has (&after[t], HF_TEMPERATURE_C))
            snprintf (temp, sizeof temp, "%lld C at the end",
                      (long long) after[t].v[HF_TEMPERATURE_C]);
        char media[48] = "media errors not counted";
        if (j.media_errors >= 0)
            snprintf (media, sizeof media, "%lld new media error(s)", (long long) j.media_errors);
        char sensor[48] = "";
        int32_t mc;
        if (probes[t] && health_probe_temp (probes[t], &mc))
            snprintf (sensor, sizeof sensor, " (sensor %.1f C)", mc / 1000.0);
        if (s_text)
            printf ("health %s: %s, %s%s, %s%s\n", step_target_path (step, t), after[t].source,
                    temp, sensor, media, text);
        else
            log_info ("health %s: %s, %s%s, %s%s", step_target_path (step, t), after[t].source,
                      temp, sensor, media, text);
        navail++;
    }
    if (navail && s_text)
        printf ("health of %d drive(s) before and after the step read in %.3f ms\n", nt, ms);
    for (int t = 0; t < nt; t++)
        health_probe_destroy (&probes[t]);
    free (after);
}

/* fio's ETA line for jobs [first, first + n) of the file, the group-th of
   ngroups, started at t_begin: how long they have run of the longest's
   plan, and their IOPS of the last interval.  Can't fail. */
static void
eta_line (const jobfile_t *jf, const result_t *res, int first, int n, int group, int ngroups,
          uint64_t t_begin)
{
    uint64_t planned_ns = 0;
    double iops = 0;
    for (int i = 0; i < n; i++) {
        const job_t *jd = &jf->steps[first + i];
        uint64_t t = jd->startdelay_ns + jd->ramp_time_ns + jd->runtime_ns;
        planned_ns = t > planned_ns ? t : planned_ns;
        const result_t *r = &res[first + i];
        if (r->nsamples)
            for (int d = 0; d < DIR_COUNT; d++)
                iops += r->iops[d][r->nsamples - 1];
    }
    printf ("\rJobs: step %d/%d (%d job%s): %.0f/%.0f s, %.0f IOPS   ", group + 1, ngroups, n,
            n > 1 ? "s" : "", (double) (clock_mono_ns () - t_begin) / 1e9,
            (double) planned_ns / 1e9, iops);
    fflush (stdout);
}

static int
run_group (const jobfile_t *jf, int first, int last, int group, int ngroups, bool histograms,
           result_t *res)
{
    char cwd[PATH_MAX];
    if (!getcwd (cwd, sizeof cwd)) {
        snprintf (res[first].errmsg, sizeof res[first].errmsg, "getcwd: %s", strerror (errno));
        return -1;
    }
    target_policy_t pol = { .workdir = cwd, .nallow = 1, .nallow_write = 1,
                            .nallow_formatted = s_nformatted, .nallow_purge = s_npurge,
                            .hooks = &s_hooks };
    pol.allow[0] = "/*";
    pol.allow_write[0] = "/*";
    memcpy (pol.allow_formatted, s_formatted, sizeof s_formatted);
    memcpy (pol.allow_purge, s_purge, sizeof s_purge);
    int n = last - first, status = 0;
    step_t *step = NULL;
    dir_stats_t **iv = calloc ((size_t) n, sizeof *iv);
    bool *ended = calloc ((size_t) n, sizeof *ended);
    jobspec_t *js = calloc ((size_t) n, sizeof *js);
    const Iofleet__JobSpec **specs = calloc ((size_t) n, sizeof *specs);
    struct rusage ru0, ru1;
    health_probe_t **hprobes = NULL;     /* each target's drive health, before and after */
    health_t *hbefore = NULL;
    char err[1024];
    if (!iv || !ended || !js || !specs) {
        snprintf (res[first].errmsg, sizeof res[first].errmsg, "out of memory");
        status = -1;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        jobspec_from_job (&js[i], &jf->steps[first + i], LOCAL_INTERVAL_NS);
        specs[i] = &js[i].spec;
    }
    /* Every job of the group planned and the space their layouts take
       checked together before any of them creates or writes a file. */
    int failed;
    int rc = step_open (&step, specs, n, 1, (uint32_t) group, &pol, &failed, err, sizeof err);
    if (rc && failed >= 0) {
        result_t *r = &res[first + failed];
        snprintf (r->errmsg, sizeof r->errmsg, "job '%s': %s", jf->steps[first + failed].name,
                  err);
        r->error = s_interrupted ? EINTR : EINVAL;
        status = -1;
        goto out;
    }
    if (rc) {
        snprintf (res[first].errmsg, sizeof res[first].errmsg, "job '%s'%s: %s",
                  jf->steps[first].name, n > 1 ? " (and the jobs with it)" : "", err);
        res[first].error = s_interrupted ? EINTR : -rc;
        status = -1;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        const job_t *jd = &jf->steps[first + i];
        result_t *r = &res[first + i];
        iojob_t *job = step_job (step, i);
        job_set_histograms (job, histograms);
        /* fio reports each copy of a job apart, unless group_reporting. */
        bool apart = !jd->group_reporting && jd->numjobs > 1;
        if (apart && (r->copies = calloc (jd->numjobs, sizeof *r->copies))) {
            job_set_per_worker (job, true);
            r->ncopies = (int) jd->numjobs;
            for (int c = 0; c < r->ncopies; c++)
                for (int d = 0; d < DIR_COUNT; d++)
                    dir_stats_reset (&r->copies[c].dir[d]);
        }
        iv[i] = calloc ((size_t) job_ntargets (job) * DIR_COUNT * (size_t) job_nworkers (job),
                        sizeof **iv);
        if (!iv[i] || (apart && !r->copies)) {
            snprintf (r->errmsg, sizeof r->errmsg, "out of memory");
            status = -1;
            goto out;
        }
        for (int d = 0; d < DIR_COUNT; d++)
            dir_stats_reset (&r->dir[d]);
    }
    int nt = step_ntargets (step);
    hprobes = calloc ((size_t) nt, sizeof *hprobes);
    hbefore = calloc ((size_t) nt, sizeof *hbefore);
    uint64_t health_ns = hprobes && hbefore ? health_before (step, nt, hprobes, hbefore) : 0;
    getrusage (RUSAGE_SELF, &ru0);
    uint64_t t_begin = clock_mono_ns ();
    rc = step_start (step, t_begin + 10 * NS_PER_MS, &failed);
    if (rc) {
        snprintf (res[first + failed].errmsg, sizeof res[first + failed].errmsg,
                  "job '%s': cannot start workers: %s", jf->steps[first + failed].name,
                  strerror (-rc));
        status = -1;
    }
    /* fio's ETA line: on stdout, when it is a terminal and the output text. */
    bool tty = s_text && isatty (STDOUT_FILENO);
    for (int nended = 0; nended < n; ) {
        bool progress = false;
        for (int i = 0; i < n; i++) {
            if (ended[i])
                continue;
            result_t *r = &res[first + i];
            /* Cut short: as fio's sig_int, the job is stopped and its
               figures are what it did (fio keeps err=0; the stderr line
               after the results says they are partial). */
            if (s_interrupted)
                job_stop (step_job (step, i));
            int nd = job_ntargets (step_job (step, i)) * DIR_COUNT;
            uint32_t seq;
            uint64_t t0, t1;
            int c = step_collect_job (step, i, iv[i], &seq, &t0, &t1);
            if (c < 0) {
                ended[i] = true;
                nended++;
                continue;
            }
            if (c == 0)
                continue;
            progress = true;
            int nall = nd * (r->ncopies ? r->ncopies : 1);
            for (int k = 0; k < nall; k++)
                dir_stats_merge (&r->dir[k % DIR_COUNT], &iv[i][k]);
            r->runtime_ns += t1 - t0;
            add_sample (r, iv[i], nall, t0, t1);
            for (int c = 0; c < r->ncopies; c++) {
                result_t *rc = &r->copies[c];
                for (int k = 0; k < nd; k++)
                    dir_stats_merge (&rc->dir[k % DIR_COUNT], &iv[i][c * nd + k]);
                rc->runtime_ns += t1 - t0;
                add_sample (rc, iv[i] + c * nd, nd, t0, t1);
            }
        }
        if (tty)
            eta_line (jf, res, first, n, group, ngroups, t_begin);
        if (!progress)
            sleep_ns (20 * NS_PER_MS);
    }
    if (tty) {
        printf ("\r\033[K");
        fflush (stdout);
    }
    getrusage (RUSAGE_SELF, &ru1);
    if (hprobes && hbefore)
        health_after (step, nt, hprobes, hbefore, health_ns);
    for (int i = 0; i < n; i++) {
        result_t *r = &res[first + i];
        const iojob_t *job = step_job (step, i);
        r->elapsed_ns = job_elapsed (job);
        r->read_back_ns = job_read_back_ns (job);
        r->latency_depth = job_latency_depth (job);
        double wall = (double) r->elapsed_ns / 1e9;
        /* The process's CPU over its jobs' wall time: shared when they overlap. */
        if (wall > 0) {
            r->usr_cpu = 100.0 * (tv_s (ru1.ru_utime) - tv_s (ru0.ru_utime)) / wall / n;
            r->sys_cpu = 100.0 * (tv_s (ru1.ru_stime) - tv_s (ru0.ru_stime)) / wall / n;
        }
        r->ctx = (uint64_t) ((ru1.ru_nvcsw + ru1.ru_nivcsw) - (ru0.ru_nvcsw + ru0.ru_nivcsw)) / (uint64_t) n;
        const char *e = job_error (job);
        if (e[0]) {
            snprintf (r->errmsg, sizeof r->errmsg, "job '%s': %s", jf->steps[first + i].name, e);
            r->error = error_code (e);
            status = -1;
        }
        /* Each copy: its share of the job's CPU, its own error. */
        for (int c = 0; c < r->ncopies; c++) {
            result_t *rc = &r->copies[c];
            rc->elapsed_ns = r->elapsed_ns;
            rc->read_back_ns = r->read_back_ns;
            rc->usr_cpu = r->usr_cpu / r->ncopies;
            rc->sys_cpu = r->sys_cpu / r->ncopies;
            rc->ctx = r->ctx / (uint64_t) r->ncopies;
            rc->error = error_code (job_worker_error (job, c));
        }
    }
out:
    free (hprobes);
    free (hbefore);
    step_destroy (&step);
    free (specs);
    free (js);
    for (int i = 0; iv && i < n; i++)
        free (iv[i]);
    free (iv);
    free (ended);
    return status;
}

int
local_run (int argc, char **argv)
{
    const char *path = NULL, *format = "text";
    bool histograms = true;
    if (args_want_help (argc, argv, 1)) {
        usage (stdout);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--output-format") == 0 && i + 1 < argc)
            format = argv[++i];
        else if (strncmp (argv[i], "--output-format=", 16) == 0)
            format = argv[i] + 16;
        else if (strcmp (argv[i], "--no-histograms") == 0)
            histograms = false;
        else if (strcmp (argv[i], "--allow-write-formatted") == 0 && i + 1 < argc) {
            if (s_nformatted == TARGET_ALLOW_MAX || argv[i + 1][0] != '/') {
                fprintf (stderr, "iofleet-agent run: --allow-write-formatted '%s': globs are "
                         "absolute paths, at most %d of them\n", argv[i + 1], TARGET_ALLOW_MAX);
                return 2;
            }
            s_formatted[s_nformatted++] = argv[++i];
        }
        else if (strcmp (argv[i], "--allow-purge") == 0 && i + 1 < argc) {
            if (s_npurge == TARGET_ALLOW_MAX || argv[i + 1][0] != '/') {
                fprintf (stderr, "iofleet-agent run: --allow-purge '%s': globs are absolute "
                         "paths, at most %d of them\n", argv[i + 1], TARGET_ALLOW_MAX);
                return 2;
            }
            s_purge[s_npurge++] = argv[++i];
        }
        else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0) {
            usage (stdout);
            return 0;
        } else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf (stderr, "iofleet-agent run: unexpected argument '%s' (see --help)\n",
                     argv[i]);
            return 2;
        }
    }
    bool json = strcmp (format, "json") == 0, plus = strcmp (format, "json+") == 0;
    s_text = !json && !plus;
    if (!json && !plus && strcmp (format, "text") != 0) {
        fprintf (stderr, "iofleet-agent run: --output-format '%s': use text, json or json+\n",
                 format);
        return 2;
    }
    if (!path) {
        fprintf (stderr, "iofleet-agent run: which job file? e.g. iofleet-agent run "
                 "plans/qualify.fio\n");
        return 2;
    }
    log_init ("iofleet-agent", LL_WARN);
    char err[1024];
    jobfile_t *jf = jobfile_load (path, err, sizeof err);
    if (!jf) {
        fprintf (stderr, "%s\n", err);
        return 1;
    }
    if (jf->rounds) {
        /* Rounds are judged across the fleet's stored results
           (controller/report/rounds_steady.c); a run on its own has no store. */
        fprintf (stderr, "iofleet-agent run: %s: [iofleet] rounds= and steady_state= run only "
                 "through a controller (iofleet run PLAN), which stores each round and judges "
                 "its steady state; take them out of the file to run its steps once here\n",
                 path);
        jobfile_destroy (&jf);
        return 2;
    }
    signal (SIGINT, on_signal);
    signal (SIGTERM, on_signal);
    result_t *res = calloc ((size_t) jf->nsteps, sizeof *res);
    result_t *merged = calloc ((size_t) jf->nsteps, sizeof *merged);
    size_t maxentries = 0;
    for (int i = 0; i < jf->nsteps; i++)
        maxentries += jf->steps[i].numjobs;
    fio_job_t *fj = calloc (maxentries, sizeof *fj);
    if (!res || !merged || !fj) {
        fprintf (stderr, "iofleet-agent run: out of memory\n");
        return 1;
    }
    uint64_t started = clock_real_ns ();
    int status = 0, ran = 0, cut = -1;   /* cut: the step an interrupt ended */
    static int first[JOB_MAX_STEPS + 1];
    int ngroups = jobfile_group (jf, first);
    for (int g = 0; g < ngroups && !s_interrupted; g++) {
        cut = g;
        if (run_group (jf, first[g], first[g + 1], g, ngroups, histograms, res) != 0) {
            for (int i = first[g]; i < first[g + 1]; i++)
                if (res[i].errmsg[0])
                    fprintf (stderr, "iofleet-agent run: %s: %s\n", path, res[i].errmsg);
            status = 1;
        }
        ran = first[g + 1];
        /* purge= and precondition= (purge.h, precondition.h): a purge or
           precondition step that failed leaves drives not purged or not
           preconditioned, which the plan's steps would measure; they do
           not run (reported with no I/O), as on a fleet. */
        int npre = (jf->purge ? 1 : 0) + (jf->precondition ? 1 : 0);
        if (g < npre && status) {
            bool purge = jf->purge && g == 0;
            fprintf (stderr, "iofleet-agent run: %s: the %s step failed: the plan's steps not "
                     "run (they would measure drives not %s)\n", path,
                     purge ? "purge" : "precondition", purge ? "purged" : "preconditioned");
            ran = jf->nsteps;
            break;
        }
        /* fio's exit_what=all: once a job of this group ended, nothing
           more runs; the jobs after it are reported with no I/O, as fio
           reports them. */
        bool all = false;
        for (int i = first[g]; i < first[g + 1]; i++)
            all |= jf->steps[i].exitall && jf->steps[i].exit_what_all;
        if (all) {
            ran = jf->nsteps;
            break;
        }
    }
    int nentries = report_entries (jf, ran, res, merged, fj);
    char version[64];
    snprintf (version, sizeof version, "iofleet-%s", IOF_VERSION);
    if (json || plus) {
        json_t *doc = fio_json_report (fj, nentries, plus, version, started / NS_PER_MS);
        char *text = doc ? json_dumps (doc, JSON_INDENT (2) | JSON_PRESERVE_ORDER) : NULL;
        if (text)
            puts (text);
        else {
            fprintf (stderr, "iofleet-agent run: out of memory formatting JSON\n");
            status = 1;
        }
        free (text);
        json_decref (doc);
    } else
        fio_text_report (stdout, fj, nentries, version);
    /* After the figures, the last thing read: they are partial.  Exit as
       fio does when a signal stops it (its exit_value, 128, whatever the
       signal). */
    if (s_interrupted) {
        fprintf (stderr, "iofleet-agent run: %s: %s during step %d/%d: the results are partial "
                 "(the jobs stopped there; the steps after it did not run)\n", path,
                 s_interruption (), cut + 1, ngroups);
        status = 128;
    }
    for (int i = 0; i < jf->nsteps; i++) {
        result_free (&res[i]);
        result_free (&merged[i]);
    }
    free (res);
    free (merged);
    free (fj);
    jobfile_destroy (&jf);
    return status;
}
