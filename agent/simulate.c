/*  simulate.c: see simulate.h.

    One thread, one zmq_poll over every virtual agent's socket.  Each agent
    follows the real agent's protocol (agent/main.c): HELLO until WELCOME,
    pings every second, PREPARE -> READY (or REFUSED), START -> a Snapshot
    per interval at the controller's interval boundaries, then DONE; every
    snapshot and the DONE are kept packed until acknowledged and resent
    after 3 s.  Buffers are reused across intervals and steps.
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
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#define SIM_STAT_NS         (10000 * NS_PER_MS)
#define SIM_NQ              256         /* quantile bins of the synthetic distribution */
#define SIM_SIGMA           0.25        /* log-normal shape */
#define SIM_MAX_INTERVALS   100000

typedef struct {
    uint8_t *buf;
    size_t len, cap;
    uint64_t sent_at;               /* mono ns; 0: to be sent */
    uint8_t resends;                /* backs off as the spool's (spool.h) */
    bool used, acked;
} slot_t;

typedef struct {
    double read_iops, write_iops;
    uint32_t bs_read, bs_write;
    double median_ns;               /* per target, this agent */
} sim_target_t;

enum { S_NONE, S_PREPARED, S_RUNNING, S_DONE_SENT };

typedef struct {
    int idx;
    char name[MSG_NAME_MAX + 1];
    zsock_t *sock;
    void *zs;                       /* the libzmq socket of sock */
    bool welcomed, dead;
    uint64_t opened_at, last_hello, last_ping, last_heard, hello_backoff;

    int state;
    uint64_t run;
    uint32_t step;
    int nt;
    sim_target_t *targets;          /* MSG_TARGETS_MAX */
    uint64_t measure_start;         /* controller (= local realtime) ns */
    uint64_t interval_ns, runtime_ns;
    uint32_t nintervals, next_seq;
    uint64_t *tot_ops, *tot_bytes;  /* nt * 2 */
    slot_t *slots;                  /* nintervals + 1 (the DONE last) */
    uint32_t nslots;
} sim_agent_t;

typedef struct {
    const sim_config_t *cfg;
    sim_agent_t *agents;
    zmq_pollitem_t *items;
    char hostname[256], kernel[256];
    char *inv;                      /* inventory JSON scratch */
    size_t invcap;
    uint8_t *scratch;               /* packing of unkept messages */
    size_t scratch_cap;
    histogram_t hist;
    uint8_t *hist_bufs;             /* MSG_TARGETS_MAX * 2 * HIST_WIRE_MAX */
    Iofleet__TargetSample samples[MSG_TARGETS_MAX];
    Iofleet__TargetSample *sample_ptrs[MSG_TARGETS_MAX];
    Iofleet__DirStats dirs[MSG_TARGETS_MAX * 2];
    double expz[SIM_NQ];            /* exp(sigma * z) of each quantile bin */
    double iops, median_ns;
    /* counters for the stat line */
    uint64_t snaps_sent, snaps_acked, resent, steps_done;
    uint64_t snap_bytes, target_intervals;  /* first sends: the wire cost */
} sim_t;

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

/* Packs env into the shared scratch and sends it. */
static void
send_env (sim_t *s, sim_agent_t *a, envelope_t *env)
{
    env->version = IOF_PROTOCOL_VERSION;
    size_t n = iofleet__envelope__get_packed_size (env);
    if (!grow (&s->scratch, &s->scratch_cap, n ? n : 1))
        return;
    size_t len = iofleet__envelope__pack (env, s->scratch);
    zmq_send (a->zs, s->scratch, len, ZMQ_DONTWAIT);
}

