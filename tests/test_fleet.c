/*  test_fleet.c: fleet_t (controller/agents/fleet.c) on a real ROUTER socket,
    agents being DEALER sockets: HELLO answered with WELCOME and handed to
    the hello handler, each other kind to the handler registered for it
    (none: counted as bad), PING answered by the fleet, a peer that never
    said HELLO asked to, and silence excused only as the handler says. */
#include "ctltest.h"
#include "fleet.h"
#include "snapshot_prep.h"
#include "store.h"

typedef struct {
    int calls;
    peer_t *peer;
    uint64_t run;               /* of the last READY */
    uint64_t old_pid;           /* of the last HELLO */
} seen_t;

static void
on_ready (void *arg, peer_t *peer, const envelope_t *env, snapshot_prep_t *prep)
{
    (void) prep;
    seen_t *s = arg;
    s->calls++;
    s->peer = peer;
    s->run = env->ready->run;
}

static void
on_hello (void *arg, peer_t *peer, uint64_t old_pid, const Iofleet__Hello *h)
{
    seen_t *s = arg;
    (void) h;
    s->calls++;
    s->peer = peer;
    s->old_pid = old_pid;
}

static bool excuse;

static bool
on_excused (void *arg, uint64_t agent_id)
{
    (void) arg;
    (void) agent_id;
    return excuse;
}

static int64_t
counter (ctl_t *ctl, const char *name)
{
    store_commit (ctl->store);
    sqlite3_stmt *st = store_stmt (ctl->store, "SELECT value FROM counters WHERE name = ?");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int64_t v = sqlite3_step (st) == SQLITE_ROW ? sqlite3_column_int64 (st, 0) : 0;
    sqlite3_reset (st);
    return v;
}

/* Sends a message of kind from s (READY of run 7, or a bare START). */
static void
send_kind (zsock_t *s, int kind)
{
    Iofleet__Ready r = IOFLEET__READY__INIT;
    Iofleet__Start st = IOFLEET__START__INIT;
    Iofleet__Ping ping = IOFLEET__PING__INIT;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = kind;
    char *targets[] = { "/dev/null" };
    if (kind == IOFLEET__ENVELOPE__BODY_READY) {
        r.run = 7;
        r.targets = targets;
        r.n_targets = 1;
        env.ready = &r;
    } else if (kind == IOFLEET__ENVELOPE__BODY_PING) {
        ping.t0 = 12345;
        env.ping = &ping;
    } else {
        st.run = 7;
        st.start_at = 1;        /* valid, so only the missing handler drops it */
        env.start = &st;
    }
    CHECK (ctltest_send (s, &env) == 0);
}

/* Says HELLO from s as name with nlabels labels, has the fleet take it,
   and returns the REJECT's reason (malloc'd), or NULL when the answer
   was no REJECT. */
static char *
hello_rejected (ctltest_t *t, zsock_t *s, const char *name, size_t nlabels)
{
    Iofleet__Hello h = IOFLEET__HELLO__INIT;
    h.name = (char *) name;
    h.hostname = "testhost";
    h.kernel = "6.1";
    h.agent_version = IOF_VERSION;
    h.pid = 7;
    Iofleet__Label *lv = calloc (nlabels ? nlabels : 1, sizeof *lv);
    Iofleet__Label **lp = calloc (nlabels ? nlabels : 1, sizeof *lp);
    for (size_t i = 0; i < nlabels; i++) {
        iofleet__label__init (&lv[i]);
        lv[i].key = "k";
        lv[i].value = "v";
        lp[i] = &lv[i];
    }
    h.labels = lp;
    h.n_labels = nlabels;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    char *reason = NULL;
    if (ctltest_send (s, &env) == 0 && ctltest_pump (t, 1) == 1) {
        envelope_t *r = ctltest_recv (s);
        if (r && r->body_case == IOFLEET__ENVELOPE__BODY_REJECT)
            reason = strdup (r->reject->reason);
        if (r)
            message_free (r);
    }
    free (lv);
    free (lp);
    return reason;
}

/* Names that become paths or markup are refused at HELLO with a REJECT
   naming the rule, and a HELLO over a bound with one naming the bound:
   nothing recorded, the peer told why (it used to be dropped, and the
   agent said hello again forever). */
