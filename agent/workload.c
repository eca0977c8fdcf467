/*  workload.c: see workload.h. */
#define _GNU_SOURCE
#include "workload.h"
#include "direction.h"
#include "health_probe.h"
#include "histogram.h"
#include "inventory.h"
#include "job.h"
#include "log.h"
#include "selector.h"
#include "stall.h"
#include "step.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLLECT_NS  (10 * NS_PER_MS)    /* a running step's intervals looked for this often */
/* The most a step's edge spends on its drives' health records: a tool can
   take HEALTH_TOOL_TIMEOUT_MS a drive, and 24 slow ones would miss the
   controller's deadlines for READY and DONE. */
#define HEALTH_EDGE_BUDGET_NS (20 * NS_PER_SEC)

struct workload {
    target_policy_t policy;
    target_hooks_t hooks;
    const char *sysfs_root, *procfs_root, *etc_root;
    link_t *link;                           /* the one preparing, for the hooks */
    step_t *job;                            /* the step in hand: its jobs */
    char *ready_inventory;                  /* READY's, until the next PREPARE */
    dir_stats_t *totals;                    /* ntargets * DIR_COUNT */
    dir_stats_t *interval;                  /* ntargets * DIR_COUNT */
    /* Scratch for packing snapshots, sized at PREPARE: nothing is
       allocated per interval but the packed message itself. */
    Iofleet__TargetSample *samples;         /* ntargets */
    Iofleet__TargetSample **sample_ptrs;    /* ntargets */
    Iofleet__DirStats *dirs;                /* ntargets * DIR_COUNT */
    uint8_t *hist_bufs;                     /* ntargets * DIR_COUNT * 3 * HIST_WIRE_MAX */
    const char *paths[MSG_TARGETS_MAX];     /* READY's targets */
    uint64_t planned[MSG_TARGETS_MAX];     /* READY's planned_bytes */
    uint32_t nsnapshots;
    /* Each target's drive health (health_probe.h): its probe, kept for
       the step, and the JSON of its last record, for READY and DONE. */
    health_probe_t *probes[MSG_TARGETS_MAX];
    char *health[MSG_TARGETS_MAX];
    int nprobes;
};

/* target_hooks_t's stop, asked every TARGET_POLL_NS during a layout, which
   holds the main loop: the link serves the socket meanwhile (an ABORT of
   the run stops the layout; pings keep the link and the clock alive).
   Returns why the layout is to stop, or NULL. */
static const char *
layout_stop (void *arg)
{
    workload_t *self = arg;
    return link_preparing_stop (self->link);
}

workload_t *
workload_new (const target_policy_t *policy, const char *sysfs_root, const char *procfs_root,
              const char *etc_root)
{
    workload_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->policy = *policy;
    self->hooks = (target_hooks_t) { .stop = layout_stop, .arg = self };
    self->policy.hooks = &self->hooks;
    self->sysfs_root = sysfs_root;
    self->procfs_root = procfs_root;
    self->etc_root = etc_root;
    return self;
}

/* Lets the step in hand go (its workers stopped and waited for).  Can't
   fail. */
static void
drop_job (workload_t *self)
{
    step_destroy (&self->job);
    for (int i = 0; i < self->nprobes; i++) {
        health_probe_destroy (&self->probes[i]);
        free (self->health[i]);
        self->health[i] = NULL;
    }
    self->nprobes = 0;
    free (self->totals);
    free (self->interval);
    free (self->samples);
    free (self->sample_ptrs);
    free (self->dirs);
    free (self->hist_bufs);
    self->totals = self->interval = NULL;
    self->samples = NULL;
    self->sample_ptrs = NULL;
    self->dirs = NULL;
    self->hist_bufs = NULL;
}

void
workload_destroy (workload_t **self_p)
{
    IOF_ASSERT (self_p);
    workload_t *self = *self_p;
    if (!self)
        return;
    drop_job (self);
    free (self->ready_inventory);
    free (self);
    *self_p = NULL;
}

/* link_ops_t's inventory: this host's as JSON text (free()), or NULL when
   out of memory or over the message's bound. */
static char *
inventory (void *arg)
{
    workload_t *self = arg;
    json_t *inv = inventory_collect (self->sysfs_root, self->procfs_root, self->etc_root);
    char *text = inv ? json_dumps (inv, JSON_COMPACT) : NULL;
    json_decref (inv);
    if (text && strlen (text) > MSG_INVENTORY_MAX) {
        log_warn ("inventory is %zu bytes, over the limit of %u: not sent", strlen (text),
                  MSG_INVENTORY_MAX);
        free (text);
        return NULL;
    }
    return text;
}

