/*  test_link.c: the agent's protocol client (agent/link.c) against a
    controller played by the test (a ROUTER socket on loopback).  Two links
    live in one process, as the simulator's do: each has its own
    connection, welcome, step and spool.  A fake workload counts the ops
    the link calls and sends what the link asks it for. */
#define _GNU_SOURCE
#include "link.h"
#include "jobfile.h"
#include "jobspec.h"
#include "log.h"
#include "message.h"
#include "spool.h"
#include "testutil.h"
#include "util.h"

#include <czmq.h>

typedef struct {
    int prepares, starts, stops, inventories;
    bool refuse;
    uint64_t run;
    uint32_t step;
    uint64_t mono_start;
    uint32_t nsnap, sent;           /* snapshots to send, then DONE */
} fake_t;

static char *s_paths[1] = { "/dev/fake0" };

static int
fake_prepare (void *self, link_t *link, const Iofleet__Prepare *p, Iofleet__Ready *ready,
              char *err, size_t errlen)
{
    (void) link;
    fake_t *f = self;
    f->prepares++;
    if (f->refuse) {
        snprintf (err, errlen, "the fake refuses");
        return -1;
    }
    f->run = p->run;
    f->step = p->step;
    f->sent = 0;
    f->mono_start = 0;
    ready->targets = s_paths;
    ready->n_targets = 1;
    return 0;
}

static void
fake_start (void *self, uint64_t mono_start)
{
    fake_t *f = self;
    f->starts++;
    f->mono_start = mono_start;
}

static uint64_t
fake_collect (void *self, link_t *link, uint64_t now)
{
    fake_t *f = self;
    if (now < f->mono_start)
        return f->mono_start;
    Iofleet__DirStats rd = IOFLEET__DIR_STATS__INIT, wr = IOFLEET__DIR_STATS__INIT;
    Iofleet__TargetSample ts = IOFLEET__TARGET_SAMPLE__INIT;
    ts.read = &rd;
    ts.write = &wr;
    Iofleet__TargetSample *tsp = &ts;
    for (; f->sent < f->nsnap; f->sent++) {
        Iofleet__Snapshot s = IOFLEET__SNAPSHOT__INIT;
        s.run = f->run;
        s.step = f->step;
        s.seq = f->sent;
        s.t_start = link_ctrl_time (link, f->mono_start + f->sent * NS_PER_MS);
        s.t_end = link_ctrl_time (link, f->mono_start + (f->sent + 1) * NS_PER_MS);
        s.targets = &tsp;
        s.n_targets = 1;
        CHECK (link_send_snapshot (link, &s) > 0);
    }
    Iofleet__Done d = IOFLEET__DONE__INIT;
    d.run = f->run;
    d.step = f->step;
    d.snapshots = f->nsnap;
    d.actual_start = link_ctrl_time (link, f->mono_start);
    d.totals = &tsp;
    d.n_totals = 1;
    d.error = "";
    link_send_done (link, &d);
    return now + NS_PER_MS;
}

static void
fake_stop (void *self)
{
    ((fake_t *) self)->stops++;
}

static char *
fake_inventory (void *self)
{
    ((fake_t *) self)->inventories++;
    return strdup ("{\"host\":{\"hostname\":\"fake\"},\"controllers\":[],\"drives\":[]}");
}

static const link_ops_t s_fake_ops = {
    .prepare = fake_prepare, .start = fake_start, .collect = fake_collect,
    .stop = fake_stop, .inventory = fake_inventory,
};

//  ---------------------------------------------------------------------
//  The controller: a ROUTER; each link known by the identity of its HELLO

#define NLINKS 2

static zsock_t *s_router;
static link_t *s_link[NLINKS];
static fake_t s_fake[NLINKS];
static spool_t *s_spool[NLINKS];
static zframe_t *s_id[NLINKS];
static const char *s_names[NLINKS] = { "link-a", "link-b" };

/* Which link an identity is: its index, or -1. */
static int
who (zframe_t *id)
{
    for (int i = 0; i < NLINKS; i++)
        if (s_id[i] && zframe_eq (s_id[i], id))
            return i;
    return -1;
}

/* Drives every link (tick, receive) until link i sends a message of kind
   body (anything else is passed over), for at most ms.  Returns it
   (message_free), or NULL. */
