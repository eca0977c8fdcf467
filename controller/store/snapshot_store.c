/*  snapshot_store.c: see snapshot_store.h. */
#include "snapshot_store.h"
#include "snapcodec.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>

void
snapshot_store_bind_block (sqlite3_stmt *ins, int64_t run, int step, int64_t agent, uint32_t seq,
                           size_t targets, int64_t dict_id, const void *data, size_t len)
{
    sqlite3_bind_int64 (ins, 1, run);
    sqlite3_bind_int (ins, 2, step);
    sqlite3_bind_int64 (ins, 3, agent);
    sqlite3_bind_int64 (ins, 4, (sqlite3_int64) seq);
    sqlite3_bind_int64 (ins, 5, (sqlite3_int64) targets);
    sqlite3_bind_int64 (ins, 6, dict_id);
    sqlite3_bind_blob (ins, 7, data, (int) len, SQLITE_STATIC);
}

int
snapshot_store_put (sqlite3_stmt *ins, snapcodec_t *codec, int64_t run, int step, int64_t agent,
                    const Iofleet__Snapshot *s, char *err, size_t errlen)
{
    const uint8_t *z;
    size_t zlen;
    int64_t dict_id;
    if (snapcodec_encode (codec, s, &z, &zlen, &dict_id, err, errlen))
        return -1;
    snapshot_store_bind_block (ins, run, step, agent, s->seq, s->n_targets, dict_id, z, zlen);
    int rc = sqlite3_step (ins);
    sqlite3_reset (ins);
    sqlite3_clear_bindings (ins);
    if (rc != SQLITE_DONE) {
        snprintf (err, errlen, "store a snapshot block: %s",
                  sqlite3_errmsg (sqlite3_db_handle (ins)));
        return -1;
    }
    return 0;
}

#ifndef IOFLEET_SQLITE_EXTENSION
int
snapshot_store_insert (store_t *store, int64_t run, int step, int64_t agent, uint32_t seq,
                       size_t targets, int64_t dict_id, const void *data, size_t len)
{
    /* One row for the whole interval, compressed (snapcodec.h). */
    sqlite3_stmt *st = store_stmt (store, SNAPSHOT_STORE_INSERT ("OR IGNORE"));
    if (!st)
        return -1;
    snapshot_store_bind_block (st, run, step, agent, seq, targets, dict_id, data, len);
    return store_step_done (store, st, "store snapshot");
}

int
snapshot_store_has (store_t *store, int64_t run, int step, int64_t agent, uint32_t seq)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT 1 FROM snapshot_blocks WHERE run_id = ? "
                                          "AND step_idx = ? AND agent_id = ? AND seq = ?");
    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    sqlite3_bind_int64 (st, 3, agent);
    sqlite3_bind_int (st, 4, (int) seq);
    int rc = store_row (store, st, "find a resent message");
    sqlite3_reset (st);
    return rc;
}

int
snapshot_store_clear_step (store_t *store, int64_t run, int step)
{
    sqlite3_stmt *del = store_stmt (store,
        "DELETE FROM snapshot_blocks WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (del, 1, run);
    sqlite3_bind_int (del, 2, step);
    return store_step_done (store, del, "clear an earlier attempt's snapshots");
}

int
snapshot_store_seqs (store_t *store, int64_t run, int step, snapshot_store_seq_fn *fn, void *arg)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT agent_id, seq FROM snapshot_blocks WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int rc;
    while ((rc = store_row (store, st, "read the step's stored snapshots")) == 1)
        fn (arg, sqlite3_column_int64 (st, 0), sqlite3_column_int64 (st, 1));
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

int
snapshot_store_step_bytes (store_t *store, int64_t run, int step, json_t **rows)
{
    *rows = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT agent_id, target, SUM(read_bytes + write_bytes + trim_bytes) FROM snapshots "
        "WHERE run_id = ? AND step_idx = ? GROUP BY agent_id, target");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int rc;
    while ((rc = store_row (store, st, "read the bytes the step moved")) == 1)
        json_array_append_new (*rows, json_pack ("[I, I, I]",
            (json_int_t) sqlite3_column_int64 (st, 0), (json_int_t) sqlite3_column_int64 (st, 1),
            (json_int_t) sqlite3_column_int64 (st, 2)));
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}
#endif

/* Samples for training: the packed messages laid end to end. */
typedef struct {
    uint8_t *buf;
    size_t len, cap;
    size_t *sizes;
    unsigned n;
} samples_t;

