/*  acks.c: acknowledgements.  A snapshot is acknowledged to its agent
    only once the tick's commit has stored it: this tick's acks and the
    snapshots it marked stored wait here until acks_after_commit sends
    the one or takes back the other.
*/
#include "runner.h"
#include "log.h"
#include "util.h"
#include "acks.h"
#include "fleet.h"
#include "series.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

void
acks_send (ctl_t *ctl, peer_t *peer, int64_t run, uint32_t step, uint32_t upto, uint32_t *seqs,
          size_t nseqs, bool resend)
{
    Iofleet__Ack a = IOFLEET__ACK__INIT;
    a.resend = resend;
    a.run = (uint64_t) run;
    a.step = step;
    a.upto = upto;
    a.seqs = seqs;
    a.n_seqs = nseqs;
    envelope_t env = IOFLEET__ENVELOPE__INIT;
    env.body_case = IOFLEET__ENVELOPE__BODY_ACK;
    env.ack = &a;
    fleet_send (ctl->fleet, peer, &env);
}

/* This tick's acknowledgement for p's messages of the current step, or
   NULL when out of memory (then none is sent; the agent sends again). */
static ack_t *
ack_for (runner_t *r, const part_t *p)
{
    for (size_t i = 0; i < r->nacks; i++)
        if (r->acks[i].agent_id == p->agent_id && r->acks[i].run == r->run
            && r->acks[i].step == (uint32_t) r->cur)
            return &r->acks[i];
    if (r->nacks == r->capacks) {
        size_t cap = r->capacks ? r->capacks * 2 : 64;
        ack_t *a = realloc (r->acks, cap * sizeof *a);
        if (!a)
            return NULL;
        memset (a + r->capacks, 0, (cap - r->capacks) * sizeof *a);
        r->acks = a;
        r->capacks = cap;
    }
    ack_t *a = &r->acks[r->nacks++];
    a->agent_id = p->agent_id;
    a->run = r->run;
    a->step = (uint32_t) r->cur;
    a->upto = 0;
    a->nseqs = 0;
    a->resend = false;
    return a;
}

/* Acknowledges p's snapshots with seq < upto (UINT32_MAX: all, DONE too)
   once this tick's commit has stored them.  Can't fail. */
void
acks_queue (runner_t *r, const part_t *p, uint32_t upto)
{
    ack_t *a = ack_for (r, p);
    if (a && upto > a->upto)
        a->upto = upto;
}

void
acks_queue_resend (runner_t *r, const part_t *p, uint32_t upto)
{
    acks_queue (r, p, upto);
    ack_t *a = ack_for (r, p);
    if (a)
        a->resend = true;
}

/* ... and seq on its own (stored past a gap, or refused for good).
   Can't fail: beyond MSG_ACK_SEQS_MAX a tick, the agent sends it again. */
void
acks_queue_seq (runner_t *r, const part_t *p, uint32_t seq)
{
    ack_t *a = ack_for (r, p);
    if (!a || a->nseqs == MSG_ACK_SEQS_MAX)
        return;
    if (a->nseqs == a->capseqs) {
        size_t cap = a->capseqs ? a->capseqs * 2 : 16;
        uint32_t *s = realloc (a->seqs, cap * sizeof *s);
        if (!s)
            return;
        a->seqs = s;
        a->capseqs = cap;
    }
    a->seqs[a->nseqs++] = seq;
}

/* Remembers that seq of p was marked stored in this tick.  Returns 0, or
   -1 when out of memory (then it is not marked). */
int
acks_note_mark (runner_t *r, const part_t *p, const Iofleet__Snapshot *s)
{
    if (r->nmarks == r->capmarks) {
        size_t cap = r->capmarks ? r->capmarks * 2 : 64;
        mark_t *m = realloc (r->marks, cap * sizeof *m);
        if (!m)
            return -1;
        r->marks = m;
        r->capmarks = cap;
    }
    r->marks[r->nmarks++] = (mark_t) { p->agent_id, r->run, r->cur, s->seq,
                                       (uint32_t) s->n_targets, s->t_end };
    return 0;
}

void
acks_after_commit (ctl_t *ctl)
{
    runner_t *r = ctl->runner;
    uint64_t failures = store_failures (ctl->store);
    if (failures == r->failures_seen) {
        uint64_t now = clock_real_ns ();
        ingest_stats_t *is = ctl->stats;
        uint64_t worst = 0;
        const mark_t *late = NULL;
        for (size_t i = 0; i < r->nmarks; i++) {
            uint64_t lag = now > r->marks[i].t_end ? now - r->marks[i].t_end : 0;
            is->snapshots++;
            is->rows += r->marks[i].rows;
            histogram_record (&is->lag, lag);
            if (lag > worst) {
                worst = lag;
                late = &r->marks[i];
            }
        }
        if (late && worst > ctl->interval_ns / 2)
            log_debug ("ingest: %zu snapshot(s) committed, the latest %.0f ms after its interval "
                       "ended (seq %u of agent id %llu)", r->nmarks, (double) worst / 1e6,
                       late->seq, (unsigned long long) late->agent_id);
        for (size_t i = 0; i < r->nacks; i++) {
            peer_t *peer = fleet_find_id (ctl->fleet, r->acks[i].agent_id);
            if (peer && peer->connected)
                acks_send (ctl, peer, r->acks[i].run, r->acks[i].step, r->acks[i].upto,
                          r->acks[i].seqs, r->acks[i].nseqs, r->acks[i].resend);
        }
    } else {
        /* Some write of this tick is not stored: take back every mark of
           the tick (the agents send those snapshots again; storing is
           idempotent) and send no acknowledgement. */
        for (size_t i = 0; i < r->nmarks; i++) {
            mark_t *m = &r->marks[i];
            part_t *p = runner_find_part (r, m->agent_id);
            if (!p || m->run != r->run || m->step != r->cur || m->seq >= p->nseen)
                continue;
            p->seen[m->seq] = 0;
            if (p->contig > m->seq)
                p->contig = m->seq;
            if (p->st == P_DONE && p->contig < p->done_snapshots) {
                p->st = P_DONE_WAIT;
                if (p->waited_out)
                    p->msg[0] = '\0';
                p->waited_out = false;
            }
            if (p->st == P_DONE_WAIT)
                p->done_at = clock_mono_ns ();      /* give the resends their time */
        }
        series_forget (r->series);
        r->unstored += r->nmarks;
        if (r->nmarks && log_ratelimit (&r->unstored_logged_at, 60 * NS_PER_SEC))
            log_warn ("run %lld step %d: %llu snapshot(s) not stored so far while the database "
                      "fails; the agents keep them and send them again", (long long) r->run,
                      r->cur + 1, (unsigned long long) r->unstored);
        r->failures_seen = failures;
    }
    r->nacks = 0;
    r->nmarks = 0;
}
