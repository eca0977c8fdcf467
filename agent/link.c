/*  link.c: see link.h. */
#define _GNU_SOURCE
#include "link.h"
#include "clock_sync.h"
#include "curve.h"
#include "instance.h"
#include "log.h"
#include "message.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

zsock_t *
link_open (const char *endpoint, const char *cert, const char *controller_key, char *err,
           size_t errlen)
{
    zsock_t *s = zsock_new (ZMQ_DEALER);
    if (!s) {
        snprintf (err, errlen, "cannot create a socket: %s", zmq_strerror (zmq_errno ()));
        return NULL;
    }
    zsock_set_maxmsgsize (s, (int64_t) MSG_MAX_BYTES);
    zsock_set_linger (s, 0);
    zsock_set_sndhwm (s, 100000);
    /* Redial a lost controller quickly at first, then every 5 s at most. */
    zsock_set_reconnect_ivl (s, 100);
    zsock_set_reconnect_ivl_max (s, 5000);
    /* ZMTP heartbeats (message.h): a connection that went dead (a pulled
       cable, a rebooted switch) is noticed and redialed, besides our own
       pings (LINK_SILENCE_NS). */
    zsock_set_heartbeat_ivl (s, MSG_ZMTP_PING_MS);
    zsock_set_heartbeat_timeout (s, MSG_ZMTP_AGENT_TIMEOUT_MS);
    if ((cert || controller_key) && curve_client_apply (s, cert, controller_key, err, errlen)) {
        zsock_destroy (&s);
        return NULL;
    }
    if (zsock_connect (s, "%s", endpoint) != 0) {
        snprintf (err, errlen, "cannot connect to '%s': %s (expected tcp://HOST:PORT or "
                  "ipc://PATH)", endpoint, zmq_strerror (zmq_errno ()));
        zsock_destroy (&s);
        return NULL;
    }
    return s;
}

enum { STEP_NONE, STEP_PREPARING, STEP_PREPARED, STEP_RUNNING };

struct link {
    link_config_t cfg;              /* its strings are the caller's */
    char name[MSG_NAME_MAX + 1];
    char hostname[256];             /* "" = this host's, asked at each HELLO */
    char instance[INSTANCE_ID_LEN + 1];
    const link_ops_t *ops;
    void *work;
    spool_t *spool;                 /* unacknowledged, until acknowledged */

    /* connection */
    zsock_t *sock;
    uint64_t opened_at;             /* when the socket was (re)opened, mono ns */
    uint64_t reopen_logged_at;
    bool welcomed;
    bool ever_welcomed;             /* by any controller, since start */
    bool rejected;                  /* the controller refused us: not retried */
    uint64_t agent_id;
    uint64_t last_frame;            /* anything at all from the controller, mono ns */
    uint64_t silent_logged_at;
    uint64_t last_hello, last_ping, last_heard;
    uint64_t hello_backoff;         /* ns between HELLOs until welcomed */
    uint64_t bad_messages, bad_logged_at;

    /* clock: controller time = local realtime + offset */
    clock_sync_t sync;
    int64_t offset;
    uint64_t delay;

    /* the step in hand */
    int state;                      /* STEP_* */
    uint64_t run;
    uint32_t step;
    char prep_stop[MSG_TEXT_MAX + 1];   /* why a preparation is to stop; "" = go on */
    /* One instant on both clocks, taken at START: this host's monotonic
       clock and the controller's (local realtime + offset then).  A
       step's times count from it on the monotonic clock, so a step of
       this host's wall clock mid-step moves none of them (the offset
       estimate follows the step within a second, clock_sync.h). */
    uint64_t mono_ref;
    int64_t ctrl_ref;
    int64_t clock_stepped;              /* the wall clock's steps seen in the step,
                                           not yet in a snapshot (clock_step_ns) */
};

/* Logs a line of this connection.  A routine one of a quiet link goes at
   debug level; a quiet link's lines start with its name.  Can't fail. */
