/*  snapshot_table.c: see snapshot_table.h. */
#include "snapshot_table.h"
#include "snapshot_store.h"
#include "message.h"
#include "snapcodec.h"
#include "store.h"

#ifdef IOFLEET_SQLITE_EXTENSION
SQLITE_EXTENSION_INIT1
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns, as the table of schemas 1-19 had them: a direction's six
   from COL_DIR0 + dir * 6 (ops, bytes, errors, clat, slat, lat). */
enum { COL_RUN, COL_STEP, COL_AGENT, COL_TARGET, COL_SEQ, COL_TSTART, COL_TEND, COL_DIR0,
       COL_TEMP = COL_DIR0 + 18, COL_N };

#define DECLARE                                                                          \
    "CREATE TABLE x(run_id INTEGER, step_idx INTEGER, agent_id INTEGER, target INTEGER, " \
    "seq INTEGER, t_start INTEGER, t_end INTEGER, "                                       \
    "read_ops INTEGER, read_bytes INTEGER, read_errors INTEGER, read_hist BLOB, "         \
    "read_slat_hist BLOB, read_lat_hist BLOB, "                                           \
    "write_ops INTEGER, write_bytes INTEGER, write_errors INTEGER, write_hist BLOB, "     \
    "write_slat_hist BLOB, write_lat_hist BLOB, "                                         \
    "trim_ops INTEGER, trim_bytes INTEGER, trim_errors INTEGER, trim_hist BLOB, "         \
    "trim_slat_hist BLOB, trim_lat_hist BLOB, temperature_mc INTEGER)"

/* The constraints a scan uses, in argv order: the block key's four, then
   the target (filtered within a block). */
static const int key_cols[5] = { COL_RUN, COL_STEP, COL_AGENT, COL_SEQ, COL_TARGET };
static const char *key_sql[4] = { "run_id", "step_idx", "agent_id", "seq" };

typedef struct {
    sqlite3_vtab base;
    sqlite3 *db;
    snapcodec_t *codec;
} stab_t;

typedef struct {
    sqlite3_vtab_cursor base;
    sqlite3_stmt *st;
    Iofleet__Snapshot *m;
    int64_t key[4], block;
    size_t i;                   /* the target of m the cursor is on */
    bool eof, by_target;
    uint32_t target;
} scur_t;

static int
t_connect (sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
           char **errp)
{
    (void) aux;
    (void) argc;
    (void) argv;
    int rc = sqlite3_declare_vtab (db, DECLARE);
    if (rc != SQLITE_OK)
        return rc;
    stab_t *t = sqlite3_malloc (sizeof *t);
    if (!t)
        return SQLITE_NOMEM;
    memset (t, 0, sizeof *t);
    t->db = db;
    t->codec = snapcodec_new (db);
    if (!t->codec) {
        sqlite3_free (t);
        *errp = sqlite3_mprintf ("snapshots: out of memory");
        return SQLITE_NOMEM;
    }
    *out = &t->base;
    return SQLITE_OK;
}

static int
t_disconnect (sqlite3_vtab *vt)
{
    stab_t *t = (stab_t *) vt;
    snapcodec_free (&t->codec);
    sqlite3_free (t);
    return SQLITE_OK;
}

static int
t_best_index (sqlite3_vtab *vt, sqlite3_index_info *ii)
{
    (void) vt;
    int use[5] = { -1, -1, -1, -1, -1 };
    for (int c = 0; c < ii->nConstraint; c++) {
        const struct sqlite3_index_constraint *k = &ii->aConstraint[c];
        if (!k->usable || k->op != SQLITE_INDEX_CONSTRAINT_EQ)
            continue;
        for (int j = 0; j < 5; j++)
            if (k->iColumn == key_cols[j] && use[j] < 0)
                use[j] = c;
    }
    /* A key prefix narrows to a range of blocks (the unique index on the
       key); a later column without the ones before it narrows less. */
    double rows = 1e9;
    static const double narrows[5] = { 1000, 10, 1000, 1000, 24 };
    int mask = 0, argv = 1;
    for (int j = 0; j < 5; j++) {
        if (use[j] < 0)
            continue;
        mask |= 1 << j;
        ii->aConstraintUsage[use[j]].argvIndex = argv++;
        ii->aConstraintUsage[use[j]].omit = 1;
        bool prefix = true;
        for (int p = 0; p < j && j < 4; p++)
            prefix = prefix && use[p] >= 0;
        rows /= prefix ? narrows[j] : 2;
    }
    ii->idxNum = mask;
    ii->estimatedRows = (sqlite3_int64) (rows < 1 ? 1 : rows);
    ii->estimatedCost = rows < 1 ? 1 : rows;
    /* The order rows come in: the key's, then target; equal columns
       count as ordered. */
    static const int order[5] = { COL_RUN, COL_STEP, COL_AGENT, COL_SEQ, COL_TARGET };
    int at = 0;
    bool consumed = ii->nOrderBy > 0;
    for (int o = 0; o < ii->nOrderBy && consumed; o++) {
        const struct sqlite3_index_orderby *ob = &ii->aOrderBy[o];
        while (at < 5 && order[at] != ob->iColumn && use[at] >= 0)
            at++;
        if (ob->desc || at == 5 || order[at] != ob->iColumn)
            consumed = false;
        else
            at++;
    }
    ii->orderByConsumed = consumed;
    return SQLITE_OK;
}

