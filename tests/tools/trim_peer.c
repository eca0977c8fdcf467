/*  trim_peer: an agent that trims, for the controller's side of trims
    before the real agent has them (tests/e2e/test_trim.sh).

      trim_peer ENDPOINT NAME

    Connects to a controller as agent NAME and runs whatever steps it is
    given, for their runtime, on the job's filenames as they are (it
    touches no file).  A step whose rw writes (write, randwrite) is played
    as fio's trimwrite: writes and trims; any other as reads only.  Every
    figure is fixed, so the test knows what the reports must say.  For
    target t of interval seq (the step's intervals are 0, 1, ...):
      reads  1000 + 10 seq + 100 t ops of 4 KiB, clat 100 us, slat 2 us,
             lat 102 us;
      writes  500 +    seq + 100 t ops of 4 KiB, clat 50 us, slat 2 us,
             lat 52 us;
      trims   200 +  7 seq + 100 t ops of 64 KiB, clat 2 ms but the
             first 5 of each interval at 10 ms, no slat (fio measures none
             for trims), lat clat + 1 us.
    DONE carries the totals of what was sent.  Runs until SIGTERM or
    SIGINT; exits 1 when the controller rejects it.
*/
#include "histogram.h"
#include "message.h"
#include "util.h"

#include <czmq.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TARGETS_MAX 16

typedef struct {
    uint64_t ops, bytes;
} total_t;

/* The step in hand. */
static struct {
    bool prepared, running;
    uint64_t run;
    uint32_t step;
    bool trims;                     /* trimwrite, else reads */
    uint64_t interval_ns, runtime_ns, start_at;
    uint32_t nint, next_seq;
    int ntargets;
    char *targets[TARGETS_MAX];
    total_t tot[TARGETS_MAX][3];    /* [target][read, write, trim] */
} s_job;

static volatile sig_atomic_t s_stop;

static void
on_signal (int sig)
{
    (void) sig;
    s_stop = 1;
}

static void
send_env (zsock_t *sock, envelope_t *env)
{
    size_t len;
    uint8_t *buf = message_pack (env, &len);
    if (!buf)
        return;
    zmsg_t *m = zmsg_new ();
    zmsg_addmem (m, buf, len);
    zmsg_send (&m, sock);
    free (buf);
}

/* Fills ds with n ops of bs bytes, all at clat (the first `slow` at
   slow_ns), lat = clat + lat_add; slat_ns 0: no slat.  bufs: 3 blobs of
   HIST_WIRE_MAX. */
static void
fill (Iofleet__DirStats *ds, uint64_t n, uint64_t bs, uint64_t clat, uint64_t slow,
      uint64_t slow_ns, uint64_t slat_ns, uint64_t lat_add, uint8_t (*bufs)[HIST_WIRE_MAX])
{
    iofleet__dir_stats__init (ds);
    ds->ops = n;
    ds->bytes = n * bs;
    histogram_t h;
    ProtobufCBinaryData *blob[3] = { &ds->histogram, &ds->slat_histogram, &ds->lat_histogram };
    for (int k = 0; k < 3; k++) {
        if (k == 1 && !slat_ns)
            continue;
        histogram_reset (&h);
        uint64_t add = k == 2 ? lat_add : 0;
        if (k == 1)
            histogram_record_n (&h, slat_ns, n);
        else {
            histogram_record_n (&h, slow_ns + add, slow);
            histogram_record_n (&h, clat + add, n - slow);
        }
        int len = histogram_encode (&h, bufs[k], HIST_WIRE_MAX);
        blob[k]->data = bufs[k];
        blob[k]->len = len > 0 ? (size_t) len : 0;
    }
}