/* Packs env into slot (kept until acknowledged) and sends it. */
static void
send_kept (sim_t *s, sim_agent_t *a, slot_t *slot, envelope_t *env)
{
    (void) s;
    env->version = IOF_PROTOCOL_VERSION;
    size_t n = iofleet__envelope__get_packed_size (env);
    if (!grow (&slot->buf, &slot->cap, n ? n : 1)) {
        log_err ("%s: out of memory keeping a message; dropped", a->name);
        return;
    }
    slot->len = iofleet__envelope__pack (env, slot->buf);
    slot->used = true;
    slot->acked = false;
    slot->resends = 0;
    slot->sent_at = clock_mono_ns ();
    zmq_send (a->zs, slot->buf, slot->len, ZMQ_DONTWAIT);
}

static const char *
inventory (sim_t *s, const sim_agent_t *a)
{
    size_t need = 512 + (size_t) s->cfg->ntargets * 320;
    if (!grow ((uint8_t **) &s->inv, &s->invcap, need))
        return "";
    size_t off = (size_t) snprintf (s->inv, s->invcap,
        "{\"host\":{\"hostname\":\"%s\",\"kernel\":\"%s\",\"simulated\":true},"
        "\"controllers\":[],\"drives\":[", a->name, s->kernel);
    for (int t = 0; t < s->cfg->ntargets; t++)
        off += (size_t) snprintf (s->inv + off, s->invcap - off,
            "%s{\"name\":\"sim%dd%d\",\"path\":\"/dev/sim%d/d%d\",\"model\":\"SIM-NVME-1\","
            "\"vendor\":\"iofleet\",\"serial\":\"SIM%05d-%03d\",\"firmware\":\"1.0\","
            "\"transport\":\"nvme\",\"size_bytes\":1000204886016,\"rotational\":false,"
            "\"logical_block_size\":512,\"mounted\":false,\"boot\":false,\"holders\":false}",
            t ? "," : "", a->idx + 1, t, a->idx + 1, t, a->idx + 1, t);
    snprintf (s->inv + off, s->invcap - off, "]}");
    return s->inv;
}

static uint32_t
job_state (const sim_agent_t *a)
{
    if (a->state == S_PREPARED || a->state == S_RUNNING)
        return IOFLEET__JOB_STATE__JOB_ACTIVE;
    if (a->state == S_DONE_SENT)
        return IOFLEET__JOB_STATE__JOB_FINISHED;
    return IOFLEET__JOB_STATE__JOB_NONE;
}

static void
send_hello (sim_t *s, sim_agent_t *a)
{
    Iofleet__Hello h = IOFLEET__HELLO__INIT;
    h.name = a->name;
    h.hostname = a->name;
    h.kernel = s->kernel;
    h.agent_version = IOF_VERSION;
    h.pid = (uint64_t) getpid ();
    h.inventory_json = (char *) inventory (s, a);
    if (a->state != S_NONE) {
        h.job_run = a->run;
        h.job_step = a->step;
        h.job_state = job_state (a);
    }
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    send_env (s, a, &env);
    a->last_hello = clock_mono_ns ();
}

static void
send_ping (sim_t *s, sim_agent_t *a)
{
    Iofleet__Ping p = IOFLEET__PING__INIT;
    p.t0 = clock_real_ns ();
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_PING;
    env.ping = &p;
    send_env (s, a, &env);
    a->last_ping = clock_mono_ns ();
}

static void
send_refused (sim_t *s, sim_agent_t *a, uint64_t run, uint32_t step, const char *why)
{
    Iofleet__Refused r = IOFLEET__REFUSED__INIT;
    r.run = run;
    r.step = step;
    r.reason = (char *) why;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_REFUSED;
    env.refused = &r;
    send_env (s, a, &env);
}

static int
open_socket (sim_t *s, sim_agent_t *a)
{
    char err[1024];
    zsock_t *z = link_open (s->cfg->endpoint, s->cfg->cert, s->cfg->controller_key, err,
                            sizeof err);
    if (!z) {
        log_err ("%s: %s", a->name, err);
        return -1;
    }
    zsock_destroy (&a->sock);
    a->sock = z;
    a->zs = zsock_resolve (z);
    a->opened_at = clock_mono_ns ();
    return 0;
}

