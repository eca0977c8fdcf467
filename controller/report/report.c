/*  report.c: the report of a run (the read path), see report.h.

    Every figure comes from the database: the step's results and
    fleet_results (step_results.c), its intervals (series.c) and common
    window (step_window.c), each agent's missing intervals
    (step_missing.c), its groups (groups.c), its SLA verdict (step_sla.c)
    and its sweeps' curves (sweeps.c).  Here: a step assembled from them,
    its agents one at a time (s_step), and the run around its steps, its
    verdict, and its text (report_json_text).  Fleet figures are merges of
    histograms, never averages of percentiles.
*/
#include "controller.h"
#include "figures.h"
#include "histogram.h"
#include "json_text.h"
#include "log.h"
#include "report.h"
#include "series.h"
#include "sla.h"
#include "step_gaps.h"
#include "step_health.h"
#include "gap_report.h"
#include "step_missing.h"
#include "step_sla.h"
#include "step_window.h"
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
   (agent -> {name: true}), for s_selection_finish.  Can't fail. */
static void
s_selection_agent (json_t *sel, json_t *names, json_t *aj)
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
s_selection_finish (store_t *store, int64_t run, int step, json_t *sel, json_t *names)
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
        s_selection_agent (sel, names, aj);
    sel = s_selection_finish (store, run, step, sel, names);
    json_decref (names);
    return sel;
}