static int
t_open (sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    (void) vt;
    scur_t *c = sqlite3_malloc (sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset (c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static void
cur_reset (scur_t *c)
{
    if (c->m)
        snapcodec_release (c->m);
    c->m = NULL;
    sqlite3_finalize (c->st);
    c->st = NULL;
}

static int
t_close (sqlite3_vtab_cursor *cur)
{
    scur_t *c = (scur_t *) cur;
    cur_reset (c);
    sqlite3_free (c);
    return SQLITE_OK;
}

static int
fail (sqlite3_vtab *vt, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    sqlite3_free (vt->zErrMsg);
    vt->zErrMsg = sqlite3_vmprintf (fmt, ap);
    va_end (ap);
    return rc;
}

/* Moves to the next block that has a row to give.  */
static int
next_block (scur_t *c)
{
    stab_t *t = (stab_t *) c->base.pVtab;
    for (;;) {
        if (c->m)
            snapcodec_release (c->m);
        c->m = NULL;
        c->i = 0;
        int rc = sqlite3_step (c->st);
        if (rc == SQLITE_DONE) {
            c->eof = true;
            return SQLITE_OK;
        }
        if (rc != SQLITE_ROW)
            return fail (&t->base, rc, "snapshots: read snapshot_blocks: %s",
                         sqlite3_errmsg (t->db));
        for (int i = 0; i < 4; i++)
            c->key[i] = sqlite3_column_int64 (c->st, i);
        c->block = sqlite3_column_int64 (c->st, 4);
        char err[256];
        c->m = snapcodec_decode (t->codec, sqlite3_column_int64 (c->st, 5),
                                 sqlite3_column_blob (c->st, 6),
                                 (size_t) sqlite3_column_bytes (c->st, 6), err, sizeof err);
        if (!c->m)
            return fail (&t->base, SQLITE_CORRUPT,
                         "snapshots: the block of run %lld step %lld agent %lld seq %lld "
                         "(snapshot_blocks id %lld): %s", (long long) c->key[0],
                         (long long) c->key[1], (long long) c->key[2], (long long) c->key[3],
                         (long long) c->block, err);
        while (c->by_target && c->i < c->m->n_targets && c->m->targets[c->i]->target != c->target)
            c->i++;
        if (c->i < c->m->n_targets)
            return SQLITE_OK;
    }
}

static int
t_next (sqlite3_vtab_cursor *cur)
{
    scur_t *c = (scur_t *) cur;
    c->i++;
    while (c->by_target && c->i < c->m->n_targets && c->m->targets[c->i]->target != c->target)
        c->i++;
    return c->i < c->m->n_targets ? SQLITE_OK : next_block (c);
}

static int
t_filter (sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
    (void) idxstr;
    scur_t *c = (scur_t *) cur;
    stab_t *t = (stab_t *) cur->pVtab;
    cur_reset (c);
    c->eof = false;
    char sql[512];
    int n = snprintf (sql, sizeof sql, "SELECT run_id, step_idx, agent_id, seq, id, dict_id, "
                      "data FROM snapshot_blocks");
    const char *glue = " WHERE ";
    for (int j = 0; j < 4; j++)
        if (idx & (1 << j)) {
            n += snprintf (sql + n, sizeof sql - (size_t) n, "%s%s = ?", glue, key_sql[j]);
            glue = " AND ";
        }
    snprintf (sql + n, sizeof sql - (size_t) n, " ORDER BY run_id, step_idx, agent_id, seq");
    if (sqlite3_prepare_v2 (t->db, sql, -1, &c->st, NULL) != SQLITE_OK)
        return fail (&t->base, SQLITE_ERROR, "snapshots: %s", sqlite3_errmsg (t->db));
    int a = 0;
    for (int j = 0; j < 4 && a < argc; j++)
        if (idx & (1 << j))
            sqlite3_bind_value (c->st, a + 1, argv[a]), a++;
    c->by_target = (idx & (1 << 4)) && a < argc;
    if (c->by_target) {
        sqlite3_int64 v = sqlite3_value_int64 (argv[a]);
        if (sqlite3_value_type (argv[a]) != SQLITE_INTEGER || v < 0 || v > UINT32_MAX) {
            c->eof = true;      /* no target is that */
            return SQLITE_OK;
        }
        c->target = (uint32_t) v;
    }
    return next_block (c);
}

static int
t_eof (sqlite3_vtab_cursor *cur)
{
    return ((scur_t *) cur)->eof;
}

static const Iofleet__DirStats *
dir_of (const Iofleet__TargetSample *s, int k)
{
    return k == 0 ? s->read : k == 1 ? s->write : s->trim;
}

static int
t_column (sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    scur_t *c = (scur_t *) cur;
    const Iofleet__TargetSample *s = c->m->targets[c->i];
    switch (col) {
    case COL_RUN: sqlite3_result_int64 (ctx, c->key[0]); return SQLITE_OK;
    case COL_STEP: sqlite3_result_int64 (ctx, c->key[1]); return SQLITE_OK;
    case COL_AGENT: sqlite3_result_int64 (ctx, c->key[2]); return SQLITE_OK;
    case COL_SEQ: sqlite3_result_int64 (ctx, c->key[3]); return SQLITE_OK;
    case COL_TARGET: sqlite3_result_int64 (ctx, s->target); return SQLITE_OK;
    case COL_TSTART: sqlite3_result_int64 (ctx, (sqlite3_int64) c->m->t_start); return SQLITE_OK;
    case COL_TEND: sqlite3_result_int64 (ctx, (sqlite3_int64) c->m->t_end); return SQLITE_OK;
    case COL_TEMP:
        if (s->has_temperature)
            sqlite3_result_int (ctx, s->temperature_mc);
        else
            sqlite3_result_null (ctx);
        return SQLITE_OK;
    default: break;
    }
    int k = (col - COL_DIR0) / 6, f = (col - COL_DIR0) % 6;
    const Iofleet__DirStats *d = dir_of (s, k);
    if (f < 3) {
        uint64_t v = !d ? 0 : f == 0 ? d->ops : f == 1 ? d->bytes : d->errors;
        sqlite3_result_int64 (ctx, (sqlite3_int64) v);
        return SQLITE_OK;
    }
    /* Empty histograms are NULL, as the rows of schemas 1-19 held them. */
    const ProtobufCBinaryData *h = !d ? NULL : f == 3 ? &d->histogram
                                 : f == 4 ? &d->slat_histogram : &d->lat_histogram;
    if (h && h->len)
        sqlite3_result_blob (ctx, h->data, (int) h->len, SQLITE_TRANSIENT);
    else
        sqlite3_result_null (ctx);
    return SQLITE_OK;
}

static int
t_rowid (sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    scur_t *c = (scur_t *) cur;
    *rowid = (c->block << 16) | (sqlite3_int64) c->i;
    return SQLITE_OK;
}

/* The block of key, decoded, or NULL when there is none (*rc SQLITE_OK)
   or on an error (*rc set, the vtab's message too). */
static Iofleet__Snapshot *
block_read (stab_t *t, const int64_t key[4], int *rc)
{
    sqlite3_stmt *st;
    *rc = SQLITE_OK;
    if (sqlite3_prepare_v2 (t->db, "SELECT dict_id, data FROM snapshot_blocks WHERE run_id = ? "
                            "AND step_idx = ? AND agent_id = ? AND seq = ?", -1, &st, NULL)
        != SQLITE_OK) {
        *rc = fail (&t->base, SQLITE_ERROR, "snapshots: %s", sqlite3_errmsg (t->db));
        return NULL;
    }
    for (int i = 0; i < 4; i++)
        sqlite3_bind_int64 (st, i + 1, key[i]);
    Iofleet__Snapshot *m = NULL;
    int s = sqlite3_step (st);
    if (s == SQLITE_ROW) {
        char err[256];
        m = snapcodec_decode (t->codec, sqlite3_column_int64 (st, 0), sqlite3_column_blob (st, 1),
                              (size_t) sqlite3_column_bytes (st, 1), err, sizeof err);
        if (!m)
            *rc = fail (&t->base, SQLITE_CORRUPT, "snapshots: the block to add to: %s", err);
    } else if (s != SQLITE_DONE)
        *rc = fail (&t->base, s, "snapshots: %s", sqlite3_errmsg (t->db));
    sqlite3_finalize (st);
    return m;
}

/* INSERT: the row joins its block (a target already there is replaced). */
static int
t_update (sqlite3_vtab *vt, int argc, sqlite3_value **argv, sqlite3_int64 *rowid)
{
    stab_t *t = (stab_t *) vt;
    (void) rowid;
    if (argc == 1 || sqlite3_value_type (argv[0]) != SQLITE_NULL)
        return fail (vt, SQLITE_READONLY, "snapshots: rows are only added here; remove them "
                     "from snapshot_blocks (one row per agent and interval)");
    sqlite3_value **v = argv + 2;
    for (int c = 0; c < COL_TEND + 1; c++)
        if (sqlite3_value_type (v[c]) != SQLITE_INTEGER)
            return fail (vt, SQLITE_CONSTRAINT, "snapshots: column %d must be an integer", c);
    int64_t key[4] = { sqlite3_value_int64 (v[COL_RUN]), sqlite3_value_int64 (v[COL_STEP]),
                       sqlite3_value_int64 (v[COL_AGENT]), sqlite3_value_int64 (v[COL_SEQ]) };
    int rc;
    Iofleet__Snapshot *old = block_read (t, key, &rc);
    if (rc != SQLITE_OK)
        return rc;
    /* The new target, its directions' blobs pointing into argv. */
    Iofleet__TargetSample ts;
    Iofleet__DirStats ds[3];
    snapshot_store_sample (v[COL_TARGET], v + COL_DIR0, &ts, ds);
    if (sqlite3_value_type (v[COL_TEMP]) == SQLITE_INTEGER) {
        sqlite3_int64 mc = sqlite3_value_int64 (v[COL_TEMP]);
        if (mc < MSG_TEMP_MIN_MC || mc > MSG_TEMP_MAX_MC)
            return fail (vt, SQLITE_CONSTRAINT, "snapshots: temperature_mc %lld, limit %d..%d",
                         (long long) mc, MSG_TEMP_MIN_MC, MSG_TEMP_MAX_MC);
        ts.has_temperature = true;
        ts.temperature_mc = (int32_t) mc;
    }
    size_t n_old = old ? old->n_targets : 0;
    Iofleet__TargetSample **list = sqlite3_malloc64 ((n_old + 1) * sizeof *list);
    if (!list) {
        if (old)
            snapcodec_release (old);
        return SQLITE_NOMEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < n_old; i++)
        if (old->targets[i]->target != ts.target)
            list[n++] = old->targets[i];
    list[n++] = &ts;
    Iofleet__Snapshot m;
    iofleet__snapshot__init (&m);
    m.seq = (uint32_t) key[3];
    m.t_start = (uint64_t) sqlite3_value_int64 (v[COL_TSTART]);
    m.t_end = (uint64_t) sqlite3_value_int64 (v[COL_TEND]);
    m.targets = list;
    m.n_targets = n;
    char err[256];
    sqlite3_stmt *ins = NULL;
    rc = SQLITE_OK;
    if (snapcodec_reload (t->codec, err, sizeof err))
        rc = fail (vt, SQLITE_ERROR, "snapshots: %s", err);
    else if (sqlite3_prepare_v2 (t->db, SNAPSHOT_STORE_INSERT ("OR REPLACE"), -1, &ins, NULL)
             != SQLITE_OK)
        rc = fail (vt, SQLITE_ERROR, "snapshots: %s", sqlite3_errmsg (t->db));
    else if (snapshot_store_put (ins, t->codec, key[0], (int) key[1], key[2], &m, err, sizeof err))
        rc = fail (vt, SQLITE_ERROR, "snapshots: %s", err);
    sqlite3_finalize (ins);
    sqlite3_free (list);
    if (old)
        snapcodec_release (old);
    return rc;
}

static sqlite3_module module = {
    .iVersion = 0,
    .xCreate = NULL,            /* eponymous only: no CREATE VIRTUAL TABLE */
    .xConnect = t_connect,
    .xBestIndex = t_best_index,
    .xDisconnect = t_disconnect,
    .xDestroy = t_disconnect,
    .xOpen = t_open,
    .xClose = t_close,
    .xFilter = t_filter,
    .xNext = t_next,
    .xEof = t_eof,
    .xColumn = t_column,
    .xRowid = t_rowid,
    .xUpdate = t_update,
};

int
snapshot_table_register (sqlite3 *db)
{
    return sqlite3_create_module_v2 (db, "snapshots", &module, NULL, NULL);
}

#ifdef IOFLEET_SQLITE_EXTENSION
/* sqlite3 shell: .load build/lib/iofleet_sqlite */
int sqlite3_iofleetsqlite_init (sqlite3 *db, char **errp, const sqlite3_api_routines *api);

int
sqlite3_iofleetsqlite_init (sqlite3 *db, char **errp, const sqlite3_api_routines *api)
{
    (void) errp;
    SQLITE_EXTENSION_INIT2 (api);
    return snapshot_table_register (db);
}
#endif