/* p with every drive selector of its jobs expanded against inv into this
   agent's drives: *prep its copy, its JobSpecs in copies and more, their
   filenames in lists (free them with free_lists).  Returns 0, or -1 with
   the REFUSED reason in err. */
static int
expand_selectors (workload_t *self, const Iofleet__Prepare *p, json_t *inv,
                  Iofleet__Prepare *prep, Iofleet__JobSpec **more, Iofleet__JobSpec *copies,
                  char ***lists, int *nlists, char *err, size_t errlen)
{
    *prep = *p;
    int njobs = (int) p->n_more_jobs + 1;
    bool refused = false;
    for (int i = 0; i < njobs && !refused; i++) {
        const Iofleet__JobSpec *spec = i ? p->more_jobs[i - 1] : p->job;
        bool any = false;
        for (size_t k = 0; k < spec->n_filenames; k++)
            any |= selector_is (spec->filenames[k]);
        if (i)
            more[i - 1] = (Iofleet__JobSpec *) spec;
        if (!any)
            continue;
        copies[i] = *spec;
        lists[i] = calloc (MSG_TARGETS_MAX, sizeof *lists[i]);
        for (size_t k = 0; k < spec->n_filenames && lists[i] && !refused; k++) {
            if (!selector_is (spec->filenames[k])) {
                if (nlists[i] < MSG_TARGETS_MAX)
                    lists[i][nlists[i]++] = strdup (spec->filenames[k]);
                continue;
            }
            if (selector_expand (spec->filenames[k], inv, &self->policy, lists[i], &nlists[i],
                                 MSG_TARGETS_MAX, err, errlen) <= 0)
                refused = true;
        }
        if (!lists[i]) {
            snprintf (err, errlen, "agent out of memory");
            refused = true;
        }
        copies[i].filenames = lists[i];
        copies[i].n_filenames = (size_t) nlists[i];
        if (i)
            more[i - 1] = &copies[i];
        else
            prep->job = &copies[0];
    }
    prep->more_jobs = more;
    return refused ? -1 : 0;
}

/* Frees expand_selectors' lists.  Can't fail. */
static void
free_lists (char ***lists, const int *nlists, int n)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < nlists[i]; k++)
            free (lists[i][k]);
        free (lists[i]);
    }
}

/* Each target's drive health now into self->health (READY's before the
   step, DONE's after), logging what it cost since t0 (monotonic ns: the
   probes' setup counts at the first edge).  Returns the count of records
   (0 when out of memory: none is sent).  Can't fail. */
static size_t
read_health (workload_t *self, const char *when, uint64_t t0)
{
    int navail = 0;
    for (int i = 0; i < self->nprobes; i++) {
        /* Targets on one drive (files of one file system, partitions,
           jobs sharing a target): the drive is asked once. */
        const char *dev = health_probe_device (self->probes[i]);
        int same = -1;
        for (int k = 0; dev[0] && k < i && same < 0; k++)
            if (strcmp (health_probe_device (self->probes[k]), dev) == 0)
                same = k;
        if (same >= 0) {
            free (self->health[i]);
            self->health[i] = self->health[same] ? strdup (self->health[same]) : NULL;
            if (!self->health[i])
                return 0;
            continue;
        }
        health_t h;
        uint64_t spent = clock_mono_ns () - t0;
        /* The controller's deadlines come first (READY within its
           --prepare-timeout, DONE within its grace after the step). */
        if (spent > HEALTH_EDGE_BUDGET_NS)
            health_unavailable (&h, "not read: this step's health reads took %.1f s, past the "
                                "agent's budget of %llu s a step's edge", (double) spent / 1e9,
                                (unsigned long long) (HEALTH_EDGE_BUDGET_NS / NS_PER_SEC));
        else
            health_probe_read (self->probes[i], &h);
        navail += h.available;
        json_t *j = health_to_json (&h);
        free (self->health[i]);
        self->health[i] = j ? json_dumps (j, JSON_COMPACT) : NULL;
        json_decref (j);
        if (!self->health[i])
            return 0;
    }
    log_info ("health %s the step: %d of %d drive(s) report it, read in %.3f ms", when, navail,
              self->nprobes, (double) (clock_mono_ns () - t0) / 1e6);
    return (size_t) self->nprobes;
}

/* The device tree health probes open nodes in: /dev, or the dev beside a
   fixture's sys (where there are none). */
static void
dev_root (const char *sysfs_root, char *out, size_t cap)
{
    size_t n = strlen (sysfs_root);
    while (n > 1 && sysfs_root[n - 1] == '/')       /* "/sys/" is "/sys" */
        n--;
    const char *slash = memrchr (sysfs_root, '/', n);
    if ((n == 4 && strncmp (sysfs_root, "/sys", 4) == 0) || !slash)
        snprintf (out, cap, "/dev");
    else
        snprintf (out, cap, "%.*s/dev", (int) (slash - sysfs_root), sysfs_root);
}