static void __attribute__ ((format (printf, 4, 5)))
say (const link_t *self, bool routine, log_level_t level, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (line, sizeof line, fmt, ap);
    va_end (ap);
    if (self->cfg.quiet && routine)
        level = LL_DEBUG;
    log_msg (level, "%s%s%s", self->cfg.quiet ? self->name : "", self->cfg.quiet ? ": " : "",
             line);
}

/* This host's realtime clock, as the agent sees it: shifted only when a
   test asks (--clock-shift-ms) to play a host whose clock is off. */
static uint64_t
local_real (const link_t *self)
{
    return (uint64_t) ((int64_t) clock_real_ns () + self->cfg.clock_shift);
}

/* Sends packed bytes.  Returns 0, or -1 when the socket would not take
   them. */
static int
send_raw (link_t *self, const uint8_t *buf, size_t len)
{
    zframe_t *f = zframe_new (buf, len);
    int rc = zframe_send (&f, self->sock, ZFRAME_DONTWAIT);
    if (rc != 0)
        zframe_destroy (&f);
    return rc;
}

/* Sends one envelope.  Returns 0 or -1 (logged at debug level). */
static int
send_env (link_t *self, envelope_t *env)
{
    size_t len;
    uint8_t *buf = message_pack (env, &len);
    if (!buf)
        return -1;
    int rc = send_raw (self, buf, len);
    free (buf);
    if (rc != 0)
        log_debug ("send %s failed: %s", message_kind (env), zmq_strerror (zmq_errno ()));
    return rc;
}

/* HELLO: who this agent is, its inventory, the step it holds.  Can't fail
   (a send that fails is retried by the HELLO backoff). */
static void
send_hello (link_t *self)
{
    struct utsname u;
    uname (&u);
    char host[256] = "";
    if (self->hostname[0])
        str_copy (host, sizeof host, self->hostname);
    else
        gethostname (host, sizeof host - 1);
    Iofleet__Hello h = IOFLEET__HELLO__INIT;
    h.name = self->name;
    h.hostname = host;
    h.kernel = u.release;
    h.agent_version = (char *) (self->cfg.release ? self->cfg.release : IOF_VERSION);
    h.labels = self->cfg.labels;
    h.n_labels = (size_t) self->cfg.nlabels;
    h.pid = (uint64_t) getpid ();
    h.instance = self->instance[0] ? self->instance : NULL;
    char *inv = self->ops->inventory (self->work);
    h.inventory_json = inv ? inv : "";
    /* What this process holds, so a controller can tell a reconnect from
       a restart (then the workload it was waiting for is gone). */
    uint64_t run;
    uint32_t step;
    if (self->state != STEP_NONE) {
        h.job_run = self->run;
        h.job_step = self->step;
        h.job_state = IOFLEET__JOB_STATE__JOB_ACTIVE;
    } else if (spool_last_done (self->spool, &run, &step)) {
        h.job_run = run;
        h.job_step = step;
        h.job_state = IOFLEET__JOB_STATE__JOB_FINISHED;
    }
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    send_env (self, &env);
    free (inv);
    self->last_hello = clock_mono_ns ();
}

/* PING, with the clock estimate so far.  Can't fail. */
static void
send_ping (link_t *self)
{
    Iofleet__Ping p = IOFLEET__PING__INIT;
    p.t0 = local_real (self);
    p.offset_ns = self->offset;
    p.delay_ns = self->delay;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_PING;
    env.ping = &p;
    send_env (self, &env);
    self->last_ping = clock_mono_ns ();
}

/* A PONG: one more sample of the clock offset.  Can't fail. */
static void
on_pong (link_t *self, const Iofleet__Pong *p)
{
    if (clock_sync_add (&self->sync, p->t0, p->t1, p->t2, local_real (self)) != 0)
        return;     /* impossible timestamps: not a sample */
    int64_t before = self->offset;
    self->offset = clock_sync_offset (&self->sync);
    self->delay = clock_sync_delay (&self->sync);
    /* This host's wall clock stepped (NTP, date -s) during a step: the
       step's times do not move (link_ctrl_time), but the report says so. */
    int64_t moved = before - self->offset;
    if (self->state == STEP_RUNNING
        && (moved > (int64_t) CLOCK_STEP_NS || moved < -(int64_t) CLOCK_STEP_NS)) {
        self->clock_stepped += moved;
        say (self, true, LL_WARN, "this host's wall clock stepped by %+.3f s during run %llu step "
             "%u; the step's times keep to the monotonic clock", (double) moved / 1e9,
             (unsigned long long) self->run, self->step);
    }
}