static void
drop_job (sim_agent_t *a)
{
    a->state = S_NONE;
    for (uint32_t i = 0; i < a->nslots; i++)
        a->slots[i].used = false;
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
        const char *v = !field ? NULL : strcmp (field, "model") == 0 ? "SIM-NVME-1"
                        : strcmp (field, "serial") == 0 ? serial : "nvme";
        if (v && fnmatch (pat, v, 0) != 0)
            continue;
        if (*n >= MSG_TARGETS_MAX) {
            snprintf (err, errlen, "more than %d targets", MSG_TARGETS_MAX);
            return -1;
        }
        snprintf (store[*n], sizeof store[*n], "/dev/sim%d/d%d", a->idx + 1, t);
        paths[*n] = store[*n];
        (*n)++;
        added++;
    }
    if (!added) {
        snprintf (err, errlen, "selector '%s' matched no data drive on this agent (%d simulated "
                  "SIM-NVME-1 nvme drives)", f, s->cfg->ntargets);
        return -1;
    }
    return 0;
}

static void
on_prepare (sim_t *s, sim_agent_t *a, const Iofleet__Prepare *p)
{
    if (a->state == S_PREPARED || a->state == S_RUNNING) {
        if (a->run == p->run && a->step == p->step)
            return;         /* duplicate */
        char why[128];
        snprintf (why, sizeof why, "agent is busy with run %llu step %u",
                  (unsigned long long) a->run, a->step);
        send_refused (s, a, p->run, p->step, why);
        return;
    }
    drop_job (a);           /* what the controller did not acknowledge: let go */
    static const char *paths[MSG_TARGETS_MAX];
    static char store[MSG_TARGETS_MAX][32];
    char err[512] = "";
    int n = 0;
    size_t njobs = p->n_more_jobs + 1;
    const Iofleet__JobSpec *first = p->job;
    for (size_t j = 0; j < njobs; j++) {
        const Iofleet__JobSpec *spec = j ? p->more_jobs[j - 1] : p->job;
        int from = n;
        for (size_t k = 0; k < spec->n_filenames; k++)
            if (expand (s, a, spec->filenames[k], paths, store, &n, err, sizeof err) != 0) {
                send_refused (s, a, p->run, p->step, err);
                return;
            }
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
        }
    }
    if (n == 0) {
        send_refused (s, a, p->run, p->step, "the job names no target");
        return;
    }
    uint64_t interval = first->interval_ns ? first->interval_ns : NS_PER_SEC;
    uint64_t runtime = first->runtime_ns ? first->runtime_ns : 10 * NS_PER_SEC;
    uint64_t nint = (runtime + interval - 1) / interval;
    if (nint > SIM_MAX_INTERVALS) {
        send_refused (s, a, p->run, p->step, "simulated agent: too many intervals");
        return;
    }
    if (nint + 1 > a->nslots) {
        slot_t *sl = realloc (a->slots, (size_t) (nint + 1) * sizeof *sl);
        if (!sl) {
            send_refused (s, a, p->run, p->step, "agent out of memory");
            return;
        }
        memset (sl + a->nslots, 0, (size_t) (nint + 1 - a->nslots) * sizeof *sl);
        a->slots = sl;
        a->nslots = (uint32_t) nint + 1;
    }
    a->run = p->run;
    a->step = p->step;
    a->nt = n;
    a->interval_ns = interval;
    a->runtime_ns = runtime;
    a->nintervals = (uint32_t) nint;
    a->next_seq = 0;
    a->measure_start = first->startdelay_ns + first->ramp_time_ns;     /* + start_at at START */
    memset (a->tot_ops, 0, (size_t) n * 2 * sizeof *a->tot_ops);
    memset (a->tot_bytes, 0, (size_t) n * 2 * sizeof *a->tot_bytes);
    a->state = S_PREPARED;

    Iofleet__Ready r = IOFLEET__READY__INIT;
    r.run = p->run;
    r.step = p->step;
    r.targets = (char **) paths;
    r.n_targets = (size_t) n;
    r.inventory_json = (char *) inventory (s, a);
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_READY;
    env.ready = &r;
    send_env (s, a, &env);
}

