/*  step_gaps.c: see step_gaps.h. */
#include "step_gaps.h"
#include "store.h"

/* Binds run, idx, agent_id, cause, seq to ?1..?5 of st. */
static void
s_bind (sqlite3_stmt *st, int64_t run, int idx, int64_t agent_id, const char *cause, int64_t seq)
{
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_int64 (st, 3, agent_id);
    sqlite3_bind_text (st, 4, cause, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 5, seq);
}

int
step_gaps_note (store_t *store, int64_t run, int idx, int64_t agent_id, const char *cause,
                uint32_t seq, uint64_t ns)
{
    store_begin (store);
    /* The spans seq touches (one ending just before it, one beginning
       just after: snapshots come in any order) become one. */
#define TOUCHING "WHERE run_id = ?1 AND step_idx = ?2 AND agent_id = ?3 AND cause = ?4 " \
                 "AND to_seq >= ?5 - 1 AND from_seq <= ?5 + 1"
    sqlite3_stmt *st = store_stmt (store,
        "SELECT MIN(from_seq), MAX(to_seq), SUM(ns) FROM step_gaps " TOUCHING);
    s_bind (st, run, idx, agent_id, cause, seq);
    int64_t from = seq, to = seq, sum = (int64_t) ns;
    int rc = store_row (store, st, "read a gap");
    if (rc == 1 && sqlite3_column_type (st, 0) != SQLITE_NULL) {
        from = sqlite3_column_int64 (st, 0) < from ? sqlite3_column_int64 (st, 0) : from;
        to = sqlite3_column_int64 (st, 1) > to ? sqlite3_column_int64 (st, 1) : to;
        sum += sqlite3_column_int64 (st, 2);
    }
    sqlite3_reset (st);
    if (rc < 0)
        return -1;
    st = store_stmt (store, "DELETE FROM step_gaps " TOUCHING);
#undef TOUCHING
    s_bind (st, run, idx, agent_id, cause, seq);
    if (store_step_done (store, st, "join a gap"))
        return -1;
    return step_gaps_span (store, run, idx, agent_id, cause, from, to, (uint64_t) sum);
}

int
step_gaps_span (store_t *store, int64_t run, int idx, int64_t agent_id, const char *cause,
                int64_t from_seq, int64_t to_seq, uint64_t ns)
{
    store_begin (store);
    sqlite3_stmt *st = store_stmt (store,
        "INSERT OR REPLACE INTO step_gaps (run_id, step_idx, agent_id, cause, from_seq, to_seq, ns) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_int64 (st, 3, agent_id);
    sqlite3_bind_text (st, 4, cause, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 5, from_seq);
    sqlite3_bind_int64 (st, 6, to_seq);
    sqlite3_bind_int64 (st, 7, (int64_t) ns);
    return store_step_done (store, st, "record a gap");
}

int
step_gaps_clear (store_t *store, int64_t run, int idx, int64_t agent_id, const char *cause)
{
    store_begin (store);
    sqlite3_stmt *st = store_stmt (store,
        "DELETE FROM step_gaps WHERE run_id = ? AND step_idx = ? AND agent_id = ? AND cause = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_int64 (st, 3, agent_id);
    sqlite3_bind_text (st, 4, cause, -1, SQLITE_STATIC);
    return store_step_done (store, st, "clear a gap");
}

int
step_gaps_stalled (store_t *store, int64_t run, int idx, int64_t agent_id, uint64_t *ns,
                   int64_t *from, int64_t *to)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT COUNT(*), COALESCE(SUM(ns), 0), COALESCE(MIN(from_seq), -1), "
        "COALESCE(MAX(to_seq), -1) FROM step_gaps "
        "WHERE run_id = ? AND step_idx = ? AND agent_id = ? AND cause = 'stalled'");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_int64 (st, 3, agent_id);
    int rc = store_row (store, st, "read an agent's stalls");
    int n = rc == 1 ? sqlite3_column_int (st, 0) : -1;
    if (rc == 1) {
        *ns = (uint64_t) sqlite3_column_int64 (st, 1);
        *from = sqlite3_column_int64 (st, 2);
        *to = sqlite3_column_int64 (st, 3);
    }
    sqlite3_reset (st);
    return n;
}

int
step_gaps_list (store_t *store, int64_t run, int idx, json_t **rows)
{
    *rows = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, g.cause, g.from_seq, g.to_seq, g.ns FROM step_gaps g "
        "JOIN agents a ON a.id = g.agent_id WHERE g.run_id = ? AND g.step_idx = ? "
        "ORDER BY a.name, g.from_seq, g.cause");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    int rc;
    while ((rc = store_row (store, st, "read the step's gaps")) == 1)
        json_array_append_new (*rows, json_pack ("{s:s, s:s, s:I, s:I, s:I}",
            "agent", (const char *) sqlite3_column_text (st, 0),
            "cause", (const char *) sqlite3_column_text (st, 1),
            "from", (json_int_t) sqlite3_column_int64 (st, 2),
            "to", (json_int_t) sqlite3_column_int64 (st, 3),
            "ns", (json_int_t) sqlite3_column_int64 (st, 4)));
    sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

int
step_gaps_set_tolerate (store_t *store, int64_t run, bool on)
{
    store_begin (store);
    sqlite3_stmt *st = store_stmt (store, "UPDATE runs SET tolerate_gaps = ? WHERE id = ?");
    sqlite3_bind_int (st, 1, on);
    sqlite3_bind_int64 (st, 2, run);
    return store_step_done (store, st, "record --tolerate-gaps");
}

int
step_gaps_tolerate (store_t *store, int64_t run)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT tolerate_gaps FROM runs WHERE id = ?");
    sqlite3_bind_int64 (st, 1, run);
    int rc = store_row (store, st, "read --tolerate-gaps");
    int on = rc == 1 ? sqlite3_column_int (st, 0) != 0 : rc == 0 ? 0 : -1;
    sqlite3_reset (st);
    return on;
}
