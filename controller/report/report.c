/*  report.c: the report of a run (the read path), see report.h.

    Every figure comes from the database: the step's results and
    fleet_results (step_results.c), its intervals (series.c), its groups
    (groups.c), its SLA verdict (step_sla.c) and its sweeps' curves
    (sweeps.c).  Fleet figures are merges of histograms, never averages of
    percentiles.
*/
#include "controller.h"
#include "figures.h"
#include "histogram.h"
#include "json_text.h"
#include "log.h"
#include "report.h"
#include "series.h"
#include "sla.h"
#include "step_health.h"
#include "step_sla.h"
#include "sweeps.h"
#include "util.h"
#include "groups.h"
#include "rounds_steady.h"
#include "runs.h"
#include "snapshot_store.h"
#include "store.h"
#include "report_agents.h"

#include <stdlib.h>
#include <string.h>

/* The names of agent aj's targets into sel ("AGENT\x1fNAME") and names
   (agent -> {name: true}), for selection_finish.  Can't fail. */
static void
selection_agent (json_t *sel, json_t *names, json_t *aj)
{
    const char *an = json_string_value (json_object_get (aj, "agent"));
    if (!an)
        return;
    json_t *set = json_object ();
    size_t ti;
    json_t *tj;
    json_array_foreach (json_object_get (aj, "targets"), ti, tj) {
        const char *tn = json_string_value (json_object_get (tj, "target"));
        char key[MSG_NAME_MAX + MSG_TEXT_MAX + 32];
        if (!tn)
            continue;
        snprintf (key, sizeof key, "%s\x1f%s", an, tn);
        json_object_set_new (sel, key, json_true ());
        json_object_set_new (set, tn, json_true ());
    }
    json_object_set_new (names, an, set);
}

/* Adds to sel the "AGENT\x1f#INDEX" keys of the targets in names.
   Returns sel, or NULL (sel freed) on a database error (logged). */
static json_t *
selection_finish (store_t *store, int64_t run, int step, json_t *sel, json_t *names)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, sa.targets FROM step_agents sa JOIN agents a ON a.id = sa.agent_id "
        "WHERE sa.run_id = ? AND sa.step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int rc;
    while ((rc = store_row (store, st, "read the step's agents' targets")) == 1) {
        const char *an = (const char *) sqlite3_column_text (st, 0);
        json_t *set = json_object_get (names, an);
        json_t *tl = set ? json_loads ((const char *) sqlite3_column_text (st, 1), 0, NULL) : NULL;
        size_t i;
        json_t *t;
        json_array_foreach (tl, i, t) {
            char fallback[32], key[MSG_NAME_MAX + 40];
            snprintf (fallback, sizeof fallback, "#%zu", i);   /* save_result's name */
            const char *tn = json_string_value (t);
            if (!json_object_get (set, tn ? tn : fallback) && !json_object_get (set, fallback))
                continue;
            snprintf (key, sizeof key, "%s\x1f#%zu", an, i);
            json_object_set_new (sel, key, json_true ());
        }
        json_decref (tl);
    }
    sqlite3_reset (st);
    if (rc < 0)
        json_decref (sel);
    return rc < 0 ? NULL : sel;
}

json_t *
report_selection_keys (store_t *store, int64_t run, int step, json_t *s)
{
    json_t *sel = json_object (), *names = json_object ();
    size_t ai;
    json_t *aj;
    json_array_foreach (json_object_get (s, "agents"), ai, aj)
        selection_agent (sel, names, aj);
    sel = selection_finish (store, run, step, sel, names);
    json_decref (names);
    return sel;
}

/* The number of agents of a step that delivered a snapshot of a selected
   target (sel as report_selection_keys makes it), or -1 on a database
   error (logged). */
static int
agents_delivering (store_t *store, int64_t run, int step, json_t *sel)
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
pick_selected (void *arg, const char *agent, int target)
{
    char key[MSG_NAME_MAX + 40];
    snprintf (key, sizeof key, "%s\x1f#%d", agent, target);
    return json_object_get ((json_t *) arg, key) ? 0 : -1;
}

/* The fleet time series of a step: interval k merged over every agent
   (ops and bytes summed, clat histograms merged), and the common window:
   the intervals every agent that measured took part in.  Adds "intervals",
   "window" and "outside_window" to step.  agents: the step's agents
   ({agent, status, message, snapshots} each).  sel (report_selection_keys;
   NULL: all): only the selected targets count.  Returns 0, or -1 on a database
   error (logged) or when out of memory; step then has none of them. */