static envelope_t *
expect (int i, int body, int ms)
{
    uint64_t until = clock_mono_ns () + (uint64_t) ms * NS_PER_MS;
    while (clock_mono_ns () < until) {
        for (int k = 0; k < NLINKS; k++)
            if (s_link[k]) {
                link_tick (s_link[k], clock_mono_ns ());
                link_recv (s_link[k], 16);
            }
        zmsg_t *m = NULL;
        zpoller_t *p = zpoller_new (s_router, NULL);
        if (zpoller_wait (p, 5))
            m = zmsg_recv (s_router);
        zpoller_destroy (&p);
        if (!m)
            continue;
        zframe_t *id = zmsg_pop (m);
        zframe_t *data = zmsg_pop (m);
        char err[256];
        int mismatch;
        envelope_t *env = data ? message_unpack (zframe_data (data), zframe_size (data),
                                                 &mismatch, err, sizeof err) : NULL;
        CHECK_MSG (env && !mismatch, "a bad message from a link: %s", err);
        if (env && env->body_case == IOFLEET__ENVELOPE__BODY_HELLO && who (id) < 0)
            for (int k = 0; k < NLINKS; k++)
                if (strcmp (env->hello->name, s_names[k]) == 0)
                    s_id[k] = zframe_dup (id);
        bool mine = env && who (id) == i && (int) env->body_case == body;
        zframe_destroy (&id);
        zframe_destroy (&data);
        zmsg_destroy (&m);
        if (mine)
            return env;
        message_free (env);
    }
    return NULL;
}

/* Sends env to link i.  Can't fail (a failure is a failed check). */
static void
send_to (int i, envelope_t *env)
{
    size_t len;
    uint8_t *buf = message_pack (env, &len);
    CHECK (buf && s_id[i]);
    if (!buf || !s_id[i])
        return;
    zmsg_t *m = zmsg_new ();
    zmsg_append (m, &(zframe_t *) { zframe_dup (s_id[i]) });
    zmsg_addmem (m, buf, len);
    free (buf);
    CHECK (zmsg_send (&m, s_router) == 0);
}

static void
send_welcome (int i)
{
    Iofleet__Welcome w = IOFLEET__WELCOME__INIT;
    w.agent_id = (uint64_t) i + 1;
    w.interval_ns = NS_PER_SEC;
    w.controller_version = IOF_VERSION;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_WELCOME;
    env.welcome = &w;
    send_to (i, &env);
}

static Iofleet__JobSpec *s_spec;

static void
send_prepare (int i, uint64_t run, uint32_t step)
{
    Iofleet__Prepare p = IOFLEET__PREPARE__INIT;
    p.run = run;
    p.step = step;
    p.job = s_spec;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_PREPARE;
    env.prepare = &p;
    send_to (i, &env);
}

static void
send_ack (int i, uint64_t run, uint32_t step, uint32_t upto, bool resend)
{
    Iofleet__Ack a = IOFLEET__ACK__INIT;
    a.run = run;
    a.step = step;
    a.upto = upto;
    a.resend = resend;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_ACK;
    env.ack = &a;
    send_to (i, &env);
}

static void
send_error (int i)
{
    Iofleet__Error e = IOFLEET__ERROR__INIT;
    e.message = "unknown agent: say HELLO";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
    env.error = &e;
    send_to (i, &env);
}

//  ---------------------------------------------------------------------

/* HELLO from both, WELCOME to one: only it pings, and only it is welcomed. */
static void
test_hello (void)
{
    for (int i = 0; i < NLINKS; i++) {
        envelope_t *h = expect (i, IOFLEET__ENVELOPE__BODY_HELLO, 2000);
        CHECK_MSG (h != NULL, "no HELLO from %s", s_names[i]);
        if (h) {
            CHECK (strcmp (h->hello->name, s_names[i]) == 0);
            CHECK (strcmp (h->hello->hostname, "host-of-test") == 0);
            CHECK (h->hello->job_state == IOFLEET__JOB_STATE__JOB_NONE);
            CHECK (strstr (h->hello->inventory_json, "fake") != NULL);
        }
        message_free (h);
    }
    send_welcome (0);
    envelope_t *ping = expect (0, IOFLEET__ENVELOPE__BODY_PING, 2000);
    CHECK_MSG (ping != NULL, "no PING after WELCOME");
    if (ping) {
        Iofleet__Pong pong = IOFLEET__PONG__INIT;
        pong.t0 = ping->ping->t0;
        pong.t1 = pong.t2 = clock_real_ns ();
        envelope_t env = IOFLEET__ENVELOPE__INIT;
        env.body_case = IOFLEET__ENVELOPE__BODY_PONG;
        env.pong = &pong;
        send_to (0, &env);
    }
    message_free (ping);
    CHECK (link_welcomed (s_link[0]) && !link_welcomed (s_link[1]));
    CHECK (strcmp (link_name (s_link[1]), "link-b") == 0);
}

