/*  fleet.h: the agents the ROUTER socket talks to (peers), found by
    routing id, agent id and name; HELLO/WELCOME, clock pings and liveness.

    The fleet knows nothing of runs: every other message an agent sends is
    handed to the handler registered for its kind (fleet_on), and a HELLO,
    once its agent is recorded, to the hello handler (fleet_on_hello).
    run/steps.c (steps_listen) registers them.  A kind without a handler is counted as a bad
    message.
*/
#ifndef IOF_FLEET_H
#define IOF_FLEET_H

#include <czmq.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "message.h"
#include "snapshot_prep.h"
#include "snapcodec.h"
#include "store.h"

#define PEER_RID_MAX 256          /* ZeroMQ routing ids are at most 255 bytes */

/* Envelope body cases (IOFLEET__ENVELOPE__BODY_*) a handler can be
   registered for are below this. */
#define FLEET_KINDS 32

typedef struct ctl ctl_t;
typedef struct fleet fleet_t;

/* The walks over every agent (silent ones, ones lost during a step) at
   most this often, not at every turn of the loop: at 1,500 agents ingest
   turns it thousands of times a second, and the walks were 4% of the
   controller's CPU (perf). */
#define FLEET_SCAN_NS (100 * NS_PER_MS)

typedef struct {
    uint8_t rid[PEER_RID_MAX];  /* ZeroMQ routing id of its connection */
    char key[41];               /* its CURVE public key (Z85), "" without CURVE */
    size_t rid_len;
    uint64_t id;                /* agents.id */
    char name[MSG_NAME_MAX + 1];
    char release[MSG_NAME_MAX + 1]; /* the iofleet it runs, from HELLO ("" unknown) */
    char hostname[MSG_TEXT_MAX + 1];
    bool connected;
    uint64_t last_seen;         /* monotonic ns */
    int64_t offset_ns;          /* agent's estimate: controller = agent + offset */
    uint64_t delay_ns;
    uint64_t bad_logged_at;
    uint64_t pid;               /* of the agent process, from HELLO */
    char instance[MSG_NAME_MAX + 1];  /* which agent, across restarts ("" unknown) */
} peer_t;

/* A message of a registered kind from a connected, identified peer;
   prep: a SNAPSHOT's checks and block, made with the message off the
   loop (NULL: not made). */
typedef void (fleet_message_fn) (void *arg, peer_t *peer, const envelope_t *env,
                                 snapshot_prep_t *prep);
/* A HELLO was accepted and its peer recorded (old_pid: of the peer's
   previous HELLO, 0 if unknown); WELCOME goes out after it returns. */
typedef void (fleet_hello_fn) (void *arg, peer_t *peer, uint64_t old_pid,
                               const Iofleet__Hello *h);
/* Whether the agent may stay silent past --lost-after (it is laying out a
   large file for a step: --prepare-timeout covers it). */
typedef bool (fleet_excused_fn) (void *arg, uint64_t agent_id);

/* The fleet of ctl (its store, router socket, auth, interval and
   lost-after setting).  NULL when out of memory. */
fleet_t *fleet_new (ctl_t *ctl);
/* Frees the fleet and its peers.  Can't fail. */
void fleet_destroy (fleet_t **self_p);

/* Hands messages of kind (an IOFLEET__ENVELOPE__BODY_* below FLEET_KINDS;
   not HELLO, PING or ERROR, which the fleet answers itself) to fn; NULL
   fn: none, they are counted as bad.  Can't fail. */
void fleet_on (fleet_t *self, int kind, fleet_message_fn *fn, void *arg);
/* Calls fn for each accepted HELLO (NULL: none).  Can't fail. */
void fleet_on_hello (fleet_t *self, fleet_hello_fn *fn, void *arg);
/* Asks fn whether a silent agent is excused (NULL: none is).  Can't fail. */
void fleet_on_excused (fleet_t *self, fleet_excused_fn *fn, void *arg);

/* One message from the ROUTER socket, unpacked (fleet_decode) and not
   yet handled (fleet_handle). */
typedef struct {
    zframe_t *rid, *body;       /* its frames; NULL when it had not two */
    envelope_t *env;            /* NULL: err says why */
    int mismatch;               /* another protocol version */
    bool bad_hello;             /* env NULL: a HELLO that broke a bound */
    char err[256];
    snapshot_prep_t prep;       /* a SNAPSHOT's checks and block (done: made) */
} agent_msg_t;

/* Unpacks *msg_p (taken) into out; a SNAPSHOT is prepared with codec too
   (NULL: left to the loop).  Needs nothing of the fleet: the decode
   pool's threads call it (decode_pool.h).  Can't fail: what is wrong is
   in out. */
void fleet_decode (zmsg_t **msg_p, snapcodec_t *codec, agent_msg_t *out);
/* Answers m, hands it to its handler, or counts it as bad.  Can't fail. */
void fleet_handle (fleet_t *self, agent_msg_t *m);
/* Frees what m holds, not its prep's buffer (kept for the next).  Can't
   fail. */
void fleet_msg_clear (agent_msg_t *m);
/* fleet_decode, fleet_handle, fleet_msg_clear: one message from the
   ROUTER socket (routing id, body; *msg_p taken), on the loop.  Can't
   fail. */
void fleet_dispatch (fleet_t *self, zmsg_t **msg_p);
/* Marks agents silent past --lost-after disconnected.  Can't fail. */
void fleet_tick (fleet_t *self);

/* The peer of that routing id, agent id or name, or NULL. */
peer_t *fleet_find_rid (fleet_t *self, const uint8_t *rid, size_t len);
peer_t *fleet_find_id (fleet_t *self, uint64_t agent_id);
peer_t *fleet_find_name (fleet_t *self, const char *name);
/* Every peer ever said HELLO since the start, connected or not: first,
   then next until NULL. */
peer_t *fleet_first (fleet_t *self);
peer_t *fleet_next (fleet_t *self);
/* Sends env to a connected peer.  Returns 0, or -1 (not connected, out of
   memory, or the socket refused it). */
int fleet_send (fleet_t *self, peer_t *peer, envelope_t *env);
/* Bad messages dropped since the start.  Can't fail. */
uint64_t fleet_bad_messages (fleet_t *self);
/* The agents of the database with their connection state (admin
   "agents").  Can't fail (an empty list on a database error). */
json_t *fleet_agents_json (fleet_t *self);

#endif