static int
add_intervals (store_t *store, int64_t run, int step, json_t *step_json, json_t *agents,
               json_t *sel)
{
    json_t *intervals = NULL;
    int nagents_total = 0;
    if (sel) {
        nagents_total = agents_delivering (store, run, step, sel);
        if (series_scan (store, run, step, pick_selected, sel, 1, SERIES_JSON_REPORT, &intervals)
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

/* The step's percentile_list, from its stored spec. */
static int
step_percentiles (json_t *job, double *out, int max)
{
    json_t *list = json_object_get (job, "percentile_list");
    int n = 0;
    size_t i;
    json_t *v;
    json_array_foreach (list, i, v)
        if (n < max)
            out[n++] = json_number_value (v);
    /* The SLA's percentiles too, so every condition has its figure. */
    sla_t sla;
    char err[256];
    const char *text = json_string_value (json_object_get (job, "sla"));
    if (text && sla_parse (text, &sla, err, sizeof err) == 0)
        for (int k = 0; k < sla.n && n < max; k++)
            if (sla.c[k].percentile > 0)
                out[n++] = sla.c[k].percentile;
    return n;
}

/* Which intervals each agent of a step is missing.  The step's intervals
   are 0..N-1, N one past the highest seq any agent delivered; an agent
   that delivered fewer, or was lost or failed, is "incomplete", with its
   "missing_intervals".  Its delivered intervals stay in every figure (the
   rule: what was measured counts, what was not is listed), and the
   step says which agents its figures hold incomplete data of
   ("incomplete_agents").  An agent that refused the step is neither: it
   is listed with its reason in "refused_agents".  Each agent is given
   to missing_agent as the report takes it. */
typedef struct {
    int64_t *seq;               /* ascending */
    size_t n, cap;
} seqs_t;

typedef struct {
    json_t *index;              /* agent -> its index in seqs */
    seqs_t *seqs;
    size_t nagents, cap;
    int64_t n;                  /* the step's intervals: one past the highest seq */
    json_t *incomplete, *refused;
} missing_t;

static void
missing_fini (missing_t *m)
{
    for (size_t i = 0; i < m->nagents; i++)
        free (m->seqs[i].seq);
    free (m->seqs);
    json_decref (m->index);
    json_decref (m->incomplete);
    json_decref (m->refused);
    memset (m, 0, sizeof *m);
}

/* Adds seq to the intervals agent delivered (rows come by agent, then
   seq).  Returns 0, or -1 when out of memory. */
static int
missing_add (missing_t *m, const char *agent, int64_t seq)
{
    json_t *at = json_object_get (m->index, agent);
    if (!at) {
        seqs_t *seqs = array_room (m->seqs, &m->cap, m->nagents, sizeof *seqs, 64);
        if (!seqs)
            return -1;
        m->seqs = seqs;
        m->seqs[m->nagents] = (seqs_t) { 0 };
        at = json_integer ((json_int_t) m->nagents++);
        json_object_set_new (m->index, agent, at);
    }
    seqs_t *s = &m->seqs[json_integer_value (at)];
    int64_t *q = array_room (s->seq, &s->cap, s->n, sizeof *q, 64);
    if (!q)
        return -1;
    s->seq = q;
    s->seq[s->n++] = seq;
    return 0;
}

/* The intervals each agent delivered.  Returns 0, or -1 on a database
   error (logged) or when out of memory; m then holds nothing. */
static int
missing_begin (missing_t *m, store_t *store, int64_t run, int step)
{
    memset (m, 0, sizeof *m);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, s.seq FROM snapshot_blocks s JOIN agents a ON a.id = s.agent_id "
        "WHERE s.run_id = ? AND s.step_idx = ? ORDER BY s.agent_id, s.seq");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    m->index = json_object ();
    int rc;
    while ((rc = store_row (store, st, "read the agents' intervals")) == 1) {
        int64_t seq = sqlite3_column_int64 (st, 1);
        if (missing_add (m, (const char *) sqlite3_column_text (st, 0), seq)) {
            log_err ("out of memory reading the intervals of run %lld", (long long) run);
            rc = -1;
            break;
        }
        m->n = seq + 1 > m->n ? seq + 1 : m->n;
    }
    sqlite3_reset (st);
    if (rc < 0) {
        missing_fini (m);
        return -1;
    }
    m->incomplete = json_array ();
    m->refused = json_array ();
    return 0;
}

/* Agent a's "intervals_expected", "missing_intervals" and "incomplete".
   Can't fail. */
static void
missing_agent (missing_t *m, json_t *a)
{
    const char *name = json_string_value (json_object_get (a, "agent"));
    const char *status = json_string_value (json_object_get (a, "status"));
    json_t *at = name ? json_object_get (m->index, name) : NULL;
    const seqs_t none = { 0 };
    const seqs_t *got = at ? &m->seqs[json_integer_value (at)] : &none;
    if (status && strcmp (status, "refused") == 0 && got->n == 0) {
        /* It never took part: left out with its reason, not missing
           anything of what the figures hold. */
        json_object_set_new (a, "intervals_expected", json_integer (0));
        json_object_set_new (a, "missing_intervals", json_array ());
        json_object_set_new (a, "incomplete", json_false ());
        json_array_append_new (m->refused, json_pack ("{s:s?, s:O}", "agent", name,
                                                      "reason", json_object_get (a, "message")));
        return;
    }
    json_t *missing = json_array ();
    size_t i = 0;
    for (int64_t k = 0; k < m->n && json_array_size (missing) < 100000; k++) {
        while (i < got->n && got->seq[i] < k)
            i++;
        if (i == got->n || got->seq[i] != k)
            json_array_append_new (missing, json_integer (k));
    }
    bool lost = status && (strcmp (status, "lost") == 0 || strcmp (status, "failed") == 0);
    bool inc = json_array_size (missing) > 0 || (lost && got->n > 0);
    json_object_set_new (a, "intervals_expected", json_integer (m->n));
    json_object_set_new (a, "missing_intervals", missing);
    json_object_set_new (a, "incomplete", json_boolean (inc));
    if (inc && got->n > 0)
        json_array_append_new (m->incomplete, json_string (name));
}

/* The step's "incomplete_rule", "incomplete_agents" and "refused_agents";
   m is spent.  Can't fail. */
static void
missing_end (missing_t *m, json_t *s)
{
    json_object_set_new (s, "incomplete_rule", json_string (
        "figures hold every interval that reached the controller; agents with missing "
        "intervals are included and listed in incomplete_agents"));
    json_object_set (s, "incomplete_agents", m->incomplete);
    json_object_set (s, "refused_agents", m->refused);
    missing_fini (m);
}

json_t *
report_fleet (store_t *store, int64_t run, int idx, const double *extra, int nextra)
{
    json_t *fleet = json_object ();
    sqlite3_stmt *fs = store_stmt (store,
        "SELECT direction, agents, ops, bytes, errors, iops, bw, hist, slat_hist, lat_hist, "
        " percentiles FROM fleet_results WHERE run_id = ? AND step_idx = ? ORDER BY direction");
    sqlite3_bind_int64 (fs, 1, run);
    sqlite3_bind_int (fs, 2, idx);
    int rc;
    while ((rc = store_row (store, fs, "read the fleet's results")) == 1) {
        json_t *d = json_pack ("{s:i, s:I, s:I, s:I, s:f, s:f}",
            "agents", sqlite3_column_int (fs, 1),
            "ops", (json_int_t) sqlite3_column_int64 (fs, 2),
            "bytes", (json_int_t) sqlite3_column_int64 (fs, 3),
            "errors", (json_int_t) sqlite3_column_int64 (fs, 4),
            "iops", sqlite3_column_double (fs, 5),
            "bw", sqlite3_column_double (fs, 6));
        figures_add_latency (d, fs, 7, 8, 9, extra, nextra);
        figures_add_imported (d, fs, 10, -1);
        json_object_set_new (fleet, (const char *) sqlite3_column_text (fs, 0), d);
    }
    sqlite3_reset (fs);
    if (rc < 0) {
        json_decref (fleet);
        return NULL;
    }
    figures_dirs_in_order (fleet);
    return fleet;
}

/* The fleet's figures of a step made of the selected targets only (sel:
   report_selection_keys): their result rows summed and their histograms merged,
   as step_results_compute makes fleet_results of all of them.  NULL on a
   database error (logged). */
static json_t *
fleet_json_selected (store_t *store, int64_t run, int idx, json_t *sel, const double *extra,
                     int nextra)
{
    static _Thread_local histogram_t h[DIR_COUNT][LK_N];
    uint64_t ops[DIR_COUNT] = { 0 }, bytes[DIR_COUNT] = { 0 }, errors[DIR_COUNT] = { 0 };
    double iops[DIR_COUNT] = { 0 }, bw[DIR_COUNT] = { 0 };
    int nohist[DIR_COUNT] = { 0 };
    json_t *pct[DIR_COUNT] = { NULL };
    json_t *agents = json_object ();
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < LK_N; k++)
            histogram_reset (&h[d][k]);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, r.target, r.direction, r.ops, r.bytes, r.errors, r.iops, r.bw, r.hist, "
        " r.slat_hist, r.lat_hist, r.percentiles "
        "FROM results r JOIN agents a ON a.id = r.agent_id WHERE r.run_id = ? AND r.step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    int rc;
    while ((rc = store_row (store, st, "read the selected targets' results")) == 1) {
        const char *an = (const char *) sqlite3_column_text (st, 0);
        char key[MSG_NAME_MAX + MSG_TEXT_MAX + 32];
        snprintf (key, sizeof key, "%s\x1f%s", an, (const char *) sqlite3_column_text (st, 1));
        int d = dir_from_name ((const char *) sqlite3_column_text (st, 2));
        if (d < 0 || !json_object_get (sel, key))
            continue;
        json_object_set_new (agents, an, json_true ());
        ops[d] += (uint64_t) sqlite3_column_int64 (st, 3);
        bytes[d] += (uint64_t) sqlite3_column_int64 (st, 4);
        errors[d] += (uint64_t) sqlite3_column_int64 (st, 5);
        iops[d] += sqlite3_column_double (st, 6);
        bw[d] += sqlite3_column_double (st, 7);
        uint64_t count = 0;
        for (int k = 0; k < LK_N; k++) {
            const void *blob = sqlite3_column_blob (st, 8 + k);
            int len = sqlite3_column_bytes (st, 8 + k);
            uint64_t n = 0;
            if (blob && len > 0 && histogram_check (blob, (size_t) len, &n) == 0)
                histogram_decode_add (&h[d][k], blob, (size_t) len);
            if (k == LK_CLAT)
                count = n;
        }
        /* An import without fio's bins: its percentiles stand alone. */
        if (sqlite3_column_type (st, 11) != SQLITE_NULL && sqlite3_column_int64 (st, 3) > 0
            && count == 0) {
            nohist[d]++;
            json_decref (pct[d]);
            pct[d] = json_loads ((const char *) sqlite3_column_text (st, 11), JSON_DECODE_ANY, NULL);
        }
    }
    sqlite3_reset (st);
    if (rc < 0) {
        for (int d = 0; d < DIR_COUNT; d++)
            json_decref (pct[d]);
        json_decref (agents);
        return NULL;
    }
    json_t *fleet = json_object ();
    int nagents = (int) json_object_size (agents);
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!dir_reported (d, ops[d], errors[d])) {
            json_decref (pct[d]);
            continue;
        }
        json_t *o = json_pack ("{s:i, s:I, s:I, s:I, s:f, s:f}", "agents", nagents,
            "ops", (json_int_t) ops[d], "bytes", (json_int_t) bytes[d],
            "errors", (json_int_t) errors[d], "iops", iops[d], "bw", bw[d]);
        figures_latency (o, h[d], extra, nextra);
        if (nohist[d]) {
            bool one = nohist[d] == 1 && h[d][LK_CLAT].count == 0 && pct[d];
            json_object_set_new (o, "percentiles", one ? json_incref (pct[d]) : json_null ());
            json_object_set_new (o, "percentiles_only", json_true ());
            json_object_set_new (o, "latency", json_null ());
            json_object_set_new (o, "lat_ns", json_null ());
        }
        json_object_set_new (fleet, dir_name (d), o);
        json_decref (pct[d]);
    }
    json_decref (agents);
    return fleet;
}

