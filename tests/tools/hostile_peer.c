/*  hostile_peer: a peer that sends what a real one never would, to show the
    other side drops it, counts it, and keeps working.

      hostile_peer agent ENDPOINT       acts as an agent against a controller
      hostile_peer controller ENDPOINT  binds ENDPOINT and acts as a controller
                                        for one agent that connects to it

    Exits 0 when the daemon behaved: it rejected a wrong protocol version
    with a message naming both versions, and after all the garbage it still
    answers a well-formed message as it should.
*/
#include "message.h"
#include "util.h"

#include <czmq.h>
#include <stdio.h>
#include <string.h>

static int s_failures;

#define EXPECT(cond, ...) do { if (!(cond)) { fprintf (stderr, "hostile_peer: " __VA_ARGS__); \
    fputc ('\n', stderr); s_failures++; } } while (0)

static uint64_t s_rng = 0x243f6a8885a308d3ull;

static uint64_t
rnd (void)
{
    s_rng ^= s_rng << 13;
    s_rng ^= s_rng >> 7;
    s_rng ^= s_rng << 17;
    return s_rng;
}

/* Sends frames to sock; for a ROUTER, rid (the peer) goes first. */
static void
send_frames (zsock_t *sock, zframe_t *rid, const void *data, size_t len)
{
    zmsg_t *m = zmsg_new ();
    if (rid)
        zmsg_append (m, &(zframe_t *) { zframe_dup (rid) });
    zmsg_addmem (m, data, len);
    zmsg_send (&m, sock);
}

static void
send_env (zsock_t *sock, zframe_t *rid, envelope_t *env, uint32_t version)
{
    size_t len;
    uint8_t *buf = message_pack (env, &len);
    if (version != IOF_PROTOCOL_VERSION) {
        /* message_pack stamps the right version; forge another. */
        env->version = version;
        free (buf);
        len = iofleet__envelope__get_packed_size (env);
        buf = malloc (len);
        iofleet__envelope__pack (env, buf);
    }
    send_frames (sock, rid, buf, len);
    free (buf);
}

/* Receives envelopes until one of kind `want` arrives or timeout_ms passes.
   Fills rid_out (ROUTER) if given.  Returns the envelope or NULL. */
static envelope_t *
recv_kind (zsock_t *sock, bool router, Iofleet__Envelope__BodyCase want, int timeout_ms,
           zframe_t **rid_out)
{
    uint64_t end = clock_mono_ns () + (uint64_t) timeout_ms * NS_PER_MS;
    zsock_set_rcvtimeo (sock, 100);
    while (clock_mono_ns () < end) {
        zmsg_t *m = zmsg_recv (sock);
        if (!m)
            continue;
        zframe_t *rid = router ? zmsg_pop (m) : NULL;
        zframe_t *body = zmsg_pop (m);
        envelope_t *env = NULL;
        if (body) {
            char err[256];
            int mismatch;
            env = message_unpack (zframe_data (body), zframe_size (body), &mismatch, err,
                                  sizeof err);
            if (env && mismatch) {
                message_free (env);
                env = NULL;
            }
        }
        zframe_destroy (&body);
        zmsg_destroy (&m);
        if (env && env->body_case == want) {
            if (rid_out)
                *rid_out = rid;
            else
                zframe_destroy (&rid);
            return env;
        }
        zframe_destroy (&rid);
        message_free (env);
    }
    return NULL;
}

/* Garbage that must be dropped: empty, random, truncated, no body. */
static void
send_garbage (zsock_t *sock, zframe_t *rid, envelope_t *valid)
{
    send_frames (sock, rid, "", 0);
    uint8_t buf[512];
    for (int i = 0; i < 200; i++) {
        size_t n = 1 + rnd () % sizeof buf;
        for (size_t k = 0; k < n; k++)
            buf[k] = (uint8_t) rnd ();
        send_frames (sock, rid, buf, n);
    }
    size_t len;
    uint8_t *packed = message_pack (valid, &len);
    for (size_t cut = 1; cut < len; cut += 1 + len / 16)
        send_frames (sock, rid, packed, cut);
    free (packed);
    envelope_t empty = IOFLEET__ENVELOPE__INIT;
    send_env (sock, rid, &empty, IOF_PROTOCOL_VERSION);
    /* Two frames where one is expected. */
    zmsg_t *m = zmsg_new ();
    if (rid)
        zmsg_append (m, &(zframe_t *) { zframe_dup (rid) });
    zmsg_addstr (m, "one");
    zmsg_addstr (m, "two");
    zmsg_send (&m, sock);
}