static void
on_start (sim_agent_t *a, const Iofleet__Start *st)
{
    if (a->state != S_PREPARED || a->run != st->run || a->step != st->step)
        return;
    a->measure_start += st->start_at;
    a->state = S_RUNNING;
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
    uint64_t key = ((uint64_t) a->idx << 40) ^ ((uint64_t) t << 32) ^ ((uint64_t) d << 31) ^ seq;
    double jit = 0.99 + 0.02 * unit (key);          /* +-1% ops */
    uint64_t ops = (uint64_t) (iops * jit * (double) dur / 1e9 + 0.5);
    if (ops == 0)
        return;
    double med = st->median_ns * (d ? 0.5 : 1.0) * (0.98 + 0.04 * unit (key ^ 0x5555));
    histogram_t *h = &s->hist;
    uint32_t touched[SIM_NQ];
    int ntouched = 0;
    for (int j = 0; j < SIM_NQ; j++) {
        uint64_t c = ops * (uint64_t) (j + 1) / SIM_NQ - ops * (uint64_t) j / SIM_NQ;
        if (!c)
            continue;
        uint64_t v = (uint64_t) (med * s->expz[j]);
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
send_snapshot (sim_t *s, sim_agent_t *a)
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
        s->sample_ptrs[t] = ts;
    }
    Iofleet__Snapshot sn = IOFLEET__SNAPSHOT__INIT;
    sn.run = a->run;
    sn.step = a->step;
    sn.seq = seq;
    sn.t_start = t0;
    sn.t_end = t1;
    sn.targets = s->sample_ptrs;
    sn.n_targets = (size_t) a->nt;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_SNAPSHOT;
    env.snapshot = &sn;
    send_kept (s, a, &a->slots[seq], &env);
    a->next_seq++;
    s->snaps_sent++;
    s->snap_bytes += a->slots[seq].len;
    s->target_intervals += (uint64_t) a->nt;
}

static void
send_done (sim_t *s, sim_agent_t *a)
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
    d.actual_start = a->measure_start;
    d.totals = s->sample_ptrs;
    d.n_totals = (size_t) a->nt;
    d.error = "";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_DONE;
    env.done = &d;
    send_kept (s, a, &a->slots[a->nintervals], &env);
    a->state = S_DONE_SENT;
    s->steps_done++;
}

/* Everything unacknowledged goes again at the next tick, its backoff
   started over (as spool_unsend). */
static void
unsend (sim_agent_t *a)
{
    for (uint32_t i = 0; i < a->nslots; i++)
        if (a->slots[i].used && !a->slots[i].acked)
            a->slots[i].sent_at = 0, a->slots[i].resends = 0;
}

static void
on_ack (sim_t *s, sim_agent_t *a, const Iofleet__Ack *k)
{
    if (a->state == S_NONE || a->state == S_PREPARED || k->run != a->run || k->step != a->step)
        return;
    uint32_t upto = k->upto == UINT32_MAX ? a->nslots : k->upto;
    for (uint32_t i = 0; i < upto && i < a->nintervals; i++)
        if (a->slots[i].used && !a->slots[i].acked) {
            a->slots[i].acked = true;
            s->snaps_acked++;
        }
    for (size_t i = 0; i < k->n_seqs; i++) {
        uint32_t q = k->seqs[i];
        if (q < a->nintervals && a->slots[q].used && !a->slots[q].acked) {
            a->slots[q].acked = true;
            s->snaps_acked++;
        }
    }
    if (k->resend)
        unsend (a);
    if (k->upto == UINT32_MAX && a->state == S_DONE_SENT)
        drop_job (a);
}