/* Keeps a packed message until the controller acknowledges it, then sends
   it.  Can't fail: a message the spool cannot hold is still sent once. */
static void
send_spooled (link_t *self, uint64_t run, uint32_t step, uint32_t seq, uint8_t *buf,
              size_t len)
{
    if (spool_put (self->spool, run, step, seq, buf, len) != 0)
        say (self, false, LL_ERR, "run %llu step %u: cannot spool message %u (out of memory); "
             "sent once, unprotected", (unsigned long long) run, step, seq);
    send_raw (self, buf, len);
    free (buf);
}

/* spool_send_fn: a kept message, again.  Returns 0, or -1 when the socket
   would not take it. */
static int
resend_one (void *arg, const uint8_t *buf, size_t len)
{
    return send_raw (arg, buf, len);
}

/* REFUSED with reason (cut to valid UTF-8).  Can't fail. */
static void
send_refused (link_t *self, uint64_t run, uint32_t step, const char *reason)
{
    /* A reason cut to its buffer may end inside a UTF-8 sequence, and the
       controller drops a REFUSED whose reason is not UTF-8 (the step would
       then wait out --prepare-timeout instead of showing why). */
    char text[MSG_TEXT_MAX + 1];
    str_copy (text, sizeof text, reason);
    long bad = utf8_invalid_at (text, strlen (text));
    if (bad >= 0)
        text[bad] = '\0';
    Iofleet__Refused r = IOFLEET__REFUSED__INIT;
    r.run = run;
    r.step = step;
    r.reason = text[0] ? text : "refused (reason not valid UTF-8)";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_REFUSED;
    env.refused = &r;
    send_env (self, &env);
}

/* PREPARE: the workload sets the step up; READY or REFUSED.  Can't fail. */
static void
on_prepare (link_t *self, const Iofleet__Prepare *p)
{
    /* A PREPARE that arrives while one is set up (link_preparing_stop
       serves the link during a layout), or while a step is in hand. */
    if (self->state != STEP_NONE) {
        if (self->run == p->run && self->step == p->step)
            return;         /* duplicate */
        char why[128];
        snprintf (why, sizeof why, "agent is busy %s run %llu step %u",
                  self->state == STEP_PREPARING ? "preparing" : "with",
                  (unsigned long long) self->run, self->step);
        send_refused (self, p->run, p->step, why);
        return;
    }
    self->state = STEP_PREPARING;
    self->run = p->run;
    self->step = p->step;
    self->prep_stop[0] = '\0';
    char err[1024] = "";
    Iofleet__Ready r = IOFLEET__READY__INIT;
    if (self->ops->prepare (self->work, self, p, &r, err, sizeof err) != 0) {
        self->state = STEP_NONE;
        say (self, true, LL_WARN, "run %llu step %u refused: %s", (unsigned long long) p->run,
             p->step, err);
        send_refused (self, p->run, p->step, err);
        return;
    }
    self->state = STEP_PREPARED;
    /* The controller has moved on (or prepares this step afresh): what
       is still unacknowledged it no longer takes. */
    uint64_t gone = spool_keep_only (self->spool, 0, 0);     /* runs start at 1: all of it */
    if (gone)
        say (self, true, LL_WARN, "spool: %llu unacknowledged message(s) of earlier steps let "
             "go: the controller is at run %llu step %u", (unsigned long long) gone,
             (unsigned long long) p->run, p->step);
    r.run = p->run;
    r.step = p->step;
    r.clock_offset_ns = self->offset;
    r.clock_delay_ns = self->delay;
    if (!r.inventory_json)
        r.inventory_json = "";
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_READY;
    env.ready = &r;
    send_env (self, &env);
}

/* START of the prepared step: start_at (controller time) becomes this
   host's monotonic time.  Can't fail. */