/* link_ops_t's prepare: the step's jobs planned, checked and opened
   (step_new), the scratch of its snapshots allocated. */
static int
prepare (void *arg, link_t *link, const Iofleet__Prepare *p, Iofleet__Ready *ready, char *err,
         size_t errlen)
{
    workload_t *self = arg;
    IOF_ASSERT (!self->job);
    log_info ("run %llu step %u (%s%s): preparing %zu job(s)", (unsigned long long) p->run,
              p->step, p->job->name, p->n_more_jobs ? ", ..." : "", p->n_more_jobs + 1);
    /* The inventory now: for drive selectors, and for READY. */
    json_t *inv = inventory_collect (self->sysfs_root, self->procfs_root, self->etc_root);
    Iofleet__Prepare prep;
    Iofleet__JobSpec *more[MSG_JOBS_MAX];
    Iofleet__JobSpec copies[MSG_JOBS_MAX];
    char **lists[MSG_JOBS_MAX] = { NULL };
    int nlists[MSG_JOBS_MAX] = { 0 };
    if (expand_selectors (self, p, inv, &prep, more, copies, lists, nlists, err, errlen) == 0) {
        self->link = link;
        self->job = step_new (&prep, &self->policy, err, errlen);
        self->link = NULL;
    }
    free_lists (lists, nlists, (int) p->n_more_jobs + 1);
    free (self->ready_inventory);
    self->ready_inventory = inv ? json_dumps (inv, JSON_COMPACT) : NULL;
    json_decref (inv);
    if (!self->job)
        return -1;
    int nt = step_ntargets (self->job);
    self->totals = calloc ((size_t) nt * DIR_COUNT, sizeof *self->totals);
    self->interval = calloc ((size_t) nt * DIR_COUNT, sizeof *self->interval);
    self->samples = calloc ((size_t) nt, sizeof *self->samples);
    self->sample_ptrs = calloc ((size_t) nt, sizeof *self->sample_ptrs);
    self->dirs = calloc ((size_t) nt * DIR_COUNT, sizeof *self->dirs);
    self->hist_bufs = malloc ((size_t) nt * DIR_COUNT * 3 * HIST_WIRE_MAX);
    if (!self->totals || !self->interval || !self->samples || !self->sample_ptrs || !self->dirs
        || !self->hist_bufs) {
        drop_job (self);
        snprintf (err, errlen, "agent out of memory");
        return -1;
    }
    self->nsnapshots = 0;
    for (int i = 0; i < nt; i++) {
        self->paths[i] = step_target_path (self->job, i);
        self->planned[i] = step_planned_bytes (self->job, i);
    }
    ready->targets = (char **) self->paths;
    ready->n_targets = (size_t) nt;
    ready->planned_bytes = self->planned;
    ready->n_planned_bytes = (size_t) nt;
    /* Each drive's health before the step. */
    char dev[PATH_MAX];
    uint64_t t0 = clock_mono_ns ();
    dev_root (self->sysfs_root, dev, sizeof dev);
    for (int i = 0; i < nt; i++) {
        self->probes[i] = health_probe_new (self->paths[i], self->sysfs_root, dev);
        if (!self->probes[i])
            break;
        self->nprobes = i + 1;
    }
    ready->health = self->health;
    ready->n_health = self->nprobes == nt ? read_health (self, "before", t0) : 0;
    /* Refreshed now: a firmware upgrade since HELLO shows in this run. */
    if (self->ready_inventory && strlen (self->ready_inventory) <= MSG_INVENTORY_MAX)
        ready->inventory_json = self->ready_inventory;
    return 0;
}

/* link_ops_t's start. */
static void
start (void *arg, uint64_t mono_start)
{
    workload_t *self = arg;
    IOF_ASSERT (self->job);
    int rc = step_start (self->job, mono_start, NULL);
    if (rc)     /* workers that did start end by themselves */
        log_err ("run %llu step %u: cannot start workers: %s",
                 (unsigned long long) step_run (self->job), step_step (self->job),
                 strerror (-rc));
}

/* link_ops_t's stop. */
static void
stop (void *arg)
{
    drop_job (arg);     /* stops the workers and waits for them */
}

/* Packs per-target stats into the scratch; histograms only when
   with_hist.  Can't fail. */
