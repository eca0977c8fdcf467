/*  report_agents.c: the agents of a step with their targets' results, one
    agent at a time, see report.h.  A report of thousands of targets holds
    one agent's tree at a time (report.c writes each out and frees it);
    fio export and history take the whole list.
*/
#include "controller.h"
#include "figures.h"
#include "report.h"
#include "store.h"
#include "report_agents.h"

#include <string.h>

/* The spec of job k of a step (steps.spec: its first job, with "jobs"
   listing every job when they run together), or NULL.  Can't fail. */
static json_t *
spec_job (json_t *spec, int k)
{
    json_t *jobs = json_object_get (spec, "jobs");
    if (json_is_array (jobs))
        return json_array_get (jobs, (size_t) k);
    return k == 0 ? spec : NULL;
}

static int
spec_njobs (json_t *spec)
{
    json_t *jobs = json_object_get (spec, "jobs");
    return json_is_array (jobs) ? (int) json_array_size (jobs) : 1;
}

/* Does a job of the step have a latency_target?  Can't fail. */
static bool
spec_latency_target (json_t *spec)
{
    for (int k = 0; k < spec_njobs (spec); k++)
        if (json_integer_value (json_object_get (spec_job (spec, k), "latency_target_ns")) > 0)
            return true;
    return false;
}

/* latency_target: what the agent's search found, for each job of the step
   that has a target: {"job", "target_ns", "percentile", "window_ns",
   "depth"}, depth null where the agent reported none (refused, lost or
   failed before DONE).  Returns a new array; NULL on allocation failure or
   a database error (logged). */
static json_t *
agent_latency_json (store_t *store, int64_t run, int step, int64_t agent, json_t *spec)
{
    json_t *list = json_array ();
    for (int k = 0; list && k < spec_njobs (spec); k++) {
        json_t *jj = spec_job (spec, k);
        json_int_t target = json_integer_value (json_object_get (jj, "latency_target_ns"));
        if (target <= 0)
            continue;
        json_t *e = json_pack ("{s:O?, s:I, s:O?, s:O?, s:n}",
            "job", json_object_get (jj, "name"),
            "target_ns", target,
            "percentile", json_object_get (jj, "latency_percentile"),
            "window_ns", json_object_get (jj, "latency_window_ns"),
            "depth");
        sqlite3_stmt *st = store_stmt (store, "SELECT depth FROM latency_depths WHERE run_id = ? "
                                              "AND step_idx = ? AND agent_id = ? AND job_idx = ?");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, step);
        sqlite3_bind_int64 (st, 3, agent);
        sqlite3_bind_int (st, 4, k);
        int rc = store_row (store, st, "read the agent's latency depth");
        if (rc == 1)
            json_object_set_new (e, "depth", json_integer (sqlite3_column_int64 (st, 0)));
        sqlite3_reset (st);
        json_array_append_new (list, e);
        if (rc < 0) {
            json_decref (list);
            return NULL;
        }
    }
    return list;
}

void
report_agents_begin (report_agents_t *it, store_t *store, int64_t run, int step, json_t *spec,
                     const double *extra, int nextra)
{
    memset (it, 0, sizeof *it);
    it->store = store;
    it->run = run;
    it->step = step;
    it->spec = spec;
    it->extra = extra;
    it->nextra = nextra;
    it->latency = spec && spec_latency_target (spec);
    it->st = store_stmt (it->store,
        "SELECT sa.agent_id, a.name, a.hostname, sa.status, sa.message, sa.snapshots, "
        " sa.actual_start, "
        " (SELECT COUNT(*) FROM snapshot_blocks s WHERE s.run_id = sa.run_id "
        "   AND s.step_idx = sa.step_idx AND s.agent_id = sa.agent_id), "
        " sa.clock_offset_ns, sa.clock_delay_ns, "
        " (SELECT i.hash FROM run_inventory ri JOIN inventories i ON i.id = ri.inventory_id "
        "   WHERE ri.run_id = sa.run_id AND ri.agent_id = sa.agent_id "
        "   AND ri.step_idx = sa.step_idx), "
        " sa.targets, sa.target_drives, sa.spool_dropped, sa.restarted "
        "FROM step_agents sa JOIN agents a ON a.id = sa.agent_id "
        "WHERE sa.run_id = ? AND sa.step_idx = ? ORDER BY a.name");
    sqlite3_bind_int64 (it->st, 1, run);
    sqlite3_bind_int (it->st, 2, step);
}

/* The agent of the row it->st is on, or NULL on a database error
   (logged). */