static void
on_start (link_t *self, const Iofleet__Start *s)
{
    if (self->state != STEP_PREPARED || self->run != s->run || self->step != s->step)
        return;
    self->mono_ref = clock_mono_ns ();
    self->clock_stepped = 0;
    int64_t real_ref = (int64_t) local_real (self);
    self->ctrl_ref = real_ref + self->offset;
    int64_t local_start = (int64_t) s->start_at - self->offset;
    int64_t wait = local_start - real_ref;
    if (wait < 0) {
        say (self, true, LL_WARN, "run %llu step %u: start time already passed by %.3f ms; "
             "starting now (clock offset %+.3f ms)", (unsigned long long) s->run, s->step,
             (double) -wait / 1e6, (double) self->offset / 1e6);
        wait = 0;
    }
    self->state = STEP_RUNNING;
    self->ops->start (self->work, self->mono_ref + (uint64_t) wait);
}

/* ABORT of the run in hand: a preparation stops at its next look, a step
   is stopped and what it left unacknowledged let go.  Can't fail. */
static void
on_abort (link_t *self, const Iofleet__Abort *a)
{
    if (self->state == STEP_NONE || self->run != a->run)
        return;
    if (self->state == STEP_PREPARING) {
        /* Inside a layout (link_preparing_stop): it stops at its next look. */
        say (self, true, LL_WARN, "run %llu aborted by the controller while preparing: %s; "
             "stopping", (unsigned long long) a->run, a->reason);
        snprintf (self->prep_stop, sizeof self->prep_stop, "the controller aborted run %llu: "
                  "%s", (unsigned long long) a->run, a->reason);
        return;
    }
    uint64_t t0 = clock_mono_ns ();
    say (self, true, LL_WARN, "run %llu aborted by the controller: %s",
         (unsigned long long) a->run, a->reason);
    self->state = STEP_NONE;
    self->ops->stop (self->work);       /* stops the workers and waits for them */
    spool_keep_only (self->spool, 0, 0);     /* runs start at 1: all of it */
    say (self, true, LL_INFO, "run %llu: workers stopped %.0f ms after the abort",
         (unsigned long long) a->run, (double) (clock_mono_ns () - t0) / 1e6);
}

/* ACK: what the controller has, into the spool.  Can't fail. */
static void
on_ack (link_t *self, const Iofleet__Ack *k)
{
    /* upto counts (seq < upto); the spool's bound is inclusive. */
    if (k->upto == UINT32_MAX)
        spool_ack (self->spool, k->run, k->step, UINT32_MAX);
    else if (k->upto > 0)
        spool_ack (self->spool, k->run, k->step, k->upto - 1);
    spool_ack_seqs (self->spool, k->run, k->step, k->seqs, k->n_seqs);
    /* The controller lost what it had not acknowledged: again, now. */
    if (k->resend) {
        say (self, true, LL_INFO, "the controller asks for every unacknowledged message again "
             "(its database works again)");
        spool_unsend (self->spool);
    }
}

/* A message of another protocol version: the controller runs another
   iofleet release.  Its REJECT names both releases; whatever it is, the
   agent says so and keeps saying hello (slowly), so that it joins once one
   side is upgraded, rather than exiting into a restart loop. */
static void
on_other_protocol (link_t *self, const envelope_t *env)
{
    self->bad_messages++;
    self->welcomed = false;
    self->hello_backoff = LINK_HELLO_RETRY_MAX_NS;
    if (!log_ratelimit (&self->bad_logged_at, 60 * NS_PER_SEC))
        return;
    if (env->body_case == IOFLEET__ENVELOPE__BODY_REJECT && env->reject->reason)
        say (self, false, LL_ERR, "the controller refuses this agent: %.400s; retrying every "
             "%.0f s", env->reject->reason, (double) LINK_HELLO_RETRY_MAX_NS / 1e9);
    else
        say (self, false, LL_ERR, "the controller speaks protocol %u%s%s; this agent runs "
             "iofleet %s (protocol %u): upgrade the older side; retrying every %.0f s",
             env->version,
             env->body_case == IOFLEET__ENVELOPE__BODY_WELCOME
             && env->welcome->controller_version && *env->welcome->controller_version
             ? ", iofleet " : "",
             env->body_case == IOFLEET__ENVELOPE__BODY_WELCOME
             && env->welcome->controller_version ? env->welcome->controller_version : "",
             IOF_VERSION, message_protocol (), (double) LINK_HELLO_RETRY_MAX_NS / 1e9);
}

