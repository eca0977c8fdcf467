/*  decode_pool.h: the agents' messages unpacked, and their snapshots
    checked and encoded (snapshot_prep.h), on threads of their own, then
    handed back to the loop in the order they came (fleet_handle):
    the loop keeps what needs the run's state (the peers, the database
    writes, the fleet series, the acknowledgements).  Each thread reads
    the database's dictionary through a read-only connection of its own.
    See docs/design.md, "Processes and threads".
*/
#pragma once

#include "fleet.h"

#include <stdbool.h>
#include <stddef.h>

/* Messages taken and not yet handed back, at most: what an agent sends
   past it waits in its socket (ZeroMQ's high-water mark). */
#define DECODE_POOL_RING 4096
/* Threads at most (--decode-threads). */
#define DECODE_POOL_MAX_THREADS 16

typedef struct decode_pool decode_pool_t;

/* threads (1..DECODE_POOL_MAX_THREADS) decoding, each with a read-only
   connection to the database at db_path.  NULL with err when one cannot
   open it or start. */
decode_pool_t *decode_pool_new (const char *db_path, int threads, char *err, size_t errlen);
/* Stops the threads; what they had not handed back is dropped (not
   acknowledged: the agents send it again).  Can't fail. */
void decode_pool_destroy (decode_pool_t **self_p);

/* Room for another message.  Can't fail. */
bool decode_pool_room (decode_pool_t *self);
/* Hands *msg_p (taken) to the threads; only with room.  Can't fail. */
void decode_pool_push (decode_pool_t *self, zmsg_t **msg_p);
/* The oldest message, waiting for a thread to finish it; NULL when none
   is pending.  decode_pool_release it when handled, before the next.
   Can't fail. */
agent_msg_t *decode_pool_wait (decode_pool_t *self);
void decode_pool_release (decode_pool_t *self);
/* Messages taken and not yet released.  Can't fail. */
size_t decode_pool_pending (decode_pool_t *self);

/* Its threads (0 for NULL: decoding on the loop).  Can't fail. */
int decode_pool_threads (const decode_pool_t *self);

/* The database holds a new dictionary: the threads encode with it from
   their next snapshot.  Can't fail. */
void decode_pool_reload (decode_pool_t *self);

/* The default: 0, decode on the loop.  On this 2-vCPU machine with the
   fleet simulator on the same cores, one decode thread stored less than
   none (2,500 agents x 24 drives: 56,287 target-snapshots/s and a lag
   p99 of 61 s against 60,000/s and 0.46 s; docs/benchmarks.md), so the
   threads are for a controller with cores to spare, and not measured
   there. */
#define DECODE_POOL_DEFAULT_THREADS 0
