/*  iogen.h: what a worker's next I/O is, and its data.
*/
#ifndef IOF_IOGEN_H
#define IOF_IOGEN_H

#include "job_state.h"

/* Seeds xoshiro256** state s from seed.  Can't fail. */
void iogen_rng_seed (uint64_t *s, uint64_t seed);

/* True for the random rw modes.  Can't fail. */
bool iogen_rw_is_random (Iofleet__Rw rw);

/* True when rw (with rwmixread) issues I/Os of direction dir.  Can't fail. */
bool iogen_rw_has (Iofleet__Rw rw, uint32_t rwmixread, io_dir_t dir);

/* The direction of worker w's next I/O by rw and rwmixread.  Can't fail. */
io_dir_t iogen_pick_dir (worker_t *w);

/* Where worker id's region of target t starts: offset_increment puts each
   worker's id x it further on.  Can't fail. */
uint64_t iogen_region_start (const iojob_t *j, int id, uint32_t t);

/* A write's data: fresh (refill_buffers), stamped unique (scramble_buffers)
   and carrying its verify header.  Can't fail. */
void iogen_write_data (worker_t *w, io_unit_t *u);

/* Fills u with the place and size of worker w's next I/O, of direction
   dir, and counts it toward the pass's limits.  Returns false, with u not
   filled, when the pass ended instead (a size-bound job whose I/O going
   on from the last would start past its region, as fio's). */
bool iogen_unit (worker_t *w, io_unit_t *u, io_dir_t dir);

/* Fills u with worker w's next I/O, of direction dir, a write's data
   stamped (and its verify header written).  Returns false when the pass
   ended instead (iogen_unit). */
bool iogen_prep_unit (worker_t *w, io_unit_t *u, io_dir_t dir);

/* True when a size-limited job has issued all it may.  Can't fail. */
bool iogen_limit_reached (const worker_t *w);

/* Checks a read back of a write (verify=): a mismatch is an error of the
   read's direction, named with the place and what differs; the worker goes
   on unless verify_fatal (fio's default: check everything, then fail).
   Can't fail. */
void iogen_check_read_back (worker_t *w, io_unit_t *u, dir_stats_t *d);

/* Remembers a completed write for verify_backlog, and starts reading the
   ring back once it holds verify_backlog writes.  Can't fail (vlog_cap). */
void iogen_vlog_add (worker_t *w, const io_unit_t *u);

/* Write buffers: random data, with buffer_compress_percentage of each
   chunk zeroed so the data compresses about that much; or all zeros. */
void iogen_fill_buffer (iojob_t *j, uint64_t *rng, uint8_t *buf, uint32_t len);

#endif
