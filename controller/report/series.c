/*  series.c: the fleet's and groups' per-interval figures, see series.h.

    The one place an interval is merged and its rates computed: the live
    series of the step in hand (below) and the series of a stored step
    (series_scan, series_rows, at the end) add agents the same way
    (interval_add_agent) and divide the same way (series_interval_secs).

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
#include "series.h"
#include "histogram.h"
#include "log.h"
#include "util.h"
#include "buckets.h"
#include "store.h"

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
    series_total_t total;               /* the step so far (series_total) */
    histogram_parsed_t parsed;          /* a sample's histogram, read once */
    bool total_on;                      /* kept only for /metrics: its cost */
    bool targets_on;                    /* and the targets' figures */
};

/* The step's totals back to nothing (a new step, or a commit failed),
   keeping the agents' names. */
static void
total_reset (series_t *self)
{
    series_total_t *t = &self->total;
    t->run = self->run;
    t->step = self->step;
    for (int k = 0; k < DIR_COUNT; k++) {
        t->ops[k] = t->bytes[k] = 0;
        histogram_clear (&t->hist[k]);
    }
    /* Zeroed as they come again (who_target). */
    for (int w = 0; w < t->nwho; w++)
        t->who[w].n = 0;
}

/* Agent who of the step, with room made for it; NULL when out of memory. */
static series_who_t *
who_at (series_total_t *t, int who)
{
    if (who < 0)
        return NULL;
    if (who >= t->capwho) {
        int cap = who + 1 > 2 * t->capwho ? who + 1 : 2 * t->capwho;
        series_who_t *w = realloc (t->who, (size_t) cap * sizeof *w);
        if (!w)
            return NULL;
        memset (w + t->capwho, 0, (size_t) (cap - t->capwho) * sizeof *w);
        t->who = w;
        t->capwho = cap;
    }
    if (who >= t->nwho)
        t->nwho = who + 1;
    return &t->who[who];
}

/* Target i of agent who's figures so far, with room made for them; NULL
   when out of memory (that target then has no series). */
static series_target_t *
who_target (series_total_t *t, int who, uint32_t i)
{
    series_who_t *w = who_at (t, who);
    if (!w)
        return NULL;
    if (i >= w->cap) {
        uint32_t cap = i + 1 > 2 * w->cap ? i + 1 : 2 * w->cap;
        series_target_t *tg = realloc (w->t, cap * sizeof *tg);
        if (!tg)
            return NULL;
        w->t = tg;
        w->cap = cap;
    }
    if (i >= w->n) {
        memset (w->t + w->n, 0, (i + 1 - w->n) * sizeof *w->t);
        w->n = i + 1;
    }
    return &w->t[i];
}

void
series_name_step (series_t *self, const char *name)
{
    str_copy (self->total.name, sizeof self->total.name, name);
}

void
series_name_agent (series_t *self, int who, const char *name, json_t *labels)
{
    series_who_t *w = who_at (&self->total, who);
    if (!w)
        return;
    str_copy (w->name, sizeof w->name, name);
    json_decref (w->labels);
    w->labels = json_incref (labels);
}

series_t *
series_new (void)
{
    series_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->run = -1;
    self->total.run = -1;
    for (int k = 0; k < DIR_COUNT; k++)
        histogram_reset (&self->total.hist[k]);
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
    for (int w = 0; w < self->total.capwho; w++) {
        free (self->total.who[w].t);
        json_decref (self->total.who[w].labels);
    }
    free (self->total.who);
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
    total_reset (self);
    /* A new step: names come with it (series_name_*). */
    series_total_t *t = &self->total;
    t->name[0] = '\0';
    for (int w = 0; w < t->nwho; w++) {
        t->who[w].name[0] = '\0';
        json_decref (t->who[w].labels);
        t->who[w].labels = NULL;
    }
    t->nwho = 0;
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
    /* The snapshots not committed come again: counted once more from 0. */
    total_reset (self);
}

const series_total_t *
series_total (const series_t *self)
{
    return &self->total;
}

void
series_keep_total (series_t *self, bool targets)
{
    self->total_on = true;
    self->targets_on = targets;
}

