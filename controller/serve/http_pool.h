/*  http_pool.h: the --http endpoint's connections, kept so that idle or
    slow ones cannot lock /metrics out (issue 40).  libmicrohttpd, at its
    connection limit, stops accepting: 64 idle sockets used to be enough
    to keep every scrape waiting.  Here each connection is known from
    accept to close (http.c tells it), and

    - one that has not sent a whole request within request_s of its
      accept (or keep_s of its last answer) is closed when the pool is
      next looked at: a deadline, not an inactivity timer, so a client
      trickling a byte a second gets no more time than a silent one;
    - when the pool holds size connections, the one idle longest (no
      request in hand) is closed for the newcomer: whoever floods the
      pool evicts itself, and a scrape, newest, gets in; one whose
      request waits unread in its socket is passed over for one that
      sent nothing (a scrape a moment after it connected, amid a flood
      that reconnects as fast as it is shut).

    No per-address limit: an attacker on the controller's own host shares
    127.0.0.1 with a Prometheus there, and a limit would lock it out.

    Closing is shutdown(2) of the socket, which libmicrohttpd's thread
    sees as the peer gone and cleans up as usual; a connection is in the
    pool until http_pool_close, called before libmicrohttpd closes its
    descriptor, so a descriptor shut is never another's.  Thread-safe. */
#ifndef IOF_HTTP_POOL_H
#define IOF_HTTP_POOL_H

#include <stdint.h>
#include <sys/socket.h>

typedef struct http_pool http_pool_t;
typedef struct http_conn http_conn_t;

/* A pool of size connections; request_s: the time a new connection has
   to send its whole request; keep_s: the time a kept-alive one has, after
   an answer, for its next.  NULL out of memory. */
http_pool_t *http_pool_new (unsigned size, unsigned request_s, unsigned keep_s);
void http_pool_destroy (http_pool_t **self_p);

/* The connection on socket fd (peer: its address, to check before a
   shutdown that fd is still it), accepted at now (seconds, monotonic):
   the pool is swept first (deadlines passed, the idle longest while the
   pool is full).  NULL out of memory (the connection is then not kept
   track of: it lives to libmicrohttpd's own timeout). */
http_conn_t *http_pool_open (http_pool_t *self, int fd, const struct sockaddr *peer,
                             socklen_t peerlen, double now);
/* A whole request is in: not evicted while it is answered.  Can't fail. */
void http_pool_busy (http_pool_t *self, http_conn_t *conn);
/* Answered at now: idle (kept alive) until its next request.  Can't fail. */
void http_pool_idle (http_pool_t *self, http_conn_t *conn, double now);
/* libmicrohttpd closes it: forgotten, *conn_p NULL.  Can't fail. */
void http_pool_close (http_pool_t *self, http_conn_t **conn_p);

typedef struct {
    unsigned size;              /* the pool's size */
    unsigned open;              /* connections open (shut ones not closed yet included) */
    uint64_t accepted;          /* connections accepted */
    uint64_t slow;              /* closed: no whole request in time */
    uint64_t evicted;           /* closed idle for a newcomer, the pool full */
} http_pool_stats_t;

/* Its figures.  Can't fail. */
http_pool_stats_t http_pool_stats (http_pool_t *self);

#endif
