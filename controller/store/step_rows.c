/*  step_rows.c: see step_rows.h.  The SQL the run state machine's steps
    need, moved here from run/ as it was written there.
*/
#include "step_rows.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

int
step_rows_add (store_t *store, int64_t run, int idx, const char *name, const char *spec,
               int round, int plan_step)
{
    sqlite3_stmt *st = store_stmt (store,
        "INSERT OR REPLACE INTO steps (run_id, idx, name, spec, status, round, plan_step) "
        "VALUES (?, ?, ?, ?, 'pending', ?, ?)");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_text (st, 3, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 4, spec, -1, SQLITE_TRANSIENT);
    if (round)
        sqlite3_bind_int (st, 5, round);
    sqlite3_bind_int (st, 6, plan_step);
    return store_step_done (store, st, "store step");
}

int
step_rows_set_status (store_t *store, int64_t run, int idx, const char *status, int64_t start_at,
                      int64_t now_ns)
{
    sqlite3_stmt *st = store_stmt (store,
        "UPDATE steps SET status = ?3, start_at = COALESCE(?4, start_at), "
        "finished_at = CASE WHEN ?3 IN ('complete','partial','failed','cancelled') THEN ?5 "
        " ELSE finished_at END "
        "WHERE run_id = ?1 AND idx = ?2");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_text (st, 3, status, -1, SQLITE_STATIC);
    if (start_at)
        sqlite3_bind_int64 (st, 4, start_at);
    sqlite3_bind_int64 (st, 5, now_ns);
    return store_step_done (store, st, "update step");
}

int
step_rows_set_skew (store_t *store, int64_t run, int idx, int64_t skew_ns)
{
    sqlite3_stmt *st = store_stmt (store,
        "UPDATE steps SET skew_ns = ?3 WHERE run_id = ?1 AND idx = ?2");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    if (skew_ns >= 0)
        sqlite3_bind_int64 (st, 3, skew_ns);
    return store_step_done (store, st, "store skew");
}

int
step_rows_cancel_pending (store_t *store, int64_t run, int idx)
{
    sqlite3_stmt *st = store_stmt (store,
        "UPDATE steps SET status = 'cancelled' WHERE run_id = ? AND idx > ? "
        "AND status = 'pending'");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    return store_step_done (store, st, "cancel the steps not begun");
}

int
step_rows_list (store_t *store, int64_t run, json_t **rows)
{
    *rows = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT idx, status, start_at FROM steps WHERE run_id = ? ORDER BY idx");
    sqlite3_bind_int64 (st, 1, run);
    int rc;
    while ((rc = store_row (store, st, "read the run's steps")) == 1)
        json_array_append_new (*rows, json_pack ("{s:i, s:s, s:I}",
            "idx", sqlite3_column_int (st, 0),
            "status", (const char *) sqlite3_column_text (st, 1),
            "start_at", (json_int_t) sqlite3_column_int64 (st, 2)));
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

int
step_rows_save_agent (store_t *store, int64_t run, int idx, const step_rows_agent_t *a,
                      const char *targets)
{
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO step_agents (run_id, step_idx, agent_id, status, message, targets, "
        " actual_start, snapshots, clock_offset_ns, clock_delay_ns, spool_dropped, restarted) "
        "VALUES (?1, ?2, ?3, ?4, ?5, COALESCE(?6, '[]'), ?7, ?8, ?9, ?10, ?11, ?12) "
        "ON CONFLICT (run_id, step_idx, agent_id) DO UPDATE SET status = excluded.status, "
        "message = excluded.message, targets = COALESCE(?6, targets), "
        "actual_start = excluded.actual_start, snapshots = excluded.snapshots, "
        "clock_offset_ns = excluded.clock_offset_ns, clock_delay_ns = excluded.clock_delay_ns, "
        "spool_dropped = excluded.spool_dropped, restarted = excluded.restarted");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_int64 (st, 3, a->agent_id);
    sqlite3_bind_text (st, 4, a->status, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 5, a->message, -1, SQLITE_TRANSIENT);
    if (targets)
        sqlite3_bind_text (st, 6, targets, -1, SQLITE_TRANSIENT);
    if (a->actual_start)
        sqlite3_bind_int64 (st, 7, a->actual_start);
    sqlite3_bind_int (st, 8, a->snapshots);
    if (a->clock_known) {
        sqlite3_bind_int64 (st, 9, a->clock_offset);
        sqlite3_bind_int64 (st, 10, a->clock_delay);
    }
    sqlite3_bind_int64 (st, 11, a->spool_dropped);
    sqlite3_bind_int (st, 12, a->restarted);
    return store_step_done (store, st, "store step agent");
}

/* Sets the one text column sql updates of agent_id's
   part in step idx.  Returns 0 or -1. */
static int
s_set_text (store_t *store, const char *sql, int64_t run, int idx, int64_t agent_id,
            const char *text, const char *what)
{
    sqlite3_stmt *st = store_stmt (store, sql);
    sqlite3_bind_text (st, 1, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, run);
    sqlite3_bind_int (st, 3, idx);
    sqlite3_bind_int64 (st, 4, agent_id);
    return store_step_done (store, st, what);
}

int
step_rows_set_planned (store_t *store, int64_t run, int idx, int64_t agent_id,
                       const char *planned)
{
    return s_set_text (store,
        "UPDATE step_agents SET target_planned = ? WHERE run_id = ? AND step_idx = ? "
        "AND agent_id = ?", run, idx, agent_id, planned, "store the targets' planned bytes");
}

int
step_rows_set_drives (store_t *store, int64_t run, int idx, int64_t agent_id, const char *drives)
{
    return s_set_text (store,
        "UPDATE step_agents SET target_drives = ? WHERE run_id = ? AND step_idx = ? "
        "AND agent_id = ?",
        run, idx, agent_id, drives, "store target drives");
}

int
step_rows_agent_status (store_t *store, int64_t run, int idx, int64_t agent_id, char *status,
                        size_t statuslen, char *msg, size_t msglen)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT status, message FROM step_agents WHERE run_id = ? AND step_idx = ? "
        "AND agent_id = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_int64 (st, 3, agent_id);
    int rc = store_row (store, st, "read the agent's purge or precondition step");
    if (rc == 1) {
        str_copy (status, statuslen, (const char *) sqlite3_column_text (st, 0));
        snprintf (msg, msglen, "%s", sqlite3_column_text (st, 1)
                                     ? (const char *) sqlite3_column_text (st, 1) : "");
    }
    if (st)
        sqlite3_reset (st);
    return rc;
}