static int
write_slot (series_t *self, store_t *store, slot_t *sl)
{
    const series_interval_t *iv = &sl->iv;
    store_begin (store);        /* the loop's transaction (idempotent) */
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

/* The fleet_intervals columns agents, t_start, t_end, span_ns, then ops,
   bytes, hist of each direction, from column c of st, added to iv (empty).
   Returns 0, or -1 when a histogram did not decode (the rest is loaded). */
static int
interval_from_row (sqlite3_stmt *st, int c, series_interval_t *iv)
{
    int rc = 0;
    iv->agents = (uint32_t) sqlite3_column_int (st, c);
    iv->t_start = (uint64_t) sqlite3_column_int64 (st, c + 1);
    iv->t_end = (uint64_t) sqlite3_column_int64 (st, c + 2);
    iv->span_ns = (uint64_t) sqlite3_column_int64 (st, c + 3);
    for (int d = 0; d < DIR_COUNT; d++) {
        int k = c + 4 + d * 3;
        iv->ops[d] = (uint64_t) sqlite3_column_int64 (st, k);
        iv->bytes[d] = (uint64_t) sqlite3_column_int64 (st, k + 1);
        if (series_blob_add (&iv->hist[d], sqlite3_column_blob (st, k + 2),
                             sqlite3_column_bytes (st, k + 2)))
            rc = -1;
    }
    return rc;
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
    int rc = store_row (store, st, "read a fleet interval");
    if (rc == 1) {
        if (interval_from_row (st, 0, &sl->iv))
            log_err ("run %lld step %d interval %u: the stored fleet histogram does not "
                     "decode; that interval's latency starts again from here",
                     (long long) self->run, self->step + 1, seq);
        sl->iv.who_known = false;   /* which agent had how many: not kept */
    }
    sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
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

/* One agent's part of interval iv, which spans t_start..t_end on it:
   counted once, however many targets it has, so that the interval's
   divisor is the agents' mean span.  Can't fail. */
static void
interval_add_agent (series_interval_t *iv, uint64_t t_start, uint64_t t_end)
{
    if (iv->agents == 0 || t_start < iv->t_start)
        iv->t_start = t_start;
    if (t_end > iv->t_end)
        iv->t_end = t_end;
    iv->agents++;
    if (t_end > t_start)
        iv->span_ns += t_end - t_start;
}

/* Direction k of a target's sample d (its histogram read into hp, or
   NULL: none) into the agent's target figures. */
static void
target_add (series_total_t *t, int who, uint32_t target, int k, const Iofleet__DirStats *d,
            const histogram_parsed_t *hp)
{
    series_target_t *tg = who_target (t, who, target);
    if (!tg)
        return;
    tg->ops[k] += d->ops;
    tg->bytes[k] += d->bytes;
    if (!hp)
        return;
    const uint8_t *slot = buckets_slots (BUCKETS_TARGET);
    for (uint32_t j = 0; j < hp->n; j++)
        tg->slots[k][slot[hp->idx[j]]] += hp->cnt[j];
    tg->count[k] += hp->count;
    tg->sum[k] += hp->sum;
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
            self->total.ops[k] += d->ops;
            self->total.bytes[k] += d->bytes;
            ops += d->ops;
            /* Checked by the caller before it stored the snapshot: read
               once, added to the interval, the step and the target. */
            const histogram_parsed_t *hp = NULL;
            if (d->histogram.len && self->total_on
                && histogram_parse (d->histogram.data, d->histogram.len, &self->parsed) == 0) {
                hp = &self->parsed;
                histogram_add_parsed (&iv->hist[k], hp);
                histogram_add_parsed (&self->total.hist[k], hp);
            } else if (d->histogram.len)
                histogram_add_checked (&iv->hist[k], d->histogram.data, d->histogram.len);
            if (self->targets_on && who >= 0)
                target_add (&self->total, who, s->targets[i]->target, k, d, hp);
        }
    }
    interval_add_agent (iv, s->t_start, s->t_end);
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

/* ---- The read path: a stored step's intervals --------------------------- */

int
series_blob_add (histogram_t *into, const void *blob, int len)
{
    if (!blob || len <= 0)
        return 0;
    return histogram_decode_add (into, blob, (size_t) len) ? -1 : 0;
}

double
series_interval_secs (const series_interval_t *iv)
{
    return iv->agents ? (double) iv->span_ns / iv->agents / 1e9 : 0;
}

json_t *
series_interval_json (const series_interval_t *iv, uint32_t seq, series_form_t form)
{
    double secs = series_interval_secs (iv);
    json_t *o = form == SERIES_JSON_REPORT
        ? json_pack ("{s:i, s:I, s:I, s:i}", "seq", (int) seq, "start_ns",
                     (json_int_t) iv->t_start, "end_ns", (json_int_t) iv->t_end,
                     "agents", (int) iv->agents)
        : json_pack ("{s:i}", "seq", (int) seq);
    double iops = 0, bw = 0;
    for (int d = 0; d < DIR_COUNT; d++) {
        double di = secs > 0 ? (double) iv->ops[d] / secs : 0;
        iops += di;
        bw += secs > 0 ? (double) iv->bytes[d] / secs : 0;
        if (!dir_reported (d, iv->ops[d], 0))
            continue;
        const histogram_t *h = &iv->hist[d];
        json_object_set_new (o, dir_name (d), form == SERIES_JSON_REPORT
            ? json_pack ("{s:I, s:I, s:f, s:I, s:I, s:I}", "ops", (json_int_t) iv->ops[d],
                         "bytes", (json_int_t) iv->bytes[d], "iops", di,
                         "histogram_count", (json_int_t) h->count,
                         "p50", (json_int_t) histogram_percentile (h, 50),
                         "p99", (json_int_t) histogram_percentile (h, 99))
            : json_pack ("{s:I, s:f, s:I, s:I}", "ops", (json_int_t) iv->ops[d], "iops", di,
                         "p50", (json_int_t) histogram_percentile (h, 50),
                         "p99", (json_int_t) histogram_percentile (h, 99)));
    }
    json_object_set_new (o, "iops", json_real (iops));
    json_object_set_new (o, "bw", json_real (bw));
    return o;
}

int
series_rows (store_t *store, int64_t run, int step, json_t *out)
{
    static _Thread_local series_interval_t iv;
    sqlite3_stmt *st = store_stmt (store,
        "SELECT seq, agents, t_start, t_end, span_ns, read_ops, read_bytes, read_hist, "
        " write_ops, write_bytes, write_hist, trim_ops, trim_bytes, trim_hist "
        "FROM fleet_intervals WHERE run_id = ? AND step_idx = ? ORDER BY seq");
    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int n = 0, rc;
    while ((rc = store_row (store, st, "read the fleet's intervals")) == 1) {
        for (int d = 0; d < DIR_COUNT; d++)
            histogram_clear (&iv.hist[d]);
        interval_from_row (st, 1, &iv);
        json_array_append_new (out, series_interval_json (&iv, (uint32_t) sqlite3_column_int (st, 0),
                                                          SERIES_JSON_REPORT));
        n++;
    }
    sqlite3_reset (st);
    return rc < 0 ? -1 : n;
}

/* One group's interval being merged by series_scan. */
typedef struct {
    series_interval_t iv;
    int64_t agent;              /* the last agent added, -1: none yet */
} scan_group_t;

static void
scan_group_empty (scan_group_t *g)
{
    g->iv.agents = 0;
    g->iv.t_start = g->iv.t_end = g->iv.span_ns = 0;
    for (int d = 0; d < DIR_COUNT; d++) {
        g->iv.ops[d] = g->iv.bytes[d] = 0;
        histogram_clear (&g->iv.hist[d]);
    }
    g->agent = -1;
}

int
series_scan (store_t *store, int64_t run, int step, series_pick_fn *pick, void *arg,
             int ngroups, series_form_t form, json_t **out)
{
    IOF_ASSERT (ngroups >= 0 && (pick || ngroups == 1));
    for (int g = 0; g < ngroups; g++)
        out[g] = json_array ();
    if (ngroups == 0)
        return 0;
    scan_group_t *gs = calloc ((size_t) ngroups, sizeof *gs);
    if (!gs)
        return -1;
    for (int g = 0; g < ngroups; g++) {
        for (int d = 0; d < DIR_COUNT; d++)
            histogram_reset (&gs[g].iv.hist[d]);
        scan_group_empty (&gs[g]);
    }
    /* Ordered by agent within an interval: an agent's targets are
       neighbours, so it is counted once (interval_add_agent). */
    sqlite3_stmt *st = store_stmt (store,
        "SELECT s.seq, s.agent_id, a.name, s.target, s.t_start, s.t_end, s.read_ops, "
        " s.read_bytes, s.read_hist, s.write_ops, s.write_bytes, s.write_hist, s.trim_ops, "
        " s.trim_bytes, s.trim_hist "
        "FROM snapshots s JOIN agents a ON a.id = s.agent_id WHERE s.run_id = ? AND s.step_idx = ? "
        "ORDER BY s.seq, s.agent_id, s.target");
    if (!st) {
        free (gs);
        return -1;
    }
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int cur = -1, rc;
    for (;;) {
        rc = store_row (store, st, "read the step's snapshots");
        int seq = rc == 1 ? sqlite3_column_int (st, 0) : -1;
        if (cur >= 0 && seq != cur)
            for (int g = 0; g < ngroups; g++)
                if (gs[g].iv.agents) {
                    json_array_append_new (out[g], series_interval_json (&gs[g].iv,
                                                                         (uint32_t) cur, form));
                    scan_group_empty (&gs[g]);
                }
        if (rc != 1)
            break;
        cur = seq;
        int g = pick ? pick (arg, (const char *) sqlite3_column_text (st, 2),
                             sqlite3_column_int (st, 3)) : 0;
        if (g < 0 || g >= ngroups)
            continue;
        scan_group_t *sg = &gs[g];
        int64_t agent = sqlite3_column_int64 (st, 1);
        uint64_t t0 = (uint64_t) sqlite3_column_int64 (st, 4);
        uint64_t t1 = (uint64_t) sqlite3_column_int64 (st, 5);
        if (agent != sg->agent) {
            interval_add_agent (&sg->iv, t0, t1);
            sg->agent = agent;
        }
        /* The interval's bounds are every row's (an agent's rows agree). */
        sg->iv.t_start = t0 < sg->iv.t_start ? t0 : sg->iv.t_start;
        sg->iv.t_end = t1 > sg->iv.t_end ? t1 : sg->iv.t_end;
        for (int d = 0; d < DIR_COUNT; d++) {
            int c = 6 + d * 3;
            sg->iv.ops[d] += (uint64_t) sqlite3_column_int64 (st, c);
            sg->iv.bytes[d] += (uint64_t) sqlite3_column_int64 (st, c + 1);
            series_blob_add (&sg->iv.hist[d], sqlite3_column_blob (st, c + 2),
                             sqlite3_column_bytes (st, c + 2));
        }
    }
    sqlite3_reset (st);
    free (gs);
    return rc < 0 ? -1 : 0;
}
