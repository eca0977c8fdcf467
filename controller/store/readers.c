/*  readers.c: see readers.h. */
#include "readers.h"
#include "log.h"
#include "util.h"
#include "store.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define READERS_MAX 8

typedef struct {
    store_t *store;
    readers_fn *fn;
} reader_args_t;

struct readers {
    int n;
    zactor_t *actor[READERS_MAX];
    bool busy[READERS_MAX];
    reader_args_t args[READERS_MAX];
};

#define READER_NICE 10          /* a reader thread's nice, the loop's 0 */

/* zmq_msg_init_data's free function: a reply's text, once sent. */
static void
text_free (void *data, void *hint)
{
    (void) hint;
    free (data);
}

/* Sends the envelope's frames, the reply's len bytes of text and the
   error flag as one message; the text is handed to ZeroMQ, not copied (a
   report can be MBs even compressed), and freed once sent.  Can't fail:
   a pipe that refuses is the loop gone, and what was not sent is freed. */
static void
send_reply (zsock_t *pipe, zmsg_t **envelope_p, char *text, size_t len, bool failed)
{
    zframe_t *f;
    while ((f = zmsg_pop (*envelope_p)))
        if (zframe_send (&f, pipe, ZFRAME_MORE)) {
            zframe_destroy (&f);
            zmsg_destroy (envelope_p);
            free (text);
            return;
        }
    zmsg_destroy (envelope_p);
    zmq_msg_t m;
    if (!text ? zmq_msg_init (&m) : zmq_msg_init_data (&m, text, len, text_free, NULL)) {
        free (text);
        return;
    }
    if (zmq_msg_send (&m, zsock_resolve (pipe), ZMQ_SNDMORE) < 0) {
        zmq_msg_close (&m);
        return;
    }
    zstr_send (pipe, failed ? "1" : "0");
}

/* The reader's thread: a request in, its reply out, until $TERM.  The
   last frame of a request is its body, the frames before it the client's
   envelope, handed back as they came; one more frame says "1" for an
   error, "0" for a result. */
static void
reader_actor (zsock_t *pipe, void *arg)
{
    reader_args_t *a = arg;
    ctl_t ctl = { .store = a->store };
    /* Reads yield the CPU to the loop: on a small machine a report of
       seconds and the loop's ingest share the cores, and the loop's
       answers (acks, pings, stats) are the ones agents and people wait on. */
    if (setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), READER_NICE) != 0)
        log_warn ("reader thread: cannot lower its priority: %s", strerror (errno));
    zsock_signal (pipe, 0);
    while (true) {
        zmsg_t *msg = zmsg_recv (pipe);
        if (!msg) {
            if (zmq_errno () == EINTR)
                continue;       /* a signal: the loop decides when to stop ($TERM) */
            break;
        }
        zframe_t *body = zmsg_last (msg);
        if (zmsg_size (msg) == 1 && zframe_streq (body, "$TERM")) {
            zmsg_destroy (&msg);
            break;
        }
        IOF_ASSERT (zmsg_size (msg) >= 2);
        body = zmsg_last (msg);
        zmsg_remove (msg, body);
        bool failed = false;
        size_t len = 0;
        char *text = a->fn (&ctl, body, &len, &failed);
        zframe_destroy (&body);
        /* Whatever the request read, the next one sees every commit. */
        store_end_read (a->store);
        send_reply (pipe, &msg, text, len, failed);
    }
}

readers_t *
readers_new (const char *path, int n, readers_fn *fn, char *err, size_t errlen)
{
    IOF_ASSERT (n >= 1 && n <= READERS_MAX && fn);
    readers_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        self->args[i].fn = fn;
        self->args[i].store = store_open_reader (path, err, errlen);
        if (!self->args[i].store) {
            readers_destroy (&self);
            return NULL;
        }
        self->actor[i] = zactor_new (reader_actor, &self->args[i]);
        if (!self->actor[i]) {
            snprintf (err, errlen, "cannot start a reader thread");
            store_close (&self->args[i].store);
            readers_destroy (&self);
            return NULL;
        }
        self->n++;
    }
    return self;
}

void
readers_destroy (readers_t **self_p)
{
    IOF_ASSERT (self_p);
    readers_t *self = *self_p;
    if (!self)
        return;
    for (int i = 0; i < self->n; i++) {
        zactor_destroy (&self->actor[i]);   /* waits for the thread */
        store_close (&self->args[i].store);
    }
    free (self);
    *self_p = NULL;
}

int
readers_send (readers_t *self, zmsg_t **msg_p)
{
    IOF_ASSERT (zmsg_size (*msg_p) >= 2);
    for (int i = 0; i < self->n; i++)
        if (!self->busy[i]) {
            if (zmsg_send (msg_p, self->actor[i]))
                return -1;
            self->busy[i] = true;
            return 0;
        }
    return -1;
}

zmsg_t *
readers_recv (readers_t *self, bool *failed)
{
    for (int i = 0; i < self->n; i++) {
        if (!self->busy[i] || !(zsock_events (zactor_sock (self->actor[i])) & ZMQ_POLLIN))
            continue;
        zmsg_t *msg = zmsg_recv (self->actor[i]);
        if (!msg)
            continue;
        self->busy[i] = false;
        zframe_t *flag = zmsg_last (msg);
        *failed = zframe_streq (flag, "1");
        zmsg_remove (msg, flag);
        zframe_destroy (&flag);
        return msg;
    }
    return NULL;
}

void
readers_poll (readers_t *self, zpoller_t *poller)
{
    for (int i = 0; i < self->n; i++)
        zpoller_add (poller, self->actor[i]);
}