/* The step's percentile_list, from its stored spec. */
static int
s_step_percentiles (json_t *job, double *out, int max)
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
s_fleet_selected (store_t *store, int64_t run, int idx, json_t *sel, const double *extra,
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
s_lint_agent (json_t *lint, json_t *aj)
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
static int s_step_histograms (store_t *store, int64_t run, json_t *s);

/* err: a report ran out of memory, and what to do. */
static void
s_oom (int64_t run, char *err, size_t errlen)
{
    snprintf (err, errlen, "out of memory writing the report of run %lld: report part of the "
              "fleet (--where, e.g. --where label.rack=r1) or give the controller more memory",
              (long long) run);
}

/* One step of a report while its agents are taken, and what they add up
   to. */
typedef struct {
    report_ctx_t *c;
    int idx;
    json_t *job;
    double extra[JOB_PCT_MAX];      /* the percentiles the step asks for */
    int nextra;
    step_missing_t *miss;
    gap_report_t *gaps;
    groups_acc_t *groups;
    groups_sel_t *select;           /* --where, or NULL */
    step_sla_t *sla;                /* the job's sla=, or NULL */
    json_t *hkeep;                  /* --where: the drives whose health the
                                       step reports ("agent\x1ftarget") */
    json_t *agents;                 /* NULL with c->text: written there */
    json_t *brief;                  /* {agent, status, message, snapshots} */
    json_t *lint;
    json_t *sel, *names;            /* --where: the selection's keys */
    int with_targets, targets;
    bool first;                     /* no agent written yet */
} step_t;

/* The step's parts: its missing intervals, groups, selection and SLA.
   Returns 0, -1 on a database error (logged), or -2 with err filled;
   then nothing is left to free. */
static int
s_step_begin (step_t *t, report_ctx_t *c, json_t *s, char *err, size_t errlen)
{
    store_t *store = c->store;
    int64_t run = c->run;
    *t = (step_t) { .c = c, .idx = (int) json_integer_value (json_object_get (s, "index")),
                    .job = json_object_get (s, "job"), .first = true };
    int idx = t->idx;
    t->nextra = s_step_percentiles (t->job, t->extra, JOB_PCT_MAX);
    if (json_object_get (t->job, "sla"))
        c->any_sla = true;
    t->miss = step_missing_new (store, run, idx);
    if (!t->miss)
        return -1;
    t->gaps = gap_report_new (store, run, idx, t->miss);
    if (!t->gaps) {
        step_missing_destroy (&t->miss);
        return -1;
    }
    t->groups = groups_acc_new (store, run, idx, c->by, c->nconds > 0, err, errlen);
    if (!t->groups) {
        step_missing_destroy (&t->miss);
        gap_report_destroy (&t->gaps);
        return -2;
    }
    t->select = c->nconds ? groups_sel_new (store, run, idx, c->conds, c->nconds, c->values)
                          : NULL;
    if (c->nconds && !t->select) {
        step_missing_destroy (&t->miss);
        gap_report_destroy (&t->gaps);
        groups_acc_free (t->groups);
        snprintf (err, errlen, "out of memory selecting the targets of run %lld",
                  (long long) run);
        return -2;
    }
    t->sla = step_sla_new (t->job);
    t->hkeep = c->nconds ? json_object () : NULL;
    t->agents = c->text ? NULL : json_array ();
    t->brief = json_array ();
    t->lint = json_array ();
    t->sel = c->nconds ? json_object () : NULL;
    t->names = json_object ();
    return 0;
}

/* Agent a, kept by the selection: seen by the step's lint, missing
   intervals, selection, SLA and groups, then kept in t->agents or written
   into the text and freed.  Can't fail. */
static void
s_step_agent (step_t *t, json_t *a)
{
    report_ctx_t *c = t->c;
    size_t nt = json_array_size (json_object_get (a, "targets"));
    if (t->hkeep) {
        size_t hi;
        json_t *ht;
        json_array_foreach (json_object_get (a, "targets"), hi, ht) {
            char key[STEP_HEALTH_KEY_MAX];
            step_health_key (json_string_value (json_object_get (a, "agent")),
                             json_string_value (json_object_get (ht, "target")), key,
                             sizeof key);
            json_object_set_new (t->hkeep, key, json_true ());
        }
    }
    t->with_targets += nt > 0;
    t->targets += (int) nt;
    s_lint_agent (t->lint, a);
    step_missing_agent (t->miss, a);
    gap_report_agent (t->gaps, a);
    if (t->sel)
        s_selection_agent (t->sel, t->names, a);
    json_array_append_new (t->brief, json_pack ("{s:O, s:O, s:O, s:O}",
        "agent", json_object_get (a, "agent"), "status", json_object_get (a, "status"),
        "message", json_object_get (a, "message"),
        "snapshots", json_object_get (a, "snapshots")));
    if (t->sla)
        step_sla_agent (t->sla, a);
    groups_acc_agent (t->groups, a);
    if (c->text) {
        if (!t->first)
            json_text_add (c->text, ",", 1);
        json_text_dump (c->text, a);
        json_decref (a);
    } else
        json_array_append_new (t->agents, a);
    t->first = false;
}

/* The step's agents, one at a time (the text's "agents" list opened).
   Returns 0, or -1 on a database error (logged). */
static int
s_step_agents (step_t *t)
{
    report_ctx_t *c = t->c;
    if (c->text)
        json_text_str (c->text, "{\"agents\":[");
    report_agents_t it;
    report_agents_begin (&it, c->store, c->run, t->idx, t->job, t->extra, t->nextra);
    json_t *a;
    while ((a = report_agents_next (&it))) {
        if (t->select && !groups_sel_agent (t->select, a)) {
            json_decref (a);
            continue;
        }
        s_step_agent (t, a);
    }
    report_agents_end (&it);
    return it.failed ? -1 : 0;
}

/* The step's lint, selection, window and fleet (of the selected targets
   with --where), and its members; t's lint, selection and brief are
   spent.  Returns rc, or -1 on a database error (logged). */
static int
s_step_fleet (step_t *t, json_t *s, int rc)
{
    report_ctx_t *c = t->c;
    store_t *store = c->store;
    int64_t run = c->run;
    int idx = t->idx;
    json_object_set_new (s, "lint", t->lint);
    json_t *sel = t->sel;
    if (t->select) {
        int n = groups_sel_end (t->select, s);
        if (n < 0 || !(sel = s_selection_finish (store, run, idx, sel, t->names)))
            rc = -1;
        else
            c->kept += n;
    }
    json_decref (t->names);
    json_t *skew = json_object_get (s, "skew_ns");
    if (skew)
        json_object_set (s, "start_skew_ns", skew);
    json_t *fleet = NULL;
    if (rc == 0 && step_window_add (store, run, idx, s, t->brief, sel) == 0)
        fleet = sel ? s_fleet_selected (store, run, idx, sel, t->extra, t->nextra)
                    : report_fleet (store, run, idx, t->extra, t->nextra);
    json_decref (sel);
    json_decref (t->brief);
    if (!fleet)
        rc = -1;
    else
        json_object_set_new (s, "fleet", fleet);
    json_object_set_new (s, "members", groups_members_json (t->with_targets, t->targets,
        step_sla_total (fleet, "iops"), step_sla_total (fleet, "bw")));
    return rc;
}

/* The step's keys after its agents written into the text (which then
   holds the whole step), or its agents kept in s.  Returns rc, or -2
   with err when the text ran out of memory. */
static int
s_step_write (step_t *t, json_t *s, int rc, char *err, size_t errlen)
{
    report_ctx_t *c = t->c;
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
        json_object_set_new (s, "agents", t->agents);
    if (rc == 0 && c->text && c->text->failed) {
        s_oom (c->run, err, errlen);
        rc = -2;
    }
    return rc;
}

/* One step of a report: s holds its row (index, name, status, job,
   start_at, skew_ns); adds every figure.  Its agents are taken one at a
   time: each is filtered (--where), looked at by the step's lint, missing
   intervals, SLA and groups, then put in s's "agents", or, with c->text,
   written there as the step's first key and freed: a report holds one
   agent's tree at a time.  Returns 0, -1 on a database error (logged), or
   -2 with err filled. */
static int
s_step (report_ctx_t *c, json_t *s, char *err, size_t errlen)
{
    step_t t;
    int rc = s_step_begin (&t, c, s, err, errlen);
    if (rc)
        return rc;
    rc = s_step_agents (&t);
    rc = s_step_fleet (&t, s, rc);
    gap_report_end (&t.gaps, s);
    step_missing_end (&t.miss, s);
    if (t.sla)
        c->sla_failed += step_sla_end (t.sla, s);
    if (rc)
        groups_acc_free (t.groups);
    else if (groups_acc_end (t.groups, s, err, errlen))
        rc = -2;
    /* After the outliers: their health causes are named on them. */
    bool health_judged = false, health_failed = false;
    if (rc == 0 && step_health_add (c->store, c->run, t.idx, t.job, t.hkeep, s, &health_judged,
                                    &health_failed))
        rc = -1;
    json_decref (t.hkeep);
    c->any_health |= health_judged;
    c->health_failed += health_failed;
    if (rc == 0 && c->histograms && s_step_histograms (c->store, c->run, s))
        rc = -1;
    return s_step_write (&t, s, rc, err, errlen);
}

/* The run's own keys ("verdict" first, "none" until s_verdict), or NULL
   with err (no such run, a database error). */
static json_t *
s_run_json (store_t *store, int64_t run, char *err, size_t errlen)
{
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
    /* iofleet run --tolerate-gaps (022_gaps.sql): a stall did not make
       a step partial. */
    json_object_set_new (rep, "tolerate_gaps", json_boolean (step_gaps_tolerate (store, run) == 1));
    return rep;
}

/* The run's steps' rows into rows (index, name, status, job, start_at,
   skew_ns, round each), collected first: the nested queries reuse
   cached statements.  Returns 0, or -1 on a database error (logged). */
static int
s_step_rows (store_t *store, int64_t run, json_t *rows)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT idx, name, spec, status, start_at, skew_ns, "
                                          "round FROM steps WHERE run_id = ? ORDER BY idx");
    sqlite3_bind_int64 (st, 1, run);
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
    return rc < 0 ? -1 : 0;
}

