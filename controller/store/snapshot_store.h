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