static void
on_message (sim_t *s, sim_agent_t *a, const uint8_t *data, size_t len)
{
    char err[256];
    int mismatch;
    envelope_t *env = message_unpack (data, len, &mismatch, err, sizeof err);
    if (!env || mismatch) {
        log_warn ("%s: dropped a bad message from the controller: %s", a->name, err);
        message_free (env);
        return;
    }
    uint64_t now = clock_mono_ns ();
    a->last_heard = now;
    switch (env->body_case) {
    case IOFLEET__ENVELOPE__BODY_WELCOME:
        a->welcomed = true;
        a->hello_backoff = LINK_HELLO_RETRY_NS;
        send_ping (s, a);
        /* A new connection: everything unacknowledged goes again now. */
        unsend (a);
        break;
    case IOFLEET__ENVELOPE__BODY_REJECT:
        log_err ("%s: controller rejected this agent: %s", a->name, env->reject->reason);
        a->dead = true;
        break;
    case IOFLEET__ENVELOPE__BODY_PONG:
        break;              /* one host: the clock offset is 0 */
    case IOFLEET__ENVELOPE__BODY_PREPARE:
        on_prepare (s, a, env->prepare);
        break;
    case IOFLEET__ENVELOPE__BODY_START:
        on_start (a, env->start);
        break;
    case IOFLEET__ENVELOPE__BODY_ACK:
        on_ack (s, a, env->ack);
        break;
    case IOFLEET__ENVELOPE__BODY_ABORT:
        if (a->state != S_NONE && a->run == env->abort->run)
            drop_job (a);
        break;
    case IOFLEET__ENVELOPE__BODY_ERROR:
        log_warn ("%s: controller: %s", a->name, env->error->message);
        a->welcomed = false;
        send_hello (s, a);
        break;
    default:
        break;
    }
    message_free (env);
}