/* The run's "rounds", "failed_by" and "verdict", from what its steps
   found (c) and its rounds.  Returns 0, or -1 with err (rep untouched
   but for them). */
static int
s_verdict (const report_ctx_t *c, json_t *rep, char *err, size_t errlen)
{
    /* The rounds (rounds.c): a drive never steady in a run that ended
       fails the verdict, as an SLA condition failed would. */
    bool unsteady = false;
    json_t *rounds = rounds_steady_report (c->store, c->run, &unsteady, err, errlen);
    if (!rounds)
        return -1;
    const char *status = json_string_value (json_object_get (rep, "status"));
    bool ended = status && strcmp (status, "running") != 0 && strcmp (status, "queued") != 0;
    bool judged = c->any_sla || c->any_health || json_object_get (rounds, "steady_state");
    bool failed = c->sla_failed || c->health_failed || (ended && unsteady);
    if (json_is_null (rounds))
        json_decref (rounds);
    else
        json_object_set_new (rep, "rounds", rounds);
    /* What failed it, for whoever prints the verdict. */
    json_t *failed_by = json_array ();
    if (c->sla_failed)
        json_array_append_new (failed_by, json_string ("sla"));
    if (c->health_failed)
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
    return 0;
}

/* The run's steps, each made by s_step, into steps (and written into
   c->text as a JSON list when given).  Returns 0, -1 on a database error
   (logged), or -2 with err filled. */
