/*  step_health.c: the drive health of a step, see step_health.h. */
#include "step_health.h"
#include "snapcodec.h"
#include "health.h"
#include "health_judge.h"
#include "health_rule.h"
#include "log.h"
#include "util.h"
#include "store.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Temperature series of a report name this many hot drives at most. */
#define SERIES_DRIVES_MAX 8

void
step_health_save (store_t *store, int64_t run, int step, int64_t agent, bool after,
                  char *const *records, size_t n, size_t ntargets)
{
    if (n == 0)
        return;         /* an agent of a release before health */
    if (n != ntargets) {
        store_count (store, "bad_agent_messages", 1);
        log_warn ("run %lld step %d: agent %lld sent %zu health records for %zu targets; none "
                  "stored", (long long) run, step + 1, (long long) agent, n, ntargets);
        return;
    }
    json_t *list = json_array ();
    for (size_t i = 0; i < n; i++) {
        json_error_t jerr;
        json_t *j = json_loads (records[i], 0, &jerr);
        health_t h;
        char err[256];
        if (!j)
            snprintf (err, sizeof err, "not JSON: %s", jerr.text);
        if (!j || health_from_json (j, &h, err, sizeof err)) {
            store_count (store, "bad_agent_messages", 1);
            log_warn ("run %lld step %d: agent %lld: %s health record of target %zu: %s; stored "
                      "as unavailable", (long long) run, step + 1, (long long) agent,
                      after ? "DONE's" : "READY's", i, err);
            health_unavailable (&h, "the agent's record did not check: %s", err);
        }
        json_decref (j);
        json_array_append_new (list, health_to_json (&h));
    }
    char *text = json_dumps (list, JSON_COMPACT);
    json_decref (list);
    store_begin (store);        /* the loop's transaction (idempotent) */
    sqlite3_stmt *st = store_stmt (store, after
        ? "UPDATE step_agents SET health_after = ? WHERE run_id = ? AND step_idx = ? AND agent_id = ?"
        : "UPDATE step_agents SET health_before = ? WHERE run_id = ? AND step_idx = ? "
          "AND agent_id = ?");
    sqlite3_bind_text (st, 1, text ? text : "[]", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, run);
    sqlite3_bind_int (st, 3, step);
    sqlite3_bind_int64 (st, 4, agent);
    store_step_done (store, st, "store drive health");
    free (text);
}

/* One drive of the step: who, its records and its temperatures. */
typedef struct {
    int64_t agent_id;
    json_t *agent, *target, *drive;     /* references into the rows' JSON */
    json_t *before_j, *after_j;         /* its records as stored, or NULL */
    health_t before, after;
    bool has_before, has_after;
    int64_t warning_c;                  /* its threshold, -1 none (health_warning_c) */
    health_temps_t temps;               /* summed over the step */
    health_judgement_t j;
    bool skip;                          /* left out by a --where */
} drive_t;

/* An agent's drives: d[base .. base + n). */
typedef struct {
    int64_t id;
    size_t base, n;
} agent_at_t;

typedef struct {
    drive_t *d;
    size_t n, cap;
    agent_at_t *agents;                 /* nagents, by id */
    size_t nagents;
    json_t *rows;                       /* holds what the drives reference */
    /* The fleet's series (the kept drives), intervals 0 .. nint - 1 (at
       most STEP_HEALTH_SERIES_MAX): highest, sum and count each. */
    uint32_t nint;
    double *smax, *ssum;
    uint32_t *scount;
    uint64_t span;                      /* the longest interval seen */
} drives_t;

static void
drives_free (drives_t *ds)
{
    free (ds->smax);
    free (ds->ssum);
    free (ds->scount);
    free (ds->d);
    free (ds->agents);
    json_decref (ds->rows);
}

/* A stored record into h (false: none, or one that no longer checks). */
static bool
record_of (json_t *j, health_t *h)
{
    char err[256];
    return j && health_from_json (j, h, err, sizeof err) == 0;
}

