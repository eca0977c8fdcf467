/*  ingest.h: snapshots in: checked, stored whole, added to the series, acknowledged after the commit.  */
#ifndef IOF_INGEST_H
#define IOF_INGEST_H

#include "runner.h"
#include "fleet.h"
#include "snapshot_prep.h"

/* Stores snapshot s of p (one row for its targets), after checking every
   histogram in it, so a snapshot is stored whole or not at all.  prep:
   its checks and block made off the loop (decode_pool.h), or NULL.
   Can't fail: what is not stored is not acknowledged, and comes again. */
void ingest_snapshot (ctl_t *ctl, part_t *p, const Iofleet__Snapshot *s, snapshot_prep_t *prep);
/* p said DONE and every snapshot it counted is stored: it is done.  Can't
   fail. */
void ingest_maybe_done (ctl_t *ctl, part_t *p);
/* A SNAPSHOT or DONE of run's step, which is not the step in hand: one
   stored already is acknowledged, a late one counted and acknowledged
   (its step's results are made).  Other kinds are ignored.  Can't fail. */
void ingest_stale (ctl_t *ctl, peer_t *peer, const envelope_t *env, uint64_t run, uint32_t step);

#endif
