/*  client.c: the CLI side of the admin protocol (one JSON request over a
    ZeroMQ REQ socket, one JSON reply). */
#include "cli.h"
#include "curve.h"
#include "gz.h"
#include "util.h"

#include <czmq.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define REPLY_MAX ((size_t) 256 << 20)  /* a reply's bytes, also once uncompressed */

static const char *s_cert, *s_server_cert;

void
client_set_curve (const char *secret_file, const char *server_cert)
{
    s_cert = secret_file;
    s_server_cert = server_cert;
}

/* The events of s that tell whether its controller is there: a PAIR
   socket receiving them (zmq_socket_monitor), connected before s is, so
   that none is missed.  NULL with err filled. */
static zsock_t *
s_monitor (zsock_t *s, char *err, size_t errlen)
{
    /* A name of its own: a socket's address may be the last one's. */
    static unsigned nmonitors;
    char ep[64];
    snprintf (ep, sizeof ep, "inproc://iofleet-admin-monitor-%u", nmonitors++);
    int events = ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED
               | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_CONNECT_RETRIED;
    zsock_t *mon = NULL;
    if (zmq_socket_monitor (zsock_resolve (s), ep, events) != 0
        || !(mon = zsock_new (ZMQ_PAIR)) || zsock_connect (mon, "%s", ep) != 0) {
        snprintf (err, errlen, "cannot watch the admin connection: %s",
                  zmq_strerror (zmq_errno ()));
        zsock_destroy (&mon);
        zmq_socket_monitor (zsock_resolve (s), NULL, 0);
    }
    return mon;
}

/* One event off the monitor (its number; -1 when none could be read). */
static int
s_event (zsock_t *mon)
{
    zmsg_t *m = zmsg_recv (mon);
    zframe_t *f = m ? zmsg_first (m) : NULL;
    int event = -1;
    if (f && zframe_size (f) >= 2) {
        uint16_t e;
        memcpy (&e, zframe_data (f), sizeof e);
        event = e;
    }
    zmsg_destroy (&m);
    return event;
}

/* Whether nothing listens on the ipc socket at path: a socket file left
   by a controller that was killed (one that stops removes it).  libzmq
   only says it will retry; a plain connect says why.  Can't fail. */
static bool
s_ipc_refused (const char *path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen (path) >= sizeof a.sun_path)
        return false;
    memcpy (a.sun_path, path, strlen (path) + 1);
    /* Non-blocking: a live controller's full backlog is EAGAIN, not a wait. */
    int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    bool refused = connect (fd, (struct sockaddr *) &a, sizeof a) != 0 && errno == ECONNREFUSED;
    close (fd);
    return refused;
}

/* The reply to the request sent on s, waited for at most timeout_ms.  A
   wait ends early when the controller goes away (its connection closed
   after the handshake: it stopped or died, or its host stopped answering
   PINGs), when nothing listens on its ipc socket any more, when it
   refuses this CLI's key, or at an interrupt.  A slow controller is
   waited for (its I/O thread answers the PINGs while it computes), and
   so is a handshake cut short (libzmq retries it: a controller starting).
   NULL with err filled. */
static zframe_t *
s_wait_reply (zsock_t *s, zsock_t *mon, const char *endpoint, int timeout_ms, char *err,
              size_t errlen)
{
    uint64_t deadline = clock_mono_ns () + (uint64_t) timeout_ms * NS_PER_MS;
    bool up = false;
    for (;;) {
        if (g_interrupted) {
            snprintf (err, errlen, "interrupted");
            return NULL;
        }
        uint64_t now = clock_mono_ns ();
        if (now >= deadline) {
            snprintf (err, errlen, "the controller at %s did not answer within %d s: is "
                      "iofleet-controller running there? (set --controller or "
                      "IOFLEET_CONTROLLER)", endpoint, timeout_ms / 1000);
            return NULL;
        }
        long left = (long) ((deadline - now) / NS_PER_MS) + 1;
        zmq_pollitem_t items[] = { { zsock_resolve (s), 0, ZMQ_POLLIN, 0 },
                                   { zsock_resolve (mon), 0, ZMQ_POLLIN, 0 } };
        /* An interrupt ends the poll (EINTR); the slice is a second guard. */
        if (zmq_poll (items, 2, left < 250 ? left : 250) < 0)
            continue;
        if (items[0].revents & ZMQ_POLLIN) {
            zframe_t *f = zframe_recv (s);
            if (f)
                return f;
        }
        if (!(items[1].revents & ZMQ_POLLIN))
            continue;
        int event = s_event (mon);
        if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
            up = true;
        else if (event == ZMQ_EVENT_DISCONNECTED && up) {
            /* A reply sent just before the end may be there unpolled. */
            zframe_t *f = (zsock_events (s) & ZMQ_POLLIN) ? zframe_recv (s) : NULL;
            if (f)
                return f;
            snprintf (err, errlen, "the controller at %s went away before answering (it stopped "
                      "or crashed, or its host stopped answering): see its log (journalctl -u "
                      "iofleet-controller), start it again, then retry", endpoint);
            return NULL;
        } else if (event == ZMQ_EVENT_CONNECT_RETRIED && !up
                   && strncmp (endpoint, "ipc://", 6) == 0 && s_ipc_refused (endpoint + 6)) {
            snprintf (err, errlen, "no controller listens at %s (its socket is left from one "
                      "that was killed): see its log, start iofleet-controller again, or point "
                      "--controller / IOFLEET_CONTROLLER at the one you run", endpoint);
            return NULL;
        } else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
            snprintf (err, errlen, "the controller at %s refused this CLI's key: put NAME.cert "
                      "(the public half of --cert) in its KEYDIR/admins/", endpoint);
            return NULL;
        }
    }
}

