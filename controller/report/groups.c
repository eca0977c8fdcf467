/*  groups.c: a step's results by group (any key of common/match.h:
    transport, drive model or firmware, HBA model or firmware, host, agent,
    a label) from merged histograms, the members that stand out within each
    group, and the members a report keeps (--where). */
#include "controller.h"
#include "histogram.h"
#include "match.h"
#include "outliers.h"
#include "series.h"
#include "util.h"
#include "groups.h"
#include "inventories.h"
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GROUPS_MAX 256

typedef struct {
    char value[256];
    histogram_t hist[DIR_COUNT];
    uint64_t ops[DIR_COUNT], bytes[DIR_COUNT];
    double iops[DIR_COUNT], bw[DIR_COUNT];
    int targets;
    int rows[DIR_COUNT];    /* members' result rows: a trim row only where trims were */
    int nohist[DIR_COUNT];  /* members with I/O but no histogram (fio imports) */
    json_t *pct[DIR_COUNT]; /* the stored percentiles of such a member */
} group_t;

/* The labels of an agent, or NULL: none, or a database error (logged,
   *failed set). */
static json_t *
agent_labels (store_t *store, const char *agent, bool *failed)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT labels FROM agents WHERE name = ?");
    sqlite3_bind_text (st, 1, agent, -1, SQLITE_TRANSIENT);
    json_t *l = NULL;
    int rc = store_row (store, st, "read the agent's labels");
    if (rc == 1)
        l = json_loads ((const char *) sqlite3_column_text (st, 0), 0, NULL);
    sqlite3_reset (st);
    *failed |= rc < 0;
    return l;
}

/* An agent's drive health records before step of run, by target label
   ({label: record}), or NULL: none (an agent before them), or a database
   error (logged, *failed set). */
static json_t *
agent_health (store_t *store, int64_t run, int step, const char *agent, bool *failed)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT sa.targets, sa.health_before FROM step_agents sa JOIN agents a "
        "ON a.id = sa.agent_id WHERE sa.run_id = ? AND sa.step_idx = ? AND a.name = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    sqlite3_bind_text (st, 3, agent, -1, SQLITE_TRANSIENT);
    json_t *by_label = NULL;
    int rc = store_row (store, st, "read the agent's drive health");
    if (rc == 1 && sqlite3_column_type (st, 1) == SQLITE_TEXT) {
        json_t *labels = json_loads ((const char *) sqlite3_column_text (st, 0), 0, NULL);
        json_t *recs = json_loads ((const char *) sqlite3_column_text (st, 1), 0, NULL);
        by_label = json_object ();
        size_t i;
        json_t *l;
        json_array_foreach (labels, i, l)
            if (json_is_string (l) && json_array_get (recs, i))
                json_object_set (by_label, json_string_value (l), json_array_get (recs, i));
        json_decref (labels);
        json_decref (recs);
    }
    sqlite3_reset (st);
    *failed |= rc < 0;
    return by_label;
}

/* The run's labels, or NULL: none, or a database error (logged, *failed
   set). */
static json_t *
run_labels (store_t *store, int64_t run, bool *failed)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT labels FROM runs WHERE id = ?");
    sqlite3_bind_int64 (st, 1, run);
    json_t *l = NULL;
    int rc = store_row (store, st, "read the run's labels");
    if (rc == 1 && sqlite3_column_type (st, 0) == SQLITE_TEXT)
        l = json_loads ((const char *) sqlite3_column_text (st, 0), 0, NULL);
    sqlite3_reset (st);
    *failed |= rc < 0;
    if (l && (!json_is_object (l) || json_object_size (l) == 0)) {
        json_decref (l);
        l = NULL;
    }
    return l;
}

int
groups_key_check (const char *by, char *err, size_t errlen)
{
    match_key_t key;
    return match_key_parse ("--by", by, &key, err, errlen);
}

/* What keys of one step are read from: each agent's labels and its
   inventory at the step, loaded once and only when a key needs them. */
typedef struct {
    store_t *store;
    int64_t run;
    int step;
    json_t *run_labels;         /* owned, NULL: none */
    json_t *agents;             /* name -> {"labels", "inventory", "health"} */
    bool labels, inventory, health;
    bool failed;                /* a read failed: what was read is incomplete */
} members_t;

