/*  link.h: an agent's connection to its controller.  The real agent and
    every simulated one (simulate.c) open it the same way. */
#ifndef IOF_LINK_H
#define IOF_LINK_H

#include <czmq.h>

/* A DEALER connecting to endpoint: bounded messages, no linger, quick
   redial backing off to 5 s, ZMTP heartbeats, and CURVE when cert or
   controller_key is given.  NULL with err naming what failed. */
zsock_t *link_open (const char *endpoint, const char *cert, const char *controller_key,
                    char *err, size_t errlen);

#endif
