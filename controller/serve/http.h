/*  http.h: the controller's HTTP endpoint (--http ADDR:PORT): a
    libmicrohttpd daemon on a pool of threads (HTTP_THREADS, so that a
    report rendered on one does not hold up a scrape) serving GET
    /metrics, the web pages and /api (web.h says what each path is).  A scrape asks the
    event loop for its figures (http_wanted), which the loop copies at its
    next turn (metrics_collect, http_publish); the scrape writes them out
    as text here (gzip when asked), so that the loop pays a copy per
    scrape, not the text, and no scrape reads what the loop is changing.
    A page or /api path whose command reads the loop's memory (agents,
    status, schedule_list) asks the loop the same way (http_asked,
    http_answer); the others are read on read-only connections of these
    threads' own (admin_read).  A loop that does not answer within 5 s: the
    scrape takes the figures it copied last, a page says so (503).
    Read-only: GET and HEAD only (405 otherwise), nothing else is served
    (404), nothing is written.  On loopback, plain HTTP without a token;
    on any other address only HTTPS (--http-tls-cert, --http-tls-key) with
    a bearer token (--http-token-file): a request without it, or with
    another, gets 401 and is counted (iofleet_http_denied_total).
    Connections are kept in a pool (http_pool.h) sized from the open-file
    limit, where idle and slow ones cannot lock a scrape out; a path or
    query with a NUL byte (%00) is refused 400 before any page. */
#ifndef IOF_HTTP_H
#define IOF_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "metrics.h"

#include <jansson.h>

#include "http_opts.h"

typedef struct http http_t;


/* Starts serving as o says (http_opts_check first).  Returns NULL with err
   filled (what http_opts_check says, the port taken, a key that does not
   match its certificate). */
http_t *http_start (const http_opts_t *o, char *err, size_t errlen);

/* The port it listens on (the one chosen, for port 0). */
unsigned http_port (const http_t *self);
/* Its /metrics URL into buf ("https://0.0.0.0:9464/metrics"; localhost
   as 127.0.0.1, the port chosen for 0).  Returns buf.  Can't fail. */
const char *http_url (const http_t *self, char *buf, size_t len);

/* Whether a scrape waits for fresh figures (read on the loop at each
   turn).  Can't fail. */
bool http_wanted (http_t *self);

/* Hands the loop's figures (taken over; NULL: none could be made, the
   last ones stay) to the scrapes that wait.  Can't fail. */
void http_publish (http_t *self, metrics_snap_t *snap);

/* A page's request for the loop (admin_loop_read's), taken, or NULL:
   none waits.  Read on the loop at each turn; the loop answers it with
   http_answer (text taken, as admin_loop_read gives it).  Can't fail. */
json_t *http_asked (http_t *self);
void http_answer (http_t *self, char *text, size_t len, bool failed);

/* Stops the daemon (after the requests in hand).  Can't fail. */
void http_stop (http_t **self_p);

#endif
