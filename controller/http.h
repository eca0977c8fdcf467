/*  http.h: the controller's HTTP endpoint (--http ADDR:PORT): a
    libmicrohttpd daemon on its own thread serving GET /metrics, the last
    text metrics.h rendered on the event loop (http_publish), so that a
    scrape never waits on the loop nor reads what the loop is changing.
    Read-only: GET and HEAD only (405 otherwise), nothing else is served
    (404), nothing is written.  Loopback only: an off-host address is
    refused at start, as off-host HTTP needs TLS and a bearer token, which
    are not built yet (put a TLS proxy in front). */
#ifndef IOF_HTTP_H
#define IOF_HTTP_H

#include <stddef.h>

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

/* Replaces the text /metrics serves with text (malloc'd, len bytes; taken
   over).  Can't fail. */
void http_publish (http_t *self, char *text, size_t len);

/* Stops the daemon (after the requests in hand).  Can't fail. */
void http_stop (http_t **self_p);

#endif