/* Parses the report's where list into conds.  Returns 0, or -1 with err. */
int
report_where_parse (json_t *where, const char *flag, match_cond_t *conds, int *n, char *err,
             size_t errlen)
{
    *n = 0;
    if (where && !json_is_array (where)) {
        snprintf (err, errlen, "'where' must be a list of \"KEY=GLOB\"");
        return -1;
    }
    size_t i;
    json_t *c;
    json_array_foreach (where, i, c) {
        if (!json_is_string (c)) {
            snprintf (err, errlen, "'where' must be a list of \"KEY=GLOB\"");
            return -1;
        }
        if (match_conds_parse (flag, json_string_value (c), conds, MATCH_CONDS_MAX, n, err,
                               errlen))
            return -1;
    }
    return 0;
}

/* err: where matched nothing of run (values: the first key's values the
   run has).  Can't fail. */
void
report_where_nothing (json_t *where, const char *flag, int64_t run, const match_cond_t *c0,
               json_t *values, char *err, size_t errlen)
{
    char cond[512] = "", seen[512] = "";
    size_t off = 0, i;
    json_t *w;
    json_array_foreach (where, i, w)
        off += (size_t) snprintf (cond + off, off < sizeof cond ? sizeof cond - off : 0, "%s%s",
                                  i ? " " : "", json_string_value (w));
    off = 0;
    const char *k;
    json_t *v;
    int n = 0;
    json_object_foreach (values, k, v)
        if (off < sizeof seen && n++ < 12)
            off += (size_t) snprintf (seen + off, sizeof seen - off, "%s%s", off ? ", " : "", k);
    snprintf (err, errlen, "%s '%s' matches no target or agent of run %lld (%s there: %s); "
              "see iofleet report %lld --by %s", flag, cond, (long long) run, c0->key.text,
              seen[0] ? seen : "no value", (long long) run, c0->key.text);
}