static json_t *
agent_json (report_agents_t *it)
{
    int64_t agent_id = sqlite3_column_int64 (it->st, 0);
    json_t *a = json_pack ("{s:s, s:s, s:s, s:s, s:i, s:i}",
        "agent", (const char *) sqlite3_column_text (it->st, 1),
        "hostname", (const char *) sqlite3_column_text (it->st, 2),
        "status", (const char *) sqlite3_column_text (it->st, 3),
        "message", (const char *) sqlite3_column_text (it->st, 4),
        "snapshots_reported", sqlite3_column_int (it->st, 5),
        "snapshots", sqlite3_column_int (it->st, 7));
    json_object_set_new (a, "spool_dropped", json_integer (sqlite3_column_int (it->st, 13)));
    json_object_set_new (a, "restarted", json_boolean (sqlite3_column_int (it->st, 14)));
    if (sqlite3_column_type (it->st, 6) != SQLITE_NULL) {
        json_object_set_new (a, "actual_start", json_integer (sqlite3_column_int64 (it->st, 6)));
        json_object_set_new (a, "start_ns", json_integer (sqlite3_column_int64 (it->st, 6)));
    }
    if (sqlite3_column_type (it->st, 10) != SQLITE_NULL)
        json_object_set_new (a, "inventory_hash",
                             json_string ((const char *) sqlite3_column_text (it->st, 10)));
    if (sqlite3_column_type (it->st, 8) != SQLITE_NULL) {
        json_object_set_new (a, "clock_offset_ns", json_integer (sqlite3_column_int64 (it->st, 8)));
        int64_t delay = sqlite3_column_int64 (it->st, 9);
        json_object_set_new (a, "clock_uncertainty_ns", json_integer ((delay + 1) / 2));
    }
    json_t *targets = json_array ();
    sqlite3_stmt *rs = store_stmt (it->store,
        "SELECT target, direction, ops, bytes, errors, window_ns, iops, bw, hist, "
        " slat_hist, lat_hist, percentiles, lat_min, lat_max, lat_mean, lat_stddev "
        "FROM results WHERE run_id = ? AND step_idx = ? AND agent_id = ? "
        "ORDER BY target, direction");
    sqlite3_bind_int64 (rs, 1, it->run);
    sqlite3_bind_int (rs, 2, it->step);
    sqlite3_bind_int64 (rs, 3, agent_id);
    json_t *cur = NULL;
    double iops = 0, bw = 0;
    int rrc;
    while ((rrc = store_row (it->store, rs, "read the agent's results")) == 1) {
        const char *tname = (const char *) sqlite3_column_text (rs, 0);
        if (!cur || strcmp (json_string_value (json_object_get (cur, "target")), tname)) {
            cur = json_pack ("{s:s}", "target", tname);
            json_array_append_new (targets, cur);
        }
        json_t *d = json_pack ("{s:I, s:I, s:I, s:f, s:f, s:f}",
            "ops", (json_int_t) sqlite3_column_int64 (rs, 2),
            "bytes", (json_int_t) sqlite3_column_int64 (rs, 3),
            "errors", (json_int_t) sqlite3_column_int64 (rs, 4),
            "window_s", (double) sqlite3_column_int64 (rs, 5) / 1e9,
            "iops", sqlite3_column_double (rs, 6),
            "bw", sqlite3_column_double (rs, 7));
        iops += sqlite3_column_double (rs, 6);
        bw += sqlite3_column_double (rs, 7);
        figures_add_latency (d, rs, 8, 9, 10, it->extra, it->nextra);
        figures_add_imported (d, rs, 11, 12);
        json_object_set_new (cur, (const char *) sqlite3_column_text (rs, 1), d);
    }
    sqlite3_reset (rs);
    if (rrc < 0) {
        json_decref (targets);
        json_decref (a);
        return NULL;
    }
    size_t ti;
    json_t *tj;
    json_array_foreach (targets, ti, tj)
        figures_dirs_in_order (tj);
    /* What drive each target is (from the inventory at PREPARE). */
    json_t *labels = json_loads ((const char *) sqlite3_column_text (it->st, 11), 0, NULL);
    json_t *drives = sqlite3_column_type (it->st, 12) == SQLITE_NULL ? NULL
                   : json_loads ((const char *) sqlite3_column_text (it->st, 12), 0, NULL);
    json_array_foreach (targets, ti, tj) {
        const char *name = json_string_value (json_object_get (tj, "target"));
        size_t li;
        json_t *lj;
        json_array_foreach (labels, li, lj)
            if (name && json_string_value (lj) && strcmp (json_string_value (lj), name) == 0) {
                json_t *d = json_array_get (drives, li);
                if (json_is_object (d))
                    json_object_set (tj, "drive", d);
                break;
            }
    }
    json_decref (labels);
    json_decref (drives);
    json_object_set_new (a, "targets", targets);
    json_object_set_new (a, "iops", json_real (iops));
    json_object_set_new (a, "bw", json_real (bw));
    if (it->latency) {
        json_t *lt = agent_latency_json (it->store, it->run, it->step, agent_id, it->spec);
        if (!lt) {
            json_decref (a);
            return NULL;
        }
        json_object_set_new (a, "latency_target", lt);
    }
    return a;
}

json_t *
report_agents_next (report_agents_t *it)
{
    if (it->done)
        return NULL;
    int rc = store_row (it->store, it->st, "read the step's agents");
    json_t *a = rc == 1 ? agent_json (it) : NULL;
    if (!a) {
        it->done = true;
        it->failed = rc != 0;
        sqlite3_reset (it->st);
    }
    return a;
}

void
report_agents_end (report_agents_t *it)
{
    if (!it->done)
        sqlite3_reset (it->st);
    it->done = true;
}

json_t *
report_agents_step (store_t *store, int64_t run, int step, json_t *spec, const double *extra,
                    int nextra)
{
    report_agents_t it;
    report_agents_begin (&it, store, run, step, spec, extra, nextra);
    json_t *agents = json_array ();
    json_t *a;
    while ((a = report_agents_next (&it)))
        json_array_append_new (agents, a);
    if (it.failed) {
        json_decref (agents);
        return NULL;
    }
    return agents;
}