static void
members_init (members_t *m, store_t *store, int64_t run, int step)
{
    memset (m, 0, sizeof *m);
    m->store = store;
    m->run = run;
    m->step = step;
    m->run_labels = run_labels (store, run, &m->failed);
    m->agents = json_object ();
}

static void
members_need (members_t *m, const match_key_t *key)
{
    m->labels |= match_needs_labels (key);
    m->inventory |= match_needs_inventory (key);
    m->health |= match_needs_health (key);
}

static void
members_fini (members_t *m)
{
    json_decref (m->run_labels);
    json_decref (m->agents);
}

/* The subject of agent aj's target tj (NULL: the agent as a whole). */
static void
subject_of (members_t *m, json_t *aj, json_t *tj, match_subject_t *s)
{
    const char *name = json_string_value (json_object_get (aj, "agent"));
    json_t *c = name ? json_object_get (m->agents, name) : NULL;
    if (name && !c) {
        c = json_object ();
        if (m->labels)
            json_object_set_new (c, "labels", agent_labels (m->store, name, &m->failed));
        if (m->inventory)
            json_object_set_new (c, "inventory", inventories_at_step (m->store, NULL, m->run, m->step, name,
                                                                 &m->failed));
        if (m->health)
            json_object_set_new (c, "health", agent_health (m->store, m->run, m->step, name,
                                                            &m->failed));
        json_object_set_new (m->agents, name, c);
    }
    memset (s, 0, sizeof *s);
    s->agent = name;
    s->hostname = json_string_value (json_object_get (aj, "hostname"));
    s->labels = json_object_get (c, "labels");
    s->inventory = json_object_get (c, "inventory");
    s->target = tj != NULL;
    s->drive = json_object_get (tj, "drive");
    s->run_labels = m->run_labels;
    s->health = json_object_get (json_object_get (c, "health"),
                                 json_string_value (json_object_get (tj, "target")));
}

struct groups_sel {
    members_t m;
    const match_cond_t *conds;
    int nconds;
    json_t *values;
    int kept, agents_total, targets, targets_total;
};

groups_sel_t *
groups_sel_new (store_t *store, int64_t run, int step, const match_cond_t *conds, int nconds,
                json_t *values)
{
    groups_sel_t *g = calloc (1, sizeof *g);
    if (!g)
        return NULL;
    members_init (&g->m, store, run, step);
    for (int i = 0; i < nconds; i++)
        members_need (&g->m, &conds[i].key);
    g->conds = conds;
    g->nconds = nconds;
    g->values = values;
    return g;
}

bool
groups_sel_agent (groups_sel_t *g, json_t *aj)
{
    json_t *tl = json_object_get (aj, "targets");
    match_subject_t subj;
    char v[256];
    size_t ti;
    json_t *tj;
    g->agents_total++;
    if (json_array_size (tl) == 0) {
        /* Nothing measured (refused, lost before its first interval):
           the agent is judged as a whole, as --agents judges it. */
        subject_of (&g->m, aj, NULL, &subj);
        if (g->values && g->nconds && match_value (&g->conds[0].key, &subj, v, sizeof v))
            json_object_set_new (g->values, v, json_true ());
        if (!match_all (g->conds, g->nconds, &subj))
            return false;
        g->kept++;
        return true;
    }
    json_t *keep = json_array ();
    json_array_foreach (tl, ti, tj) {
        g->targets_total++;
        subject_of (&g->m, aj, tj, &subj);
        if (g->values && g->nconds && match_value (&g->conds[0].key, &subj, v, sizeof v))
            json_object_set_new (g->values, v, json_true ());
        if (match_all (g->conds, g->nconds, &subj))
            json_array_append (keep, tj);
    }
    bool kept = json_array_size (keep) > 0;
    if (kept) {
        g->targets += (int) json_array_size (keep);
        /* The agent's own sums are of the targets it keeps. */
        double iops = 0, bw = 0;
        json_array_foreach (keep, ti, tj)
            for (int d = 0; d < DIR_COUNT; d++) {
                json_t *dj = json_object_get (tj, dir_name (d));
                iops += json_number_value (json_object_get (dj, "iops"));
                bw += json_number_value (json_object_get (dj, "bw"));
            }
        json_object_set (aj, "targets", keep);
        json_object_set_new (aj, "iops", json_real (iops));
        json_object_set_new (aj, "bw", json_real (bw));
        g->kept++;
    }
    json_decref (keep);
    return kept;
}

