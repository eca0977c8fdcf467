/*  http.h: the controller's HTTP endpoint (--http ADDR:PORT): a
    libmicrohttpd daemon on its own thread serving GET /metrics.  A scrape
    asks the event loop for its figures (http_wanted), which the loop
    copies at its next turn (metrics_collect, http_publish); the scrape
    writes them out as text here (gzip when asked), so that the loop pays
    a copy per scrape, not the text, and no scrape reads what the loop is
    changing.  A loop that does not answer within 5 s: the scrape takes
    the figures it copied last.
    Read-only: GET and HEAD only (405 otherwise), nothing else is served
    (404), nothing is written.  Loopback only: an off-host address is
    refused at start, as off-host HTTP needs TLS and a bearer token, which
    are not built yet (put a TLS proxy in front). */
#ifndef IOF_HTTP_H
#define IOF_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "metrics.h"

typedef struct http http_t;

/* Checks addr ("127.0.0.1:9464", "[::1]:9464", "localhost:9464"; port 0:
   any free one).  Returns 0, or -1 with err naming what is wrong and what
   to give instead. */
int http_check_addr (const char *addr, char *err, size_t errlen);

/* Starts serving on addr.  Returns NULL with err filled (the address, or
   the port taken). */
http_t *http_start (const char *addr, char *err, size_t errlen);

/* The port it listens on (the one chosen, for port 0). */
unsigned http_port (const http_t *self);

/* Whether a scrape waits for fresh figures (read on the loop at each
   turn).  Can't fail. */
bool http_wanted (http_t *self);

/* Hands the loop's figures (taken over; NULL: none could be made, the
   last ones stay) to the scrapes that wait.  Can't fail. */
void http_publish (http_t *self, metrics_snap_t *snap);

/* Stops the daemon (after the requests in hand).  Can't fail. */
void http_stop (http_t **self_p);

#endif