static void
fill_samples (workload_t *self, dir_stats_t *st, int nt, bool with_hist)
{
    for (int t = 0; t < nt; t++) {
        Iofleet__TargetSample *sample = &self->samples[t];
        iofleet__target_sample__init (sample);
        sample->target = (uint32_t) t;
        for (int d = 0; d < DIR_COUNT; d++) {
            int i = t * DIR_COUNT + d;
            Iofleet__DirStats *ds = &self->dirs[i];
            iofleet__dir_stats__init (ds);
            ds->ops = st[i].ops;
            ds->bytes = st[i].bytes;
            ds->errors = st[i].errors;
            if (with_hist) {
                const histogram_t *h[3] = { &st[i].clat, &st[i].slat, &st[i].lat };
                ProtobufCBinaryData *b[3] = { &ds->histogram, &ds->slat_histogram,
                                              &ds->lat_histogram };
                for (int k = 0; k < 3; k++) {
                    uint8_t *buf = self->hist_bufs
                                   + ((size_t) i * 3 + (size_t) k) * HIST_WIRE_MAX;
                    int n = histogram_encode (h[k], buf, HIST_WIRE_MAX);
                    b[k]->data = buf;
                    b[k]->len = n > 0 ? (size_t) n : 0;
                }
            }
        }
        sample->read = &self->dirs[t * DIR_COUNT + DIR_READ];
        sample->write = &self->dirs[t * DIR_COUNT + DIR_WRITE];
        /* Trims only from a step that trims (absent otherwise, as from
           agents before them). */
        const dir_stats_t *tr = &st[t * DIR_COUNT + DIR_TRIM];
        if (tr->ops || tr->errors)
            sample->trim = &self->dirs[t * DIR_COUNT + DIR_TRIM];
        /* The drive's temperature at the interval's end (not in DONE's
           totals). */
        if (with_hist && t < self->nprobes)
            sample->has_temperature = health_probe_temp (self->probes[t],
                                                         &sample->temperature_mc);
        self->sample_ptrs[t] = sample;
    }
}

/* Every interval out: the totals (= the sum of the snapshots) in DONE,
   and the step let go.  Can't fail. */
static void
send_done (workload_t *self, link_t *link)
{
    int nt = step_ntargets (self->job);
    fill_samples (self, self->totals, nt, false);
    Iofleet__Done d = IOFLEET__DONE__INIT;
    d.run = step_run (self->job);
    d.step = step_step (self->job);
    d.snapshots = self->nsnapshots;
    uint64_t started = step_actual_start (self->job);
    d.actual_start = started ? link_ctrl_time (link, started) : 0;
    d.totals = self->sample_ptrs;
    d.n_totals = (size_t) nt;
    d.error = (char *) step_error (self->job);
    uint32_t depths[MSG_JOBS_MAX];
    d.n_latency_depth = (size_t) step_latency_depths (self->job, depths);
    d.latency_depth = depths;
    d.health = self->health;
    d.n_health = self->nprobes == nt ? read_health (self, "after", clock_mono_ns ()) : 0;
    link_send_done (link, &d);
    log_info ("run %llu step %u done: %u snapshots%s%s", (unsigned long long) d.run, d.step,
              d.snapshots, d.error[0] ? ", error: " : "", d.error);
    drop_job (self);
}

/* link_ops_t's collect: every interval the workers have published. */
static uint64_t
collect (void *arg, link_t *link, uint64_t now)
{
    workload_t *self = arg;
    IOF_ASSERT (self->job);
    int nt = step_ntargets (self->job);
    for (;;) {
        uint32_t seq;
        uint64_t t0, t1;
        int rc = step_collect (self->job, self->interval, &seq, &t0, &t1);
        if (rc == 0)
            break;
        if (rc < 0) {
            send_done (self, link);
            break;
        }
        for (int i = 0; i < nt * DIR_COUNT; i++) {
            self->totals[i].ops += self->interval[i].ops;
            self->totals[i].bytes += self->interval[i].bytes;
            self->totals[i].errors += self->interval[i].errors;
        }
        fill_samples (self, self->interval, nt, true);
        Iofleet__Snapshot s = IOFLEET__SNAPSHOT__INIT;
        s.run = step_run (self->job);
        s.step = step_step (self->job);
        s.seq = seq;
        s.t_start = link_ctrl_time (link, t0);
        s.t_end = link_ctrl_time (link, t1);
        s.targets = self->sample_ptrs;
        s.n_targets = (size_t) nt;
        s.stalled_ns = stall_within (t0, t1);
        s.above_pace = step_above_pace (self->job, self->interval, t1 - t0);
        if (link_send_snapshot (link, &s))
            self->nsnapshots++;
    }
    return now + COLLECT_NS;
}

const link_ops_t workload_ops = {
    .prepare = prepare,
    .start = start,
    .collect = collect,
    .stop = stop,
    .inventory = inventory,
};
