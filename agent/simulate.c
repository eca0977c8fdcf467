/*  simulate.c: see simulate.h.

    One thread, one zmq_poll over every virtual agent's socket.  Each agent
    is the real agent's protocol client (link.h, with a spool in memory)
    driving a synthetic workload instead of step.c: PREPARE expands the
    job's filenames against the virtual drives, START sets the intervals,
    and each interval's end sends its snapshot, then the DONE.  Buffers are
    reused across intervals and steps.
*/
#define _GNU_SOURCE
#include "simulate.h"

#include "histogram.h"
#include "link.h"
#include "log.h"
#include "message.h"
#include "spool.h"
#include "util.h"

#include <czmq.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#define SIM_STAT_NS         (10000 * NS_PER_MS)
#define SIM_NQ              256         /* quantile bins of the synthetic distribution */
#define SIM_SIGMA           0.25        /* log-normal shape */
#define SIM_MAX_INTERVALS   100000
#define SIM_MEDIA_BINS      512         /* bins of a --media profile's distribution */

typedef struct {
    double read_iops, write_iops;
    uint32_t bs_read, bs_write;
    double median_ns;               /* per target, this agent */
    int media;                      /* --media: its profile's index in cfg->media, else -1 */
    double lat_factor;              /* --media: its quantiles over the profile's QD1 4k ones */
    int drive;                      /* its virtual drive, -1: a name, not one */
    sim_health_kind_t health;       /* --health: the drive's profile */
} sim_target_t;

typedef struct sim sim_t;

/* One virtual agent: a link (its connection) and the step it simulates. */
typedef struct {
    sim_t *sim;
    int idx;
    char name[MSG_NAME_MAX + 1];
    link_t *link;
    spool_t *spool;                 /* in memory: what the controller has not acknowledged */

    uint64_t run;
    uint32_t step;
    int nt;
    sim_target_t *targets;          /* MSG_TARGETS_MAX */
    uint64_t measure_start;         /* monotonic ns (startdelay + ramp until START) */
    uint64_t interval_ns, runtime_ns;
    uint32_t nintervals, next_seq;
    uint64_t *tot_ops, *tot_bytes;  /* nt * 2 */
    sim_drive_health_t *drives;     /* --health: each virtual drive's counters */
} sim_agent_t;

struct sim {
    const sim_config_t *cfg;
    sim_agent_t *agents;
    zmq_pollitem_t *items;
    char kernel[256];
    char *inv;                      /* inventory JSON scratch */
    size_t invcap;
    const char *paths[MSG_TARGETS_MAX];     /* READY's targets, scratch */
    char store[MSG_TARGETS_MAX][32];
    int drive[MSG_TARGETS_MAX];             /* each path's virtual drive, -1: none */
    histogram_t hist;
    uint8_t *hist_bufs;             /* MSG_TARGETS_MAX * 2 * HIST_WIRE_MAX */
    Iofleet__TargetSample samples[MSG_TARGETS_MAX];
    Iofleet__TargetSample *sample_ptrs[MSG_TARGETS_MAX];
    Iofleet__DirStats dirs[MSG_TARGETS_MAX * 2];
    double expz[SIM_NQ];            /* exp(sigma * z) of each quantile bin */
    /* --media: each profile's bins, equally wide in the normal quantile
       z from -4 to 4.5 (so the tail's p99.9 is as fine as its median,
       about 1% of latency a bin), their cumulative probabilities mp (0 ..
       1) and their QD1 4k latencies mq (ns, at each bin's middle). */
    double mp[SIM_MEDIA_MAX][SIM_MEDIA_BINS + 1];
    double mq[SIM_MEDIA_MAX][SIM_MEDIA_BINS];
    double iops, median_ns;
    char *health[MSG_TARGETS_MAX];  /* READY's and DONE's health JSON, scratch */
    /* counters for the stat line (acknowledged and resent: the spools') */
    uint64_t snaps_sent, steps_done;
    uint64_t snap_bytes, target_intervals;  /* first sends: the wire cost */
};

/* The mixed value of a key (one splitmix64 step from it). */
static uint64_t
splitmix (uint64_t x)
{
    return splitmix64 (&x);
}

