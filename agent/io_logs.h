/*  io_logs.h: fio's per-I/O logs (latency, bandwidth, IOPS, iolog).
*/
#ifndef IOF_IO_LOGS_H
#define IOF_IO_LOGS_H

#include "job_state.h"

/* Writes one completed I/O to the worker's three latency logs in fio's
   format for its defaults (log_avg_msec=0, log_offset=0): "time, value,
   ddir, bs, prio" with time in ms since the measurement started, value in
   ns, ddir 0 read / 1 write / 2 trim, bs in bytes, prio 0 (with log_offset,
   "time, value, ddir, bs, offset, prio"); a trim, and an I/O of an engine
   that completes at commit (psync, the sync engines, null), has no slat
   line (fio records no submission latency for those).  Returns 0, or
   -1 with the worker's error set; the logs are then left alone. */
int lat_log_add (worker_t *w, const io_unit_t *u, uint64_t now);

/* Flushes and closes a worker's latency logs and frees them.  Returns 0,
   or -1 when a buffered write failed now (the worker's error is then set,
   unless it already held one).  Safe when the worker has none. */
int lat_log_close (worker_t *w);

void iolog_io (worker_t *w, const io_unit_t *u);

/* The log's head (its version, and each file added and opened), or its
   tail (each file closed, and the log flushed and closed).  Returns 0, or
   -1 with the worker's error set when the log could not be written.  */
int iolog_edge (worker_t *w, bool head);

/* Opens worker w's per-I/O logs, those whose option gives a prefix:
   PREFIX_KIND.N.log, N its fio thread number, each resolved against the
   policy like a target (a relative prefix in the workdir) and refused
   unless the agent may write there.  Returns 0, or -1 with the REFUSED
   reason in err. */
int lat_log_open (iojob_t *j, worker_t *w, const Iofleet__JobSpec *spec, const target_policy_t *pol,
                  char *err, size_t errlen);

/* Opens write_iolog's file (its path resolved as a target's, never one of
   the job's targets) and keeps each target's name as the job gives it,
   which is how fio names files in its log.  Returns 0, or -1 with err set. */
int iolog_open (iojob_t *j, const Iofleet__JobSpec *spec, const char *const *names,
                const target_policy_t *pol, char *err, size_t errlen);

#endif