static void
send_snapshot (zsock_t *sock, uint32_t seq)
{
    static Iofleet__TargetSample samples[TARGETS_MAX];
    static Iofleet__TargetSample *ptrs[TARGETS_MAX];
    static Iofleet__DirStats dirs[TARGETS_MAX][3];
    static uint8_t bufs[TARGETS_MAX][3][3][HIST_WIRE_MAX];
    for (int t = 0; t < s_job.ntargets; t++) {
        Iofleet__TargetSample *ts = &samples[t];
        iofleet__target_sample__init (ts);
        ts->target = (uint32_t) t;
        if (s_job.trims) {
            fill (&dirs[t][1], 500 + seq + 100u * t, 4096, 50000, 0, 0, 2000, 2000, bufs[t][1]);
            fill (&dirs[t][2], 200 + 7 * seq + 100u * t, 65536, 2000000, 5, 10000000, 0, 1000,
                  bufs[t][2]);
            ts->write = &dirs[t][1];
            ts->trim = &dirs[t][2];
        } else {
            fill (&dirs[t][0], 1000 + 10 * seq + 100u * t, 4096, 100000, 0, 0, 2000, 2000,
                  bufs[t][0]);
            ts->read = &dirs[t][0];
        }
        for (int d = 0; d < 3; d++) {
            const Iofleet__DirStats *ds = message_sample_dir (ts, d);
            if (ds) {
                s_job.tot[t][d].ops += ds->ops;
                s_job.tot[t][d].bytes += ds->bytes;
            }
        }
        ptrs[t] = ts;
    }
    Iofleet__Snapshot sn = IOFLEET__SNAPSHOT__INIT;
    sn.run = s_job.run;
    sn.step = s_job.step;
    sn.seq = seq;
    sn.t_start = s_job.start_at + (uint64_t) seq * s_job.interval_ns;
    sn.t_end = sn.t_start + s_job.interval_ns;
    sn.targets = ptrs;
    sn.n_targets = (size_t) s_job.ntargets;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_SNAPSHOT;
    env.snapshot = &sn;
    send_env (sock, &env);
}

static void
send_done (zsock_t *sock)
{
    static Iofleet__TargetSample samples[TARGETS_MAX];
    static Iofleet__TargetSample *ptrs[TARGETS_MAX];
    static Iofleet__DirStats dirs[TARGETS_MAX][3];
    for (int t = 0; t < s_job.ntargets; t++) {
        Iofleet__TargetSample *ts = &samples[t];
        iofleet__target_sample__init (ts);
        ts->target = (uint32_t) t;
        Iofleet__DirStats **slot[3] = { &ts->read, &ts->write, &ts->trim };
        for (int d = 0; d < 3; d++) {
            if (!s_job.tot[t][d].ops)
                continue;
            iofleet__dir_stats__init (&dirs[t][d]);
            dirs[t][d].ops = s_job.tot[t][d].ops;
            dirs[t][d].bytes = s_job.tot[t][d].bytes;
            *slot[d] = &dirs[t][d];
        }
        ptrs[t] = ts;
    }
    Iofleet__Done d = IOFLEET__DONE__INIT;
    d.run = s_job.run;
    d.step = s_job.step;
    d.snapshots = s_job.nint;
    d.actual_start = s_job.start_at;
    d.totals = ptrs;
    d.n_totals = (size_t) s_job.ntargets;
    d.error = "";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_DONE;
    env.done = &d;
    send_env (sock, &env);
}

static void
drop_job (void)
{
    for (int t = 0; t < s_job.ntargets; t++)
        free (s_job.targets[t]);
    memset (&s_job, 0, sizeof s_job);
}

static void
on_prepare (zsock_t *sock, const Iofleet__Prepare *p)
{
    drop_job ();
    const Iofleet__JobSpec *j = p->job;
    s_job.run = p->run;
    s_job.step = p->step;
    s_job.trims = j->rw == IOFLEET__RW__RW_WRITE || j->rw == IOFLEET__RW__RW_RANDWRITE;
    s_job.interval_ns = j->interval_ns ? j->interval_ns : NS_PER_SEC;
    s_job.runtime_ns = j->runtime_ns ? j->runtime_ns : 3 * NS_PER_SEC;
    s_job.nint = (uint32_t) ((s_job.runtime_ns + s_job.interval_ns - 1) / s_job.interval_ns);
    for (size_t i = 0; i < j->n_filenames && s_job.ntargets < TARGETS_MAX; i++)
        s_job.targets[s_job.ntargets++] = strdup (j->filenames[i]);
    s_job.prepared = true;
    Iofleet__Ready r = IOFLEET__READY__INIT;
    r.run = p->run;
    r.step = p->step;
    r.targets = s_job.targets;
    r.n_targets = (size_t) s_job.ntargets;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_READY;
    env.ready = &r;
    send_env (sock, &env);
}

