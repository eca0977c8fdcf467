/*  link.h: an agent's protocol client, one object per connection to the
    controller: HELLO until WELCOME (and again after silence, an ERROR or a
    CURVE handshake that never came), PING/PONG and the clock offset,
    PREPARE/START/ABORT, the acknowledgements and the resends of what the
    controller has not acknowledged (kept in a spool_t), REJECT.

    The real agent (agent.c, workload.c) and every simulated one
    (simulate.c) are this client; they differ only in the workload they
    drive, given as a table of operations (as fio's ioengine_ops): the link
    never asks which workload it runs.  A link is driven by its owner's
    loop: poll link_handle, then link_recv and link_tick.
*/
#ifndef IOF_LINK_H
#define IOF_LINK_H

#include <czmq.h>

#include "message.h"
#include "spool.h"
#include "util.h"

/* The protocol's timing on the agent's side, one home for the real agent
   and every simulated one. */
#define LINK_PING_NS          (1000 * NS_PER_MS)  /* a PING this often */
#define CLOCK_STEP_NS         (500 * NS_PER_MS)   /* an offset moved this much at once: a step */
#define LINK_HELLO_RETRY_NS   (1000 * NS_PER_MS)  /* HELLO again, doubling up to the max */
#define LINK_HELLO_RETRY_MAX_NS (8000 * NS_PER_MS)
#define LINK_SILENCE_NS       (5000 * NS_PER_MS)  /* nothing heard: HELLO again */
#define LINK_CURVE_REOPEN_NS  (3000 * NS_PER_MS)  /* a CURVE handshake this late: reopen */
#define LINK_RESEND_NS        (3000 * NS_PER_MS)  /* unacknowledged this long: resend */
#define LINK_SILENT_WARN_NS   (10000 * NS_PER_MS) /* nothing heard: say what to check */

typedef struct link link_t;

/* The workload a link drives; self is the workload given to link_new, link
   the link calling. */
typedef struct {
    /* PREPARE p: sets the step up.  Returns 0 with ready->targets and
       n_targets (and inventory_json, when it has one) filled, valid until
       its next call, or -1 with the REFUSED reason in err.  It may take a
       while (a layout): link_preparing_stop serves the link meanwhile. */
    int (*prepare) (void *self, link_t *link, const Iofleet__Prepare *p, Iofleet__Ready *ready,
                    char *err, size_t errlen);
    /* START: the prepared step begins at mono_start (this host's monotonic
       clock, ns).  Can't fail (what cannot start ends, and says so in DONE). */
    void (*start) (void *self, uint64_t mono_start);
    /* The step runs: sends every interval it has by now
       (link_send_snapshot) and, once every one is out, the DONE
       (link_send_done).  Returns when it next has one due (monotonic ns). */
    uint64_t (*collect) (void *self, link_t *link, uint64_t now);
    /* The step is given up (ABORT): stops it and lets it go.  Can't fail. */
    void (*stop) (void *self);
    /* HELLO's inventory: JSON text (the link frees it), or NULL. */
    char *(*inventory) (void *self);
} link_ops_t;

typedef struct {
    const char *endpoint;
    const char *cert;               /* CURVE: this agent's secret certificate, or NULL */
    const char *controller_key;     /* CURVE: the controller's certificate to pin, or NULL */
    const char *name;
    const char *hostname;           /* HELLO's; NULL: this host's */
    const char *release;            /* HELLO's agent version; NULL: IOF_VERSION */
    const char *instance;           /* instance.h; NULL: none (simulated agents) */
    Iofleet__Label **labels;
    int nlabels;
    int64_t clock_shift;            /* tests: this host's clock taken as off by this, ns */
    /* Many links in one process: the connection's routine events (welcome,
       hello again, silence, aborts, refusals) logged at debug level, each
       line starting with the agent's name. */
    bool quiet;
} link_config_t;

/* A DEALER connecting to endpoint: bounded messages, no linger, quick
   redial backing off to 5 s, ZMTP heartbeats, and CURVE when cert or
   controller_key is given.  NULL with err naming what failed. */
zsock_t *link_open (const char *endpoint, const char *cert, const char *controller_key,
                    char *err, size_t errlen);

/* Opens the connection (link_open) and says HELLO.  cfg's strings and
   labels, ops, work and spool (which keeps what is sent until it is
   acknowledged) must outlive the link.  NULL with err naming what failed. */
link_t *link_new (const link_config_t *cfg, const link_ops_t *ops, void *work, spool_t *spool,
                  char *err, size_t errlen);

/* Closes the connection; a step still in hand is stopped (ops->stop).
   Can't fail. */
void link_destroy (link_t **self_p);

/* The libzmq socket to poll for ZMQ_POLLIN: it changes when the link
   reopens its connection, so ask before every poll.  Can't fail. */
void *link_handle (link_t *self);

/* Handles up to max messages waiting from the controller.  Returns how
   many.  Can't fail. */
int link_recv (link_t *self, int max);

/* Everything time-driven: reopen, HELLO, PING, silence, the running
   step's intervals (ops->collect), resends.  Returns when it next has
   something due (monotonic ns).  Can't fail. */
uint64_t link_tick (link_t *self, uint64_t now);

/* For a workload's prepare, now and then while it lays files out: serves
   the link meanwhile (an ABORT of the run being prepared, pings, a second
   PREPARE refused as busy).  Returns why the preparation is to stop, or
   NULL. */
const char *link_preparing_stop (link_t *self);

/* Keeps the snapshot until it is acknowledged (the spool; its
   spool_dropped filled in) and sends it.  Returns its packed size, or 0
   when it could not be packed (logged; it is lost). */
size_t link_send_snapshot (link_t *self, Iofleet__Snapshot *s);

/* As link_send_snapshot, for the DONE that ends the step in hand: the link
   has no step in hand afterwards.  Can't fail (logged). */
void link_send_done (link_t *self, Iofleet__Done *d);

/* A monotonic time of this host in controller time: counted on the
   monotonic clock from the step's START, when the controller's time was
   this host's realtime plus the clock offset of the link's PINGs (so a
   step of the wall clock during the step moves nothing).  Can't fail. */
uint64_t link_ctrl_time (const link_t *self, uint64_t mono);

bool link_welcomed (const link_t *self);
/* The controller refused this agent (REJECT): it is not retried. */
bool link_rejected (const link_t *self);
const char *link_name (const link_t *self);

#endif
