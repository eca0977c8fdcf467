/*  link.c: see link.h. */
#include "link.h"
#include "curve.h"
#include "message.h"

#include <stdio.h>

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
    /* ZMTP heartbeats: a connection that went dead (a pulled cable, a
       rebooted switch) is noticed and redialed, besides our own pings. */
    zsock_set_heartbeat_ivl (s, 1000);
    zsock_set_heartbeat_timeout (s, 10000);
    zsock_set_heartbeat_ttl (s, 20000);
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