/* Sends req, returns the reply's text (free it; a gzip reply inflated)
   or NULL with err. */
static char *
roundtrip (const char *endpoint, json_t *req, int timeout_ms, char *err, size_t errlen)
{
    /* An ipc endpoint whose socket file is missing means no controller:
       say so now rather than after a timeout. */
    struct stat st;
    if (strncmp (endpoint, "ipc://", 6) == 0 && stat (endpoint + 6, &st) != 0) {
        snprintf (err, errlen, "no controller at %s (%s): start iofleet-controller, or point "
                  "--controller / IOFLEET_CONTROLLER at the one you run", endpoint,
                  strerror (errno));
        return NULL;
    }
    zsock_t *s = zsock_new (ZMQ_REQ);
    if (!s) {
        snprintf (err, errlen, "cannot create a socket: %s", zmq_strerror (zmq_errno ()));
        return NULL;
    }
    zsock_set_linger (s, 0);
    /* Replies are reports: large for a large fleet, but bounded. */
    zsock_set_maxmsgsize (s, (int64_t) REPLY_MAX);
    if (s_cert || s_server_cert) {
        if (curve_client_apply (s, s_cert, s_server_cert, err, errlen)) {
            zsock_destroy (&s);
            return NULL;
        }
    } else if (!endpoint_is_local (endpoint)) {
        snprintf (err, errlen, "%s is off this host: the controller only answers CURVE there; "
                  "pass --cert NAME.cert_secret --controller-key controller.cert (or set "
                  "IOFLEET_CERT and IOFLEET_CONTROLLER_KEY), with NAME.cert in its KEYDIR/admins/",
                  endpoint);
        zsock_destroy (&s);
        return NULL;
    }
    zsock_set_sndtimeo (s, timeout_ms);
    zsock_set_heartbeat_ivl (s, ADMIN_PING_MS);
    zsock_set_heartbeat_timeout (s, ADMIN_PING_TIMEOUT_MS);
    char *text = NULL, *reply = NULL;
    zsock_t *mon = s_monitor (s, err, errlen);
    if (!mon)
        goto out;
    if (zsock_connect (s, "%s", endpoint) != 0) {
        snprintf (err, errlen, "bad controller endpoint '%s': %s (expected ipc://PATH or "
                  "tcp://HOST:PORT)", endpoint, zmq_strerror (zmq_errno ()));
        goto out;
    }
    text = json_dumps (req, JSON_COMPACT);
    if (!text || zstr_send (s, text) != 0) {
        snprintf (err, errlen, "cannot send to the controller at %s: %s", endpoint,
                  zmq_strerror (zmq_errno ()));
        goto out;
    }
    zframe_t *f = s_wait_reply (s, mon, endpoint, timeout_ms, err, errlen);
    if (!f)
        goto out;
    if (gz_is (zframe_data (f), zframe_size (f))) {
        size_t len;             /* a long reply comes as gzip (gz.h) */
        reply = gz_inflate (zframe_data (f), zframe_size (f), REPLY_MAX, &len, err, errlen);
    } else if ((reply = malloc (zframe_size (f) + 1))) {
        memcpy (reply, zframe_data (f), zframe_size (f));
        reply[zframe_size (f)] = '\0';
    } else
        snprintf (err, errlen, "out of memory reading the controller's reply");
    zframe_destroy (&f);
out:
    free (text);
    if (mon) {
        zmq_socket_monitor (zsock_resolve (s), NULL, 0);
        zsock_destroy (&mon);
    }
    zsock_destroy (&s);
    return reply;
}

/* The result (or the error) of a reply's text.  NULL with err filled. */
static json_t *
parse_reply (const char *endpoint, const char *reply, char *err, size_t errlen)
{
    json_t *result = NULL;
    json_error_t jerr;
    json_t *r = json_loads (reply, 0, &jerr);
    if (!r || !json_is_object (r)) {
        snprintf (err, errlen, "the controller at %s sent a reply that is not JSON: %s", endpoint,
                  r ? "wrong type" : jerr.text);
    } else if (!json_is_true (json_object_get (r, "ok"))) {
        const char *e = json_string_value (json_object_get (r, "error"));
        snprintf (err, errlen, "%s", e ? e : "the controller refused the request");
    } else {
        result = json_object_get (r, "result");
        json_incref (result);
    }
    json_decref (r);
    return result;
}

json_t *
client_call (const char *endpoint, json_t *req, int timeout_ms, char *err, size_t errlen)
{
    char *reply = roundtrip (endpoint, req, timeout_ms, err, errlen);
    if (!reply)
        return NULL;
    json_t *result = parse_reply (endpoint, reply, err, errlen);
    zstr_free (&reply);
    return result;
}

/* The controller writes a success as exactly this, then the result. */
#define REPLY_OK "{\"ok\":true,\"result\":"

char *
client_call_text (const char *endpoint, json_t *req, int timeout_ms, char *err, size_t errlen)
{
    char *reply = roundtrip (endpoint, req, timeout_ms, err, errlen);
    if (!reply)
        return NULL;
    size_t n = strlen (reply), k = strlen (REPLY_OK);
    if (n > k && strncmp (reply, REPLY_OK, k) == 0 && reply[n - 1] == '}') {
        reply[n - 1] = '\0';
        memmove (reply, reply + k, n - k);
        return reply;
    }
    json_t *result = parse_reply (endpoint, reply, err, errlen);
    zstr_free (&reply);
    if (!result)
        return NULL;
    char *text = json_dumps (result, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref (result);
    if (!text)
        snprintf (err, errlen, "out of memory");
    return text;
}
