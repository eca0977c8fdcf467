/*  decode_pool.c: see decode_pool.h.

    A ring of DECODE_POOL_RING slots: the loop fills the tail, the
    threads claim slots in order and decode them (in any order among
    themselves), the loop takes the head once it is decoded.  One mutex
    guards the indices; the decoding itself runs outside it.  The loop
    needs no wake-up from the threads: it waits for them only inside a
    burst (decode_pool_wait), and a burst it cut short at BURST_MAX is
    taken up again at once (controller.c polls without a timeout then).
*/
#include "decode_pool.h"

#include "log.h"
#include "store.h"
#include "util.h"
#include "fleet.h"
#include "snapcodec.h"
#include "snapshot_prep.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define DECODE_POOL_BATCH 32    /* messages the loop waits for at once */

typedef struct {
    zmsg_t *in;                 /* taken, not yet claimed */
    bool done;                  /* decoded into m */
    agent_msg_t m;
} slot_t;

typedef struct {
    decode_pool_t *pool;
    pthread_t tid;
    bool started;
    store_t *reader;            /* its read-only connection */
    snapcodec_t *codec;         /* over it */
    unsigned gen;               /* the dictionary generation it loaded */
} worker_t;

struct decode_pool {
    pthread_mutex_t mu;
    pthread_cond_t work;
    pthread_cond_t ready;       /* the head is decoded (decode_pool_wait) */
    bool waiting;               /* the loop waits on ready for head and want */
    uint64_t want;
    bool stop;
    uint64_t head, claim, tail; /* head <= claim <= tail; slots [head, tail) in use */
    slot_t *ring;
    int efd;
    _Atomic unsigned gen;       /* bumped by decode_pool_reload */
    int nworkers;
    worker_t workers[DECODE_POOL_MAX_THREADS];
};

static void *
worker_main (void *arg)
{
    worker_t *w = arg;
    decode_pool_t *self = w->pool;
    for (;;) {
        pthread_mutex_lock (&self->mu);
        while (!self->stop && self->claim == self->tail)
            pthread_cond_wait (&self->work, &self->mu);
        if (self->stop) {
            pthread_mutex_unlock (&self->mu);
            break;
        }
        uint64_t i = self->claim++;
        slot_t *sl = &self->ring[i % DECODE_POOL_RING];
        zmsg_t *in = sl->in;
        sl->in = NULL;
        pthread_mutex_unlock (&self->mu);

        unsigned gen = atomic_load (&self->gen);
        if (gen != w->gen) {
            char err[256];
            if (snapcodec_reload (w->codec, err, sizeof err))
                log_warn ("decode thread: the new snapshot dictionary did not load: %s (its "
                          "blocks are written with the one before)", err);
            w->gen = gen;
        }
        fleet_decode (&in, w->codec, &sl->m);

        pthread_mutex_lock (&self->mu);
        sl->done = true;
        if (self->waiting && (i == self->head || i >= self->want))
            pthread_cond_signal (&self->ready);
        pthread_mutex_unlock (&self->mu);
    }
    return NULL;
}

decode_pool_t *
decode_pool_new (const char *db_path, int threads, char *err, size_t errlen)
{
    if (errlen)
        *err = '\0';
    if (threads < 1 || threads > DECODE_POOL_MAX_THREADS) {
        snprintf (err, errlen, "%d decode threads: 1 to %d", threads, DECODE_POOL_MAX_THREADS);
        return NULL;
    }
    decode_pool_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init (&self->mu, NULL);
    pthread_cond_init (&self->work, NULL);
    pthread_cond_init (&self->ready, NULL);
    self->ring = calloc (DECODE_POOL_RING, sizeof *self->ring);
    if (!self->ring) {
        snprintf (err, errlen, "out of memory");
        decode_pool_destroy (&self);
        return NULL;
    }
    for (int t = 0; t < threads; t++) {
        worker_t *w = &self->workers[t];
        w->pool = self;
        self->nworkers = t + 1;
        w->reader = store_open_reader (db_path, err, errlen);
        w->codec = w->reader ? snapcodec_new (store_db (w->reader)) : NULL;
        if (!w->codec) {
            if (w->reader)
                snprintf (err, errlen, "out of memory");
            decode_pool_destroy (&self);
            return NULL;
        }
        if (snapcodec_reload (w->codec, err, errlen)
            || pthread_create (&w->tid, NULL, worker_main, w) != 0) {
            if (!*err)
                snprintf (err, errlen, "cannot start a decode thread");
            decode_pool_destroy (&self);
            return NULL;
        }
        w->started = true;
    }
    return self;
}