int
groups_sel_end (groups_sel_t *g, json_t *s)
{
    json_object_set_new (s, "selected", json_pack ("{s:i, s:i, s:i, s:i}", "agents", g->kept,
                         "agents_of", g->agents_total, "targets", g->targets,
                         "targets_of", g->targets_total));
    bool failed = g->m.failed;
    int kept = g->kept;
    members_fini (&g->m);
    free (g);
    /* A subject read without its labels or inventory may have been
       judged wrongly: no selection rather than a wrong one. */
    return failed ? -1 : kept;
}

int
groups_select (store_t *store, int64_t run, int step, json_t *s, const match_cond_t *conds,
               int nconds, json_t *values)
{
    groups_sel_t *g = groups_sel_new (store, run, step, conds, nconds, values);
    if (!g)
        return -1;
    json_t *out = json_array ();
    size_t ai;
    json_t *aj;
    json_array_foreach (json_object_get (s, "agents"), ai, aj)
        if (groups_sel_agent (g, aj))
            json_array_append (out, aj);
    json_object_set_new (s, "agents", out);
    return groups_sel_end (g, s);
}

json_t *
groups_members_json (int agents, int targets, double iops, double bw)
{
    return json_pack ("{s:i, s:i, s:f, s:f, s:f, s:f}", "agents", agents, "targets", targets,
        "iops_per_agent", agents ? iops / agents : 0.0,
        "iops_per_target", targets ? iops / targets : 0.0,
        "bw_per_agent", agents ? bw / agents : 0.0,
        "bw_per_target", targets ? bw / targets : 0.0);
}

static group_t *
group_of (group_t *g, int *n, const char *value)
{
    for (int i = 0; i < *n; i++)
        if (strcmp (g[i].value, value) == 0)
            return &g[i];
    if (*n == GROUPS_MAX)
        return NULL;
    group_t *x = &g[(*n)++];
    memset (x, 0, sizeof *x);
    snprintf (x->value, sizeof x->value, "%s", value);
    for (int d = 0; d < DIR_COUNT; d++)
        histogram_reset (&x->hist[d]);
    return x;
}

static json_t *
group_dir_json (const group_t *g, int d)
{
    const histogram_t *h = &g->hist[d];
    if (g->nohist[d]) {
        /* fio's percentiles of one job stand; several cannot be merged. */
        bool one = g->nohist[d] == 1 && h->count == 0 && g->pct[d];
        return json_pack ("{s:I, s:I, s:f, s:f, s:n, s:O, s:I, s:b, s:s}",
            "ops", (json_int_t) g->ops[d], "bytes", (json_int_t) g->bytes[d],
            "iops", g->iops[d], "bw", g->bw[d], "lat_ns",
            "percentiles", one ? g->pct[d] : json_null (), "histogram_count", (json_int_t) h->count,
            "percentiles_only", 1, "note", one ? "fio's percentiles of the one job of this group"
            : "members have fio's percentiles only (no json+ bins): they cannot be merged");
    }
    static const double p[] = { 50, 90, 95, 99, 99.9, 99.99 };
    static const char *k[] = { "p50", "p90", "p95", "p99", "p99.9", "p99.99" };
    json_t *pct = json_object ();
    for (int i = 0; i < 6; i++)
        json_object_set_new (pct, k[i], json_integer ((json_int_t) histogram_percentile (h, p[i])));
    return json_pack ("{s:I, s:I, s:f, s:f, s:{s:I, s:I, s:f}, s:o, s:I}",
        "ops", (json_int_t) g->ops[d], "bytes", (json_int_t) g->bytes[d],
        "iops", g->iops[d], "bw", g->bw[d],
        "lat_ns", "min", (json_int_t) (h->count ? h->min : 0), "max", (json_int_t) h->max,
        "mean", histogram_mean (h), "percentiles", pct, "histogram_count", (json_int_t) h->count);
}

