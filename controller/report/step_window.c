/*  step_window.c: a step's fleet time series and its common window, see
    step_window.h.
*/
#include "controller.h"
#include "series.h"
#include "step_window.h"
#include "store.h"

#include <string.h>

/* The number of agents of a step that delivered a snapshot of a selected
   target (sel as report_selection_keys makes it), or -1 on a database
   error (logged). */
static int
s_agents_delivering (store_t *store, int64_t run, int step, json_t *sel)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT DISTINCT a.name, s.target FROM snapshots s JOIN agents a ON a.id = s.agent_id "
        "WHERE s.run_id = ? AND s.step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    json_t *agents = json_object ();
    int rc;
    while ((rc = store_row (store, st, "read the agents that delivered")) == 1) {
        char key[MSG_NAME_MAX + 40];
        const char *an = (const char *) sqlite3_column_text (st, 0);
        snprintf (key, sizeof key, "%s\x1f#%d", an, sqlite3_column_int (st, 1));
        if (json_object_get (sel, key))
            json_object_set_new (agents, an, json_true ());
    }
    sqlite3_reset (st);
    int n = (int) json_object_size (agents);
    json_decref (agents);
    return rc < 0 ? -1 : n;
}

/* Whether a stored snapshot row of agent's target is selected (arg: the
   keys of report_selection_keys): group 0, else -1.  Can't fail. */
static int
s_pick_selected (void *arg, const char *agent, int target)
{
    char key[MSG_NAME_MAX + 40];
    snprintf (key, sizeof key, "%s\x1f#%d", agent, target);
    return json_object_get ((json_t *) arg, key) ? 0 : -1;
}

int
step_window_add (store_t *store, int64_t run, int step, json_t *step_json, json_t *agents,
                 json_t *sel)
{
    json_t *intervals = NULL;
    int nagents_total = 0;
    if (sel) {
        nagents_total = s_agents_delivering (store, run, step, sel);
        if (series_scan (store, run, step, s_pick_selected, sel, 1, SERIES_JSON_REPORT, &intervals)
            || nagents_total < 0) {
            json_decref (intervals);
            return -1;
        }
    } else {
        /* The agents that delivered anything (one seek each). */
        sqlite3_stmt *st = store_stmt (store,
            "SELECT COUNT(*) FROM step_agents sa WHERE sa.run_id = ? AND sa.step_idx = ? "
            "AND EXISTS (SELECT 1 FROM snapshot_blocks s WHERE s.run_id = sa.run_id "
            " AND s.step_idx = sa.step_idx AND s.agent_id = sa.agent_id)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, step);
        int rc = store_row (store, st, "count the agents that delivered");
        if (rc == 1)
            nagents_total = sqlite3_column_int (st, 0);
        sqlite3_reset (st);
        if (rc < 0)
            return -1;
        intervals = json_array ();
        rc = series_rows (store, run, step, intervals);
        if (rc == 0) {
            json_decref (intervals);
            rc = series_scan (store, run, step, NULL, NULL, 1, SERIES_JSON_REPORT, &intervals);
        }
        if (rc < 0) {
            json_decref (intervals);
            return -1;
        }
    }
    /* The common window: the intervals every agent that measured took
       part in, from the first such to the last. */
    int first_full = -1, last_full = -1;
    json_int_t win_start = -1, win_end = -1;
    size_t k;
    json_t *iv;
    json_array_foreach (intervals, k, iv) {
        if (json_integer_value (json_object_get (iv, "agents")) != nagents_total)
            continue;
        int seq = (int) json_integer_value (json_object_get (iv, "seq"));
        if (first_full < 0) {
            first_full = seq;
            win_start = json_integer_value (json_object_get (iv, "start_ns"));
        }
        last_full = seq;
        win_end = json_integer_value (json_object_get (iv, "end_ns"));
    }
    json_object_set_new (step_json, "intervals", intervals);
    if (first_full >= 0)
        json_object_set_new (step_json, "window", json_pack ("{s:I, s:I, s:i, s:i}",
            "start_ns", win_start, "end_ns", win_end,
            "first_seq", first_full, "last_seq", last_full));
    else
        json_object_set_new (step_json, "window", json_null ());
    /* Agents of the step that were not measuring through the whole window;
       one that refused the step is not in it at all (refused_agents). */
    json_t *outside = json_array ();
    size_t i;
    json_t *a;
    json_array_foreach (agents, i, a) {
        json_int_t n = json_integer_value (json_object_get (a, "snapshots"));
        const char *status = json_string_value (json_object_get (a, "status"));
        if (n == 0 && status && strcmp (status, "refused") == 0)
            continue;
        if (first_full < 0 || n < last_full - first_full + 1)
            json_array_append_new (outside, json_pack ("{s:O, s:O, s:O}",
                "agent", json_object_get (a, "agent"), "status", json_object_get (a, "status"),
                "message", json_object_get (a, "message")));
    }
    json_object_set_new (step_json, "outside_window", outside);
    return 0;
}