/* Uniform in [0, 1) from a key. */
static double
unit (uint64_t key)
{
    return (double) (splitmix (key) >> 11) / 9007199254740992.0;
}

/* z with Phi(z) = p, by bisection (only at start). */
static double
probit (double p)
{
    double lo = -10, hi = 10;
    for (int i = 0; i < 100; i++) {
        double mid = (lo + hi) / 2;
        if (0.5 * erfc (-mid / sqrt (2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

static uint8_t *
grow (uint8_t **buf, size_t *cap, size_t need)
{
    if (need > *cap) {
        uint8_t *b = realloc (*buf, need);
        if (!b)
            return NULL;
        *buf = b;
        *cap = need;
    }
    return *buf;
}

/* Drive t's medium (--media, in turn), or NULL. */
static const sim_media_t *
drive_media (const sim_t *s, int t)
{
    return s->cfg->nmedia ? s->cfg->media[t % s->cfg->nmedia] : NULL;
}

static const char *
drive_model (const sim_t *s, int t)
{
    return drive_media (s, t) ? drive_media (s, t)->model : "SIM-NVME-1";
}

static const char *
drive_transport (const sim_t *s, int t)
{
    return drive_media (s, t) ? drive_media (s, t)->name : "nvme";
}

static const char *
inventory (sim_t *s, const sim_agent_t *a)
{
    size_t need = 1024 + (size_t) s->cfg->ntargets * 420;
    if (!grow ((uint8_t **) &s->inv, &s->invcap, need))
        return "";
    /* One tri-mode HBA (sim_media.h) that every drive sits behind. */
    size_t off = (size_t) snprintf (s->inv, s->invcap,
        "{\"host\":{\"hostname\":\"%s\",\"kernel\":\"%s\",\"simulated\":true},"
        "\"controllers\":[{\"pci_address\":\"" SIM_HBA_ADDR "\",\"vendor\":\"iofleet\","
        "\"device\":\"SIM-TRIMODE-HBA\",\"driver\":\"sim\",\"firmware\":\"1.0\","
        "\"link_speed\":\"%s\",\"link_width\":%d,\"max_link_speed\":\"%s\","
        "\"max_link_width\":%d}],\"drives\":[", a->name, s->kernel, SIM_HBA_SPEED,
        SIM_HBA_WIDTH, SIM_HBA_SPEED, SIM_HBA_WIDTH);
    for (int t = 0; t < s->cfg->ntargets; t++) {
        const sim_media_t *m = drive_media (s, t) ? drive_media (s, t) : sim_media_find ("nvme");
        off += (size_t) snprintf (s->inv + off, s->invcap - off,
            "%s{\"name\":\"sim%dd%d\",\"path\":\"/dev/sim%d/d%d\",\"model\":\"%s\","
            "\"vendor\":\"iofleet\",\"serial\":\"SIM%05d-%03d\",\"firmware\":\"1.0\","
            "\"transport\":\"%s\",\"size_bytes\":1000204886016,\"rotational\":false,"
            "\"logical_block_size\":512,\"mounted\":false,\"boot\":false,\"holders\":false,"
            "\"controller\":\"" SIM_HBA_ADDR "\",\"link_speed\":\"%s\",\"link_width\":%d,"
            "\"scheduler\":\"%s\",\"nr_requests\":%d}",
            t ? "," : "", a->idx + 1, t, a->idx + 1, t, drive_model (s, t), a->idx + 1, t,
            drive_transport (s, t), m->link_speed, m->link_width, m->scheduler, m->nr_requests);
    }
    snprintf (s->inv + off, s->invcap - off, "]}");
    return s->inv;
}

/* Expands one filename against the virtual drives. */
static int
expand (sim_t *s, sim_agent_t *a, const char *f, const char **paths, char (*store)[32],
        int *n, char *err, size_t errlen)
{
    if (f[0] != '@') {
        if (*n >= MSG_TARGETS_MAX) {
            snprintf (err, errlen, "more than %d targets", MSG_TARGETS_MAX);
            return -1;
        }
        s->drive[*n] = -1;          /* a name, not one of the virtual drives */
        paths[(*n)++] = f;
        return 0;
    }
    const char *w = f + 1, *field = NULL, *pat = NULL;
    if (strcmp (w, "all") == 0)
        ;
    else if (strncmp (w, "model:", 6) == 0)
        field = "model", pat = w + 6;
    else if (strncmp (w, "serial:", 7) == 0)
        field = "serial", pat = w + 7;
    else if (strcmp (w, "nvme") == 0 || strcmp (w, "sas") == 0 || strcmp (w, "sata") == 0
             || strcmp (w, "virtio") == 0 || strcmp (w, "loop") == 0 || strcmp (w, "other") == 0)
        field = "transport", pat = w;
    else {
        snprintf (err, errlen, "'%s' is not a drive selector: use @all, @nvme, @sas, @sata, "
                  "@virtio, @loop, @other, @model:GLOB or @serial:GLOB", f);
        return -1;
    }
    int added = 0;
    for (int t = 0; t < s->cfg->ntargets; t++) {
        char serial[32];
        snprintf (serial, sizeof serial, "SIM%05d-%03d", a->idx + 1, t);
        const char *v = !field ? NULL : strcmp (field, "model") == 0 ? drive_model (s, t)
                        : strcmp (field, "serial") == 0 ? serial : drive_transport (s, t);
        if (v && fnmatch (pat, v, 0) != 0)
            continue;
        if (*n >= MSG_TARGETS_MAX) {
            snprintf (err, errlen, "more than %d targets", MSG_TARGETS_MAX);
            return -1;
        }
        snprintf (store[*n], sizeof store[*n], "/dev/sim%d/d%d", a->idx + 1, t);
        paths[*n] = store[*n];
        s->drive[*n] = t;
        (*n)++;
        added++;
    }
    if (!added) {
        snprintf (err, errlen, "selector '%s' matched no data drive on this agent (%d simulated "
                  "drives, %s)", f, s->cfg->ntargets, s->cfg->nmedia ? "media in turn as --media "
                  "says" : "SIM-NVME-1 nvme");
        return -1;
    }
    return 0;
}

/* Each target's health at fraction f of the step (0 before, 1 after) as
   JSON into s->health.  Returns the count (0 when out of memory: none is
   sent).  Can't fail. */
static size_t
health_records (sim_t *s, sim_agent_t *a, double f)
{
    for (int t = 0; t < a->nt; t++) {
        const sim_target_t *st = &a->targets[t];
        health_t h;
        if (st->drive < 0)
            health_unavailable (&h, "simulated target named in the plan, not one of the "
                                "virtual drives: no drive to ask");
        else
            sim_health_record (st->health, a->idx + 1, st->drive, f,
                               a->drives ? &a->drives[st->drive] : &(sim_drive_health_t) { 0 },
                               &h);
        json_t *j = health_to_json (&h);
        free (s->health[t]);
        s->health[t] = j ? json_dumps (j, JSON_COMPACT) : NULL;
        json_decref (j);
        if (!s->health[t])
            return 0;
    }
    return (size_t) a->nt;
}

/* link_ops_t's prepare: the virtual drives the job names, their synthetic
   rates, the step's intervals. */
static int
prepare (void *arg, link_t *link, const Iofleet__Prepare *p, Iofleet__Ready *ready, char *err,
         size_t errlen)
{
    (void) link;
    sim_agent_t *a = arg;
    sim_t *s = a->sim;
    int n = 0;
    size_t njobs = p->n_more_jobs + 1;
    const Iofleet__JobSpec *first = p->job;
    for (size_t j = 0; j < njobs; j++) {
        const Iofleet__JobSpec *spec = j ? p->more_jobs[j - 1] : p->job;
        int from = n;
        for (size_t k = 0; k < spec->n_filenames; k++)
            if (expand (s, a, spec->filenames[k], s->paths, s->store, &n, err, errlen) != 0)
                return -1;
        double rshare;
        switch (spec->rw) {
        case IOFLEET__RW__RW_READ: case IOFLEET__RW__RW_RANDREAD: rshare = 1; break;
        case IOFLEET__RW__RW_WRITE: case IOFLEET__RW__RW_RANDWRITE: rshare = 0; break;
        default: rshare = spec->rwmixread <= 100 ? spec->rwmixread / 100.0 : 0.5; break;
        }
        for (int t = from; t < n; t++) {
            sim_target_t *st = &a->targets[t];
            st->read_iops = s->iops * rshare;
            st->write_iops = s->iops * (1 - rshare);
            if (spec->rate_iops_read && st->read_iops > spec->rate_iops_read)
                st->read_iops = spec->rate_iops_read;
            if (spec->rate_iops_write && st->write_iops > spec->rate_iops_write)
                st->write_iops = spec->rate_iops_write;
            st->bs_read = spec->bs ? spec->bs : 4096;
            st->bs_write = spec->bs_write ? spec->bs_write : st->bs_read;
            /* A few percent per target, the same every run. */
            uint64_t key = ((uint64_t) a->idx << 20) ^ (uint64_t) t;
            st->median_ns = s->median_ns * (0.96 + 0.08 * unit (key));
            st->drive = s->drive[t];
            st->health = st->drive >= 0 ? sim_health_kind (&s->cfg->health, a->idx + 1, st->drive)
                                        : SIM_HEALTH_NONE;
            const sim_media_t *m = s->drive[t] >= 0 ? drive_media (s, s->drive[t]) : NULL;
            st->media = -1;
            if (m) {
                /* The profile at the depth this job keeps on the drive
                   (each copy its iodepth) and its block size. */
                double qd = (double) (spec->iodepth ? spec->iodepth : 1)
                            * (spec->numjobs ? spec->numjobs : 1);
                double iops;
                sim_media_point (m, qd, st->bs_read, 1 - rshare, &iops, &st->lat_factor);
                st->lat_factor *= 0.96 + 0.08 * unit (key);
                st->read_iops = iops * rshare;
                st->write_iops = iops * (1 - rshare);
                if (spec->rate_iops_read && st->read_iops > spec->rate_iops_read)
                    st->read_iops = spec->rate_iops_read;
                if (spec->rate_iops_write && st->write_iops > spec->rate_iops_write)
                    st->write_iops = spec->rate_iops_write;
                st->media = s->drive[t] % s->cfg->nmedia;
            }
        }
    }
    if (n == 0) {
        snprintf (err, errlen, "the job names no target");
        return -1;
    }
    /* The HBA the drives share (sim_media.h): all of them slowed alike
       when together they would move more than it does. */
    double host_bps = 0;
    for (int t = 0; t < n; t++)
        if (a->targets[t].media >= 0)
            host_bps += a->targets[t].read_iops * a->targets[t].bs_read
                        + a->targets[t].write_iops * a->targets[t].bs_write;
    double cap = sim_media_hba_bps ();
    for (int t = 0; host_bps > cap && t < n; t++)
        if (a->targets[t].media >= 0) {
            a->targets[t].read_iops *= cap / host_bps;
            a->targets[t].write_iops *= cap / host_bps;
            a->targets[t].lat_factor *= host_bps / cap;     /* Little's law */
        }
    uint64_t interval = first->interval_ns ? first->interval_ns : NS_PER_SEC;
    uint64_t runtime = first->runtime_ns ? first->runtime_ns : 10 * NS_PER_SEC;
    uint64_t nint = (runtime + interval - 1) / interval;
    if (nint > SIM_MAX_INTERVALS) {
        snprintf (err, errlen, "simulated agent: too many intervals");
        return -1;
    }
    a->run = p->run;
    a->step = p->step;
    a->nt = n;
    a->interval_ns = interval;
    a->runtime_ns = runtime;
    a->nintervals = (uint32_t) nint;
    a->next_seq = 0;
    a->measure_start = first->startdelay_ns + first->ramp_time_ns;     /* + the start at START */
    memset (a->tot_ops, 0, (size_t) n * 2 * sizeof *a->tot_ops);
    memset (a->tot_bytes, 0, (size_t) n * 2 * sizeof *a->tot_bytes);
    /* READY goes before the next call into the simulator: the scratch
       holds till then. */
    ready->targets = (char **) s->paths;
    ready->n_targets = (size_t) n;
    ready->inventory_json = (char *) inventory (s, a);
    ready->health = s->health;
    ready->n_health = health_records (s, a, 0);
    return 0;
}

/* link_ops_t's start. */
static void
start (void *arg, uint64_t mono_start)
{
    sim_agent_t *a = arg;
    a->measure_start += mono_start;
}

/* link_ops_t's stop: nothing runs but the clock. */
static void
stop (void *arg)
{
    (void) arg;
}

/* link_ops_t's inventory. */
static char *
hello_inventory (void *arg)
{
    sim_agent_t *a = arg;
    return strdup (inventory (a->sim, a));
}

/* Fills one direction of one target for an interval of dur ns. */
static void
fill_dir (sim_t *s, sim_agent_t *a, int t, int d, uint32_t seq, uint64_t dur,
          Iofleet__DirStats *ds, uint8_t *hbuf)
{
    sim_target_t *st = &a->targets[t];
    iofleet__dir_stats__init (ds);
    double iops = d ? st->write_iops : st->read_iops;
    if (iops <= 0)
        return;
    /* --health hot: throttled past its temperature. */
    if (st->health == SIM_HEALTH_HOT)
        iops *= sim_health_iops_share (st->health, a->idx + 1, st->drive,
                                       (seq + 0.5) / a->nintervals);
    uint64_t key = ((uint64_t) a->idx << 40) ^ ((uint64_t) t << 32) ^ ((uint64_t) d << 31) ^ seq;
    double jit = 0.99 + 0.02 * unit (key);          /* +-1% ops */
    uint64_t ops = (uint64_t) (iops * jit * (double) dur / 1e9 + 0.5);
    if (ops == 0)
        return;
    double med = st->median_ns * (d ? 0.5 : 1.0) * (0.98 + 0.04 * unit (key ^ 0x5555));
    /* --media: the profile's quantiles at this depth (sim_media.h), +-1%
       an interval. */
    const double *mq = st->media >= 0 ? s->mq[st->media] : NULL;
    double mf = st->lat_factor * (0.99 + 0.02 * unit (key ^ 0x5555));
    const double *mp = st->media >= 0 ? s->mp[st->media] : NULL;
    histogram_t *h = &s->hist;
    uint32_t touched[SIM_MEDIA_BINS];
    int ntouched = 0, nbins = mq ? SIM_MEDIA_BINS : SIM_NQ;
    for (int j = 0; j < nbins; j++) {
        /* Each bin's count: the cumulative counts are the nearest whole
           I/Os (no bias toward the tail). */
        uint64_t c = mq ? (uint64_t) ((double) ops * mp[j + 1] + 0.5)
                          - (uint64_t) ((double) ops * mp[j] + 0.5)
                        : ops * (uint64_t) (j + 1) / SIM_NQ - ops * (uint64_t) j / SIM_NQ;
        if (!c)
            continue;
        uint64_t v = (uint64_t) (mq ? mq[j] * mf : med * s->expz[j]);
        if (v < 1)
            v = 1;
        histogram_record_n (h, v, c);
        touched[ntouched++] = histogram_index (v);
    }
    int len = histogram_encode (h, hbuf, HIST_WIRE_MAX);
    /* Back to empty without clearing every bucket. */
    for (int i = 0; i < ntouched; i++)
        if (touched[i] < HIST_NBUCKETS)
            h->buckets[touched[i]] = 0;
    h->count = h->overflow = h->max = h->sum = 0;
    h->sumsq = 0;
    h->min = UINT64_MAX;
    ds->ops = ops;
    ds->bytes = ops * (d ? st->bs_write : st->bs_read);
    ds->histogram.data = hbuf;
    ds->histogram.len = len > 0 ? (size_t) len : 0;
    a->tot_ops[t * 2 + d] += ops;
    a->tot_bytes[t * 2 + d] += ds->bytes;
}

static void
send_snapshot (sim_t *s, sim_agent_t *a, link_t *link)
{
    uint32_t seq = a->next_seq;
    uint64_t t0 = a->measure_start + (uint64_t) seq * a->interval_ns;
    uint64_t t1 = t0 + a->interval_ns;
    if (t1 > a->measure_start + a->runtime_ns)
        t1 = a->measure_start + a->runtime_ns;
    for (int t = 0; t < a->nt; t++) {
        Iofleet__TargetSample *ts = &s->samples[t];
        iofleet__target_sample__init (ts);
        ts->target = (uint32_t) t;
        for (int d = 0; d < 2; d++)
            fill_dir (s, a, t, d, seq, t1 - t0, &s->dirs[t * 2 + d],
                      s->hist_bufs + ((size_t) t * 2 + (size_t) d) * HIST_WIRE_MAX);
        ts->read = &s->dirs[t * 2];
        ts->write = &s->dirs[t * 2 + 1];
        /* --health: the drive's temperature, at the interval's middle
           as its throttling (fill_dir). */
        const sim_target_t *st = &a->targets[t];
        if (st->health != SIM_HEALTH_NONE) {
            double f = (seq + 0.5) / a->nintervals;
            ts->has_temperature = true;
            ts->temperature_mc = sim_health_temp_mc (st->health, a->idx + 1, st->drive, f);
            sim_health_interval (st->health, a->idx + 1, st->drive, f, t1 - t0,
                                 &a->drives[st->drive]);
        }
        s->sample_ptrs[t] = ts;
    }
    Iofleet__Snapshot sn = IOFLEET__SNAPSHOT__INIT;
    sn.run = a->run;
    sn.step = a->step;
    sn.seq = seq;
    sn.t_start = link_ctrl_time (link, t0);
    sn.t_end = link_ctrl_time (link, t1);
    sn.targets = s->sample_ptrs;
    sn.n_targets = (size_t) a->nt;
    size_t len = link_send_snapshot (link, &sn);
    a->next_seq++;
    if (!len)
        return;
    s->snaps_sent++;
    s->snap_bytes += len;
    s->target_intervals += (uint64_t) a->nt;
}

static void
send_done (sim_t *s, sim_agent_t *a, link_t *link)
{
    for (int t = 0; t < a->nt; t++) {
        Iofleet__TargetSample *ts = &s->samples[t];
        iofleet__target_sample__init (ts);
        ts->target = (uint32_t) t;
        for (int d = 0; d < 2; d++) {
            Iofleet__DirStats *ds = &s->dirs[t * 2 + d];
            iofleet__dir_stats__init (ds);
            ds->ops = a->tot_ops[t * 2 + d];
            ds->bytes = a->tot_bytes[t * 2 + d];
        }
        ts->read = &s->dirs[t * 2];
        ts->write = &s->dirs[t * 2 + 1];
        s->sample_ptrs[t] = ts;
    }
    Iofleet__Done d = IOFLEET__DONE__INIT;
    d.run = a->run;
    d.step = a->step;
    d.snapshots = a->next_seq;
    d.actual_start = link_ctrl_time (link, a->measure_start);
    d.totals = s->sample_ptrs;
    d.n_totals = (size_t) a->nt;
    d.error = "";
    for (int t = 0; a->drives && t < a->nt; t++)
        if (a->targets[t].drive >= 0)
            sim_health_step_end (a->targets[t].health, a->tot_bytes[t * 2],
                                 a->tot_bytes[t * 2 + 1], &a->drives[a->targets[t].drive]);
    d.health = s->health;
    d.n_health = health_records (s, a, 1);
    link_send_done (link, &d);
    s->steps_done++;
}

/* link_ops_t's collect: each interval ended by now, then the DONE. */
static uint64_t
collect (void *arg, link_t *link, uint64_t now)
{
    sim_agent_t *a = arg;
    while (a->next_seq < a->nintervals) {
        uint64_t end = a->measure_start + (uint64_t) (a->next_seq + 1) * a->interval_ns;
        uint64_t last = a->measure_start + a->runtime_ns;
        if (end > last)
            end = last;
        if (now < end)
            return end;
        send_snapshot (a->sim, a, link);
    }
    send_done (a->sim, a, link);
    return now + LINK_PING_NS;
}

static const link_ops_t sim_ops = {
    .prepare = prepare,
    .start = start,
    .collect = collect,
    .stop = stop,
    .inventory = hello_inventory,
};

static double
cpu_seconds (void)
{
    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    return (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
           + (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void
stat_line (sim_t *s, uint64_t now, uint64_t *last_at, double *last_cpu, uint64_t *last_sent)
{
    double cpu = cpu_seconds ();
    double wall = (double) (now - *last_at) / 1e9;
    int welcomed = 0;
    uint64_t acked = 0, resent = 0;
    for (int i = 0; i < s->cfg->nagents; i++) {
        const sim_agent_t *a = &s->agents[i];
        if (!a->link)
            continue;
        welcomed += link_welcomed (a->link);
        spool_stats_t st;
        spool_stats (a->spool, &st);
        acked += st.acked;
        resent += st.resent;
    }
    fprintf (stderr, "iofleet-agent simulate: %d/%d agents welcomed, snapshots sent %llu "
             "acked %llu resent %llu (%.1f/s), steps done %llu, CPU %.1f%%, %.0f bytes per "
             "target-interval on the wire\n", welcomed,
             s->cfg->nagents, (unsigned long long) s->snaps_sent,
             (unsigned long long) acked, (unsigned long long) resent,
             wall > 0 ? (double) (s->snaps_sent - *last_sent) / wall : 0.0,
             (unsigned long long) s->steps_done, wall > 0 ? 100 * (cpu - *last_cpu) / wall : 0.0,
             s->target_intervals ? (double) s->snap_bytes / (double) s->target_intervals : 0.0);
    *last_at = now;
    *last_cpu = cpu;
    *last_sent = s->snaps_sent;
}

static double
env_double (const char *name, double dflt)
{
    const char *v = getenv (name);
    char *end;
    double d = v ? strtod (v, &end) : 0;
    return v && *v && !*end && d > 0 ? d : dflt;
}

int
sim_run (const sim_config_t *cfg)
{
    static sim_t sim;
    sim_t *s = &sim;
    s->cfg = cfg;
    int n = cfg->nagents;
    s->iops = env_double ("IOFLEET_SIM_IOPS", 10000);
    s->median_ns = env_double ("IOFLEET_SIM_MEDIAN_US", 80) * 1000;
    struct utsname u;
    uname (&u);
    snprintf (s->kernel, sizeof s->kernel, "%s", u.release);
    for (int j = 0; j < SIM_NQ; j++)
        s->expz[j] = exp (SIM_SIGMA * probit ((j + 0.5) / SIM_NQ));
    for (int m = 0; m < cfg->nmedia; m++) {
        for (int j = 0; j <= SIM_MEDIA_BINS; j++) {
            double z = -4.0 + 8.5 * j / SIM_MEDIA_BINS;
            s->mp[m][j] = j == 0 ? 0 : j == SIM_MEDIA_BINS ? 1 : 0.5 * erfc (-z / M_SQRT2);
        }
        for (int j = 0; j < SIM_MEDIA_BINS; j++) {
            double z = -4.0 + 8.5 * (j + 0.5) / SIM_MEDIA_BINS;
            s->mq[m][j] = sim_media_latency (cfg->media[m], 0.5 * erfc (-z / M_SQRT2));
        }
    }
    histogram_reset (&s->hist);
    /* Each virtual agent is a ZeroMQ socket: its connection and its
       mailbox are two descriptors (twice that while sockets are replaced). */
    long want = 4L * n + 256;
    if (fd_limit_raise (want) < want) {
        fprintf (stderr, "iofleet-agent: %d simulated agents need about %ld open files; the hard "
                 "limit is lower (ulimit -Hn): simulate fewer per process\n", n, want);
        return 1;
    }
    /* Twice: with CURVE a socket not welcomed in 3 s is replaced, and the
       old one lingers in ZeroMQ's reaper a while. */
    zsys_set_max_sockets (2 * (size_t) n + 64);
    s->agents = calloc ((size_t) n, sizeof *s->agents);
    s->items = calloc ((size_t) n, sizeof *s->items);
    s->hist_bufs = malloc ((size_t) MSG_TARGETS_MAX * 2 * HIST_WIRE_MAX);
    if (!s->agents || !s->items || !s->hist_bufs) {
        fprintf (stderr, "iofleet-agent: out of memory for %d simulated agents\n", n);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        sim_agent_t *a = &s->agents[i];
        a->sim = s;
        a->idx = i;
        snprintf (a->name, sizeof a->name, "%s-%05d", cfg->prefix, i + 1);
        a->targets = calloc (MSG_TARGETS_MAX, sizeof *a->targets);
        a->tot_ops = calloc (MSG_TARGETS_MAX * 2, sizeof *a->tot_ops);
        a->tot_bytes = calloc (MSG_TARGETS_MAX * 2, sizeof *a->tot_bytes);
        if (cfg->health.on && cfg->ntargets > 0
            && !(a->drives = calloc ((size_t) cfg->ntargets, sizeof *a->drives)))
            a->targets = (free (a->targets), NULL);
        char err[1024];
        a->spool = spool_new (NULL, SPOOL_MAX_DEFAULT, false, err, sizeof err);
        if (!a->targets || !a->tot_ops || !a->tot_bytes || !a->spool) {
            fprintf (stderr, "iofleet-agent: out of memory for %d simulated agents\n", n);
            rc = 1;
            break;
        }
        /* One host: its name is each agent's; routine events at debug
           level, or a thousand agents would log a thousand lines each. */
        link_config_t lc = { .endpoint = cfg->endpoint, .cert = cfg->cert,
                             .controller_key = cfg->controller_key, .name = a->name,
                             .hostname = a->name, .quiet = true };
        a->link = link_new (&lc, &sim_ops, a, a->spool, err, sizeof err);
        if (!a->link) {
            log_err ("%s: %s", a->name, err);
            rc = 2;
        }
    }
    if (!rc)
        log_info ("simulating %d agents (%s-00001..) with %d virtual drive(s) each, %.0f IOPS "
                  "per target, median clat %.0f us, connecting to %s", n, cfg->prefix,
                  cfg->ntargets, s->iops, s->median_ns / 1000, cfg->endpoint);
    uint64_t stat_at = clock_mono_ns ();
    double stat_cpu = cpu_seconds ();
    uint64_t stat_sent = 0;
    while (!rc && !zsys_interrupted) {
        uint64_t now = clock_mono_ns ();
        uint64_t next = now + LINK_PING_NS;
        int alive = 0;
        for (int i = 0; i < n; i++) {
            sim_agent_t *a = &s->agents[i];
            if (link_rejected (a->link)) {
                s->items[i].socket = NULL;
                s->items[i].fd = -1;
                s->items[i].events = 0;
                continue;
            }
            alive++;
            uint64_t w = link_tick (a->link, now);
            if (w < next)
                next = w;
            s->items[i].socket = link_handle (a->link);
            s->items[i].fd = 0;
            s->items[i].events = ZMQ_POLLIN;
            s->items[i].revents = 0;
        }
        if (!alive) {
            log_err ("every simulated agent was rejected; stopping");
            rc = 1;
            break;
        }
        if (now - stat_at >= SIM_STAT_NS)
            stat_line (s, now, &stat_at, &stat_cpu, &stat_sent);
        uint64_t now2 = clock_mono_ns ();
        long timeout = next > now2 ? (long) ((next - now2) / NS_PER_MS) + 1 : 0;
        if (timeout > 1000)
            timeout = 1000;
        int nready = zmq_poll (s->items, n, timeout);
        if (nready < 0) {
            if (zmq_errno () == EINTR)
                continue;
            if (zmq_errno () == ETERM)
                break;
            log_err ("zmq_poll: %s", zmq_strerror (zmq_errno ()));
            rc = 1;
            break;
        }
        for (int i = 0; i < n && nready > 0; i++) {
            if (!(s->items[i].revents & ZMQ_POLLIN))
                continue;
            nready--;
            link_recv (s->agents[i].link, 64);
        }
    }
    stat_line (s, clock_mono_ns (), &stat_at, &stat_cpu, &stat_sent);
    for (int i = 0; i < n; i++) {
        sim_agent_t *a = &s->agents[i];
        link_destroy (&a->link);
        spool_destroy (&a->spool);
        free (a->targets);
        free (a->tot_ops);
        free (a->tot_bytes);
        free (a->drives);
    }
    for (int t = 0; t < MSG_TARGETS_MAX; t++)
        free (s->health[t]);
    free (s->agents);
    free (s->items);
    free (s->hist_bufs);
    free (s->inv);
    return rc;
}
