/*  steps.h: the steps' transitions: what each agent's message means for the step in hand.  */
#ifndef IOF_STEPS_H
#define IOF_STEPS_H

#include "controller.h"
#include "fleet.h"
#include "snapshot_prep.h"

/* run.c: the steps' transitions. */
/* Starts the next queued run, moves the run in hand on (timeouts, lost
   agents, step ends).  Can't fail (errors are logged). */
void steps_tick (ctl_t *ctl);
/* READY, REFUSED, SNAPSHOT or DONE from a connected agent (prep: a
   SNAPSHOT's checks and block, made off the loop, or NULL).  Can't
   fail. */
void steps_on_message (ctl_t *ctl, peer_t *peer, const envelope_t *env,
                        snapshot_prep_t *prep);
/* The agent said HELLO (old_pid: of its previous HELLO, 0 if unknown).  If
   it no longer holds the step in hand it was part of, it restarted: its
   part is lost (what its spool resends is still stored). */
void steps_agent_hello (ctl_t *ctl, uint64_t agent_id, uint64_t old_pid,
                         const Iofleet__Hello *h);

/* The agents' messages of a run come straight here (fleet.h's
   fleet_on): READY, REFUSED, SNAPSHOT and DONE to steps_on_message, a
   HELLO to steps_agent_hello; an agent preparing a step is excused its
   silence.  Once, at start.  Can't fail. */
void steps_listen (ctl_t *ctl);

#endif