/* The step's drives from step_agents.  Returns 0, or -1 (database error,
   logged; out of memory). */
static int
load_drives (store_t *store, int64_t run, int step, drives_t *ds)
{
    ds->rows = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT sa.agent_id, a.name, sa.targets, sa.target_drives, sa.health_before, "
        "sa.health_after FROM step_agents sa JOIN agents a ON a.id = sa.agent_id "
        "WHERE sa.run_id = ? AND sa.step_idx = ? ORDER BY a.name");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int rc;
    while ((rc = store_row (store, st, "read the step's drive health")) == 1) {
        json_t *row = json_array ();
        json_array_append_new (ds->rows, row);
        json_array_append_new (row, json_string ((const char *) sqlite3_column_text (st, 1)));
        for (int c = 2; c < 6; c++) {
            const char *t = (const char *) sqlite3_column_text (st, c);
            json_t *v = t ? json_loads (t, 0, NULL) : NULL;
            json_array_append_new (row, v ? v : json_null ());
        }
        json_t *targets = json_array_get (row, 1);
        for (size_t i = 0; i < json_array_size (targets); i++) {
            if (ds->n == ds->cap) {
                size_t cap = ds->cap ? ds->cap * 2 : 64;
                drive_t *nd = realloc (ds->d, cap * sizeof *nd);
                if (!nd) {
                    sqlite3_reset (st);
                    return -1;
                }
                ds->d = nd;
                ds->cap = cap;
            }
            drive_t *d = &ds->d[ds->n++];
            memset (d, 0, sizeof *d);
            d->agent_id = sqlite3_column_int64 (st, 0);
            d->agent = json_array_get (row, 0);
            d->target = json_array_get (targets, i);
            d->drive = json_array_get (json_array_get (row, 2), i);
            d->before_j = json_array_get (json_array_get (row, 3), i);
            d->after_j = json_array_get (json_array_get (row, 4), i);
            d->has_before = record_of (d->before_j, &d->before);
            d->has_after = record_of (d->after_j, &d->after);
            d->warning_c = health_warning_c (d->has_before ? &d->before : NULL,
                                             d->has_after ? &d->after : NULL);
        }
    }
    sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

static int
by_id (const void *a, const void *b)
{
    int64_t x = ((const agent_at_t *) a)->id, y = ((const agent_at_t *) b)->id;
    return x < y ? -1 : x > y;
}

/* Indexes the drives by agent id.  Returns 0, or -1 out of memory. */
static int
index_agents (drives_t *ds)
{
    ds->agents = malloc ((ds->n ? ds->n : 1) * sizeof *ds->agents);
    if (!ds->agents)
        return -1;
    for (size_t i = 0; i < ds->n; i++) {
        if (ds->nagents && ds->agents[ds->nagents - 1].id == ds->d[i].agent_id) {
            ds->agents[ds->nagents - 1].n++;
            continue;
        }
        ds->agents[ds->nagents++] = (agent_at_t) { ds->d[i].agent_id, i, 1 };
    }
    qsort (ds->agents, ds->nagents, sizeof *ds->agents, by_id);
    return 0;
}

/* What snapcodec_temps calls back with: one agent's block, and in the
   second pass the one drive whose series is drawn (else NULL). */
typedef struct {
    drives_t *ds;
    const agent_at_t *agent;
    int64_t seq;
    uint64_t span;
    const drive_t *only;
    json_t *series;                     /* the second pass: only's readings */
} temps_at_t;

/* snapcodec_temps's callback, first pass: the reading goes into its
   drive's sums and the fleet's series. */
