/*  snapshot_store.h: the rows of snapshot_blocks and snapshot_dicts
    (schemas/020_snapshot_blocks.sql): a block written, a dictionary
    trained, and the conversion of the one-row-per-target table of
    schemas up to 19.  Built into the controller and the SQLite extension
    alike, so it depends on SQLite, zstd and the message code only.
*/
#pragma once

#include "snapcodec.h"
#include "store.h"

#include <stdbool.h>

/* The insert snapshot_store_put binds: VERB is "OR IGNORE" (a copy already
   stored stays) or "OR REPLACE" (a block rewritten with another target). */
#define SNAPSHOT_STORE_INSERT(VERB)                                                    \
    "INSERT " VERB " INTO snapshot_blocks (run_id, step_idx, agent_id, seq, targets, " \
    "dict_id, data) VALUES (?, ?, ?, ?, ?, ?, ?)"

/* Binds ins to a block already encoded (snapshot_prep.h): the one
   order of the insert's values.  data is bound without a copy: step ins
   before it changes.  Can't fail. */
void snapshot_store_bind_block (sqlite3_stmt *ins, int64_t run, int step, int64_t agent,
                                uint32_t seq, size_t targets, int64_t dict_id, const void *data,
                                size_t len);

/* Encodes s and steps ins (prepared from SNAPSHOT_STORE_INSERT), s->seq
   its seq.  Returns 0, or -1 with err. */
int snapshot_store_put (sqlite3_stmt *ins, snapcodec_t *codec, int64_t run, int step,
                        int64_t agent, const Iofleet__Snapshot *s, char *err, size_t errlen);

#ifndef IOFLEET_SQLITE_EXTENSION
/* The blocks as the run state machine (run/) stores and finds them, on
   the controller's writer (store.h: not in the SQLite extension), in the
   open transaction (the caller's: the loop batches a tick's writes). */

/* Stores a block already encoded (snapshot_prep.h) unless a copy of it
   is stored already.  Returns 0, or -1 on a database error (logged and
   counted by the store). */
int snapshot_store_insert (store_t *store, int64_t run, int step, int64_t agent, uint32_t seq,
                           size_t targets, int64_t dict_id, const void *data, size_t len);
/* Whether agent's block seq of run's step is stored.  Returns 1 or 0; -1
   on a database error (logged). */
int snapshot_store_has (store_t *store, int64_t run, int step, int64_t agent, uint32_t seq);
/* Removes every block of run's step (an earlier attempt's).  Returns 0
   or -1. */
int snapshot_store_clear_step (store_t *store, int64_t run, int step);
/* Calls fn(arg, agent, seq) for every block of run's step: a callback,
   not a list, as a long step of a large fleet has millions.  Returns 0,
   or -1 on a database error (logged) after the blocks read before it. */
typedef void (snapshot_store_seq_fn) (void *arg, int64_t agent, int64_t seq);
int snapshot_store_seqs (store_t *store, int64_t run, int step, snapshot_store_seq_fn *fn,
                         void *arg);
/* The bytes each target of each agent moved so far in run's step (the
   snapshots table's read, write and trim bytes summed), in *rows:
   [[agent, target, bytes], ...].  Returns 0, or -1 on a database error
   (logged) with *rows those read before it. */
int snapshot_store_step_bytes (store_t *store, int64_t run, int step, json_t **rows);
#endif

/* A target's sample from schema 19's columns: target, then per direction
   (read, write, trim) ops, bytes, errors and the clat, slat and lat
   histograms (18 values in dirs).  A direction with nothing in it is left
   out, as an agent sends it; the histograms point into the values.  The
   one reading of those columns, for the table's INSERT and the
   conversion.  Can't fail. */
void snapshot_store_sample (sqlite3_value *target, sqlite3_value **dirs, Iofleet__TargetSample *t,
                            Iofleet__DirStats ds[3]);

/* Samples a dictionary is trained on, and its size: what was measured
   (docs/design.md, bench/snapshot-compression). */
#define SNAPSHOT_DICT_SAMPLES 2000
#define SNAPSHOT_DICT_BYTES   65536

/* Trains a dictionary on the newest SNAPSHOT_DICT_SAMPLES blocks, stores
   it (created_at: now_ns) and has codec write with it.  Returns 1 trained
   (*samples and *bytes say on what and how big), 0 when there were too
   few blocks (under min_blocks) or zstd could not make one from them,
   -1 with err. */
int snapshot_store_train (sqlite3 *db, snapcodec_t *codec, int min_blocks, int64_t now_ns,
                          int *samples, size_t *bytes, char *err, size_t errlen);

/* Converts the rows of table from (the snapshots table of schemas 1-19,
   one row per target and interval) into blocks, one transaction per
   batch, a dictionary trained on its first blocks first, then drops it.
   Starting again after an interruption skips the blocks already written.
   progress (may be NULL) is called after each batch with the rows done
   and the total.  Returns the rows converted, or -1 with err (nothing of
   the table lost: it is dropped only after the last block is in). */
typedef void snapshot_store_progress_fn (void *arg, int64_t done, int64_t total);
int64_t snapshot_store_convert (sqlite3 *db, snapcodec_t *codec, const char *from, int64_t now_ns,
                            snapshot_store_progress_fn *progress, void *arg, char *err,
                            size_t errlen);

/* Latency kinds, in the order of the snapshot columns: clat (the
   default figure), slat, lat. */
enum { LK_CLAT = 0, LK_SLAT, LK_LAT, LK_N };
