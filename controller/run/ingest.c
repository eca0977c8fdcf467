/*  ingest.c: snapshots in.  Each is checked (its targets, every histogram
    decodes and counts its ops), stored as one compressed row
    (snapshot_codec.h), added to the
    step's fleet series, and its acknowledgement queued for after the
    commit (acks.c); a copy already stored is acknowledged again, not
    stored twice.
*/
#include "runner.h"
#include "log.h"
#include "snapshot_prep.h"
#include "snapshot_store.h"
#include "util.h"
#include "fleet.h"
#include "series.h"
#include "step_gaps.h"
#include "step_rows.h"
#include "store.h"
#include "ingest.h"

#include <stdlib.h>
#include <string.h>

void
ingest_maybe_done (ctl_t *ctl, part_t *p)
{
    if (p->st == P_DONE_WAIT && p->contig >= p->done_snapshots) {
        p->st = P_DONE;
        runner_save_agent (ctl, p, NULL);
        acks_queue (ctl->runner, p, UINT32_MAX);
    }
}

/* Stores one snapshot (one row for all its targets), after checking every
   histogram in it, so a snapshot is stored whole or not at all.  prep is
   what the decode pool made of it (its checks and block); NULL or not
   done: it is made here, with the store's codec. */
void
ingest_snapshot (ctl_t *ctl, part_t *p, const Iofleet__Snapshot *s, snapshot_prep_t *prep)
{
    runner_t *r = ctl->runner;
    if (s->spool_dropped > p->spool_dropped)
        p->spool_dropped = s->spool_dropped;
    if (p->restarted)
        p->done_at = clock_mono_ns ();      /* its spool is still draining */
    if (s->seq < p->nseen && p->seen[s->seq]) {
        acks_queue (r, p, p->contig);
        if (s->seq >= p->contig)
            acks_queue_seq (r, p, s->seq);
        return;
    }
    if (!prep || !prep->done) {
        prep = &r->prep;
        snapshot_prep (prep, store_codec (ctl->store), s);
    }
    for (size_t i = 0; i < s->n_targets; i++) {
        const Iofleet__TargetSample *t = s->targets[i];
        if (t->target >= p->ntargets) {
            store_count (ctl->store, "bad_agent_messages", 1);
            log_warn ("agent '%s': snapshot %u names target %u, it has %u; dropped", p->name,
                      s->seq, t->target, p->ntargets);
            acks_queue_seq (r, p, s->seq);     /* refused for good: not again */
            return;
        }
        if (prep->bad_sample == (int) i) {
            store_count (ctl->store, "bad_agent_messages", 1);
            log_warn ("agent '%s': snapshot %u target %u: the %s %s histogram %s; dropped",
                      p->name, s->seq, t->target, dir_name (prep->bad_dir),
                      snapshot_prep_which (prep->bad_which), prep->bad_why);
            acks_queue_seq (r, p, s->seq);
            return;
        }
    }
    if (prep->encode_err[0]) {
        log_err ("agent '%s': snapshot %u: cannot encode it: %s; not stored, it is sent again",
                 p->name, s->seq, prep->encode_err);
        return;
    }
    store_begin (ctl->store);
    /* One row for the whole interval, compressed (snapcodec.h). */
    if (snapshot_store_insert (ctl->store, r->run, r->cur, (int64_t) p->agent_id, s->seq,
                               s->n_targets, prep->dict_id, prep->block, prep->len))
        return;             /* logged; not acked: the agent will send it again */
    if (series_add (r->series, ctl->store, (int) (p - r->parts), s))
        return;             /* the tick rolls back; sent again */
    /* What the agent says of the interval: its process stopped, or a
       rate quota catching up (step_gaps, for the report). */
    if (s->stalled_ns && step_gaps_note (ctl->store, r->run, r->cur, (int64_t) p->agent_id,
                                         "stalled", s->seq, s->stalled_ns))
        return;
    if (s->above_pace && step_gaps_note (ctl->store, r->run, r->cur, (int64_t) p->agent_id,
                                         "above_pace", s->seq, 0))
        return;
    if (s->clock_step_ns && step_gaps_note (ctl->store, r->run, r->cur, (int64_t) p->agent_id,
                                            "clock", s->seq, (uint64_t) s->clock_step_ns))
        return;
    if (runner_seen_room (p, s->seq))
        return;
    if (acks_note_mark (r, p, s))
        return;
    p->seen[s->seq] = 1;
    /* The bytes each target moved, for the per-drive progress. */
    for (size_t i = 0; p->moved && i < s->n_targets; i++)
        for (int k = 0; k < DIR_COUNT; k++) {
            const Iofleet__DirStats *d = message_sample_dir (s->targets[i], k);
            p->moved[s->targets[i]->target] += d ? d->bytes : 0;
        }
    while (p->contig < p->nseen && p->seen[p->contig])
        p->contig++;
    acks_queue (r, p, p->contig);
    if (s->seq >= p->contig)
        acks_queue_seq (r, p, s->seq);
    ingest_maybe_done (ctl, p);
}

/* Is this SNAPSHOT of an ended step already stored (a resend that crossed
   its acknowledgement), or this DONE one of a step the agent finished?
   Can't fail: false on a database error. */
static bool
stale_is_stored (ctl_t *ctl, const peer_t *peer, const envelope_t *env)
{
    /* A read error (logged) counts as not stored: the message is then
       handled as new, and storing it is idempotent. */
    if (env->body_case == IOFLEET__ENVELOPE__BODY_DONE)
        return step_rows_agent_done (ctl->store, (int64_t) env->done->run, (int) env->done->step,
                                     (int64_t) peer->id) == 1;
    return snapshot_store_has (ctl->store, (int64_t) env->snapshot->run, (int) env->snapshot->step,
                               (int64_t) peer->id, env->snapshot->seq) == 1;
}

void
ingest_stale (ctl_t *ctl, peer_t *peer, const envelope_t *env, uint64_t run, uint32_t step)
{
    /* A step that ended without it (the agent was lost, restarted, or
       its DONE timed out): its results are made, so let the agent's
       spool forget it, and count it. */
    if (env->body_case != IOFLEET__ENVELOPE__BODY_SNAPSHOT
        && env->body_case != IOFLEET__ENVELOPE__BODY_DONE)
        return;
    if (stale_is_stored (ctl, peer, env)) {
        acks_send (ctl, peer, (int64_t) run, step, UINT32_MAX, NULL, 0, false);
        return;
    }
    store_count (ctl->store, "late_agent_messages", 1);
    if (log_ratelimit (&peer->bad_logged_at, 60 * NS_PER_SEC))
        log_warn ("agent '%s' sent a %s of run %llu step %u, which has ended without "
                  "it; not stored (counted as late_agent_messages)", peer->name,
                  message_kind (env), (unsigned long long) run, step + 1);
    acks_send (ctl, peer, (int64_t) run, step, UINT32_MAX, NULL, 0, false);
}