int
step_rows_agent_done (store_t *store, int64_t run, int idx, int64_t agent_id)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT 1 FROM step_agents WHERE run_id = ? AND step_idx = ? AND agent_id = ? "
        "AND status = 'done'");
    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_int64 (st, 3, agent_id);
    int rc = store_row (store, st, "find a resent message");
    sqlite3_reset (st);
    return rc;
}

json_t *
step_rows_agent_targets (store_t *store, int64_t run, int idx, int64_t agent_id)
{
    sqlite3_stmt *q = store_stmt (store,
        "SELECT targets FROM step_agents WHERE run_id = ? AND step_idx = ? AND agent_id = ?");
    sqlite3_bind_int64 (q, 1, run);
    sqlite3_bind_int (q, 2, idx);
    sqlite3_bind_int64 (q, 3, agent_id);
    json_t *tl = NULL;
    if (store_row (store, q, "read the slowest drive's name") == 1)
        tl = json_loads ((const char *) sqlite3_column_text (q, 0), 0, NULL);
    if (q)
        sqlite3_reset (q);
    return tl;
}

/* Column i of st as JSON: its text, or null. */
static json_t *
s_text_or_null (sqlite3_stmt *st, int i)
{
    const char *t = (const char *) sqlite3_column_text (st, i);
    return t ? json_string (t) : json_null ();
}

int
step_rows_agents (store_t *store, int64_t run, int idx, json_t **rows)
{
    *rows = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT agent_id, status, message, targets, actual_start, snapshots, spool_dropped, "
        " restarted, target_planned FROM step_agents WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    int rc;
    while ((rc = store_row (store, st, "read the step's agents")) == 1)
        json_array_append_new (*rows, json_pack ("{s:I, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:o}",
            "agent_id", (json_int_t) sqlite3_column_int64 (st, 0),
            "status", (const char *) sqlite3_column_text (st, 1),
            "message", s_text_or_null (st, 2),
            "targets", s_text_or_null (st, 3),
            "actual_start", (json_int_t) sqlite3_column_int64 (st, 4),
            "snapshots", (json_int_t) sqlite3_column_int (st, 5),
            "spool_dropped", (json_int_t) sqlite3_column_int (st, 6),
            "restarted", (json_int_t) sqlite3_column_int (st, 7),
            "target_planned", s_text_or_null (st, 8)));
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

int
step_rows_clear_depths (store_t *store, int64_t run, int idx, int64_t agent_id)
{
    sqlite3_stmt *st = store_stmt (store,
        "DELETE FROM latency_depths WHERE run_id = ? AND step_idx = ? AND agent_id = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_int64 (st, 3, agent_id);
    return store_step_done (store, st, "clear latency depths");
}

int
step_rows_add_depth (store_t *store, int64_t run, int idx, int64_t agent_id, int job,
                     int64_t depth)
{
    sqlite3_stmt *st = store_stmt (store,
        "INSERT OR REPLACE INTO latency_depths (run_id, step_idx, agent_id, job_idx, depth) "
        "VALUES (?, ?, ?, ?, ?)");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    sqlite3_bind_int64 (st, 3, agent_id);
    sqlite3_bind_int (st, 4, job);
    sqlite3_bind_int64 (st, 5, depth);
    return store_step_done (store, st, "store a latency depth");
}

int
step_rows_clear_attempt (store_t *store, int64_t run, int idx)
{
    sqlite3_stmt *del = store_stmt (store,
        "DELETE FROM fleet_intervals WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (del, 1, run);
    sqlite3_bind_int (del, 2, idx);
    int rc = store_step_done (store, del, "clear an earlier attempt's fleet intervals");
    del = store_stmt (store, "DELETE FROM latency_depths WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (del, 1, run);
    sqlite3_bind_int (del, 2, idx);
    rc |= store_step_done (store, del, "clear an earlier attempt's latency depths");
    return rc ? -1 : 0;
}

int
step_rows_set_inventory (store_t *store, int64_t run, int idx, int64_t agent_id,
                         int64_t inventory_id)
{
    sqlite3_stmt *ist = store_stmt (store,
        "INSERT OR REPLACE INTO run_inventory (run_id, agent_id, step_idx, inventory_id) "
        "VALUES (?, ?, ?, ?)");
    sqlite3_bind_int64 (ist, 1, run);
    sqlite3_bind_int64 (ist, 2, agent_id);
    sqlite3_bind_int (ist, 3, idx);
    sqlite3_bind_int64 (ist, 4, inventory_id);
    return store_step_done (store, ist, "store run inventory");
}