static int
samples_add (samples_t *s, const uint8_t *b, size_t n)
{
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : (1u << 20);
        while (cap < s->len + n)
            cap *= 2;
        uint8_t *nb = realloc (s->buf, cap);
        if (!nb)
            return -1;
        s->buf = nb;
        s->cap = cap;
    }
    if (s->n % 256 == 0) {
        size_t *ns = realloc (s->sizes, (s->n + 256) * sizeof *ns);
        if (!ns)
            return -1;
        s->sizes = ns;
    }
    memcpy (s->buf + s->len, b, n);
    s->len += n;
    s->sizes[s->n++] = n;
    return 0;
}

/* Trains on the samples and stores the dictionary.  1, 0 (zstd made
   none), -1 with err. */
static int
train_store (sqlite3 *db, snapcodec_t *codec, samples_t *sm, int64_t now_ns, size_t *bytes,
             char *err, size_t errlen)
{
    void *dict = malloc (SNAPSHOT_DICT_BYTES);
    if (!dict) {
        snprintf (err, errlen, "out of memory");
        return -1;
    }
    size_t n = ZDICT_trainFromBuffer (dict, SNAPSHOT_DICT_BYTES, sm->buf, sm->sizes, sm->n);
    if (ZDICT_isError (n)) {
        free (dict);
        return 0;
    }
    sqlite3_stmt *st;
    int rc = -1;
    if (sqlite3_prepare_v2 (db, "INSERT INTO snapshot_dicts (created_at, samples, dict) "
                                "VALUES (?, ?, ?)", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64 (st, 1, now_ns);
        sqlite3_bind_int (st, 2, (int) sm->n);
        sqlite3_bind_blob (st, 3, dict, (int) n, SQLITE_STATIC);
        rc = sqlite3_step (st) == SQLITE_DONE ? 1 : -1;
        sqlite3_finalize (st);
    }
    free (dict);
    if (rc < 0) {
        snprintf (err, errlen, "store the snapshot dictionary: %s", sqlite3_errmsg (db));
        return -1;
    }
    *bytes = n;
    return snapcodec_reload (codec, err, errlen) ? -1 : 1;
}

int
snapshot_store_train (sqlite3 *db, snapcodec_t *codec, int min_blocks, int64_t now_ns,
                      int *samples, size_t *bytes, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2 (db, "SELECT dict_id, data FROM snapshot_blocks ORDER BY id DESC "
                                "LIMIT ?", -1, &st, NULL) != SQLITE_OK) {
        snprintf (err, errlen, "read snapshot_blocks: %s", sqlite3_errmsg (db));
        return -1;
    }
    sqlite3_bind_int (st, 1, SNAPSHOT_DICT_SAMPLES);
    samples_t sm = { 0 };
    int rc;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        const uint8_t *raw;
        size_t n;
        if (snapcodec_raw (codec, sqlite3_column_int64 (st, 0), sqlite3_column_blob (st, 1),
                           (size_t) sqlite3_column_bytes (st, 1), &raw, &n, err, errlen)
            || samples_add (&sm, raw, n)) {
            rc = -1;
            break;
        }
    }
    sqlite3_finalize (st);
    int out = 0;
    if (rc != SQLITE_DONE) {
        if (rc != -1)
            snprintf (err, errlen, "read snapshot_blocks: %s", sqlite3_errmsg (db));
        out = -1;
    } else if ((int) sm.n >= min_blocks && sm.n > 0) {
        out = train_store (db, codec, &sm, now_ns, bytes, err, errlen);
        *samples = (int) sm.n;
    }
    free (sm.buf);
    free (sm.sizes);
    return out;
}

void
snapshot_store_sample (sqlite3_value *target, sqlite3_value **dirs, Iofleet__TargetSample *t,
                       Iofleet__DirStats ds[3])
{
    iofleet__target_sample__init (t);
    t->target = (uint32_t) sqlite3_value_int64 (target);
    for (int k = 0; k < 3; k++) {
        Iofleet__DirStats *d = &ds[k];
        sqlite3_value **v = dirs + k * 6;
        iofleet__dir_stats__init (d);
        d->ops = (uint64_t) sqlite3_value_int64 (v[0]);
        d->bytes = (uint64_t) sqlite3_value_int64 (v[1]);
        d->errors = (uint64_t) sqlite3_value_int64 (v[2]);
        ProtobufCBinaryData *h[3] = { &d->histogram, &d->slat_histogram, &d->lat_histogram };
        bool any = d->ops || d->bytes || d->errors;
        for (int b = 0; b < 3; b++) {
            int n = sqlite3_value_bytes (v[3 + b]);
            if (sqlite3_value_type (v[3 + b]) == SQLITE_NULL || n <= 0)
                continue;
            h[b]->data = (uint8_t *) sqlite3_value_blob (v[3 + b]);
            h[b]->len = (size_t) n;
            any = true;
        }
        /* A direction with nothing in it is absent, as an agent sends it. */
        if (any)
            *(k == 0 ? &t->read : k == 1 ? &t->write : &t->trim) = d;
    }
}