/* PREPARE -> READY; the same again is a duplicate, another is refused as
   busy; START -> the workload's intervals, DONE; ACK and resend. */
static void
test_step (void)
{
    send_prepare (0, 5, 0);
    envelope_t *r = expect (0, IOFLEET__ENVELOPE__BODY_READY, 2000);
    CHECK_MSG (r != NULL, "no READY");
    if (r)
        CHECK (r->ready->run == 5 && r->ready->n_targets == 1
               && strcmp (r->ready->targets[0], "/dev/fake0") == 0);
    message_free (r);
    send_prepare (0, 5, 0);
    send_prepare (0, 5, 1);
    r = expect (0, IOFLEET__ENVELOPE__BODY_REFUSED, 2000);
    CHECK_MSG (r && strstr (r->refused->reason, "busy with run 5 step 0"), "refused: %s",
               r ? r->refused->reason : "(none)");
    message_free (r);
    CHECK (s_fake[0].prepares == 1);

    s_fake[0].nsnap = 3;
    Iofleet__Start st = IOFLEET__START__INIT;
    st.run = 5;
    st.step = 0;
    st.start_at = clock_real_ns () + 20 * NS_PER_MS;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_START;
    env.start = &st;
    send_to (0, &env);
    for (uint32_t seq = 0; seq < 3; seq++) {
        envelope_t *s = expect (0, IOFLEET__ENVELOPE__BODY_SNAPSHOT, 2000);
        CHECK_MSG (s && s->snapshot->seq == seq, "snapshot %u", seq);
        /* Controller time of the instant START named, give or take the
           clock estimate of one host (it is the same clock). */
        if (s && seq == 0) {
            int64_t d = (int64_t) s->snapshot->t_start - (int64_t) st.start_at;
            CHECK_MSG (d > -5 * (int64_t) NS_PER_MS && d < 5 * (int64_t) NS_PER_MS,
                       "t_start %lld ns from start_at", (long long) d);
        }
        message_free (s);
    }
    envelope_t *d = expect (0, IOFLEET__ENVELOPE__BODY_DONE, 2000);
    CHECK_MSG (d && d->done->snapshots == 3, "no DONE");
    message_free (d);
    CHECK (s_fake[0].starts == 1);

    /* DONE not acknowledged: a HELLO (after an ERROR) says FINISHED. */
    send_error (0);
    envelope_t *h = expect (0, IOFLEET__ENVELOPE__BODY_HELLO, 2000);
    CHECK_MSG (h && h->hello->job_state == IOFLEET__JOB_STATE__JOB_FINISHED
               && h->hello->job_run == 5, "HELLO after DONE");
    message_free (h);
    send_welcome (0);
    /* A new connection: everything not acknowledged goes again at once
       (taken here, so that the ACK below never races it). */
    for (uint32_t seq = 0; seq < 3; seq++) {
        envelope_t *r = expect (0, IOFLEET__ENVELOPE__BODY_SNAPSHOT, 2000);
        CHECK_MSG (r && r->snapshot->seq == seq, "snapshot %u again after WELCOME", seq);
        message_free (r);
    }
    d = expect (0, IOFLEET__ENVELOPE__BODY_DONE, 2000);
    CHECK_MSG (d != NULL, "DONE not sent again after WELCOME");
    message_free (d);

    /* Acknowledged up to 2 (seq 0, 1); resend asked: seq 2 and DONE again. */
    send_ack (0, 5, 0, 2, true);
    envelope_t *s = expect (0, IOFLEET__ENVELOPE__BODY_SNAPSHOT, 2000);
    CHECK_MSG (s && s->snapshot->seq == 2, "resent snapshot %u", s ? s->snapshot->seq : 0);
    message_free (s);
    d = expect (0, IOFLEET__ENVELOPE__BODY_DONE, 2000);
    CHECK_MSG (d != NULL, "DONE not resent");
    message_free (d);
    send_ack (0, 5, 0, UINT32_MAX, false);
    expect (1, IOFLEET__ENVELOPE__BODY_READY, 100);     /* let the ACK arrive */
    spool_stats_t sst;
    spool_stats (s_spool[0], &sst);
    CHECK_MSG (sst.unacked == 0 && sst.acked == 4, "unacked %llu acked %llu",
               (unsigned long long) sst.unacked, (unsigned long long) sst.acked);
    spool_stats (s_spool[1], &sst);
    CHECK (sst.records == 0);
}