static int
as_agent (const char *endpoint)
{
    zsock_t *s = zsock_new (ZMQ_DEALER);
    zsock_set_linger (s, 0);
    if (zsock_connect (s, "%s", endpoint) != 0) {
        fprintf (stderr, "hostile_peer: cannot connect to %s\n", endpoint);
        return 2;
    }
    Iofleet__Hello h = IOFLEET__HELLO__INIT;
    h.name = "hostile";
    h.hostname = "nowhere";
    h.kernel = "0";
    envelope_t hello = IOFLEET__ENVELOPE__INIT;
    hello.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
    hello.hello = &h;

    send_garbage (s, NULL, &hello);

    /* A snapshot from a peer that never said hello: told to say hello. */
    Iofleet__Snapshot snap = IOFLEET__SNAPSHOT__INIT;
    snap.run = 1;
    envelope_t se = IOFLEET__ENVELOPE__INIT;
    se.body_case = IOFLEET__ENVELOPE__BODY_SNAPSHOT;
    se.snapshot = &snap;
    send_env (s, NULL, &se, IOF_PROTOCOL_VERSION);
    envelope_t *e = recv_kind (s, false, IOFLEET__ENVELOPE__BODY_ERROR, 5000, NULL);
    EXPECT (e && strstr (e->error->message, "hello"), "no 'send hello first' error for a stranger");
    message_free (e);

    /* Wrong protocol version: REJECT naming both versions. */
    send_env (s, NULL, &hello, 99);
    e = recv_kind (s, false, IOFLEET__ENVELOPE__BODY_REJECT, 5000, NULL);
    char both[128];
    snprintf (both, sizeof both, "controller runs iofleet %s (protocol %d)", IOF_VERSION,
              IOF_PROTOCOL_VERSION);
    EXPECT (e && strstr (e->reject->reason, "(protocol 99)") && strstr (e->reject->reason, both),
            "version 99 not rejected with both versions named (got: %s)",
            e ? e->reject->reason : "nothing");
    message_free (e);

    /* HELLOs the controller refuses: each answered with a REJECT naming
       the rule or the bound it broke (not dropped, which left an agent
       saying hello forever), never a WELCOME.  A control character, names
       that would be paths or markup, a name of a megabyte, 10,000 labels. */
    char *big = malloc ((1u << 20) + 1);
    memset (big, 'x', 1u << 20);
    big[1u << 20] = '\0';
    static Iofleet__Label label = IOFLEET__LABEL__INIT;
    label.key = "rack";
    label.value = "r1";
    Iofleet__Label **labels = malloc (10000 * sizeof *labels);
    for (int i = 0; i < 10000; i++)
        labels[i] = &label;
    const struct { const char *name; size_t nlabels; const char *want; } bad[] = {
        { "bad\x01name", 0, "its HELLO breaks a limit: hello.name holds control character 0x01" },
        { "../../../x/escaped", 0, "the agent name '../../../x/escaped' has '/' (byte 3): a "
          "name is 1..64 letters, digits, '-', '_' or '.', and not '.' or '..'; start the agent "
          "with another --name" },
        { "<script>alert(7)</script>", 0, "the agent name '<script>alert(7)</script>' has '<' "
          "(byte 1): a name is 1..64 letters" },
        { big, 0, "its HELLO breaks a limit: hello.name is 1048576 bytes, limit 64" },
        { "labelled", 10000, "its HELLO breaks a limit: hello.labels has 10000 entries, "
          "limit 32" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        h.name = (char *) bad[i].name;
        h.labels = labels;
        h.n_labels = bad[i].nlabels;
        send_env (s, NULL, &hello, IOF_PROTOCOL_VERSION);
        /* The garbage's truncated HELLOs were refused too: their REJECTs
           may come first. */
        envelope_t *r = NULL;
        uint64_t end = clock_mono_ns () + 5 * NS_PER_SEC;
        while (clock_mono_ns () < end) {
            r = recv_kind (s, false, IOFLEET__ENVELOPE__BODY_REJECT, 1000, NULL);
            if (r && strstr (r->reject->reason, bad[i].want))
                break;
            message_free (r);
            r = NULL;
        }
        EXPECT (r, "HELLO %zu: no REJECT saying '%s'", i, bad[i].want);
        if (r)
            printf ("hostile_peer: HELLO %zu (%.40s%s, %zu labels): REJECT: %s\n", i,
                    i ? bad[i].name : "a control character", strlen (bad[i].name) > 40
                    ? "..." : "", bad[i].nlabels, r->reject->reason);
        message_free (r);
    }
    h.name = "hostile";
    h.labels = NULL;
    h.n_labels = 0;
    free (labels);
    free (big);

    /* After all that, a proper hello is still welcomed. */
    send_env (s, NULL, &hello, IOF_PROTOCOL_VERSION);
    e = recv_kind (s, false, IOFLEET__ENVELOPE__BODY_WELCOME, 5000, NULL);
    EXPECT (e != NULL, "no WELCOME for a valid hello after the garbage");
    message_free (e);
    zsock_destroy (&s);
    return s_failures ? 1 : 0;
}

static int
as_controller (const char *endpoint, const char *outside_path)
{
    zsock_t *s = zsock_new (ZMQ_ROUTER);
    zsock_set_linger (s, 0);
    if (zsock_bind (s, "%s", endpoint) < 0) {
        fprintf (stderr, "hostile_peer: cannot bind %s\n", endpoint);
        return 2;
    }
    zframe_t *rid = NULL;
    envelope_t *e = recv_kind (s, true, IOFLEET__ENVELOPE__BODY_HELLO, 10000, &rid);
    if (!e) {
        fprintf (stderr, "hostile_peer: no agent said hello within 10 s\n");
        zsock_destroy (&s);
        return 1;
    }
    message_free (e);

    Iofleet__Welcome w = IOFLEET__WELCOME__INIT;
    w.agent_id = 1;
    w.interval_ns = NS_PER_SEC;
    envelope_t welcome = IOFLEET__ENVELOPE__INIT;
    welcome.body_case = IOFLEET__ENVELOPE__BODY_WELCOME;
    welcome.welcome = &w;
    send_garbage (s, rid, &welcome);
    send_env (s, rid, &welcome, 99);

    /* A PREPARE that breaks a bound (bs=0): dropped, never run. */
    char *names[] = { (char *) outside_path };
    Iofleet__JobSpec job = IOFLEET__JOB_SPEC__INIT;
    job.name = "evil";
    job.ioengine = "libaio";
    job.rw = IOFLEET__RW__RW_RANDWRITE;
    job.bs = 0;
    job.bs_write = 4096;
    job.iodepth = 1;
    job.iodepth_batch_submit = 1;
    job.iodepth_batch_complete_min = 1;
    job.numjobs = 1;
    job.filenames = names;
    job.n_filenames = 1;
    job.size = 1 << 20;
    job.interval_ns = NS_PER_SEC;
    Iofleet__Prepare prep = IOFLEET__PREPARE__INIT;
    prep.run = 7;
    prep.step = 0;
    prep.job = &job;
    envelope_t pe = IOFLEET__ENVELOPE__INIT;
    pe.body_case = IOFLEET__ENVELOPE__BODY_PREPARE;
    pe.prepare = &prep;
    send_env (s, rid, &pe, IOF_PROTOCOL_VERSION);
    e = recv_kind (s, true, IOFLEET__ENVELOPE__BODY_READY, 1000, NULL);
    EXPECT (e == NULL, "agent answered READY to a PREPARE with bs=0");
    message_free (e);

    /* Still alive and talking: a welcome is followed by pings. */
    send_env (s, rid, &welcome, IOF_PROTOCOL_VERSION);
    e = recv_kind (s, true, IOFLEET__ENVELOPE__BODY_PING, 5000, NULL);
    EXPECT (e != NULL, "agent sent no PING after the garbage");
    message_free (e);

    /* A well-formed order to write outside what the agent allows: REFUSED. */
    job.bs = 4096;
    send_env (s, rid, &pe, IOF_PROTOCOL_VERSION);
    e = recv_kind (s, true, IOFLEET__ENVELOPE__BODY_REFUSED, 5000, NULL);
    EXPECT (e && strstr (e->refused->reason, "not allowed"),
            "write outside the allowlist was not refused (got: %s)",
            e ? e->refused->reason : "nothing");
    message_free (e);
    zframe_destroy (&rid);
    zsock_destroy (&s);
    return s_failures ? 1 : 0;
}

int
main (int argc, char **argv)
{
    zsys_init ();
    zsys_set_logstream (NULL);
    if (argc == 3 && strcmp (argv[1], "agent") == 0)
        return as_agent (argv[2]);
    if (argc == 4 && strcmp (argv[1], "controller") == 0)
        return as_controller (argv[2], argv[3]);
    fprintf (stderr, "usage: hostile_peer agent ENDPOINT | controller ENDPOINT OUTSIDE_PATH\n");
    return 2;
}
