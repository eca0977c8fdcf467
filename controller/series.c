/*  series.c: see controller.h (series_*).

    The intervals of the step in hand sit in a small ring of slots, one
    per interval: ops, bytes, the spans, each direction's merged
    completion-latency histograms, and each agent's ops (the live
    outliers).  Agents deliver in order, give or take a resend, so a ring
    of SERIES_RING intervals holds every interval still growing.  Each
    tick's changed slots are written to fleet_intervals in the tick's
    transaction, so the rows always match the stored snapshots.  A
    snapshot of an interval that left the ring (a late resend, or after a
    controller restart) reloads the interval's row first.  A tick whose
    commit failed makes the ring forget everything: the rows are what
    was committed.
*/
#include "controller.h"
#include "histogram.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

#define SERIES_RING 8

typedef struct {
    bool used, dirty;
    uint32_t seq;
    series_interval_t iv;
    uint64_t last_use;
} slot_t;

struct series {
    int64_t run;
    int step;
    int nwho, capwho;                   /* agents of the step; who_ops' room */
    bool who_ok;                        /* who_ops holds every agent of the step */
    uint64_t clock;                     /* use counter, for eviction */
    slot_t slots[SERIES_RING];
    uint8_t hist_buf[HIST_WIRE_MAX];
};

series_t *
series_new (void)
{
    series_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->run = -1;
    return self;
}

void
series_destroy (series_t **self_p)
{
    series_t *self = *self_p;
    if (!self)
        return;
    for (int i = 0; i < SERIES_RING; i++)
        free (self->slots[i].iv.who_ops);
    free (self);
    *self_p = NULL;
}

static void
slot_empty (series_t *self, slot_t *sl)
{
    sl->used = sl->dirty = false;
    series_interval_t *iv = &sl->iv;
    iv->agents = 0;
    iv->t_start = iv->t_end = iv->span_ns = 0;
    for (int d = 0; d < DIR_COUNT; d++) {
        iv->ops[d] = iv->bytes[d] = 0;
        histogram_clear (&iv->hist[d]);
    }
    iv->who_known = self->who_ok;
    for (int k = 0; k < self->nwho; k++)
        iv->who_ops[k] = -1;
}

void
series_reset (series_t *self, int64_t run, int step, int nwho)
{
    self->run = run;
    self->step = step;
    if (nwho > self->capwho) {
        bool grown = true;
        for (int i = 0; i < SERIES_RING; i++) {
            double *w = realloc (self->slots[i].iv.who_ops, (size_t) nwho * sizeof *w);
            if (w)
                self->slots[i].iv.who_ops = w;
            else
                grown = false;
        }
        if (grown)
            self->capwho = nwho;
    }
    /* Out of memory: no agent's figures (no live outliers), the rest holds. */
    self->who_ok = nwho <= self->capwho;
    self->nwho = self->who_ok ? nwho : 0;
    for (int i = 0; i < SERIES_RING; i++)
        slot_empty (self, &self->slots[i]);
}

void
series_forget (series_t *self)
{
    for (int i = 0; i < SERIES_RING; i++)
        slot_empty (self, &self->slots[i]);
}