static void
temp_of (void *arg, uint32_t target, int32_t mc)
{
    temps_at_t *at = arg;
    drives_t *ds = at->ds;
    if (!at->agent || target >= at->agent->n)
        return;
    drive_t *d = &ds->d[at->agent->base + target];
    if (d->skip)
        return;
    health_temps_add (&d->temps, mc, at->span, d->warning_c);
    if (at->seq >= ds->nint)
        return;
    double c = mc / 1000.0;
    if (!ds->scount[at->seq] || c > ds->smax[at->seq])
        ds->smax[at->seq] = c;
    ds->ssum[at->seq] += c;
    ds->scount[at->seq]++;
    if (at->span > ds->span)
        ds->span = at->span;
}

/* snapcodec_temps's callback, second pass: one drive's own readings. */
static void
temp_of_one (void *arg, uint32_t target, int32_t mc)
{
    temps_at_t *at = arg;
    if (!at->agent || target >= at->agent->n || at->seq >= at->ds->nint
        || &at->ds->d[at->agent->base + target] != at->only)
        return;
    json_array_set_new (at->series, (size_t) at->seq, json_real (round (mc / 100.0) / 10));
}

/* One pass over the step's blocks (of agent only_agent, when > 0),
   calling fn for each reading.  Returns 0, or -1 (database error or a
   block that does not decode, logged). */