/* One frame from the controller, whatever it holds (a bad one is counted
   and logged at most once a minute).  Can't fail. */
static void
on_frame (link_t *self, const uint8_t *data, size_t len)
{
    char err[256];
    int mismatch;
    self->last_frame = clock_mono_ns ();
    self->silent_logged_at = 0;
    envelope_t *env = message_unpack (data, len, &mismatch, err, sizeof err);
    if (env && mismatch) {
        on_other_protocol (self, env);
        message_free (env);
        return;
    }
    if (!env) {
        self->bad_messages++;
        if (log_ratelimit (&self->bad_logged_at, 60 * NS_PER_SEC))
            say (self, false, LL_WARN, "dropped a bad message from the controller (%llu so "
                 "far): %s", (unsigned long long) self->bad_messages, err);
        return;
    }
    self->last_heard = clock_mono_ns ();
    switch (env->body_case) {
    case IOFLEET__ENVELOPE__BODY_WELCOME:
        if (!self->welcomed)
            say (self, true, LL_INFO, "connected to %s as '%s' (agent id %llu); controller "
                 "iofleet %s, agent iofleet %s, protocol %u", self->cfg.endpoint, self->name,
                 (unsigned long long) env->welcome->agent_id,
                 *env->welcome->controller_version ? env->welcome->controller_version
                                                   : "before 0.2.0",
                 IOF_VERSION, message_protocol ());
        self->welcomed = true;
        self->ever_welcomed = true;
        self->hello_backoff = LINK_HELLO_RETRY_NS;
        self->agent_id = env->welcome->agent_id;
        send_ping (self);
        /* A new connection, maybe a new controller: everything it has not
           acknowledged goes again now. */
        spool_unsend (self->spool);
        break;
    case IOFLEET__ENVELOPE__BODY_REJECT:
        /* Not retried: an agent refused for its name would take it from
           the agent that has it at every retry. */
        say (self, false, LL_ERR, "the controller at %s refused agent '%s': %s.  Not retrying: "
             "fix that, then start this agent again", self->cfg.endpoint, self->name,
             env->reject->reason);
        self->rejected = true;
        break;
    case IOFLEET__ENVELOPE__BODY_PONG:
        on_pong (self, env->pong);
        break;
    case IOFLEET__ENVELOPE__BODY_PREPARE:
        on_prepare (self, env->prepare);
        break;
    case IOFLEET__ENVELOPE__BODY_START:
        on_start (self, env->start);
        break;
    case IOFLEET__ENVELOPE__BODY_ACK:
        on_ack (self, env->ack);
        break;
    case IOFLEET__ENVELOPE__BODY_ABORT:
        on_abort (self, env->abort);
        break;
    case IOFLEET__ENVELOPE__BODY_ERROR:
        /* The controller does not know us (it restarted): introduce again.
           It answers every message of ours it had queued so; one hello
           (and one line) for the lot. */
        if (self->welcomed || clock_mono_ns () - self->last_hello >= LINK_HELLO_RETRY_NS) {
            say (self, true, LL_WARN, "controller: %s", env->error->message);
            self->welcomed = false;
            send_hello (self);
        }
        break;
    default:
        self->bad_messages++;
        if (log_ratelimit (&self->bad_logged_at, 60 * NS_PER_SEC))
            say (self, false, LL_WARN, "unexpected %s message from the controller, dropped",
                 message_kind (env));
        break;
    }
    message_free (env);
}

/* The DEALER to the controller, replacing the one open.  Returns 0, or -1
   with err filled (the old one kept). */
static int
reopen (link_t *self, char *err, size_t errlen)
{
    zsock_t *s = link_open (self->cfg.endpoint, self->cfg.cert, self->cfg.controller_key, err,
                            errlen);
    if (!s)
        return -1;
    zsock_destroy (&self->sock);
    self->sock = s;
    self->opened_at = clock_mono_ns ();
    return 0;
}