/* --- conversion of the table of schemas 1-19 ------------------------------------ */

/* One agent-interval being gathered from its rows. */
typedef struct {
    int64_t key[4];             /* run, step, agent, seq */
    Iofleet__Snapshot msg;
    Iofleet__TargetSample **tp;
    Iofleet__TargetSample *ts;
    Iofleet__DirStats *ds;      /* 3 a target */
    size_t n, cap;
    void **blobs;               /* copies of the rows' histograms */
    size_t nblobs, capblobs;
} group_t;

static void
group_clear (group_t *g)
{
    for (size_t i = 0; i < g->nblobs; i++)
        free (g->blobs[i]);
    g->nblobs = 0;
    g->n = 0;
}

static void
group_free (group_t *g)
{
    group_clear (g);
    free (g->tp);
    free (g->ts);
    free (g->ds);
    free (g->blobs);
}

/* Adds the row st is on (the columns of CONVERT_SELECT) to g.  -1 out of
   memory. */
static int
group_add (group_t *g, sqlite3_stmt *st)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 32;
        Iofleet__TargetSample **tp = realloc (g->tp, cap * sizeof *tp);
        if (tp)
            g->tp = tp;
        Iofleet__TargetSample *ts = realloc (g->ts, cap * sizeof *ts);
        if (ts)
            g->ts = ts;
        Iofleet__DirStats *ds = realloc (g->ds, cap * 3 * sizeof *ds);
        if (ds)
            g->ds = ds;
        if (!tp || !ts || !ds)
            return -1;
        g->cap = cap;
    }
    if (g->nblobs + 9 > g->capblobs) {
        size_t cap = g->capblobs ? g->capblobs * 2 : 512;
        void **b = realloc (g->blobs, cap * sizeof *b);
        if (!b)
            return -1;
        g->blobs = b;
        g->capblobs = cap;
    }
    if (g->n == 0) {
        iofleet__snapshot__init (&g->msg);
        g->msg.seq = (uint32_t) sqlite3_column_int64 (st, 3);
        g->msg.t_start = (uint64_t) sqlite3_column_int64 (st, 5);
        g->msg.t_end = (uint64_t) sqlite3_column_int64 (st, 6);
    }
    Iofleet__TargetSample *t = &g->ts[g->n];
    sqlite3_value *dirs[18];
    for (int c = 0; c < 18; c++)
        dirs[c] = sqlite3_column_value (st, 7 + c);
    snapshot_store_sample (sqlite3_column_value (st, 4), dirs, t, &g->ds[g->n * 3]);
    /* Its histograms point into the row: copies, the row goes at the next step. */
    for (int k = 0; k < 3; k++) {
        Iofleet__DirStats *d = &g->ds[g->n * 3 + (size_t) k];
        ProtobufCBinaryData *hs[3] = { &d->histogram, &d->slat_histogram, &d->lat_histogram };
        for (int b = 0; b < 3; b++) {
            ProtobufCBinaryData *h = hs[b];
            if (!h->len)
                continue;
            void *copy = malloc (h->len);
            if (!copy)
                return -1;
            memcpy (copy, h->data, h->len);
            g->blobs[g->nblobs++] = copy;
            h->data = copy;
        }
    }
    g->tp[g->n] = t;
    g->n++;
    g->msg.targets = g->tp;
    g->msg.n_targets = g->n;
    return 0;
}

#define CONVERT_SELECT                                                                   \
    "SELECT run_id, step_idx, agent_id, seq, target, t_start, t_end, "                   \
    " read_ops, read_bytes, read_errors, read_hist, read_slat_hist, read_lat_hist, "      \
    " write_ops, write_bytes, write_errors, write_hist, write_slat_hist, write_lat_hist, " \
    " trim_ops, trim_bytes, trim_errors, trim_hist, trim_slat_hist, trim_lat_hist "       \
    "FROM \"%s\" ORDER BY run_id, step_idx, agent_id, seq, target"

/* Rows a transaction of the conversion holds. */
#define CONVERT_BATCH 200000

static int
exec (sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf (err, errlen, "%s: %s", sql, msg ? msg : sqlite3_errmsg (db));
        sqlite3_free (msg);
        return -1;
    }
    return 0;
}

/* Walks the table's groups: train (ins NULL) packs the first
   SNAPSHOT_DICT_SAMPLES into sm; otherwise each is stored through ins. */