/* What one report is built from, and what it has found so far. */
typedef struct {
    store_t *store;
    int64_t run;
    const char *by;
    match_cond_t conds[MATCH_CONDS_MAX];
    int nconds;
    bool histograms;            /* each step's fleet gets its histograms */
    json_text_t *text;          /* NULL: the agents stay in the tree */
    json_t *values;             /* of conds[0]'s key, for an error */
    int kept;                   /* agents kept by the conditions */
    bool any_sla;
    int sla_failed;
    bool any_health;            /* a step has a health rule ([iofleet] health=) */
    int health_failed;          /* steps whose rule failed on a drive */
} report_ctx_t;

/* The step's tuning lint of every drive of agent aj, once each.  Can't
   fail. */
static void
lint_agent (json_t *lint, json_t *aj)
{
    size_t ti, li;
    json_t *tj, *lj;
    json_array_foreach (json_object_get (aj, "targets"), ti, tj)
        json_array_foreach (json_object_get (json_object_get (tj, "drive"), "lint"), li, lj) {
            char line[600];
            snprintf (line, sizeof line, "%s: %s", json_string_value (json_object_get (aj, "agent")),
                      json_string_value (lj));
            bool dup = false;
            size_t k;
            json_t *e;
            json_array_foreach (lint, k, e)
                dup |= strcmp (json_string_value (e), line) == 0;
            if (!dup)
                json_array_append_new (lint, json_string (line));
        }
}

