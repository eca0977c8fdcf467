/*  history_index.c: the figures iofleet history draws, stored once per
    run, step and key (the fleet, and the keys engineers compare
    firmware and models by), so that history over a year of nightly runs
    reads a row per step instead of merging every target's histogram of
    every run again.  Built by the controller while no run is queued or
    running, a step per loop tick, for every run that ended complete or
    partial (and for the runs of a database made before the index, the
    same way).  A step not indexed yet is computed as before: history's
    answer does not depend on the index, only its speed.
*/
#include "controller.h"
#include "history.h"
#include "log.h"
#include "util.h"
#include "history_index.h"
#include "idle.h"
#include "store.h"
#include "history_sets.h"

#include <string.h>

/* The keys indexed besides the fleet (""): history --by one of these (and
   no --where) reads the index. */
static const char *const s_keys[] = { "drive.firmware", "drive.model", "hba.firmware", "" };

static bool
indexed (const char *key)
{
    for (size_t i = 0; i < sizeof s_keys / sizeof *s_keys; i++)
        if (strcmp (key, s_keys[i]) == 0)
            return true;
    return false;
}

int
history_index_read (store_t *store, int64_t run, int idx, const char *by, json_t **sets)
{
    const char *key = by ? by : "";
    if (!indexed (key))
        return 0;
    sqlite3_stmt *st = store_stmt (store, "SELECT figures FROM history_index WHERE run_id = ? "
                                          "AND by_key = ? AND step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_text (st, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_int (st, 3, idx);
    int rc = store_row (store, st, "read the history index");
    *sets = rc == 1 ? json_loadb ((const char *) sqlite3_column_blob (st, 0),
                                  (size_t) sqlite3_column_bytes (st, 0), 0, NULL) : NULL;
    if (st)
        sqlite3_reset (st);
    if (rc == 1 && !json_is_array (*sets)) {
        json_decref (*sets);
        *sets = NULL;
        return 0;               /* unreadable: computed instead */
    }
    return rc;
}

/* What history reads of a set, and nothing else: its value and, per
   direction, the figures a metric is taken from. */
static json_t *
trimmed (json_t *sets)
{
    static const char *const keep[] = { "ops", "iops", "bw", "errors", "percentiles", "lat_ns",
                                        "percentiles_only" };
    json_t *out = json_array ();
    size_t i;
    json_t *g;
    json_array_foreach (sets, i, g) {
        json_t *t = json_pack ("{s:O}", "value", json_object_get (g, "value"));
        for (int d = 0; d < DIR_COUNT; d++) {
            json_t *dj = json_object_get (g, dir_name (d));
            if (!json_is_object (dj))
                continue;
            json_t *td = json_object ();
            for (size_t k = 0; k < sizeof keep / sizeof *keep; k++)
                if (json_object_get (dj, keep[k]))
                    json_object_set (td, keep[k], json_object_get (dj, keep[k]));
            json_object_set_new (t, dir_name (d), td);
        }
        json_array_append_new (out, t);
    }
    return out;
}

struct history_index {
    idle_turn_t turn;
    bool working;               /* steps were left at the last look */
    int64_t steps;              /* indexed since start */
};

history_index_t *
history_index_new (void)
{
    return calloc (1, sizeof (history_index_t));
}

void
history_index_destroy (history_index_t **self_p)
{
    free (*self_p);
    *self_p = NULL;
}

void
history_index_soon (history_index_t *self)
{
    if (self)
        idle_soon (&self->turn);
}

/* Indexes one step: every key's sets, in the loop's transaction, the
   targets' figures read once for all keys.  Returns 0, or -1 (logged). */
static int
index_step (ctl_t *ctl, int64_t run, int idx)
{
    json_t *sj = history_sets_step_agents (ctl->store, run, idx);
    if (!sj) {
        log_warn ("history index: run %lld step %d: database error", (long long) run, idx + 1);
        return -1;
    }
    int rc = 0;
    for (size_t k = 0; k < sizeof s_keys / sizeof *s_keys && rc == 0; k++) {
        char err[512];
        json_t *sets = s_keys[k][0]
            ? history_sets_group (ctl->store, run, idx, sj, s_keys[k], false, err, sizeof err)
            : history_sets_step (ctl->store, run, idx, NULL, NULL, 0, err, sizeof err);
        if (!sets) {
            log_warn ("history index: run %lld step %d by '%s': %s", (long long) run, idx + 1,
                      s_keys[k], err[0] ? err : "database error");
            rc = -1;
            break;
        }
        json_t *t = trimmed (sets);
        json_decref (sets);
        char *text = json_dumps (t, JSON_COMPACT);
        json_decref (t);
        if (!text) {
            rc = -1;
            break;
        }
        sqlite3_stmt *st = store_stmt (ctl->store,
            "INSERT OR REPLACE INTO history_index (run_id, by_key, step_idx, figures) "
            "VALUES (?, ?, ?, ?)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_text (st, 2, s_keys[k], -1, SQLITE_STATIC);
        sqlite3_bind_int (st, 3, idx);
        sqlite3_bind_text (st, 4, text, -1, free);
        rc = store_step_done (ctl->store, st, "write the history index");
    }
    json_decref (sj);
    return rc;
}

void
history_index_tick (ctl_t *ctl)
{
    history_index_t *self = ctl->history_index;
    if (!self || !idle_turn (ctl->store, &self->turn, self->working))
        return;
    if (!store_in_tx (ctl->store))
        store_begin (ctl->store);
    /* The fleet's row ("") is written last of a step's: a step that has it
       has them all. */
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT s.run_id, s.idx FROM steps s JOIN runs r ON r.id = s.run_id "
        "WHERE r.status IN ('complete', 'partial') AND NOT EXISTS (SELECT 1 FROM history_index h "
        "  WHERE h.run_id = s.run_id AND h.by_key = '' AND h.step_idx = s.idx) "
        "ORDER BY s.run_id, s.idx LIMIT 1");
    int rc = store_row (ctl->store, st, "find a step to index");
    int64_t run = rc == 1 ? sqlite3_column_int64 (st, 0) : 0;
    int idx = rc == 1 ? sqlite3_column_int (st, 1) : 0;
    if (st)
        sqlite3_reset (st);
    self->working = rc == 1;
    if (rc != 1)
        return;
    uint64_t t0 = clock_mono_ns ();
    if (index_step (ctl, run, idx)) {
        self->working = false;  /* looked at again at the next check */
        return;
    }
    self->steps++;
    log_debug ("history index: run %lld step %d in %.0f ms", (long long) run, idx + 1,
               (double) (clock_mono_ns () - t0) / 1e6);
}

json_t *
history_index_json (const history_index_t *self)
{
    return json_pack ("{s:I, s:b}", "steps", (json_int_t) (self ? self->steps : 0), "working",
                      self && self->working);
}