/* An ABORT of the run being prepared (before START) stops the workload;
   a refusing workload's reason reaches the controller. */
static void
test_abort_refuse (void)
{
    send_prepare (0, 6, 0);
    envelope_t *r = expect (0, IOFLEET__ENVELOPE__BODY_READY, 2000);
    CHECK (r != NULL);
    message_free (r);
    Iofleet__Abort a = IOFLEET__ABORT__INIT;
    a.run = 6;
    a.reason = "cancelled by the test";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
    env.abort = &a;
    send_to (0, &env);
    expect (1, IOFLEET__ENVELOPE__BODY_READY, 100);
    CHECK (s_fake[0].stops == 1);
    s_fake[0].refuse = true;
    send_prepare (0, 7, 0);
    r = expect (0, IOFLEET__ENVELOPE__BODY_REFUSED, 2000);
    CHECK_MSG (r && strcmp (r->refused->reason, "the fake refuses") == 0, "refused: %s",
               r ? r->refused->reason : "(none)");
    message_free (r);
    /* Refused: nothing in hand, so the next PREPARE is taken. */
    s_fake[0].refuse = false;
    send_prepare (0, 8, 0);
    r = expect (0, IOFLEET__ENVELOPE__BODY_READY, 2000);
    CHECK (r && r->ready->run == 8);
    message_free (r);
}

/* REJECT is final for its link alone. */
static void
test_reject (void)
{
    Iofleet__Reject rj = IOFLEET__REJECT__INIT;
    rj.reason = "name taken";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_REJECT;
    env.reject = &rj;
    send_to (1, &env);
    expect (0, IOFLEET__ENVELOPE__BODY_READY, 200);
    CHECK (link_rejected (s_link[1]) && !link_rejected (s_link[0]));
}

int
main (void)
{
    log_init ("test_link", LL_ERR);
    zsys_init ();
    zsys_set_logstream (NULL);
    char err[256];
    jobfile_t *jf = jobfile_parse ("t.fio", "[j]\nfilename=/dev/fake0\nrw=randread\nbs=4k\n"
                                   "size=1m\nioengine=null\n", err, sizeof err);
    CHECK_MSG (jf != NULL, "job file: %s", err);
    if (!jf)
        return 1;
    static jobspec_t js;
    jobspec_from_job (&js, &jf->steps[0], NS_PER_SEC);
    s_spec = &js.spec;
    s_router = zsock_new (ZMQ_ROUTER);
    int port = zsock_bind (s_router, "tcp://127.0.0.1:*");
    CHECK (port > 0);
    char ep[64];
    snprintf (ep, sizeof ep, "tcp://127.0.0.1:%d", port);
    for (int i = 0; i < NLINKS; i++) {
        s_spool[i] = spool_new (NULL, SPOOL_MAX_MIN, false, err, sizeof err);
        link_config_t cfg = { .endpoint = ep, .name = s_names[i], .hostname = "host-of-test",
                              .quiet = true };
        s_link[i] = link_new (&cfg, &s_fake_ops, &s_fake[i], s_spool[i], err, sizeof err);
        CHECK_MSG (s_link[i] != NULL, "link_new: %s", err);
    }
    if (s_link[0] && s_link[1]) {
        test_hello ();
        test_step ();
        test_abort_refuse ();
        test_reject ();
    }
    /* The step in hand (run 8) is stopped when its link goes. */
    int stops = s_fake[0].stops;
    for (int i = 0; i < NLINKS; i++) {
        link_destroy (&s_link[i]);
        CHECK (s_link[i] == NULL);
        spool_destroy (&s_spool[i]);
        zframe_destroy (&s_id[i]);
    }
    CHECK (s_fake[0].stops == stops + 1 && s_fake[1].stops == 0);
    zsock_destroy (&s_router);
    jobfile_destroy (&jf);
    return TEST_DONE ();
}