link_t *
link_new (const link_config_t *cfg, const link_ops_t *ops, void *work, spool_t *spool,
          char *err, size_t errlen)
{
    IOF_ASSERT (cfg && ops && spool && cfg->name);
    link_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    self->cfg = *cfg;
    str_copy (self->name, sizeof self->name, cfg->name);
    str_copy (self->hostname, sizeof self->hostname, cfg->hostname ? cfg->hostname : "");
    str_copy (self->instance, sizeof self->instance, cfg->instance ? cfg->instance : "");
    self->ops = ops;
    self->work = work;
    self->spool = spool;
    self->hello_backoff = LINK_HELLO_RETRY_NS;
    clock_sync_init (&self->sync);
    if (reopen (self, err, errlen) != 0) {
        free (self);
        return NULL;
    }
    self->last_frame = clock_mono_ns ();
    send_hello (self);
    return self;
}

void
link_destroy (link_t **self_p)
{
    IOF_ASSERT (self_p);
    link_t *self = *self_p;
    if (!self)
        return;
    if (self->state != STEP_NONE)
        self->ops->stop (self->work);
    zsock_destroy (&self->sock);
    free (self);
    *self_p = NULL;
}

void *
link_handle (link_t *self)
{
    return zsock_resolve (self->sock);
}

int
link_recv (link_t *self, int max)
{
    int n = 0;
    zmq_msg_t msg;
    zmq_msg_init (&msg);
    while (n < max && !self->rejected
           && zmq_msg_recv (&msg, zsock_resolve (self->sock), ZMQ_DONTWAIT) >= 0) {
        on_frame (self, zmq_msg_data (&msg), zmq_msg_size (&msg));
        n++;
    }
    zmq_msg_close (&msg);
    return n;
}

const char *
link_preparing_stop (link_t *self)
{
    IOF_ASSERT (self->state == STEP_PREPARING);
    for (int i = 0; i < 256 && !self->prep_stop[0] && !zsys_interrupted; i++)
        if (link_recv (self, 1) == 0)
            break;
    if (self->welcomed && clock_mono_ns () - self->last_ping > LINK_PING_NS)
        send_ping (self);
    if (zsys_interrupted)
        return "the agent is stopping (SIGINT or SIGTERM)";
    if (self->rejected)
        return "the controller refused this agent";
    return self->prep_stop[0] ? self->prep_stop : NULL;
}

