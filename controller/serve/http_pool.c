/*  http_pool.c: the --http endpoint's connections (http_pool.h). */
#include "http_pool.h"
#include "util.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#define EVICT_LOOK 64

struct http_conn {
    http_conn_t *prev, *next;   /* in the idle list, oldest first (when idle) */
    int fd;
    struct sockaddr_storage peer;
    socklen_t peerlen;
    double deadline;            /* a whole request by then, or shut (idle only) */
    bool idle;                  /* in the idle list */
    bool shut;                  /* shut down: closing */
};

struct http_pool {
    pthread_mutex_t lock;
    unsigned size, request_s, keep_s;
    http_conn_t *head, *tail;   /* the idle ones, longest idle first */
    unsigned open;              /* accepted, not closed yet */
    unsigned shutting;          /* of them, shut down: closing */
    double next_due;            /* no deadline passes before it */
    uint64_t accepted, slow, evicted;
};

http_pool_t *
http_pool_new (unsigned size, unsigned request_s, unsigned keep_s)
{
    IOF_ASSERT (size > 0);
    http_pool_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    pthread_mutex_init (&self->lock, NULL);
    self->size = size;
    self->request_s = request_s;
    self->keep_s = keep_s;
    self->next_due = 1e300;
    return self;
}

void
http_pool_destroy (http_pool_t **self_p)
{
    IOF_ASSERT (self_p);
    http_pool_t *self = *self_p;
    if (!self)
        return;
    /* libmicrohttpd closed every connection as it stopped
       (http_pool_close). */
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

static void
s_unlink (http_pool_t *self, http_conn_t *c)
{
    if (!c->idle)
        return;
    if (c->prev)
        c->prev->next = c->next;
    else
        self->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        self->tail = c->prev;
    c->prev = c->next = NULL;
    c->idle = false;
}

static void
s_append (http_pool_t *self, http_conn_t *c, double deadline)
{
    IOF_ASSERT (!c->idle && !c->shut);
    c->deadline = deadline;
    c->prev = self->tail;
    c->next = NULL;
    if (self->tail)
        self->tail->next = c;
    else
        self->head = c;
    self->tail = c;
    c->idle = true;
    if (deadline < self->next_due)
        self->next_due = deadline;
}

/* c's socket shut down (both ways): libmicrohttpd's thread reads its end
   and closes it.  Only while fd is still c's peer: the descriptor is
   libmicrohttpd's, and this is the belt to http_pool_close's braces. */
static void
s_shut (http_pool_t *self, http_conn_t *c)
{
    s_unlink (self, c);
    c->shut = true;
    self->shutting++;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getpeername (c->fd, (struct sockaddr *) &ss, &sl) == 0 && sl == c->peerlen
        && memcmp (&ss, &c->peer, sl) == 0)
        shutdown (c->fd, SHUT_RDWR);
}

/* Whether bytes of a request wait unread in c's socket.  Can't fail (an
   error counts as none). */
static bool
s_has_request (const http_conn_t *c)
{
    int n = 0;
    return ioctl (c->fd, FIONREAD, &n) == 0 && n > 0;
}

/* Deadlines passed are shut; then, while the pool is full, the idle
   longest (never keep, the newcomer). */
static void
s_sweep (http_pool_t *self, double now, const http_conn_t *keep)
{
    if (now >= self->next_due) {
        self->next_due = 1e300;
        for (http_conn_t *c = self->head, *next; c; c = next) {
            next = c->next;
            if (c->deadline <= now) {
                s_shut (self, c);
                self->slow++;
            } else if (c->deadline < self->next_due)
                self->next_due = c->deadline;
        }
    }
    /* The ones shut are as good as gone: they close at their thread's
       next turn.  A connection whose request waits unread in its socket
       (a real client a moment after it connected) is passed over for one
       that has sent nothing: under a flood of connections that send
       nothing and come back as soon as they are shut, the oldest would
       otherwise be a real client's tens of milliseconds after it
       connected.  At most EVICT_LOOK are looked at. */
    while (self->open - self->shutting > self->size) {
        http_conn_t *victim = NULL;
        int looked = 0;
        for (http_conn_t *c = self->head; c && looked < EVICT_LOOK; c = c->next, looked++)
            if (c != keep && !s_has_request (c)) {
                victim = c;
                break;
            }
        if (!victim && self->head != keep)
            victim = self->head;
        if (!victim)
            break;
        s_shut (self, victim);
        self->evicted++;
    }
}

http_conn_t *
http_pool_open (http_pool_t *self, int fd, const struct sockaddr *peer, socklen_t peerlen,
                double now)
{
    http_conn_t *c = calloc (1, sizeof *c);
    if (!c)
        return NULL;
    c->fd = fd;
    if (peerlen > sizeof c->peer)
        peerlen = sizeof c->peer;
    memcpy (&c->peer, peer, peerlen);
    c->peerlen = peerlen;
    pthread_mutex_lock (&self->lock);
    self->accepted++;
    self->open++;
    s_append (self, c, now + self->request_s);
    s_sweep (self, now, c);
    pthread_mutex_unlock (&self->lock);
    return c;
}

void
http_pool_busy (http_pool_t *self, http_conn_t *conn)
{
    if (!conn)
        return;
    pthread_mutex_lock (&self->lock);
    s_unlink (self, conn);
    pthread_mutex_unlock (&self->lock);
}

void
http_pool_idle (http_pool_t *self, http_conn_t *conn, double now)
{
    if (!conn)
        return;
    pthread_mutex_lock (&self->lock);
    if (!conn->shut && !conn->idle)
        s_append (self, conn, now + self->keep_s);
    pthread_mutex_unlock (&self->lock);
}

void
http_pool_close (http_pool_t *self, http_conn_t **conn_p)
{
    http_conn_t *conn = *conn_p;
    if (!conn)
        return;
    pthread_mutex_lock (&self->lock);
    s_unlink (self, conn);
    IOF_ASSERT (self->open > 0);
    self->open--;
    if (conn->shut)
        self->shutting--;
    pthread_mutex_unlock (&self->lock);
    free (conn);
    *conn_p = NULL;
}

http_pool_stats_t
http_pool_stats (http_pool_t *self)
{
    pthread_mutex_lock (&self->lock);
    http_pool_stats_t s = { self->size, self->open, self->accepted, self->slow, self->evicted };
    pthread_mutex_unlock (&self->lock);
    return s;
}