/* Adds a step's fleet read and write histograms (report_add_histograms).
   Returns 0, or -1 on a database error (logged). */
static int step_histograms (store_t *store, int64_t run, json_t *s);

/* err: a report ran out of memory, and what to do. */
static void
report_oom (int64_t run, char *err, size_t errlen)
{
    snprintf (err, errlen, "out of memory writing the report of run %lld: report part of the "
              "fleet (--where, e.g. --where label.rack=r1) or give the controller more memory",
              (long long) run);
}

/* One step of a report: s holds its row (index, name, status, job,
   start_at, skew_ns); adds every figure.  Its agents are taken one at a
   time: each is filtered (--where), looked at by the step's lint, missing
   intervals, SLA and groups, then put in s's "agents", or, with c->text,
   written there as the step's first key and freed: a report holds one
   agent's tree at a time.  Returns 0, -1 on a database error (logged), or
   -2 with err filled. */
static int
report_step (report_ctx_t *c, json_t *s, char *err, size_t errlen)
{
    store_t *store = c->store;
    int64_t run = c->run;
    int idx = (int) json_integer_value (json_object_get (s, "index"));
    json_t *job = json_object_get (s, "job");
    double extra[JOB_PCT_MAX];
    int nextra = step_percentiles (job, extra, JOB_PCT_MAX);
    if (json_object_get (job, "sla"))
        c->any_sla = true;
    missing_t miss;
    if (missing_begin (&miss, store, run, idx))
        return -1;
    groups_acc_t *groups = groups_acc_new (store, run, idx, c->by, c->nconds > 0, err, errlen);
    if (!groups) {
        missing_fini (&miss);
        return -2;
    }
    groups_sel_t *select = c->nconds ? groups_sel_new (store, run, idx, c->conds, c->nconds,
                                                       c->values) : NULL;
    if (c->nconds && !select) {
        missing_fini (&miss);
        groups_acc_free (groups);
        snprintf (err, errlen, "out of memory selecting the targets of run %lld",
                  (long long) run);
        return -2;
    }
    step_sla_t *sla = step_sla_new (job);
    /* --where: the drives whose health the step reports ("agent\x1ftarget"). */
    json_t *hkeep = c->nconds ? json_object () : NULL;
    json_t *agents = c->text ? NULL : json_array ();
    json_t *brief = json_array ();          /* {agent, status, message, snapshots} */
    json_t *lint = json_array ();
    json_t *sel = c->nconds ? json_object () : NULL, *names = json_object ();
    int with_targets = 0, targets = 0;
    bool first = true;
    if (c->text)
        json_text_str (c->text, "{\"agents\":[");
    report_agents_t it;
    report_agents_begin (&it, store, run, idx, job, extra, nextra);
    json_t *a;
    while ((a = report_agents_next (&it))) {
        if (select && !groups_sel_agent (select, a)) {
            json_decref (a);
            continue;
        }
        size_t nt = json_array_size (json_object_get (a, "targets"));
        if (hkeep) {
            size_t hi;
            json_t *ht;
            json_array_foreach (json_object_get (a, "targets"), hi, ht) {
                char key[STEP_HEALTH_KEY_MAX];
                step_health_key (json_string_value (json_object_get (a, "agent")),
                                 json_string_value (json_object_get (ht, "target")), key,
                                 sizeof key);
                json_object_set_new (hkeep, key, json_true ());
            }
        }
        with_targets += nt > 0;
        targets += (int) nt;
        lint_agent (lint, a);
        missing_agent (&miss, a);
        if (sel)
            selection_agent (sel, names, a);
        json_array_append_new (brief, json_pack ("{s:O, s:O, s:O, s:O}",
            "agent", json_object_get (a, "agent"), "status", json_object_get (a, "status"),
            "message", json_object_get (a, "message"),
            "snapshots", json_object_get (a, "snapshots")));
        if (sla)
            step_sla_agent (sla, a);
        groups_acc_agent (groups, a);
        if (c->text) {
            if (!first)
                json_text_add (c->text, ",", 1);
            json_text_dump (c->text, a);
            json_decref (a);
        } else
            json_array_append_new (agents, a);
        first = false;
    }
    report_agents_end (&it);
    int rc = it.failed ? -1 : 0;
    json_object_set_new (s, "lint", lint);
    if (select) {
        int n = groups_sel_end (select, s);
        if (n < 0 || !(sel = selection_finish (store, run, idx, sel, names)))
            rc = -1;
        else
            c->kept += n;
    }
    json_decref (names);
    json_t *skew = json_object_get (s, "skew_ns");
    if (skew)
        json_object_set (s, "start_skew_ns", skew);
    json_t *fleet = NULL;
    if (rc == 0 && add_intervals (store, run, idx, s, brief, sel) == 0)
        fleet = sel ? fleet_json_selected (store, run, idx, sel, extra, nextra)
                    : report_fleet (store, run, idx, extra, nextra);
    json_decref (sel);
    json_decref (brief);
    if (!fleet)
        rc = -1;
    else
        json_object_set_new (s, "fleet", fleet);
    json_object_set_new (s, "members", groups_members_json (with_targets, targets,
        step_sla_total (fleet, "iops"), step_sla_total (fleet, "bw")));
    missing_end (&miss, s);
    if (sla)
        c->sla_failed += step_sla_end (sla, s);
    if (rc)
        groups_acc_free (groups);
    else if (groups_acc_end (groups, s, err, errlen))
        rc = -2;
    /* After the outliers: their health causes are named on them. */
    bool health_judged = false, health_failed = false;
    if (rc == 0 && step_health_add (store, run, idx, job, hkeep, s, &health_judged,
                                    &health_failed))
        rc = -1;
    json_decref (hkeep);
    c->any_health |= health_judged;
    c->health_failed += health_failed;
    if (rc == 0 && c->histograms && step_histograms (store, run, s))
        rc = -1;
    if (c->text) {
        /* The step's other keys after its agents. */
        json_text_str (c->text, "],");
        char *rest = json_dumps (s, JSON_COMPACT);
        IOF_ASSERT (!rest || (rest[0] == '{' && rest[1] != '}'));
        if (rest)
            json_text_str (c->text, rest + 1);
        else
            c->text->failed = true;
        free (rest);
    } else
        json_object_set_new (s, "agents", agents);
    if (rc == 0 && c->text && c->text->failed) {
        report_oom (run, err, errlen);
        rc = -2;
    }
    return rc;
}

