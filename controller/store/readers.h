/*  readers.h: threads that answer the admin endpoint's read-only
    requests (reports, history, lists) off the event loop.

    Each reader is a czmq actor with its own read-only connection to the
    database (store_open_reader), so a report of seconds never stops the
    loop that ingests snapshots and answers pings.  The loop hands a
    request to an idle reader with its client's envelope (the ROUTER's
    routing id, and the empty delimiter of a REQ client); the reader
    answers through readers_fn and hands the envelope back with the reply,
    so the loop alone touches the admin socket.
*/
#ifndef IOF_READERS_H
#define IOF_READERS_H

#include "controller.h"

typedef struct readers readers_t;

/* Answers one request (the JSON text of body) with the reply text
   (malloc'd, *len bytes: JSON, or gzip of it past GZ_AFTER; NULL only
   out of memory) on a reader thread; ctl holds only the reader's store.
   *failed: the reply is an error. */
typedef char *(readers_fn) (ctl_t *ctl, zframe_t *body, size_t *len, bool *failed);

/* n readers on the database at path, answering with fn.  Returns NULL
   with err filled (a connection that cannot be opened). */
readers_t *readers_new (const char *path, int n, readers_fn *fn, char *err, size_t errlen);
/* Stops the readers, after the request each has in hand. */
void readers_destroy (readers_t **self_p);

/* Hands *msg_p (envelope frames, then the request's body frame) to an
   idle reader, and takes it.  Returns 0, or -1 when every reader is busy
   (*msg_p untouched). */
int readers_send (readers_t *self, zmsg_t **msg_p);
/* A reply that is ready (envelope frames, then the reply text), or NULL
   when none is; *failed: it is an error.  Never blocks. */
zmsg_t *readers_recv (readers_t *self, bool *failed);
/* Adds the readers' sockets to the event loop's poller.  Can't fail. */
void readers_poll (readers_t *self, zpoller_t *poller);

#endif