void
decode_pool_destroy (decode_pool_t **self_p)
{
    decode_pool_t *self = *self_p;
    if (!self)
        return;
    pthread_mutex_lock (&self->mu);
    self->stop = true;
    pthread_cond_broadcast (&self->work);
    pthread_mutex_unlock (&self->mu);
    for (int t = 0; t < self->nworkers; t++) {
        worker_t *w = &self->workers[t];
        if (w->started)
            pthread_join (w->tid, NULL);
        snapcodec_free (&w->codec);
        store_close (&w->reader);
    }
    if (self->ring) {
        for (size_t i = 0; i < DECODE_POOL_RING; i++) {
            zmsg_destroy (&self->ring[i].in);
            fleet_msg_clear (&self->ring[i].m);
            snapshot_prep_clear (&self->ring[i].m.prep);
        }
        free (self->ring);
    }
    pthread_cond_destroy (&self->work);
    pthread_cond_destroy (&self->ready);
    pthread_mutex_destroy (&self->mu);
    free (self);
    *self_p = NULL;
}

bool
decode_pool_room (decode_pool_t *self)
{
    pthread_mutex_lock (&self->mu);
    bool room = self->tail - self->head < DECODE_POOL_RING;
    pthread_mutex_unlock (&self->mu);
    return room;
}

void
decode_pool_push (decode_pool_t *self, zmsg_t **msg_p)
{
    pthread_mutex_lock (&self->mu);
    slot_t *sl = &self->ring[self->tail % DECODE_POOL_RING];
    sl->in = *msg_p;
    sl->done = false;
    *msg_p = NULL;
    self->tail++;
    pthread_cond_signal (&self->work);
    pthread_mutex_unlock (&self->mu);
}

agent_msg_t *
decode_pool_wait (decode_pool_t *self)
{
    pthread_mutex_lock (&self->mu);
    slot_t *sl = NULL;
    if (self->head < self->tail) {
        sl = &self->ring[self->head % DECODE_POOL_RING];
        /* Not woken for each message: when the loop is faster than the
           threads it would sleep and wake once a message, two context
           switches each.  It waits for the head and for DECODE_POOL_BATCH
           after it (or all there are), then takes them one by one. */
        uint64_t n = self->tail - self->head;
        self->want = self->head + (n < DECODE_POOL_BATCH ? n : DECODE_POOL_BATCH) - 1;
        const slot_t *last = &self->ring[self->want % DECODE_POOL_RING];
        if (!sl->done) {
            self->waiting = true;
            while (!sl->done || !last->done)
                pthread_cond_wait (&self->ready, &self->mu);
            self->waiting = false;
        }
    }
    pthread_mutex_unlock (&self->mu);
    return sl ? &sl->m : NULL;
}

void
decode_pool_release (decode_pool_t *self)
{
    pthread_mutex_lock (&self->mu);
    slot_t *sl = &self->ring[self->head % DECODE_POOL_RING];
    self->head++;
    pthread_mutex_unlock (&self->mu);
    /* Its slot is the loop's until the tail comes round to it again. */
    fleet_msg_clear (&sl->m);
    sl->done = false;
}

size_t
decode_pool_pending (decode_pool_t *self)
{
    pthread_mutex_lock (&self->mu);
    size_t n = (size_t) (self->tail - self->head);
    pthread_mutex_unlock (&self->mu);
    return n;
}

int
decode_pool_threads (const decode_pool_t *self)
{
    return self ? self->nworkers : 0;
}

void
decode_pool_reload (decode_pool_t *self)
{
    if (self)
        atomic_fetch_add (&self->gen, 1);
}