int
main (int argc, char **argv)
{
    if (argc != 3) {
        fprintf (stderr, "usage: trim_peer ENDPOINT NAME\n");
        return 2;
    }
    signal (SIGTERM, on_signal);
    signal (SIGINT, on_signal);
    zsys_handler_set (NULL);
    zsock_t *sock = zsock_new (ZMQ_DEALER);
    zsock_set_linger (sock, 0);
    zsock_set_rcvtimeo (sock, 50);
    if (zsock_connect (sock, "%s", argv[1]) != 0) {
        fprintf (stderr, "trim_peer: cannot connect to %s\n", argv[1]);
        return 2;
    }
    Iofleet__Hello h = IOFLEET__HELLO__INIT;
    h.name = argv[2];
    h.hostname = argv[2];
    h.kernel = "trim_peer";
    h.agent_version = IOF_VERSION;
    h.pid = (uint64_t) getpid ();
    envelope_t hello = IOFLEET__ENVELOPE__INIT;
    hello.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
    hello.hello = &h;
    send_env (sock, &hello);
    uint64_t last_ping = 0;
    int rc = 0;
    while (!s_stop) {
        uint64_t now = clock_mono_ns ();
        if (now - last_ping > NS_PER_SEC) {
            Iofleet__Ping p = IOFLEET__PING__INIT;
            p.t0 = clock_real_ns ();
            envelope_t env = IOFLEET__ENVELOPE__INIT;
            env.body_case = IOFLEET__ENVELOPE__BODY_PING;
            env.ping = &p;
            send_env (sock, &env);
            last_ping = now;
        }
        /* Each interval once it has ended, as a real agent; then DONE. */
        while (s_job.running && s_job.next_seq < s_job.nint
               && clock_real_ns () >= s_job.start_at
                                      + (uint64_t) (s_job.next_seq + 1) * s_job.interval_ns)
            send_snapshot (sock, s_job.next_seq++);
        if (s_job.running && s_job.next_seq == s_job.nint) {
            send_done (sock);
            s_job.running = false;
        }
        zmsg_t *m = zmsg_recv (sock);
        if (!m)
            continue;
        zframe_t *body = zmsg_pop (m);
        zmsg_destroy (&m);
        if (!body)
            continue;
        char err[256];
        int mismatch;
        envelope_t *env = message_unpack (zframe_data (body), zframe_size (body), &mismatch, err,
                                          sizeof err);
        zframe_destroy (&body);
        if (!env || mismatch) {
            fprintf (stderr, "trim_peer: a bad message: %s\n", env ? "protocol" : err);
            message_free (env);
            continue;
        }
        switch (env->body_case) {
        case IOFLEET__ENVELOPE__BODY_REJECT:
            fprintf (stderr, "trim_peer: rejected: %s\n", env->reject->reason);
            s_stop = 1;
            rc = 1;
            break;
        case IOFLEET__ENVELOPE__BODY_ERROR:
            send_env (sock, &hello);        /* the controller forgot us */
            break;
        case IOFLEET__ENVELOPE__BODY_PREPARE:
            on_prepare (sock, env->prepare);
            break;
        case IOFLEET__ENVELOPE__BODY_START:
            if (s_job.prepared && env->start->run == s_job.run
                && env->start->step == s_job.step) {
                s_job.start_at = env->start->start_at;
                s_job.running = true;
            }
            break;
        case IOFLEET__ENVELOPE__BODY_ABORT:
            drop_job ();
            break;
        default:
            break;          /* WELCOME, PONG, ACK: nothing to keep (loopback loses nothing) */
        }
        message_free (env);
    }
    drop_job ();
    zsock_destroy (&sock);
    return rc;
}