/* now - then, 0 when then was stamped after now was read. */
static uint64_t
since (uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

uint64_t
link_tick (link_t *self, uint64_t now)
{
    if (self->rejected)
        return now + LINK_PING_NS;
    /* A CURVE handshake the controller refused (key not allowed yet, or a
       controller with another key) is not retried by ZeroMQ: open a new
       connection now and then until it welcomes us. */
    if (!self->welcomed && (self->cfg.cert || self->cfg.controller_key)
        && since (now, self->opened_at) > LINK_CURVE_REOPEN_NS) {
        /* The keys are the likely cause only before a first welcome:
           one that welcomed this agent before has the keys, and the
           network or the controller is away. */
        if (log_ratelimit (&self->reopen_logged_at, 60 * NS_PER_SEC)) {
            if (self->ever_welcomed)
                say (self, true, LL_WARN, "no welcome from %s over CURVE after %.0f s (it "
                     "welcomed this agent before: the network or the controller is away); "
                     "retrying", self->cfg.endpoint, (double) since (now, self->opened_at) / 1e9);
            else
                say (self, true, LL_WARN, "no welcome from %s over CURVE after %.0f s: is this "
                     "agent's key (%s) in the controller's KEYDIR/agents/, and "
                     "--controller-key its controller.cert? retrying", self->cfg.endpoint,
                     (double) since (now, self->opened_at) / 1e9, self->cfg.cert);
        }
        char err[1024];
        if (reopen (self, err, sizeof err) == 0)
            send_hello (self);
        else
            self->opened_at = now;
    }
    /* Not a word from the controller (ZeroMQ redials in silence: a wrong
       port looks just like a controller not started yet). */
    if (since (now, self->last_frame) >= LINK_SILENT_WARN_NS
        && log_ratelimit (&self->silent_logged_at, 60 * NS_PER_SEC))
        say (self, true, LL_WARN, "nothing heard from the controller at %s for %.0f s: wrong "
             "host or port? a firewall between? is the controller running?%s (still trying)",
             self->cfg.endpoint, (double) since (now, self->last_frame) / 1e9,
             self->cfg.cert || self->cfg.controller_key ? " the CURVE keys?" : "");
    if (!self->welcomed && since (now, self->last_hello) > self->hello_backoff) {
        send_hello (self);
        self->hello_backoff = self->hello_backoff * 2 > LINK_HELLO_RETRY_MAX_NS
                              ? LINK_HELLO_RETRY_MAX_NS : self->hello_backoff * 2;
    }
    /* Ping fast until the clock estimate has samples to choose from. */
    uint64_t period = self->sync.nsamples < CLOCK_SYNC_N / 2 ? LINK_PING_NS / 10 : LINK_PING_NS;
    if (self->welcomed && since (now, self->last_ping) > period)
        send_ping (self);
    if (self->welcomed && self->last_heard && since (now, self->last_heard) > LINK_SILENCE_NS) {
        say (self, true, LL_WARN, "no answer from the controller for %.0f s; saying hello again",
             (double) since (now, self->last_heard) / 1e9);
        self->welcomed = false;
        self->last_heard = now;
        self->hello_backoff = LINK_HELLO_RETRY_NS;
        send_hello (self);
    }
    uint64_t next = self->welcomed ? self->last_ping + period + 1 : now + LINK_PING_NS;
    if (self->state == STEP_RUNNING) {
        uint64_t due = self->ops->collect (self->work, self, now);
        if (self->state == STEP_RUNNING && due < next)
            next = due;
    }
    if (self->welcomed)
        spool_resend (self->spool, now, LINK_RESEND_NS, resend_one, self);
    return next > now ? next : now;
}

/* Packs and keeps a message of the step in hand (seq), then sends it.
   Returns its packed size, or 0 when out of memory (logged). */
static size_t
send_step_message (link_t *self, envelope_t *env, uint64_t run, uint32_t step, uint32_t seq)
{
    size_t len;
    uint8_t *buf = message_pack (env, &len);
    if (!buf) {
        say (self, false, LL_ERR, "run %llu step %u: out of memory packing %s %u; it is lost",
             (unsigned long long) run, step, message_kind (env), seq);
        return 0;
    }
    send_spooled (self, run, step, seq, buf, len);
    return len;
}

size_t
link_send_snapshot (link_t *self, Iofleet__Snapshot *s)
{
    IOF_ASSERT (self->state == STEP_RUNNING && s->seq != SPOOL_SEQ_DONE);
    s->spool_dropped = spool_dropped (self->spool, s->run, s->step);
    s->clock_step_ns = self->clock_stepped;
    self->clock_stepped = 0;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_SNAPSHOT;
    env.snapshot = s;
    return send_step_message (self, &env, s->run, s->step, s->seq);
}

void
link_send_done (link_t *self, Iofleet__Done *d)
{
    IOF_ASSERT (self->state == STEP_RUNNING);
    d->spool_dropped = spool_dropped (self->spool, d->run, d->step);
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_DONE;
    env.done = d;
    if (!send_step_message (self, &env, d->run, d->step, SPOOL_SEQ_DONE))
        say (self, false, LL_ERR, "run %llu step %u: the controller will time the step out",
             (unsigned long long) d->run, d->step);
    self->state = STEP_NONE;
}

uint64_t
link_ctrl_time (const link_t *self, uint64_t mono)
{
    return (uint64_t) (self->ctrl_ref + (int64_t) (mono - self->mono_ref));
}

bool link_welcomed (const link_t *self) { return self->welcomed; }
bool link_rejected (const link_t *self) { return self->rejected; }
const char *link_name (const link_t *self) { return self->name; }