/* Outliers among members[0..n) of one group for one metric. */
static void
flag (json_t *outliers, const char *group, const char *metric, json_t **who, const double *v,
      int n)
{
    if (n < 3)
        return;
    double *score = malloc ((size_t) n * sizeof *score), median;
    bool *flagged = malloc ((size_t) n * sizeof *flagged);
    if (!score || !flagged) {
        free (score);
        free (flagged);
        return;
    }
    outliers_find (v, n, &median, score, flagged);
    for (int i = 0; i < n; i++)
        if (flagged[i]) {
            json_t *o = json_deep_copy (who[i]);
            json_object_set_new (o, "group", json_string (group));
            json_object_set_new (o, "metric", json_string (metric));
            json_object_set_new (o, "value", json_real (v[i]));
            json_object_set_new (o, "group_median", json_real (median));
            json_object_set_new (o, "deviation_pct",
                                 json_real (median ? 100.0 * (v[i] - median) / median : 0));
            json_object_set_new (o, "score", isinf (score[i]) ? json_string (score[i] > 0 ? "inf" : "-inf")
                                                              : json_real (score[i]));
            json_array_append_new (outliers, o);
        }
    free (score);
    free (flagged);
}

/* The group of a stored snapshot row (arg: "agent\x1fINDEX" -> group, as
   group_intervals makes it), or -1.  Can't fail. */
static int
pick_group (void *arg, const char *agent, int target)
{
    char key[MSG_NAME_MAX + 32];
    snprintf (key, sizeof key, "%s\x1f%d", agent, target);
    json_t *g = json_object_get ((json_t *) arg, key);
    return g ? (int) json_integer_value (g) : -1;
}

/* Each group's per-interval series, as the fleet's "intervals" of a step
   (seq, iops, bw, and per direction reported ops, iops, p50, p99), so that compare
   can judge a group's change against its own interval-to-interval noise.
   by_key: each member's group (its name) by "agent\x1ftarget";
   values[0..n) the groups' values.  Returns 0, or -1 on a database error
   or when out of memory (logged; out[] then hold what was merged). */
static int
group_intervals (store_t *store, int64_t run, int step, json_t *by_key, json_t **out,
                 const char *const *values, int n)
{
    /* (agent, target index) -> group, through the step's target lists
       and the members by "agent\x1ftarget". */
    json_t *index = json_object ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, sa.targets FROM step_agents sa JOIN agents a ON a.id = sa.agent_id "
        "WHERE sa.run_id = ? AND sa.step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int rc;
    while ((rc = store_row (store, st, "read the step's agents' targets")) == 1) {
        const char *agent = (const char *) sqlite3_column_text (st, 0);
        json_t *tl = json_loads ((const char *) sqlite3_column_text (st, 1), 0, NULL);
        size_t ti;
        json_t *t;
        json_array_foreach (tl, ti, t) {
            if (!json_string_value (t))
                continue;
            char key[MSG_NAME_MAX + MSG_TEXT_MAX + 32];
            snprintf (key, sizeof key, "%s\x1f%s", agent, json_string_value (t));
            json_t *m = json_object_get (by_key, key);
            for (int g = 0; m && g < n; g++)
                if (strcmp (values[g], json_string_value (m)) == 0) {
                    snprintf (key, sizeof key, "%s\x1f%zu", agent, ti);
                    json_object_set_new (index, key, json_integer (g));
                }
        }
        json_decref (tl);
    }
    sqlite3_reset (st);
    /* out[] is filled even after an error: the caller owns what is in it. */
    if (series_scan (store, run, step, pick_group, index, n, SERIES_JSON_GROUP, out))
        rc = -1;
    json_decref (index);
    return rc < 0 ? -1 : 0;
}

/* A target's IOPS over every direction it has.  Can't fail. */
static double
target_iops (json_t *tj)
{
    double sum = 0;
    for (int d = 0; d < DIR_COUNT; d++)
        sum += json_number_value (json_object_get (json_object_get (tj, dir_name (d)), "iops"));
    return sum;
}

/* A member (target) as the groups and outliers need it, not its tree. */
typedef struct {
    json_t *agent, *target;     /* their names (references) */
    json_t *group;              /* its group's name (held by groups_acc_t's names) */
    double iops, p99;
} member_t;