static void
test_refused_hellos (ctltest_t *t)
{
    zsock_t *s = ctltest_agent (t);
    CHECK (s);
    int64_t rejected = counter (&t->ctl, "rejected_hellos");
    static const struct { const char *name, *want; } names[] = {
        { "../../../x/escaped", "the agent name '../../../x/escaped' has '/' (byte 3): a name "
          "is 1..64 letters, digits, '-', '_' or '.', and not '.' or '..'; start the agent "
          "with another --name" },
        { "<script>alert(7)</script>", "the agent name '<script>alert(7)</script>' has '<'" },
        { "..", "the agent name '..' is not a name" },
        { "a b", "has byte 0x20 (byte 2)" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *reason = hello_rejected (t, s, names[i].name, 0);
        CHECK_MSG (reason && strstr (reason, names[i].want), "%s: got %s", names[i].name,
                   reason ? reason : "no REJECT");
        CHECK (fleet_find_name (t->ctl.fleet, names[i].name) == NULL);
        free (reason);
    }
    /* A name of a megabyte, and 10,000 labels. */
    char *big = malloc ((1u << 20) + 1);
    memset (big, 'a', 1u << 20);
    big[1u << 20] = '\0';
    char *reason = hello_rejected (t, s, big, 0);
    CHECK_MSG (reason && strstr (reason, "its HELLO breaks a limit: hello.name is 1048576 "
                                 "bytes, limit 64"), "1 MB name: got %s",
               reason ? reason : "no REJECT");
    free (reason);
    free (big);
    reason = hello_rejected (t, s, "many", 10000);
    CHECK_MSG (reason && strstr (reason, "hello.labels has 10000 entries, limit 32"),
               "10,000 labels: got %s", reason ? reason : "no REJECT");
    CHECK (fleet_find_name (t->ctl.fleet, "many") == NULL);
    free (reason);
    CHECK (counter (&t->ctl, "rejected_hellos") == rejected + 6);
    /* The longest name the rule allows, of every allowed character, is in. */
    CHECK (ctltest_hello (t, s, "Az09-_.zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
                          8) > 0);
    zsock_destroy (&s);
}

int
main (void)
{
    log_init ("test_fleet", LL_ERR);
    ctltest_t t;
    ctltest_open (&t, "test_fleet");
    fleet_t *fleet = t.ctl.fleet;
    seen_t ready = { 0 }, hello = { 0 };
    fleet_on (fleet, IOFLEET__ENVELOPE__BODY_READY, on_ready, &ready);
    fleet_on_hello (fleet, on_hello, &hello);
    fleet_on_excused (fleet, on_excused, NULL);

    /* HELLO: recorded, found three ways, welcomed, heard. */
    zsock_t *a = ctltest_agent (&t);
    CHECK (a);
    uint64_t id = ctltest_hello (&t, a, "a1", 100);
    CHECK (id > 0);
    peer_t *p = fleet_find_name (fleet, "a1");
    CHECK (p && p->connected && p->id == id && p->pid == 100);
    CHECK (fleet_find_id (fleet, id) == p);
    CHECK (p && fleet_find_rid (fleet, p->rid, p->rid_len) == p);
    CHECK (fleet_first (fleet) == p && fleet_next (fleet) == NULL);
    CHECK (hello.calls == 1 && hello.peer == p && hello.old_pid == 0);
    CHECK (ready.calls == 0);

    /* A registered kind goes to its handler, with its peer. */
    send_kind (a, IOFLEET__ENVELOPE__BODY_READY);
    CHECK (ctltest_pump (&t, 1) == 1);
    CHECK (ready.calls == 1 && ready.peer == p && ready.run == 7);

    /* PING: the fleet answers, no handler hears it. */
    send_kind (a, IOFLEET__ENVELOPE__BODY_PING);
    CHECK (ctltest_pump (&t, 1) == 1);
    envelope_t *e = ctltest_recv (a);
    CHECK (e && e->body_case == IOFLEET__ENVELOPE__BODY_PONG && e->pong->t0 == 12345);
    if (e)
        message_free (e);
    CHECK (ready.calls == 1);

    /* A kind without a handler is counted, not handed on. */
    int64_t bad = counter (&t.ctl, "bad_agent_messages");
    send_kind (a, IOFLEET__ENVELOPE__BODY_START);
    CHECK (ctltest_pump (&t, 1) == 1);
    CHECK (counter (&t.ctl, "bad_agent_messages") == bad + 1);
    CHECK (fleet_bad_messages (fleet) == 0);     /* it parsed: not a malformed one */
    CHECK (ready.calls == 1);
    /* ... and a handler taken away (NULL) makes its kind that. */
    fleet_on (fleet, IOFLEET__ENVELOPE__BODY_READY, NULL, NULL);
    send_kind (a, IOFLEET__ENVELOPE__BODY_READY);
    CHECK (ctltest_pump (&t, 1) == 1);
    CHECK (ready.calls == 1);
    CHECK (counter (&t.ctl, "bad_agent_messages") == bad + 2);
    fleet_on (fleet, IOFLEET__ENVELOPE__BODY_READY, on_ready, &ready);

    /* A peer that never said HELLO is asked to, and nothing is handed on. */
    zsock_t *b = ctltest_agent (&t);
    CHECK (b);
    send_kind (b, IOFLEET__ENVELOPE__BODY_READY);
    CHECK (ctltest_pump (&t, 1) == 1);
    e = ctltest_recv (b);
    CHECK (e && e->body_case == IOFLEET__ENVELOPE__BODY_ERROR);
    if (e)
        message_free (e);
    CHECK (ready.calls == 1);

    /* The same agent again from a new process: the hello handler hears
       the old pid. */
    CHECK (ctltest_hello (&t, a, "a1", 101) == id);
    CHECK (hello.calls == 2 && hello.old_pid == 100 && fleet_find_name (fleet, "a1") == p);

    /* Silence: excused, the agent stays; not, it is disconnected, and
       nothing is sent to it. */
    t.ctl.lost_after_ns = 1;
    usleep (2000);
    excuse = true;
    fleet_tick (fleet);
    CHECK (p->connected);
    excuse = false;
    /* The walk is made once per FLEET_SCAN_NS, not at every tick. */
    fleet_tick (fleet);
    CHECK (p->connected);
    usleep ((useconds_t) (FLEET_SCAN_NS / 1000 + 1000));
    fleet_tick (fleet);
    CHECK (!p->connected);
    Iofleet__Abort ab = IOFLEET__ABORT__INIT;
    envelope_t abort_env = IOFLEET__ENVELOPE__INIT;
    abort_env.body_case = IOFLEET__ENVELOPE__BODY_ABORT;
    abort_env.abort = &ab;
    CHECK (fleet_send (fleet, p, &abort_env) == -1);

    zsock_destroy (&a);
    zsock_destroy (&b);
    test_refused_hellos (&t);
    ctltest_close (&t);
    printf ("test_fleet: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
