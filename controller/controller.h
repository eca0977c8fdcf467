/*  controller.h: the event loop's context (struct ctl), which every part
    of the controller is handed: the store, the sockets, the fleet, the
    runner, the scheduler, the idle work.  Nothing else lives here: each
    module declares its own calls in its own header, in the folder of its
    concern (docs/design.md, "The controller's folders").  They run on one
    thread: the event loop in controller.c, which creates them and
    registers who hears what.
*/
#ifndef IOF_CONTROLLER_H
#define IOF_CONTROLLER_H

#include <czmq.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "direction.h"
#include "fleet.h"
#include "histogram.h"
#include "jobfile.h"
#include "rounds.h"
#include "match.h"
#include "message.h"
#include "store.h"
#include "decode_pool.h"

#define CTL_SILENCE_LOST_NS   (15ull * 1000000000)  /* default --lost-after */

/* What the controller took in since it started (iofleet stats). */
typedef struct {
    uint64_t started;           /* monotonic ns */
    uint64_t messages, bytes;   /* from agents */
    uint64_t snapshots, rows;   /* snapshots stored (committed), their target rows */
    uint64_t commits;
    histogram_t lag;            /* ns: end of a snapshot's interval -> committed */
    histogram_t commit;         /* ns: one tick's COMMIT */
} ingest_stats_t;

typedef struct ctl ctl_t;         /* below; fleet.h names it too */
typedef struct runner runner_t;
typedef struct auth auth_t;
typedef struct scheduler scheduler_t;
typedef struct hook hook_t;
typedef struct retention retention_t;
typedef struct history_index history_index_t;
typedef struct snapdict snapdict_t;
typedef struct decode_pool decode_pool_t;

struct ctl {
    store_t *store;
    zsock_t *router;
    zsock_t *admin;             /* the CLI's ROUTER (admin.h) */
    fleet_t *fleet;             /* the agents (fleet.h) */
    runner_t *runner;
    scheduler_t *sched;
    auth_t *auth;               /* NULL: no CURVE (loopback and ipc only) */
    uint64_t interval_ns;       /* snapshot interval sent to agents */
    uint64_t prepare_timeout_ns;
    uint64_t lost_after_ns;     /* an agent silent this long is lost */
    const char *on_regression;  /* --on-regression CMD, or NULL */
    ingest_stats_t *stats;
    retention_t *retention;     /* NULL: no retention policy */
    history_index_t *history_index;
    snapdict_t *snapdict;       /* the snapshot blocks' dictionary, trained while idle */
    decode_pool_t *decode;      /* NULL: messages are decoded on the loop */
};

#endif