struct groups_acc {
    store_t *store;
    int64_t run;
    int step;
    const char *key;            /* by, or "all" */
    bool by, selected;
    match_key_t bykey;
    members_t mem;
    member_t *members;
    size_t nmembers, cap;
    json_t *names;              /* group name -> that name as a string, shared */
    json_t *by_key;             /* "agent\x1ftarget" -> its group's name */
    json_t *group_agents;       /* group -> {agent: true} */
    bool failed;                /* out of memory: members are missing */
    bool figures_only;          /* no per-group series, no outliers */
};

groups_acc_t *
groups_acc_new (store_t *store, int64_t run, int step, const char *by, bool selected,
                char *err, size_t errlen)
{
    match_key_t bykey;
    if (by && match_key_parse ("--by", by, &bykey, err, errlen))
        return NULL;
    groups_acc_t *g = calloc (1, sizeof *g);
    if (!g) {
        snprintf (err, errlen, "out of memory grouping by %s", by ? by : "all");
        return NULL;
    }
    g->store = store;
    g->run = run;
    g->step = step;
    g->key = by ? by : "all";
    g->by = by != NULL;
    g->selected = selected;
    if (by)
        g->bykey = bykey;
    members_init (&g->mem, store, run, step);
    if (by)
        members_need (&g->mem, &g->bykey);
    g->names = json_object ();
    g->by_key = json_object ();
    g->group_agents = json_object ();
    return g;
}

void
groups_acc_agent (groups_acc_t *g, json_t *aj)
{
    size_t ti;
    json_t *tj;
    const char *agent_name = json_string_value (json_object_get (aj, "agent"));
    json_array_foreach (json_object_get (aj, "targets"), ti, tj) {
        char value[256] = "all";
        if (g->by) {
            match_subject_t subj;
            subject_of (&g->mem, aj, tj, &subj);
            match_value (&g->bykey, &subj, value, sizeof value);
        }
        json_t *ga = json_object_get (g->group_agents, value);
        if (!ga) {
            ga = json_object ();
            json_object_set_new (g->group_agents, value, ga);
        }
        if (agent_name)
            json_object_set_new (ga, agent_name, json_true ());
        /* Outliers: its IOPS (all directions) and p99 (of the busier of
           reads and writes: trims are not offered, a discard's latency
           says little of the drive's service). */
        json_t *r = json_object_get (tj, "read"), *w = json_object_get (tj, "write");
        double ri = json_number_value (json_object_get (r, "iops"));
        double wi = json_number_value (json_object_get (w, "iops"));
        json_t *busier = ri >= wi ? r : w;
        json_t *name = json_object_get (g->names, value);
        if (!name) {
            name = json_string (value);
            json_object_set_new (g->names, value, name);
        }
        /* The target says its group: the heatmap colours it against its
           group's median. */
        if (g->by)
            json_object_set (tj, "group", name);
        member_t *m = array_room (g->members, &g->cap, g->nmembers, sizeof *m, 256);
        if (!m) {
            g->failed = true;
            return;
        }
        g->members = m;
        g->members[g->nmembers++] = (member_t) {
            .agent = json_incref (json_object_get (aj, "agent")),
            .target = json_incref (json_object_get (tj, "target")),
            .group = name,
            .iops = target_iops (tj),
            .p99 = json_number_value (json_object_get (json_object_get (busier, "percentiles"),
                                                       "p99")),
        };
        const char *tn = json_string_value (json_object_get (tj, "target"));
        if (agent_name && tn) {
            char k[MSG_NAME_MAX + MSG_TEXT_MAX + 32];
            snprintf (k, sizeof k, "%s\x1f%s", agent_name, tn);
            json_object_set (g->by_key, k, name);
        }
    }
}

/* Merges each member's stored histograms into its group: groups[*n].
   Returns 0, or -1 on a database error (logged). */