static int
scan_blocks (store_t *store, int64_t run, int step, int64_t only_agent, temps_at_t *at,
             snapcodec_temp_fn *fn)
{
    snapcodec_t *codec = snapcodec_new (store_db (store));
    if (!codec)
        return -1;
    sqlite3_stmt *st = only_agent > 0
        ? store_stmt (store, "SELECT agent_id, seq, dict_id, data FROM snapshot_blocks "
                      "WHERE run_id = ? AND step_idx = ? AND agent_id = ?")
        : store_stmt (store, "SELECT agent_id, seq, dict_id, data FROM snapshot_blocks "
                      "WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    if (only_agent > 0)
        sqlite3_bind_int64 (st, 3, only_agent);
    int rc;
    while ((rc = store_row (store, st, "read the step's temperatures")) == 1) {
        agent_at_t key = { .id = sqlite3_column_int64 (st, 0) };
        at->agent = bsearch (&key, at->ds->agents, at->ds->nagents, sizeof key, by_id);
        at->seq = sqlite3_column_int64 (st, 1);
        if (!at->agent || at->seq < 0)
            continue;
        char err[256];
        if (snapcodec_temps (codec, sqlite3_column_int64 (st, 2), sqlite3_column_blob (st, 3),
                             (size_t) sqlite3_column_bytes (st, 3), &at->span, fn, at, err,
                             sizeof err)) {
            log_err ("run %lld step %d: agent %lld interval %lld: %s", (long long) run, step + 1,
                     (long long) key.id, (long long) at->seq, err);
            rc = -1;
            break;
        }
    }
    sqlite3_reset (st);
    snapcodec_free (&codec);
    return rc < 0 ? -1 : 0;
}

/* Every kept drive's temperatures summed, and the fleet's series, from
   the step's blocks (their fields only: snapcodec_temps rebuilds no
   histogram).  Skipped when no agent of the step sent health (a release
   before it: no temperature either).  Returns 0, or -1 (database error
   or a block that does not decode, logged; out of memory). */
static int
load_temps (store_t *store, int64_t run, int step, drives_t *ds)
{
    bool any = false;
    for (size_t i = 0; i < ds->n && !any; i++)
        any = ds->d[i].before_j || ds->d[i].after_j;
    if (!any)
        return 0;
    sqlite3_stmt *st = store_stmt (store, "SELECT COALESCE(MAX(seq) + 1, 0) FROM snapshot_blocks "
                                   "WHERE run_id = ? AND step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    if (store_row (store, st, "count the step's intervals") != 1) {
        sqlite3_reset (st);
        return -1;
    }
    int64_t nint = sqlite3_column_int64 (st, 0);
    sqlite3_reset (st);
    if (nint <= 0)
        return 0;
    /* A series past its bound (a seq an agent made up, or a step of days
       at short intervals) keeps its first STEP_HEALTH_SERIES_MAX
       intervals; the drives' figures count every reading. */
    ds->nint = (uint32_t) (nint < STEP_HEALTH_SERIES_MAX ? nint : STEP_HEALTH_SERIES_MAX);
    ds->smax = calloc (ds->nint, sizeof *ds->smax);
    ds->ssum = calloc (ds->nint, sizeof *ds->ssum);
    ds->scount = calloc (ds->nint, sizeof *ds->scount);
    if (!ds->smax || !ds->ssum || !ds->scount)
        return -1;
    temps_at_t at = { .ds = ds };
    return scan_blocks (store, run, step, 0, &at, temp_of);
}

/* The step's temperature series: the fleet's highest and mean each
   interval, and the hottest drives' own (a second pass over their
   agents' blocks).  NULL when no drive had one; *rc -1 on an error. */
static json_t *
series_json (store_t *store, int64_t run, int step, drives_t *ds, int *rc)
{
    *rc = 0;
    bool any = false;
    for (uint32_t k = 0; k < ds->nint && !any; k++)
        any = ds->scount[k] > 0;
    if (!any)
        return NULL;
    json_t *mx = json_array (), *mean = json_array ();
    for (uint32_t k = 0; k < ds->nint; k++) {
        uint32_t n = ds->scount[k];
        json_array_append_new (mx, n ? json_real (round (ds->smax[k] * 10) / 10) : json_null ());
        json_array_append_new (mean, n ? json_real (round (ds->ssum[k] / n * 10) / 10)
                                       : json_null ());
    }
    /* The hottest drives first, the hot ones only. */
    json_t *named = json_array ();
    bool *taken = calloc (ds->n ? ds->n : 1, sizeof *taken);
    for (int m = 0; taken && m < SERIES_DRIVES_MAX && *rc == 0; m++) {
        size_t best = ds->n;
        for (size_t i = 0; i < ds->n; i++)
            if (!taken[i] && !ds->d[i].skip && ds->d[i].temps.n && health_judge_hot (&ds->d[i].j)
                && (best == ds->n || ds->d[i].j.temp_max_c > ds->d[best].j.temp_max_c))
                best = i;
        if (best == ds->n)
            break;
        taken[best] = true;
        const drive_t *d = &ds->d[best];
        json_t *c = json_array ();
        for (uint32_t k = 0; k < ds->nint; k++)
            json_array_append_new (c, json_null ());
        temps_at_t at = { .ds = ds, .only = d, .series = c };
        *rc = scan_blocks (store, run, step, d->agent_id, &at, temp_of_one);
        json_array_append_new (named, json_pack ("{s:O, s:O, s:o}", "agent", d->agent, "target",
                                                 d->target, "c", c));
    }
    free (taken);
    return json_pack ("{s:f, s:o, s:o, s:o}", "interval_s", (double) ds->span / 1e9, "max_c", mx,
                      "mean_c", mean, "drives", named);
}

/* The rule's verdict over the drives, or NULL without a rule. */
static json_t *
rule_json (drives_t *ds, const char *text, bool *failed)
{
    health_rule_t rule;
    char err[256];
    if (!text || health_rule_parse (text, &rule, err, sizeof err))
        return NULL;
    json_t *fails = json_array ();
    int not_judged = 0;
    for (size_t i = 0; i < ds->n; i++) {
        if (ds->d[i].skip)
            continue;
        bool skipped = false;
        for (int c = 0; c < rule.n; c++) {
            char why[160];
            int ok = health_rule_check (&rule.c[c], &ds->d[i].j, why, sizeof why);
            skipped |= ok < 0;
            if (ok == 0)
                json_array_append_new (fails, json_pack ("{s:O, s:O, s:s, s:s}", "agent",
                    ds->d[i].agent, "target", ds->d[i].target, "condition", rule.c[c].text,
                    "why", why));
        }
        not_judged += skipped;
    }
    *failed = json_array_size (fails) > 0;
    return json_pack ("{s:s, s:b, s:o, s:i}", "conditions", text, "pass", !*failed, "failures",
                      fails, "drives_not_judged", not_judged);
}

int
step_health_add (store_t *store, int64_t run, int step, json_t *job, json_t *keep, json_t *s,
                 bool *judged, bool *failed)
{
    drives_t ds = { 0 };
    *failed = false;
    const char *rule_text = json_string_value (json_object_get (job, "health"));
    *judged = rule_text != NULL;
    if (load_drives (store, run, step, &ds) || index_agents (&ds)) {
        drives_free (&ds);
        return -1;
    }
    /* The --where first: the fleet's series is of the kept drives. */
    for (size_t i = 0; keep && i < ds.n; i++) {
        char key[STEP_HEALTH_KEY_MAX];
        step_health_key (json_string_value (ds.d[i].agent), json_string_value (ds.d[i].target),
                         key, sizeof key);
        ds.d[i].skip = !json_object_get (keep, key);
    }
    if (load_temps (store, run, step, &ds)) {
        drives_free (&ds);
        return -1;
    }
    json_t *unavailable = json_object (), *list = json_array (), *causes = json_object ();
    int reporting = 0, not_sent = 0, total = 0;
    for (size_t i = 0; i < ds.n; i++)
        total += !ds.d[i].skip;
    bool all = total <= STEP_HEALTH_LIST_ALL;
    for (size_t i = 0; i < ds.n; i++) {
        drive_t *d = &ds.d[i];
        if (d->skip)
            continue;
        health_judge (d->has_before ? &d->before : NULL, d->has_after ? &d->after : NULL,
                      &d->temps, &d->j);
        if (d->j.available)
            reporting++;
        else if (!d->before_j && !d->after_j)
            not_sent++;
        else {
            json_t *c = json_object_get (unavailable, d->j.reason);
            json_object_set_new (unavailable, d->j.reason,
                                 json_integer (c ? json_integer_value (c) + 1 : 1));
        }
        json_t *jj = health_judge_json (&d->j);
        json_t *findings = json_object_get (jj, "findings");
        if (json_array_size (findings)) {
            char key[STEP_HEALTH_KEY_MAX];
            step_health_key (json_string_value (d->agent), json_string_value (d->target), key,
                             sizeof key);
            json_object_set (causes, key, json_array_get (findings, 0));
        }
        if (!all && !json_array_size (findings)) {
            json_decref (jj);
            continue;
        }
        json_t *e = json_pack ("{s:O, s:O, s:o}", "agent", d->agent, "target", d->target,
                               "judgement", jj);
        if (json_is_object (d->drive))
            json_object_set_new (e, "drive", json_pack ("{s:O?, s:O?, s:O?}", "model",
                json_object_get (d->drive, "model"), "serial", json_object_get (d->drive, "serial"),
                "firmware", json_object_get (d->drive, "firmware")));
        if (d->before_j)
            json_object_set (e, "before", d->before_j);
        if (d->after_j)
            json_object_set (e, "after", d->after_j);
        json_array_append_new (list, e);
    }
    json_t *h = json_pack ("{s:i, s:i, s:i, s:o, s:s, s:o}", "drives_total", total,
                           "reporting", reporting, "not_sent", not_sent, "unavailable",
                           unavailable, "listed", all ? "all" : "with findings", "drives", list);
    int src;
    json_t *series = series_json (store, run, step, &ds, &src);
    json_object_set_new (h, "temperature", series ? series : json_null ());
    json_t *rule = rule_json (&ds, rule_text, failed);
    if (rule)
        json_object_set_new (h, "rule", rule);
    json_object_set_new (s, "health", h);
    /* The outliers' causes, where the drive's health has one. */
    size_t oi;
    json_t *o;
    json_array_foreach (json_object_get (s, "outliers"), oi, o) {
        /* A host's outlier (its target null) has no drive to blame. */
        if (!json_is_string (json_object_get (o, "target")))
            continue;
        char key[STEP_HEALTH_KEY_MAX];
        step_health_key (json_string_value (json_object_get (o, "agent")),
                         json_string_value (json_object_get (o, "target")), key, sizeof key);
        json_t *cause = json_object_get (causes, key);
        if (cause)
            json_object_set (o, "health_cause", cause);
    }
    json_decref (causes);
    drives_free (&ds);
    return src;
}

void
step_health_key (const char *agent, const char *target, char *out, size_t cap)
{
    snprintf (out, cap, "%s\x1f%s", agent ? agent : "", target ? target : "");
}

/* ---- history (history.c): a health figure of a step's drives, by group ---- */

static const char *const s_metrics[] = {
    "temperature.max", "temperature.mean", "media_errors.delta", "error_log_entries.delta",
    "throttle.transitions", "waf",
};

const char *
step_health_metrics_text (void)
{
    static char text[256];
    if (!text[0]) {
        size_t off = 0, n = sizeof s_metrics / sizeof *s_metrics;
        for (size_t i = 0; i < n; i++)
            off += (size_t) snprintf (text + off, sizeof text - off, "%s%s", i == 0 ? ""
                                      : i + 1 == n ? " or " : ", ", s_metrics[i]);
    }
    return text;
}

bool
step_health_is_metric (const char *metric)
{
    for (size_t i = 0; i < sizeof s_metrics / sizeof *s_metrics; i++)
        if (strcmp (metric, s_metrics[i]) == 0)
            return true;
    return false;
}

const char *
step_health_metric_unit (const char *metric)
{
    return strncmp (metric, "temperature.", 12) == 0 ? "C"
           : strcmp (metric, "waf") == 0 ? "ratio" : "count";
}

int
step_health_by_check (const char *by, char *err, size_t errlen)
{
    if (!by || strcmp (by, "agent") == 0 || strcmp (by, "transport") == 0)
        return 0;
    if (strncmp (by, "drive.", 6) == 0) {
        static const char *const fields[] = { "model", "firmware", "transport", "serial",
                                              "controller", "name" };
        for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
            if (strcmp (by + 6, fields[i]) == 0)
                return 0;
    }
    if (strncmp (by, "health.", 7) == 0 && health_field_by_name (by + 7) >= 0)
        return 0;
    snprintf (err, errlen, "--by '%.64s' with a health metric: use agent, transport, "
              "drive.model, drive.firmware, drive.transport, drive.serial, drive.controller, "
              "drive.name or health.FIELD (a field of the drive's record before the step, e.g. "
              "health.percentage_used, in buckets)", by);
    return -1;
}

/* The group drive d is in for by.  Can't fail. */
static void
group_of (const drive_t *d, const char *by, char *buf, size_t cap)
{
    const char *v = NULL;
    if (!by)
        v = "all";
    else if (strcmp (by, "agent") == 0)
        v = json_string_value (d->agent);
    else if (strcmp (by, "transport") == 0)
        v = json_string_value (json_object_get (d->drive, "transport"));
    else if (strncmp (by, "drive.", 6) == 0)
        v = json_string_value (json_object_get (d->drive, by + 6));
    else {
        int f = health_field_by_name (by + 7);
        if (f >= 0 && d->has_before && health_has (&d->before, (health_field_t) f)) {
            health_bucket ((health_field_t) f, d->before.v[f], buf, cap);
            return;
        }
        v = d->has_before ? "(not reported)" : "(unavailable)";
    }
    snprintf (buf, cap, "%s", v ? v : "(unknown)");
}

json_t *
step_health_history (store_t *store, int64_t run, int step, const char *metric, const char *by)
{
    drives_t ds = { 0 };
    if (load_drives (store, run, step, &ds) || index_agents (&ds)
        || (strncmp (metric, "temperature.", 12) == 0 && load_temps (store, run, step, &ds))) {
        drives_free (&ds);
        return NULL;
    }
    /* Per group: the highest, and the sums the others need. */
    json_t *groups = json_object ();
    for (size_t i = 0; i < ds.n; i++) {
        drive_t *d = &ds.d[i];
        health_judge (d->has_before ? &d->before : NULL, d->has_after ? &d->after : NULL,
                      &d->temps, &d->j);
        char g[256];
        group_of (d, by, g, sizeof g);
        /* Cut where snprintf may have split a character: jansson takes
           only UTF-8 keys. */
        long bad = utf8_invalid_at (g, strlen (g));
        if (bad >= 0)
            g[bad] = '\0';
        json_t *acc = json_object_get (groups, g);
        if (!acc) {
            acc = json_pack ("{s:f, s:f, s:f, s:i, s:i}", "max", -DBL_MAX, "sum", 0.0, "sum2",
                             0.0, "n", 0, "drives", 0);
            json_object_set_new (groups, g, acc);
        }
        json_object_set_new (acc, "drives", json_integer (json_integer_value (
            json_object_get (acc, "drives")) + 1));
        double x = NAN, y = 0;
        const health_judgement_t *j = &d->j;
        if (strcmp (metric, "temperature.max") == 0)
            x = j->have_temp ? j->temp_max_c : NAN;
        else if (strcmp (metric, "temperature.mean") == 0)
            x = j->nsamples ? j->temp_mean_c : NAN;
        else if (strcmp (metric, "media_errors.delta") == 0)
            x = j->media_errors >= 0 ? (double) j->media_errors : NAN;
        else if (strcmp (metric, "error_log_entries.delta") == 0)
            x = j->error_log_entries >= 0 ? (double) j->error_log_entries : NAN;
        else if (strcmp (metric, "throttle.transitions") == 0)
            x = j->throttle_transitions >= 0 ? (double) j->throttle_transitions : NAN;
        else if (j->host_written > 0 && j->nand_written >= 0) {      /* waf */
            x = (double) j->nand_written;
            y = (double) j->host_written;
        }
        if (isnan (x))
            continue;
        json_object_set_new (acc, "max", json_real (fmax (x, json_real_value (
            json_object_get (acc, "max")))));
        json_object_set_new (acc, "sum", json_real (json_real_value (json_object_get (acc, "sum"))
                                                    + x));
        json_object_set_new (acc, "sum2", json_real (json_real_value (json_object_get (acc,
                                                     "sum2")) + y));
        json_object_set_new (acc, "n", json_integer (json_integer_value (json_object_get (acc,
                                                     "n")) + 1));
    }
    drives_free (&ds);
    /* The group's figure: the highest temperature, the mean of the drives'
       means, the sum of the counters, the NAND over the host bytes of the
       drives that count both. */
    json_t *out = json_array ();
    const char *g;
    json_t *acc;
    json_object_foreach (groups, g, acc) {
        double n = (double) json_integer_value (json_object_get (acc, "n"));
        double sum = json_real_value (json_object_get (acc, "sum"));
        double sum2 = json_real_value (json_object_get (acc, "sum2"));
        double v = n == 0 ? NAN
                 : strcmp (metric, "temperature.max") == 0 ? json_real_value (json_object_get (acc,
                                                                                   "max"))
                 : strcmp (metric, "temperature.mean") == 0 ? sum / n
                 : strcmp (metric, "waf") == 0 ? (sum2 > 0 ? sum / sum2 : NAN) : sum;
        json_array_append_new (out, json_pack ("{s:s, s:o, s:O, s:I}", "value", g, "figure",
            isfinite (v) ? json_real (round (v * 1000) / 1000) : json_null (), "drives",
            json_object_get (acc, "drives"), "reporting", (json_int_t) n));
    }
    json_decref (groups);
    return out;
}