static int
convert_walk (sqlite3 *db, snapcodec_t *codec, const char *from, sqlite3_stmt *ins,
              samples_t *sm, snapshot_store_progress_fn *progress, void *arg, int64_t total,
              char *err, size_t errlen)
{
    char sql[1024];
    snprintf (sql, sizeof sql, CONVERT_SELECT, from);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf (err, errlen, "read %s: %s", from, sqlite3_errmsg (db));
        return -1;
    }
    group_t g = { 0 };
    int64_t done = 0, in_tx = 0;
    int rc, out = 0;
    bool more = true;
    while (more) {
        rc = sqlite3_step (st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            snprintf (err, errlen, "read %s: %s", from, sqlite3_errmsg (db));
            out = -1;
            break;
        }
        more = rc == SQLITE_ROW;
        int64_t key[4] = { 0 };
        if (more)
            for (int i = 0; i < 4; i++)
                key[i] = sqlite3_column_int64 (st, i);
        if (g.n && (!more || memcmp (key, g.key, sizeof key))) {
            if (!ins) {
                const uint8_t *raw;
                size_t n;
                if (snapcodec_pack (codec, &g.msg, &raw, &n, err, errlen)
                    || samples_add (sm, raw, n)) {
                    out = -1;
                    break;
                }
                if (sm->n >= SNAPSHOT_DICT_SAMPLES)
                    break;
            } else if (snapshot_store_put (ins, codec, g.key[0], (int) g.key[1], g.key[2],
                                           &g.msg, err, errlen)) {
                out = -1;
                break;
            }
            group_clear (&g);
            if (ins && in_tx >= CONVERT_BATCH) {
                if (exec (db, "COMMIT", err, errlen) || exec (db, "BEGIN", err, errlen)) {
                    out = -1;
                    break;
                }
                in_tx = 0;
                if (progress)
                    progress (arg, done, total);
            }
        }
        if (!more)
            break;
        if (g.n == 0)
            memcpy (g.key, key, sizeof key);
        if (group_add (&g, st)) {
            snprintf (err, errlen, "out of memory");
            out = -1;
            break;
        }
        done++;
        in_tx++;
    }
    sqlite3_finalize (st);
    group_free (&g);
    return out;
}

int64_t
snapshot_store_convert (sqlite3 *db, snapcodec_t *codec, const char *from, int64_t now_ns,
                        snapshot_store_progress_fn *progress, void *arg, char *err,
                        size_t errlen)
{
    char sql[256];
    snprintf (sql, sizeof sql, "SELECT COUNT(*) FROM \"%s\"", from);
    sqlite3_stmt *st;
    int64_t total = 0;
    if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf (err, errlen, "read %s: %s", from, sqlite3_errmsg (db));
        return -1;
    }
    if (sqlite3_step (st) == SQLITE_ROW)
        total = sqlite3_column_int64 (st, 0);
    sqlite3_finalize (st);
    if (exec (db, "BEGIN IMMEDIATE", err, errlen))
        return -1;
    int out = 0;
    /* A dictionary first (unless an interrupted conversion made one). */
    if (total > 0 && snapcodec_reload (codec, err, errlen) == 0) {
        sqlite3_stmt *has;
        bool trained = false;
        if (sqlite3_prepare_v2 (db, "SELECT 1 FROM snapshot_dicts", -1, &has, NULL) == SQLITE_OK) {
            trained = sqlite3_step (has) == SQLITE_ROW;
            sqlite3_finalize (has);
        }
        if (!trained) {
            samples_t sm = { 0 };
            size_t bytes;
            out = convert_walk (db, codec, from, NULL, &sm, NULL, NULL, total, err, errlen);
            if (out == 0 && sm.n > 0)
                out = train_store (db, codec, &sm, now_ns, &bytes, err, errlen) < 0 ? -1 : 0;
            free (sm.buf);
            free (sm.sizes);
        }
    } else if (total > 0)
        out = -1;
    if (out == 0 && total > 0) {
        sqlite3_stmt *ins;
        if (sqlite3_prepare_v2 (db, SNAPSHOT_STORE_INSERT ("OR IGNORE"), -1, &ins, NULL)
            != SQLITE_OK) {
            snprintf (err, errlen, "write snapshot_blocks: %s", sqlite3_errmsg (db));
            out = -1;
        } else {
            out = convert_walk (db, codec, from, ins, NULL, progress, arg, total, err, errlen);
            sqlite3_finalize (ins);
        }
    }
    if (out == 0) {
        snprintf (sql, sizeof sql, "DROP TABLE \"%s\"", from);
        out = exec (db, sql, err, errlen);
    }
    if (out == 0)
        out = exec (db, "COMMIT", err, errlen);
    if (out) {
        char ignored[256];
        exec (db, "ROLLBACK", ignored, sizeof ignored);
        return -1;
    }
    if (progress && total > 0)
        progress (arg, total, total);
    return total;
}