static int
write_slot (series_t *self, store_t *store, slot_t *sl)
{
    const series_interval_t *iv = &sl->iv;
    sqlite3_stmt *st = store_stmt (store,
        "INSERT OR REPLACE INTO fleet_intervals (run_id, step_idx, seq, agents, t_start, t_end, "
        " span_ns, read_ops, read_bytes, read_hist, write_ops, write_bytes, write_hist, "
        " trim_ops, trim_bytes, trim_hist) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, self->run);
    sqlite3_bind_int (st, 2, self->step);
    sqlite3_bind_int (st, 3, (int) sl->seq);
    sqlite3_bind_int (st, 4, (int) iv->agents);
    sqlite3_bind_int64 (st, 5, (sqlite3_int64) iv->t_start);
    sqlite3_bind_int64 (st, 6, (sqlite3_int64) iv->t_end);
    sqlite3_bind_int64 (st, 7, (sqlite3_int64) iv->span_ns);
    /* Columns 8.. : ops, bytes, hist of each direction in order. */
    for (int d = 0; d < DIR_COUNT; d++) {
        sqlite3_bind_int64 (st, 8 + d * 3, (sqlite3_int64) iv->ops[d]);
        sqlite3_bind_int64 (st, 9 + d * 3, (sqlite3_int64) iv->bytes[d]);
        if (iv->hist[d].count) {
            int n = histogram_encode (&iv->hist[d], self->hist_buf, sizeof self->hist_buf);
            sqlite3_bind_blob (st, 10 + d * 3, self->hist_buf, n > 0 ? n : 0, SQLITE_TRANSIENT);
        }
    }
    if (store_step_done (store, st, "store fleet interval"))
        return -1;
    sl->dirty = false;
    return 0;
}

/* Loads interval seq's row into sl (empty).  0: loaded or no row (sl
   stays empty); -1: database error. */
static int
load_slot (series_t *self, store_t *store, slot_t *sl, uint32_t seq)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT agents, t_start, t_end, span_ns, read_ops, read_bytes, read_hist, write_ops, "
        " write_bytes, write_hist, trim_ops, trim_bytes, trim_hist FROM fleet_intervals "
        "WHERE run_id = ? AND step_idx = ? AND seq = ?");
    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, self->run);
    sqlite3_bind_int (st, 2, self->step);
    sqlite3_bind_int (st, 3, (int) seq);
    int rc = sqlite3_step (st);
    if (rc == SQLITE_ROW) {
        series_interval_t *iv = &sl->iv;
        iv->agents = (uint32_t) sqlite3_column_int (st, 0);
        iv->t_start = (uint64_t) sqlite3_column_int64 (st, 1);
        iv->t_end = (uint64_t) sqlite3_column_int64 (st, 2);
        iv->span_ns = (uint64_t) sqlite3_column_int64 (st, 3);
        for (int d = 0; d < DIR_COUNT; d++) {
            iv->ops[d] = (uint64_t) sqlite3_column_int64 (st, 4 + d * 3);
            iv->bytes[d] = (uint64_t) sqlite3_column_int64 (st, 5 + d * 3);
            const void *b = sqlite3_column_blob (st, 6 + d * 3);
            int n = sqlite3_column_bytes (st, 6 + d * 3);
            if (b && n > 0 && histogram_decode_add (&iv->hist[d], b, (size_t) n) != 0)
                log_err ("run %lld step %d interval %u: the stored fleet histogram does not "
                         "decode; that interval's latency starts again from here",
                         (long long) self->run, self->step + 1, seq);
        }
        iv->who_known = false;      /* which agent had how many: not kept */
    }
    sqlite3_reset (st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The slot of interval seq, taken from the ring or made (evicting the
   least recently used, written first if it changed).  NULL on a database
   error. */
static slot_t *
slot_for (series_t *self, store_t *store, uint32_t seq)
{
    slot_t *victim = NULL;
    for (int i = 0; i < SERIES_RING; i++) {
        slot_t *sl = &self->slots[i];
        if (sl->used && sl->seq == seq) {
            sl->last_use = ++self->clock;
            return sl;
        }
        /* An empty slot, else the least recently used. */
        if (!victim || (victim->used && (!sl->used || sl->last_use < victim->last_use)))
            victim = sl;
    }
    if (victim->used && victim->dirty && write_slot (self, store, victim))
        return NULL;
    slot_empty (self, victim);
    if (load_slot (self, store, victim, seq)) {
        slot_empty (self, victim);
        return NULL;
    }
    victim->used = true;
    victim->seq = seq;
    victim->last_use = ++self->clock;
    return victim;
}

int
series_add (series_t *self, store_t *store, int who, const Iofleet__Snapshot *s)
{
    slot_t *sl = slot_for (self, store, s->seq);
    if (!sl)
        return -1;
    series_interval_t *iv = &sl->iv;
    uint64_t ops = 0;
    for (size_t i = 0; i < s->n_targets; i++) {
        for (int k = 0; k < DIR_COUNT; k++) {
            const Iofleet__DirStats *d = message_sample_dir (s->targets[i], k);
            if (!d)
                continue;
            iv->ops[k] += d->ops;
            iv->bytes[k] += d->bytes;
            ops += d->ops;
            /* Checked by the caller before it stored the snapshot. */
            if (d->histogram.len)
                histogram_add_checked (&iv->hist[k], d->histogram.data, d->histogram.len);
        }
    }
    if (iv->agents == 0 || s->t_start < iv->t_start)
        iv->t_start = s->t_start;
    if (s->t_end > iv->t_end)
        iv->t_end = s->t_end;
    iv->agents++;
    if (s->t_end > s->t_start)
        iv->span_ns += s->t_end - s->t_start;
    if (who >= 0 && who < self->nwho)
        iv->who_ops[who] = (double) ops;
    sl->dirty = true;
    return 0;
}

int
series_flush (series_t *self, store_t *store)
{
    int rc = 0;
    for (int i = 0; i < SERIES_RING; i++)
        if (self->slots[i].used && self->slots[i].dirty && write_slot (self, store, &self->slots[i]))
            rc = -1;
    return rc;
}

const series_interval_t *
series_get (series_t *self, store_t *store, uint32_t seq)
{
    slot_t *sl = slot_for (self, store, seq);
    return sl && sl->iv.agents ? &sl->iv : NULL;
}