static int
s_steps (report_ctx_t *c, json_t *steps, char *err, size_t errlen)
{
    json_t *rows = json_array ();
    if (s_step_rows (c->store, c->run, rows)) {
        json_decref (rows);
        return -1;
    }
    json_text_t *text = c->text;
    if (text)
        json_text_str (text, "[");
    size_t i;
    json_t *s;
    json_array_foreach (rows, i, s) {
        if (text && i)
            json_text_add (text, ",", 1);
        int src = s_step (c, s, err, errlen);
        if (src) {
            json_decref (rows);
            return src;
        }
        json_array_append (steps, s);
    }
    if (text)
        json_text_str (text, "]");
    json_decref (rows);
    return 0;
}

/* The report of run: its tree (text NULL), or, with text, the tree
   without the steps (for the caller to write before them) and the steps
   written into text as a JSON list.  NULL with err filled. */
static json_t *
s_build (store_t *store, int64_t run, const char *by, json_t *where, const char *where_flag,
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
    json_t *rep = s_run_json (store, run, err, errlen);
    if (!rep)
        return NULL;
    json_t *steps = json_array ();
    c.values = json_object ();
    int rc = s_steps (&c, steps, err, errlen);
    if (rc == 0 && c.nconds && !c.kept) {
        report_where_nothing (where, where_flag, run, &c.conds[0], c.values, err, errlen);
        rc = -2;
    }
    json_decref (c.values);
    if (rc) {
        json_decref (steps);
        json_decref (rep);
        if (rc == -1)
            snprintf (err, errlen, "database error reading run %lld; see the controller's log",
                      (long long) run);
        return NULL;
    }
    if (c.nconds)
        json_object_set (rep, "where", where);
    json_object_set_new (rep, "sweeps", sweeps_json (steps));
    if (text)
        json_decref (steps);
    else
        json_object_set_new (rep, "steps", steps);
    if (s_verdict (&c, rep, err, errlen)) {
        json_decref (rep);
        return NULL;
    }
    return rep;
}

json_t *
report_json (store_t *store, int64_t run, const char *by, json_t *where, const char *where_flag,
             char *err, size_t errlen)
{
    return s_build (store, run, by, where, where_flag, false, NULL, err, errlen);
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
    json_t *rep = s_build (store, run, by, where, where_flag, histograms, &steps, err,
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
        s_oom (run, err, errlen);
        return -1;
    }
    return 0;
}

static int
s_step_histograms (store_t *store, int64_t run, json_t *s)
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
        if (s_step_histograms (store, run, s))
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