static int
merge_groups (groups_acc_t *a, group_t *groups, int *ngroups)
{
    sqlite3_stmt *st = store_stmt (a->store,
        "SELECT a.name, r.target, r.direction, r.ops, r.bytes, r.iops, r.bw, r.hist, "
        " r.percentiles "
        "FROM results r JOIN agents a ON a.id = r.agent_id WHERE r.run_id = ? AND r.step_idx = ?");
    sqlite3_bind_int64 (st, 1, a->run);
    sqlite3_bind_int (st, 2, a->step);
    int rc;
    while ((rc = store_row (a->store, st, "read the step's results")) == 1) {
        const char *agent = (const char *) sqlite3_column_text (st, 0);
        const char *target = (const char *) sqlite3_column_text (st, 1);
        int d = dir_from_name ((const char *) sqlite3_column_text (st, 2));
        if (d < 0)
            continue;           /* the schema's CHECK allows no other */
        char k[MSG_NAME_MAX + MSG_TEXT_MAX + 32];
        snprintf (k, sizeof k, "%s\x1f%s", agent, target);
        json_t *found = json_object_get (a->by_key, k);
        if (!found && a->selected)
            continue;           /* not selected (--where) */
        group_t *g = group_of (groups, ngroups, found ? json_string_value (found) : "unknown");
        if (!g)
            continue;
        g->ops[d] += (uint64_t) sqlite3_column_int64 (st, 3);
        g->bytes[d] += (uint64_t) sqlite3_column_int64 (st, 4);
        g->iops[d] += sqlite3_column_double (st, 5);
        g->bw[d] += sqlite3_column_double (st, 6);
        g->rows[d]++;
        g->targets += d == DIR_READ;    /* every target has a read row */
        const void *blob = sqlite3_column_blob (st, 7);
        int len = sqlite3_column_bytes (st, 7);
        uint64_t count = 0;
        if (blob && len > 0 && histogram_check (blob, (size_t) len, &count) == 0)
            histogram_decode_add (&g->hist[d], blob, (size_t) len);
        if (sqlite3_column_type (st, 8) != SQLITE_NULL && sqlite3_column_int64 (st, 3) > 0
            && count == 0) {
            g->nohist[d]++;
            json_decref (g->pct[d]);
            g->pct[d] = json_loads ((const char *) sqlite3_column_text (st, 8), 0, NULL);
        }
    }
    sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

/* The outliers within each group: each target's IOPS and p99, and each
   agent's IOPS over its targets.  Returns a new array (empty when out of
   memory). */
static json_t *
group_outliers (groups_acc_t *a, const group_t *groups, int ngroups)
{
    json_t *outliers = json_array ();
    size_t nm = a->nmembers;
    json_t **who = calloc (nm ? nm : 1, sizeof *who);
    double *iops = calloc (nm ? nm : 1, sizeof *iops), *p99 = calloc (nm ? nm : 1, sizeof *p99);
    json_t *agent_at = json_object ();      /* agent -> its index in who, this group */
    for (int g = 0; g < ngroups && who && iops && p99 && agent_at; g++) {
        int n = 0;
        for (size_t mi = 0; mi < nm; mi++) {
            const member_t *m = &a->members[mi];
            if (strcmp (json_string_value (m->group), groups[g].value))
                continue;
            who[n] = json_pack ("{s:O, s:O}", "agent", m->agent, "target", m->target);
            iops[n] = m->iops;
            p99[n] = m->p99;
            n++;
        }
        flag (outliers, groups[g].value, "iops", who, iops, n);
        flag (outliers, groups[g].value, "p99", who, p99, n);
        for (int i = 0; i < n; i++)
            json_decref (who[i]);
        /* Agents of the group: their IOPS summed over their targets. */
        int na = 0;
        json_object_clear (agent_at);
        for (size_t mi = 0; mi < nm; mi++) {
            const member_t *m = &a->members[mi];
            if (strcmp (json_string_value (m->group), groups[g].value))
                continue;
            const char *agent = json_string_value (m->agent);
            json_t *at = json_object_get (agent_at, agent);
            int k = at ? (int) json_integer_value (at) : na;
            if (!at) {
                json_object_set_new (agent_at, agent, json_integer (na));
                who[na] = json_pack ("{s:s, s:n}", "agent", agent, "target");
                iops[na++] = 0;
            }
            iops[k] += m->iops;
        }
        flag (outliers, groups[g].value, "host_iops", who, iops, na);
        for (int i = 0; i < na; i++)
            json_decref (who[i]);
    }
    free (who);
    free (iops);
    free (p99);
    json_decref (agent_at);
    return outliers;
}

void
groups_acc_free (groups_acc_t *a)
{
    if (!a)
        return;
    members_fini (&a->mem);
    for (size_t i = 0; i < a->nmembers; i++) {
        json_decref (a->members[i].agent);
        json_decref (a->members[i].target);
    }
    free (a->members);
    json_decref (a->names);
    json_decref (a->by_key);
    json_decref (a->group_agents);
    free (a);
}

int
groups_acc_end (groups_acc_t *a, json_t *s, char *err, size_t errlen)
{
    int ngroups = 0;
    /* Not static: reports are built on reader threads and on the loop at
       once.  calloc maps it lazily: only the groups used cost memory. */
    group_t *groups = calloc (GROUPS_MAX, sizeof *groups);
    bool failed = !groups;
    if (groups) {
        failed = merge_groups (a, groups, &ngroups) != 0;
        json_t *gl = json_array ();
        json_t *series[GROUPS_MAX];
        const char *values[GROUPS_MAX];
        for (int i = 0; i < ngroups; i++)
            values[i] = groups[i].value;
        /* The one group of everything is the fleet: its series is the
           step's (when the caller computed it). */
        json_t *fleet_series = json_object_get (s, "intervals");
        if (a->figures_only)
            for (int i = 0; i < ngroups; i++)
                series[i] = NULL;
        else if (!a->by && ngroups == 1 && fleet_series)
            series[0] = json_incref (fleet_series);
        else if (group_intervals (a->store, a->run, a->step, a->by_key, series, values, ngroups))
            failed = true;
        for (int i = 0; i < ngroups; i++) {
            json_t *gj = json_pack ("{s:s, s:s, s:i}", "by", a->key, "value", groups[i].value,
                                    "targets", groups[i].targets);
            /* Its members and the figures per member: groups of different
               sizes compare per agent and per target, not by their sums. */
            double iops = 0, bw = 0;
            for (int d = 0; d < DIR_COUNT; d++)
                iops += groups[i].iops[d], bw += groups[i].bw[d];
            json_t *mj = groups_members_json (
                (int) json_object_size (json_object_get (a->group_agents, groups[i].value)),
                groups[i].targets, iops, bw);
            json_object_update (gj, mj);
            json_decref (mj);
            /* A direction where some member has a row (trims: where they were). */
            for (int d = 0; d < DIR_COUNT; d++)
                if (dir_reported (d, (uint64_t) groups[i].rows[d], 0))
                    json_object_set_new (gj, dir_name (d), group_dir_json (&groups[i], d));
            if (series[i])
                json_object_set_new (gj, "intervals", series[i]);
            json_array_append_new (gl, gj);
        }
        for (int i = 0; i < ngroups; i++)
            for (int d = 0; d < DIR_COUNT; d++)
                json_decref (groups[i].pct[d]);
        json_object_set_new (s, "groups", gl);
        if (!a->figures_only)
            json_object_set_new (s, "outliers", group_outliers (a, groups, ngroups));
    }
    failed |= a->mem.failed || a->failed;
    int64_t run = a->run;
    groups_acc_free (a);
    free (groups);
    if (failed) {
        snprintf (err, errlen, "database error reading run %lld; see the controller's log",
                  (long long) run);
        return -1;
    }
    return 0;
}

static int
add (store_t *store, int64_t run, int step, json_t *s, const char *by, bool selected,
     bool figures_only, char *err, size_t errlen)
{
    groups_acc_t *g = groups_acc_new (store, run, step, by, selected, err, errlen);
    if (!g)
        return -1;
    g->figures_only = figures_only;
    size_t ai;
    json_t *aj;
    json_array_foreach (json_object_get (s, "agents"), ai, aj)
        groups_acc_agent (g, aj);
    return groups_acc_end (g, s, err, errlen);
}

int
groups_add (store_t *store, int64_t run, int step, json_t *s, const char *by, bool selected,
            char *err, size_t errlen)
{
    return add (store, run, step, s, by, selected, false, err, errlen);
}

int
groups_add_figures (store_t *store, int64_t run, int step, json_t *s, const char *by,
                    bool selected, char *err, size_t errlen)
{
    return add (store, run, step, s, by, selected, true, err, errlen);
}
