/*  link.h: an agent's connection to its controller.  The real agent and
    every simulated one (simulate.c) open it the same way. */
#ifndef IOF_LINK_H
#define IOF_LINK_H

#include <czmq.h>

#include "util.h"

/* The protocol's timing on the agent's side, one home for the real agent
   (main.c) and every simulated one (simulate.c). */
#define LINK_PING_NS          (1000 * NS_PER_MS)  /* a PING this often */
#define LINK_HELLO_RETRY_NS   (1000 * NS_PER_MS)  /* HELLO again, doubling up to the max */
#define LINK_HELLO_RETRY_MAX_NS (8000 * NS_PER_MS)
#define LINK_SILENCE_NS       (5000 * NS_PER_MS)  /* nothing heard: HELLO again */
#define LINK_CURVE_REOPEN_NS  (3000 * NS_PER_MS)  /* a CURVE handshake this late: reopen */
#define LINK_RESEND_NS        (3000 * NS_PER_MS)  /* unacknowledged this long: resend */

/* A DEALER connecting to endpoint: bounded messages, no linger, quick
   redial backing off to 5 s, ZMTP heartbeats, and CURVE when cert or
   controller_key is given.  NULL with err naming what failed. */
zsock_t *link_open (const char *endpoint, const char *cert, const char *controller_key,
                    char *err, size_t errlen);

#endif
