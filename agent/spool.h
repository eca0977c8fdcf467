/*  spool.h: what an agent sent and the controller has not acknowledged,
    kept on disk.

    Every snapshot (and the DONE that ends a step) is written here before it
    is sent, and stays until the controller acknowledges it: a controller
    that restarts, a link that drops, or this agent dying (kill -9, OOM)
    costs nothing that was measured; a restarted agent sends what it finds.
    Records are written, not fsynced: they outlive the process, not a power
    loss of the host (an fsync per interval would put the spool's I/O into
    what is being measured).

    On disk: DIR/seg-NNNNNNNN.spool files, appended in order, each record
    a header (magic, length, run, step, seq, CRC-32) and the packed message.
    The spool is bounded: segments are max_bytes / 8; when the next record
    would take the spool past max_bytes, the oldest segment goes, and the
    unacknowledged records in it are counted as dropped (spool_dropped) for
    their step.  A torn record at the end of a segment (the process died
    mid-write) is cut off at open and counted in recovery stats.
*/
#ifndef IOF_SPOOL_H
#define IOF_SPOOL_H

#include "lockfile.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPOOL_MAX_DEFAULT   (256ull << 20)
#define SPOOL_MAX_MIN       (64ull << 10)
#define SPOOL_RECORD_MAX    (64u << 20)     /* a record's message, at most */
#define SPOOL_SEQ_DONE      UINT32_MAX      /* the seq of a step's DONE */

typedef struct spool spool_t;

typedef struct {
    uint64_t records;           /* held, acknowledged or not */
    uint64_t unacked;
    uint64_t bytes;             /* on disk */
    uint64_t segments;
    uint64_t dropped;           /* unacknowledged records lost to overflow */
    uint64_t recovered;         /* records found on disk at open */
    uint64_t torn_bytes;        /* damaged tails cut off at open */
    uint64_t write_errors;      /* records kept in memory: the write failed */
    uint64_t acked;             /* records the controller acknowledged */
    uint64_t resent;            /* sends of a record after its first since spool_unsend */
} spool_stats_t;

/* Opens the spool in dir (created if missing, mode 0700), takes its lock
   (DIR/lock, lockfile.h: it names this process while held, and goes when
   released) and reads what an earlier agent left there.  NULL with err naming the
   directory and what to do (another agent holds it, not writable, ...).
   With readonly, nothing is created, locked or cut.  With dir NULL, a
   spool in memory alone, bounded by max_bytes too (simulated agents):
   nothing outlives the process. */
spool_t *spool_new (const char *dir, uint64_t max_bytes, bool readonly, char *err,
                    size_t errlen);

void spool_destroy (spool_t **self_p);

/* For --check-config, without taking the lock or writing anything:
   whether an agent holds the spool in dir.  Returns 0 when none does, or
   -1 with msg saying who does ("spool directory 'DIR' is in use by pid N
   on HOST ...", and holder, when not NULL, what it wrote: n 0 when nobody
   holds it) or why that cannot be told. */
int spool_check_lock (const char *dir, lockfile_info_t *holder, char *msg, size_t msglen);

/* Keeps a copy of buf as record (run, step, seq).  When the disk write
   fails the record is kept in memory (counted in write_errors).  Returns 0,
   or -ENOMEM when it could be kept nowhere. */
int spool_put (spool_t *self, uint64_t run, uint32_t step, uint32_t seq, const uint8_t *buf,
               size_t len);

/* The controller has records (run, step, seq <= upto).  Can't fail. */
void spool_ack (spool_t *self, uint64_t run, uint32_t step, uint32_t upto);

/* The controller has these seqs of (run, step), stored past a gap (or
   refused for good).  Can't fail. */
void spool_ack_seqs (spool_t *self, uint64_t run, uint32_t step, const uint32_t *seqs,
                     size_t n);

/* The newest step whose DONE is held unacknowledged: true with run and
   step set, else false.  Can't fail. */
bool spool_last_done (spool_t *self, uint64_t *run, uint32_t *step);

/* Everything not of (run, step) is let go: the controller has moved on.
   Returns how many unacknowledged records that was.  Can't fail. */
uint64_t spool_keep_only (spool_t *self, uint64_t run, uint32_t step);

typedef int (spool_send_fn) (void *arg, const uint8_t *buf, size_t len);

/* Calls send, in the order they were put, for every unacknowledged record
   not sent in the last after_ns (records read at open count as never
   sent), backing off: a record resent k times since spool_unsend waits
   after_ns * 2^k, at most SPOOL_RESEND_MAX_NS.  Stops at the first send
   that fails.  Returns the number sent. */
#define SPOOL_RESEND_MAX_NS (60ull * 1000000000)

/* How long a message resent `resends` times waits before the next copy:
   after_ns * 2^resends, at most SPOOL_RESEND_MAX_NS (or after_ns, when
   that is longer).  Can't fail. */
uint64_t spool_resend_wait (uint64_t after_ns, unsigned resends);
int spool_resend (spool_t *self, uint64_t now, uint64_t after_ns, spool_send_fn *send,
                  void *arg);

/* Marks every record as not yet sent, so the next spool_resend sends them
   all (after a reconnect).  Can't fail. */
void spool_unsend (spool_t *self);

/* Unacknowledged records of (run, step) lost to overflow.  Can't fail. */
uint32_t spool_dropped (spool_t *self, uint64_t run, uint32_t step);

void spool_stats (spool_t *self, spool_stats_t *out);

/* The steps held, oldest first: [{"run", "step", "records", "unacked",
   "first_seq", "last_seq", "done", "dropped", "bytes"}].  NULL when out of
   memory. */
json_t *spool_steps_json (spool_t *self);

#endif