/* The report of run: its tree (text NULL), or, with text, the tree
   without the steps (for the caller to write before them) and the steps
   written into text as a JSON list.  NULL with err filled. */
static json_t *
report_build (store_t *store, int64_t run, const char *by, json_t *where, const char *where_flag,
              bool histograms, json_text_t *text, char *err, size_t errlen)
{
    report_ctx_t c = { .store = store, .run = run, .by = by, .histograms = histograms,
                       .text = text };
    if (!where_flag)
        where_flag = "--where";
    if (report_where_parse (where, where_flag, c.conds, &c.nconds, err, errlen))
        return NULL;
    if (by && groups_key_check (by, err, errlen))
        return NULL;
    sqlite3_stmt *st = store_stmt (store,
        "SELECT p.name, p.version, r.status, r.message, r.created_at, r.started_at, r.finished_at, "
        " r.origin, r.labels, r.intervals_dropped_at, r.cancelled_by, r.cancelled_at "
        "FROM runs r JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (runs_row (store, st, run, err, errlen) != 1)
        return NULL;
    /* "verdict" first (its value is set at the end): a reader of the text
       sees it without parsing the rest (iofleet report --format json). */
    json_t *rep = json_pack ("{s:s, s:I, s:s, s:i, s:s, s:s, s:I}", "verdict", "none",
        "run", (json_int_t) run,
        "plan", (const char *) sqlite3_column_text (st, 0),
        "plan_version", sqlite3_column_int (st, 1),
        "status", (const char *) sqlite3_column_text (st, 2),
        "message", (const char *) sqlite3_column_text (st, 3),
        "created_at", (json_int_t) sqlite3_column_int64 (st, 4));
    if (sqlite3_column_type (st, 5) != SQLITE_NULL)
        json_object_set_new (rep, "started_at", json_integer (sqlite3_column_int64 (st, 5)));
    if (sqlite3_column_type (st, 6) != SQLITE_NULL)
        json_object_set_new (rep, "finished_at", json_integer (sqlite3_column_int64 (st, 6)));
    json_object_set_new (rep, "origin", json_string ((const char *) sqlite3_column_text (st, 7)));
    json_t *labels = json_loads ((const char *) sqlite3_column_text (st, 8), 0, NULL);
    json_object_set_new (rep, "labels", labels ? labels : json_object ());
    /* gc dropped the per-interval snapshots: results stay, series do not. */
    if (sqlite3_column_type (st, 9) != SQLITE_NULL)
        json_object_set_new (rep, "intervals_dropped_at",
                             json_integer (sqlite3_column_int64 (st, 9)));
    /* iofleet cancel: who and when (015_cancel.sql). */
    if (sqlite3_column_type (st, 10) != SQLITE_NULL) {
        json_object_set_new (rep, "cancelled_by",
                             json_string ((const char *) sqlite3_column_text (st, 10)));
        json_object_set_new (rep, "cancelled_at", json_integer (sqlite3_column_int64 (st, 11)));
    }
    sqlite3_reset (st);

    json_t *steps = json_array ();
    st = store_stmt (store, "SELECT idx, name, spec, status, start_at, skew_ns, round FROM steps "
                            "WHERE run_id = ? ORDER BY idx");
    sqlite3_bind_int64 (st, 1, run);
    /* Collect the rows first: the nested queries reuse cached statements. */
    json_t *rows = json_array ();
    int rc;
    while ((rc = store_row (store, st, "read the run's steps")) == 1) {
        json_t *s = json_pack ("{s:i, s:s, s:s}", "index", sqlite3_column_int (st, 0),
                               "name", (const char *) sqlite3_column_text (st, 1),
                               "status", (const char *) sqlite3_column_text (st, 3));
        json_t *spec = json_loads ((const char *) sqlite3_column_text (st, 2), 0, NULL);
        json_object_set_new (s, "job", spec ? spec : json_object ());
        if (sqlite3_column_type (st, 4) != SQLITE_NULL)
            json_object_set_new (s, "start_at", json_integer (sqlite3_column_int64 (st, 4)));
        if (sqlite3_column_type (st, 5) != SQLITE_NULL)
            json_object_set_new (s, "skew_ns", json_integer (sqlite3_column_int64 (st, 5)));
        if (sqlite3_column_type (st, 6) != SQLITE_NULL)
            json_object_set_new (s, "round", json_integer (sqlite3_column_int (st, 6)));
        json_array_append_new (rows, s);
    }
    sqlite3_reset (st);
    c.values = json_object ();
    if (rc < 0)
        goto db_error;
    if (text)
        json_text_str (text, "[");
    size_t i;
    json_t *s;
    json_array_foreach (rows, i, s) {
        if (text && i)
            json_text_add (text, ",", 1);
        int src = report_step (&c, s, err, errlen);
        if (src == -1)
            goto db_error;
        if (src) {
            json_decref (c.values);
            json_decref (rows);
            json_decref (steps);
            json_decref (rep);
            return NULL;
        }
        json_array_append (steps, s);
    }
    if (text)
        json_text_str (text, "]");
    json_decref (rows);
    if (c.nconds && !c.kept) {
        report_where_nothing (where, where_flag, run, &c.conds[0], c.values, err, errlen);
        json_decref (c.values);
        json_decref (steps);
        json_decref (rep);
        return NULL;
    }
    json_decref (c.values);
    if (c.nconds)
        json_object_set (rep, "where", where);
    json_object_set_new (rep, "sweeps", sweeps_json (steps));
    if (text)
        json_decref (steps);
    else
        json_object_set_new (rep, "steps", steps);
    /* The rounds (rounds.c): a drive never steady in a run that ended
       fails the verdict, as an SLA condition failed would. */
    bool unsteady = false;
    json_t *rounds = rounds_steady_report (store, run, &unsteady, err, errlen);
    if (!rounds) {
        json_decref (rep);
        return NULL;
    }
    const char *status = json_string_value (json_object_get (rep, "status"));
    bool ended = status && strcmp (status, "running") != 0 && strcmp (status, "queued") != 0;
    bool judged = c.any_sla || c.any_health || json_object_get (rounds, "steady_state");
    bool failed = c.sla_failed || c.health_failed || (ended && unsteady);
    if (json_is_null (rounds))
        json_decref (rounds);
    else
        json_object_set_new (rep, "rounds", rounds);
    /* What failed it, for whoever prints the verdict. */
    json_t *failed_by = json_array ();
    if (c.sla_failed)
        json_array_append_new (failed_by, json_string ("sla"));
    if (c.health_failed)
        json_array_append_new (failed_by, json_string ("health rule"));
    if (ended && unsteady)
        json_array_append_new (failed_by, json_string ("steady state"));
    json_object_set_new (rep, "failed_by", failed_by);
    /* The run's verdict: fail when any step failed any SLA condition or
       health rule, or a drive never became steady; pending while a run
       still has drives not steady yet (never "pass" before they are). */
    json_object_set_new (rep, "verdict", json_string (!judged ? "none" : failed ? "fail"
                                                      : !ended && unsteady ? "pending"
                                                                           : "pass"));
    return rep;

db_error:
    json_decref (c.values);
    json_decref (rows);
    json_decref (steps);
    json_decref (rep);
    snprintf (err, errlen, "database error reading run %lld; see the controller's log",
              (long long) run);
    return NULL;
}

json_t *
report_json (store_t *store, int64_t run, const char *by, json_t *where, const char *where_flag,
             char *err, size_t errlen)
{
    return report_build (store, run, by, where, where_flag, false, NULL, err, errlen);
}

int
report_json_text (store_t *store, int64_t run, const char *by, json_t *where, const char *where_flag,
             bool histograms, json_text_t *out, char *err, size_t errlen)
{
    json_text_t steps;          /* a reply's steps become gzip as out would */
    if (out->may_gz)
        json_text_init_gz (&steps);
    else
        json_text_init (&steps);
    json_t *rep = report_build (store, run, by, where, where_flag, histograms, &steps, err,
                                errlen);
    if (!rep) {
        json_text_fini (&steps);
        return -1;
    }
    /* What out holds, the run's keys ("verdict" first), then its steps:
       put before the steps' text, which is not copied. */
    char *head = json_dumps (rep, JSON_COMPACT);
    json_decref (rep);
    IOF_ASSERT (!head || (head[0] == '{' && head[strlen (head) - 1] == '}'));
    if (head) {
        json_text_add (out, head, strlen (head) - 1);
        json_text_str (out, ",\"steps\":");
        IOF_ASSERT (!out->gz);  /* the run's keys are short: out is plain */
        json_text_prepend (&steps, out->data ? out->data : "", out->len);
        json_text_str (&steps, "}");
    }
    free (head);
    bool failed = !head || steps.failed || out->failed;
    json_text_fini (out);
    *out = steps;
    if (failed) {
        report_oom (run, err, errlen);
        return -1;
    }
    return 0;
}

static int
step_histograms (store_t *store, int64_t run, json_t *s)
{
    static _Thread_local histogram_t h;
    json_t *fleet = json_object_get (s, "fleet");
    sqlite3_stmt *st = store_stmt (store,
        "SELECT direction, hist FROM fleet_results WHERE run_id = ? AND step_idx = ?");
    if (!st)
        return -1;
    if (!fleet)
        return 0;
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, (int) json_integer_value (json_object_get (s, "index")));
    int rc;
    while ((rc = store_row (store, st, "read the fleet's histograms")) == 1) {
        json_t *d = json_object_get (fleet, (const char *) sqlite3_column_text (st, 0));
        const void *blob = sqlite3_column_blob (st, 1);
        int len = sqlite3_column_bytes (st, 1);
        if (!d || !blob || len <= 0 || histogram_decode (&h, blob, (size_t) len) != 0
            || h.count == 0)
            continue;
        /* 8 bins an octave (the stored histogram has 128): enough to
           draw, small enough to ship. */
        json_t *bins = json_array ();
        for (uint32_t b = 0; b < HIST_NBUCKETS; b += HIST_SUB / 8) {
            uint64_t n = 0;
            for (uint32_t k = b; k < b + HIST_SUB / 8 && k < HIST_NBUCKETS; k++)
                n += h.buckets[k];
            if (!n)
                continue;
            uint32_t last = b + HIST_SUB / 8 - 1;
            json_array_append_new (bins, json_pack ("[I, I, I]",
                (json_int_t) histogram_bucket_low (b),
                (json_int_t) (histogram_bucket_low (last) + histogram_bucket_width (last)),
                (json_int_t) n));
        }
        json_object_set_new (d, "histogram", bins);
    }
    sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

int
report_add_histograms (store_t *store, int64_t run, json_t *rep)
{
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get (rep, "steps"), i, s)
        if (step_histograms (store, run, s))
            return -1;
    return 0;
}

json_t *
report_step_intervals (store_t *store, int64_t run, int step, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT idx, name, start_at FROM steps "
                                          "WHERE run_id = ? AND idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int rc = store_row (store, st, "read a step");
    if (rc != 1) {
        sqlite3_reset (st);
        snprintf (err, errlen, rc < 0 ? "database error reading run %lld's step %d; see the "
                  "controller's log" : "no step %2$d in run %1$lld (see 'iofleet report')",
                  (long long) run, step);
        return NULL;
    }
    json_t *s = json_pack ("{s:i, s:s}", "index", sqlite3_column_int (st, 0),
                           "name", (const char *) sqlite3_column_text (st, 1));
    if (sqlite3_column_type (st, 2) != SQLITE_NULL)
        json_object_set_new (s, "start_at", json_integer (sqlite3_column_int64 (st, 2)));
    sqlite3_reset (st);
    json_t *iv = json_array ();
    if (series_rows (store, run, step, iv) < 0) {
        json_decref (iv);
        json_decref (s);
        snprintf (err, errlen, "database error reading run %lld's step %d's intervals; see "
                  "the controller's log", (long long) run, step);
        return NULL;
    }
    json_object_set_new (s, "intervals", iv);
    return s;
}