/* now - then, 0 when then was stamped after now was read. */
static uint64_t
since (uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

/* Everything time-driven for one agent.  Returns when it next wants to
   run (mono ns). */
static uint64_t
tick (sim_t *s, sim_agent_t *a, uint64_t now, uint64_t real)
{
    uint64_t next = now + LINK_PING_NS;
    if (!a->welcomed && (s->cfg->cert || s->cfg->controller_key)
        && since (now, a->opened_at) > LINK_CURVE_REOPEN_NS) {
        if (open_socket (s, a) == 0)
            send_hello (s, a);
        else
            a->opened_at = now;
    }
    if (!a->welcomed && since (now, a->last_hello) > a->hello_backoff) {
        send_hello (s, a);
        a->hello_backoff = a->hello_backoff * 2 > LINK_HELLO_RETRY_MAX_NS ? LINK_HELLO_RETRY_MAX_NS
                                                                   : a->hello_backoff * 2;
    }
    if (a->welcomed && since (now, a->last_ping) >= LINK_PING_NS)
        send_ping (s, a);
    if (a->welcomed && a->last_heard && since (now, a->last_heard) > LINK_SILENCE_NS) {
        a->welcomed = false;
        a->last_heard = now;
        a->hello_backoff = LINK_HELLO_RETRY_NS;
        send_hello (s, a);
    }
    if (a->state == S_RUNNING) {
        while (a->state == S_RUNNING && a->next_seq < a->nintervals) {
            uint64_t end = a->measure_start + (uint64_t) (a->next_seq + 1) * a->interval_ns;
            uint64_t last = a->measure_start + a->runtime_ns;
            if (end > last)
                end = last;
            if (real < end) {
                uint64_t due = now + (end - real);
                if (due < next)
                    next = due;
                break;
            }
            send_snapshot (s, a);
        }
        if (a->state == S_RUNNING && a->next_seq >= a->nintervals)
            send_done (s, a);
    }
    if (a->welcomed)
        for (uint32_t i = 0; i < a->nslots; i++) {
            slot_t *sl = &a->slots[i];
            uint64_t wait = spool_resend_wait (LINK_RESEND_NS, sl->resends);
            if (sl->used && !sl->acked && (!sl->sent_at || since (now, sl->sent_at) >= wait)) {
                if (sl->sent_at) {
                    s->resent++;
                    if (sl->resends < UINT8_MAX)
                        sl->resends++;
                }
                zmq_send (a->zs, sl->buf, sl->len, ZMQ_DONTWAIT);
                sl->sent_at = now;
            }
        }
    return next;
}

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
    for (int i = 0; i < s->cfg->nagents; i++)
        welcomed += s->agents[i].welcomed;
    fprintf (stderr, "iofleet-agent simulate: %d/%d agents welcomed, snapshots sent %llu "
             "acked %llu resent %llu (%.1f/s), steps done %llu, CPU %.1f%%, %.0f bytes per "
             "target-interval on the wire\n", welcomed,
             s->cfg->nagents, (unsigned long long) s->snaps_sent,
             (unsigned long long) s->snaps_acked, (unsigned long long) s->resent,
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
        a->idx = i;
        snprintf (a->name, sizeof a->name, "%s-%05d", cfg->prefix, i + 1);
        a->hello_backoff = LINK_HELLO_RETRY_NS;
        a->targets = calloc (MSG_TARGETS_MAX, sizeof *a->targets);
        a->tot_ops = calloc (MSG_TARGETS_MAX * 2, sizeof *a->tot_ops);
        a->tot_bytes = calloc (MSG_TARGETS_MAX * 2, sizeof *a->tot_bytes);
        if (!a->targets || !a->tot_ops || !a->tot_bytes) {
            fprintf (stderr, "iofleet-agent: out of memory for %d simulated agents\n", n);
            rc = 1;
        } else if (open_socket (s, a) != 0)
            rc = 2;
        else
            send_hello (s, a);
    }
    if (!rc)
        log_info ("simulating %d agents (%s-00001..) with %d virtual drive(s) each, %.0f IOPS "
                  "per target, median clat %.0f us, connecting to %s", n, cfg->prefix,
                  cfg->ntargets, s->iops, s->median_ns / 1000, cfg->endpoint);
    uint64_t stat_at = clock_mono_ns ();
    double stat_cpu = cpu_seconds ();
    uint64_t stat_sent = 0;
    zmq_msg_t msg;
    zmq_msg_init (&msg);
    while (!rc && !zsys_interrupted) {
        uint64_t now = clock_mono_ns ();
        uint64_t real = clock_real_ns ();
        uint64_t next = now + LINK_PING_NS;
        int alive = 0;
        for (int i = 0; i < n; i++) {
            sim_agent_t *a = &s->agents[i];
            if (a->dead) {
                s->items[i].socket = NULL;
                s->items[i].fd = -1;
                s->items[i].events = 0;
                continue;
            }
            alive++;
            uint64_t w = tick (s, a, now, real);
            if (w < next)
                next = w;
            s->items[i].socket = a->zs;
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
            sim_agent_t *a = &s->agents[i];
            for (int k = 0; k < 64 && !a->dead; k++) {
                if (zmq_msg_recv (&msg, a->zs, ZMQ_DONTWAIT) < 0)
                    break;
                on_message (s, a, zmq_msg_data (&msg), zmq_msg_size (&msg));
            }
        }
    }
    zmq_msg_close (&msg);
    stat_line (s, clock_mono_ns (), &stat_at, &stat_cpu, &stat_sent);
    for (int i = 0; i < n; i++) {
        sim_agent_t *a = &s->agents[i];
        zsock_destroy (&a->sock);
        for (uint32_t k = 0; k < a->nslots; k++)
            free (a->slots[k].buf);
        free (a->slots);
        free (a->targets);
        free (a->tot_ops);
        free (a->tot_bytes);
    }
    free (s->agents);
    free (s->items);
    free (s->hist_bufs);
    free (s->inv);
    free (s->scratch);
    return rc;
}
