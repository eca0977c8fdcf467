/*  ctltest.h: a controller for unit tests, on the real library (iofctl):
    a database in a temporary directory, the agents' ROUTER socket on
    inproc, and the fleet; agents are DEALER sockets the test drives. */
#ifndef IOF_CTLTEST_H
#define IOF_CTLTEST_H

#include "controller.h"
#include "log.h"
#include "testutil.h"
#include "util.h"
#include "fleet.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    ctl_t ctl;
    char dir[64];
    char db[128];
    char endpoint[64];
} ctltest_t;

/* Opens the database and the socket, and makes the fleet.  Exits the
   test (status 1) when that cannot be done. */
static void
ctltest_open (ctltest_t *t, const char *name)
{
    memset (t, 0, sizeof *t);
    snprintf (t->dir, sizeof t->dir, "/tmp/iof-%s-XXXXXX", name);
    if (!mkdtemp (t->dir)) {
        perror ("mkdtemp");
        exit (1);
    }
    snprintf (t->db, sizeof t->db, "%s/iofleet.db", t->dir);
    snprintf (t->endpoint, sizeof t->endpoint, "inproc://%s", name);
    char err[1200];
    bool in_use;
    ctl_t *ctl = &t->ctl;
    ctl->store = store_open (t->db, NULL, false, NULL, NULL, &in_use, err, sizeof err);
    ctl->router = zsock_new (ZMQ_ROUTER);
    ctl->stats = calloc (1, sizeof *ctl->stats);
    if (!ctl->store || !ctl->router || !ctl->stats || zsock_bind (ctl->router, "%s", t->endpoint)) {
        fprintf (stderr, "ctltest: cannot start: %s\n", ctl->store ? "socket" : err);
        exit (1);
    }
    zsock_set_rcvtimeo (ctl->router, 2000);
    ctl->interval_ns = NS_PER_SEC;
    ctl->prepare_timeout_ns = 120 * NS_PER_SEC;
    ctl->lost_after_ns = CTL_SILENCE_LOST_NS;
    ctl->fleet = fleet_new (ctl);
    if (!ctl->fleet) {
        fprintf (stderr, "ctltest: out of memory\n");
        exit (1);
    }
}

static void
ctltest_close (ctltest_t *t)
{
    ctl_t *ctl = &t->ctl;
    fleet_destroy (&ctl->fleet);
    zsock_destroy (&ctl->router);
    store_close (&ctl->store);
    free (ctl->stats);
    char cmd[200];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    if (system (cmd) != 0)
        fprintf (stderr, "ctltest: could not remove %s\n", t->dir);
}

/* An agent's socket, connected.  NULL when it cannot be made. */
static zsock_t *
ctltest_agent (ctltest_t *t)
{
    zsock_t *s = zsock_new (ZMQ_DEALER);
    if (s && zsock_connect (s, "%s", t->endpoint) != 0)
        zsock_destroy (&s);
    if (s)
        zsock_set_rcvtimeo (s, 2000);
    return s;
}

/* Sends env from agent socket s.  Returns 0 or -1. */
static int
ctltest_send (zsock_t *s, envelope_t *env)
{
    size_t len;
    uint8_t *buf = message_pack (env, &len);
    if (!buf)
        return -1;
    int rc = zsock_send (s, "b", buf, len);
    free (buf);
    return rc;
}

/* The next message to agent socket s (waiting up to 2 s), or NULL. */
static envelope_t *
ctltest_recv (zsock_t *s)
{
    zframe_t *f = zframe_recv (s);
    if (!f)
        return NULL;
    char err[256];
    int mismatch;
    envelope_t *env = message_unpack (zframe_data (f), zframe_size (f), &mismatch, err,
                                      sizeof err);
    zframe_destroy (&f);
    return env;
}

/* Hands the next n messages of the agents' socket to the fleet, as the
   event loop does.  Returns how many came within 2 s each. */
static int
ctltest_pump (ctltest_t *t, int n)
{
    int got = 0;
    for (; got < n; got++) {
        zmsg_t *m = zmsg_recv (t->ctl.router);
        if (!m)
            break;
        fleet_dispatch (t->ctl.fleet, &m);
    }
    return got;
}

/* Says HELLO as agent name (process pid) from s, and has the fleet take
   it.  Returns the WELCOME's agent id, or 0. */
static uint64_t
ctltest_hello (ctltest_t *t, zsock_t *s, const char *name, uint64_t pid)
{
    Iofleet__Hello h = IOFLEET__HELLO__INIT;
    h.name = (char *) name;
    h.hostname = "testhost";
    h.kernel = "6.1";
    h.agent_version = IOF_VERSION;
    h.pid = pid;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    if (ctltest_send (s, &env) || ctltest_pump (t, 1) != 1)
        return 0;
    store_commit (t->ctl.store);
    envelope_t *w = ctltest_recv (s);
    uint64_t id = w && w->body_case == IOFLEET__ENVELOPE__BODY_WELCOME ? w->welcome->agent_id : 0;
    if (w)
        message_free (w);
    return id;
}

#endif
