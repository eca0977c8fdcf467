/*  import.c: fio's JSON output stored as a run, so years of fio results
    join the history (schemas/007_import.sql).

    Accepted: `fio --output-format=json` (top-level "jobs"), json+ (the
    same with "bins" in clat_ns/slat_ns/lat_ns), and client/server mode
    (`fio --client=...`: top-level "client_stats", one entry per server and
    job, plus fio's own "All clients" sum, which is skipped: iofleet sums
    itself).  Each job name is a step; each entry is a target of the host
    that ran it (agent "fio:HOST", "fio:HOST:PORT" in client/server mode,
    since servers on one host differ only by port).

    With json+ bins, the latencies become histograms like iofleet's own
    (each bin's value recorded bin-count times; fio's bins are already
    within about 1.6% of the true value, ours add at most 0.39%); mean and
    stddev are fio's, and min and max too where they fit the histogram.  Without bins only
    fio's percentiles are kept (results.percentiles): they are shown as fio
    gave them and marked "percentiles_only", and never merged, since
    percentiles of different jobs cannot be combined.

    The document is checked whole before anything is written: an error
    names the entry and field, and nothing of the file is stored. */
#include "import.h"
#include "jobfile.h"
#include "log.h"
#include "names.h"
#include "util.h"
#include "runs.h"
#include "snapshot_store.h"
#include "fleet.h"
#include "store.h"
#include "import_check.h"

#include <math.h>
#include <string.h>

/* The plan text of an import: fio's options as a job file. */
static char *
s_plan_text (json_t *fio, entry_t *e, int n)
{
    size_t cap = 4096, len = 0;
    char *t = malloc (cap);
    if (!t)
        return NULL;
    t[0] = '\0';
#define PUT(...) do { \
        int w_ = snprintf (t + len, cap - len, __VA_ARGS__); \
        while (w_ >= 0 && len + (size_t) w_ >= cap) { \
            char *g_ = realloc (t, cap *= 2); \
            if (!g_) { free (t); return NULL; } \
            t = g_; \
            w_ = snprintf (t + len, cap - len, __VA_ARGS__); \
        } \
        len += (size_t) (w_ > 0 ? w_ : 0); \
    } while (0)
    PUT ("; imported from fio's JSON output (%s): the options fio reported\n",
         json_string_value (json_object_get (fio, "fio version")));
    const char *k;
    json_t *v;
    PUT ("[global]\n");
    json_object_foreach (json_object_get (fio, "global options"), k, v)
        PUT ("%s=%s\n", k, json_is_string (v) ? json_string_value (v) : "");
    int last = -1;
    for (int i = 0; i < n; i++) {
        if (e[i].step <= last)
            continue;
        last = e[i].step;
        PUT ("[%s]\n", json_string_value (json_object_get (e[i].entry, "jobname")));
        json_object_foreach (json_object_get (e[i].entry, "job options"), k, v)
            PUT ("%s=%s\n", k, json_is_string (v) ? json_string_value (v) : "");
    }
#undef PUT
    return t;
}

static int
s_put_hist (sqlite3_stmt *st, int col, const histogram_t *h)
{
    static uint8_t buf[HIST_WIRE_MAX];
    int n = histogram_encode (h, buf, sizeof buf);
    if (n < 0)
        return -1;
    sqlite3_bind_blob (st, col, buf, n, SQLITE_TRANSIENT);
    return 0;
}

static int64_t
s_agent_id (store_t *store, const entry_t *e, int64_t now)
{
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO agents (name, hostname, labels, first_seen, last_seen, imported) "
        "VALUES (?1, ?2, '{}', ?3, ?3, 1) ON CONFLICT (name) DO UPDATE SET last_seen = ?3 "
        "WHERE agents.imported = 1");
    sqlite3_bind_text (st, 1, e->agent, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, e->host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 3, now);
    if (store_step_done (store, st, "store imported host"))
        return 0;
    st = store_stmt (store, "SELECT id FROM agents WHERE name = ? AND imported = 1");
    sqlite3_bind_text (st, 1, e->agent, -1, SQLITE_TRANSIENT);
    int64_t id = store_row (store, st, "find imported host") == 1 ? sqlite3_column_int64 (st, 0)
                                                                    : 0;
    sqlite3_reset (st);
    return id;
}

/* One import in hand: the document, its entries, and the run made of
   them. */
typedef struct {
    store_t *store;
    json_t *fio;
    const char *source, *plan;
    entry_t *e;                 /* e[0..n) */
    int n;
    json_t *steps;              /* the job names, in order */
    histogram_t *h;             /* one entry's direction (LK_N), then the
                                   fleet's (DIR_COUNT x LK_N) */
    char hash[17];              /* of the document: the same one twice is one run */
    int64_t now, at, end;       /* now; the run's start and end */
    int64_t run;
    int bad;                    /* a row was not stored: the import is undone */
} import_t;

/* A step's fleet, summed per direction over its entries. */
typedef struct {
    histogram_t *fleet;         /* [d * LK_N + k] */
    double ops[DIR_COUNT], bytes[DIR_COUNT], iops[DIR_COUNT], bw[DIR_COUNT];
    int members, binned;        /* entries, and those with json+ bins */
    json_t *only_pct[DIR_COUNT];
    json_t *per_agent;          /* agent -> [targets] */
} step_acc_t;

/* The request's document, source and plan name (defaults for the last
   two).  Returns 0, or -1 with err. */
static int
s_request (json_t *req, import_t *im, char *err, size_t errlen)
{
    im->fio = json_object_get (req, "fio");
    im->source = json_string_value (json_object_get (req, "source"));
    im->plan = json_string_value (json_object_get (req, "plan"));
    if (!json_is_object (im->fio)) {
        snprintf (err, errlen, "import needs 'fio': the parsed JSON document");
        return -1;
    }
    if (!im->source || strlen (im->source) > 256)
        im->source = "fio.json";
    if (!im->plan)
        im->plan = "fio-import";
    return names_check ("--plan", im->plan, err, errlen);
}

/* Whether the document (im->hash) was imported already: 1 or -1 (a
   database error) with err, else 0. */
static int
s_find_earlier (import_t *im, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (im->store, "SELECT id FROM runs WHERE import_hash = ?");
    sqlite3_bind_text (st, 1, im->hash, -1, SQLITE_STATIC);
    int found = store_row (im->store, st, "find an earlier import");
    if (found == 1)
        snprintf (err, errlen, "%s was imported already, as run %lld", im->source,
                  (long long) sqlite3_column_int64 (st, 0));
    else if (found < 0)
        snprintf (err, errlen, "database error importing %s; see the controller's log",
                  im->source);
    sqlite3_reset (st);
    return found;
}

/* The run's start (fio's timestamp, else now) and end (after its longest
   runtime).  Can't fail. */
static void
s_times (import_t *im)
{
    im->now = (int64_t) clock_real_ns ();
    json_t *ts = json_object_get (im->fio, "timestamp");
    im->at = json_is_integer (ts) && json_integer_value (ts) > 0
             && json_integer_value (ts) < (json_int_t) 1 << 33
             ? (int64_t) json_integer_value (ts) * 1000000000 : im->now;
    double longest = 0;
    for (int i = 0; i < im->n; i++)
        for (int d = 0; d < DIR_COUNT; d++) {
            if (!import_check_has_direction (im->e[i].entry, d))
                continue;
            double r = json_number_value (json_object_get (json_object_get (im->e[i].entry,
                                          dir_name (d)), "runtime"));
            longest = r > longest ? r : longest;
        }
    im->end = im->at + (int64_t) (longest * 1e6);
}

/* The plan's and the run's rows; im->run set.  Failures count in
   im->bad. */
static void
s_store_run (import_t *im, const char *text, const char *labels_text)
{
    store_t *store = im->store;
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO plans (name, version, source, text, steps, created_at) VALUES "
        "(?1, (SELECT COALESCE(MAX(version), 0) + 1 FROM plans WHERE name = ?1), ?2, ?3, '[]', ?4)");
    sqlite3_bind_text (st, 1, im->plan, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, im->source, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 3, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 4, im->now);
    im->bad |= store_step_done (store, st, "store imported plan");
    int64_t plan_id = sqlite3_last_insert_rowid (store_db (store));
    char message[512];
    snprintf (message, sizeof message, "imported from %s (%s%s)", im->source,
              json_string_value (json_object_get (im->fio, "fio version")),
              strcmp (im->e[0].field, "client_stats") == 0 ? ", client/server" : "");
    st = store_stmt (store,
        "INSERT INTO runs (plan_id, status, message, created_at, started_at, finished_at, origin, "
        " labels, import_hash) VALUES (?, 'complete', ?, ?, ?, ?, 'fio', ?, ?)");
    sqlite3_bind_int64 (st, 1, plan_id);
    sqlite3_bind_text (st, 2, message, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 3, im->at);
    sqlite3_bind_int64 (st, 4, im->at);
    sqlite3_bind_int64 (st, 5, im->end);
    sqlite3_bind_text (st, 6, labels_text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 7, im->hash, -1, SQLITE_TRANSIENT);
    im->bad |= store_step_done (store, st, "store imported run");
    im->run = sqlite3_last_insert_rowid (store_db (store));
}

/* Step si's row, named sn: its spec is what the report reads (rw, bs,
   iodepth) and the options as fio reported them, from its first entry.
   Failures count in im->bad. */
static void
s_store_step_row (import_t *im, size_t si, json_t *sn)
{
    json_t *fio = im->fio;
    entry_t *first = NULL;
    for (int i = 0; i < im->n && !first; i++)
        if (im->e[i].step == (int) si)
            first = &im->e[i];
    const char *rw = import_check_option (fio, first->entry, "rw");
    if (!rw)
        rw = import_check_option (fio, first->entry, "readwrite");
    const char *bs = import_check_option (fio, first->entry, "bs");
    const char *qd = import_check_option (fio, first->entry, "iodepth");
    uint64_t bsv = 0;
    if (bs && job_parse_size (bs, &bsv) != 0)
        bsv = 0;
    const char *nj = import_check_option (fio, first->entry, "numjobs");
    const char *mixr = import_check_option (fio, first->entry, "rwmixread");
    const char *mixw = import_check_option (fio, first->entry, "rwmixwrite");
    json_t *spec = json_pack ("{s:O, s:s, s:I, s:I, s:I, s:I, s:O?}", "name", sn,
        "rw", rw ? rw : "read", "bs", (json_int_t) (bs ? bsv : 4096),
        "iodepth", (json_int_t) (qd ? atoll (qd) : 1),
        "numjobs", (json_int_t) (nj ? atoll (nj) : 1),
        "rwmixread", (json_int_t) (mixr ? atoll (mixr) : mixw ? 100 - atoll (mixw) : 50),
        "options", json_object_get (first->entry, "job options"));
    char *spec_text = json_dumps (spec, JSON_COMPACT);
    json_decref (spec);
    sqlite3_stmt *st = store_stmt (im->store, "INSERT INTO steps (run_id, idx, name, spec, "
                                              "status, start_at, finished_at) "
                                              "VALUES (?, ?, ?, ?, 'done', ?, ?)");
    sqlite3_bind_int64 (st, 1, im->run);
    sqlite3_bind_int (st, 2, (int) si);
    sqlite3_bind_text (st, 3, json_string_value (sn), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 4, spec_text ? spec_text : "{}", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 5, im->at);
    sqlite3_bind_int64 (st, 6, im->end);
    free (spec_text);
    im->bad |= store_step_done (im->store, st, "store imported step");
}

/* The results row of entry x's direction d (dj) in step si, agent aid,
   from the histograms in im->h and fio's percentiles pct (or NULL); adds
   it to the step's fleet.  Failures count in im->bad. */
static void
s_store_result (import_t *im, size_t si, int64_t aid, const entry_t *x, int d, json_t *dj,
                json_t *pct, step_acc_t *acc)
{
    histogram_t *h = im->h;
    json_t *clat = json_object_get (dj, "clat_ns");
    char *pct_text = pct ? json_dumps (pct, JSON_COMPACT) : NULL;
    sqlite3_stmt *st = store_stmt (im->store,
        "INSERT OR REPLACE INTO results (run_id, step_idx, agent_id, target, direction, "
        " ops, bytes, errors, window_ns, iops, bw, lat_min, lat_max, lat_mean, lat_stddev, "
        " snapshots, hist, slat_hist, lat_hist, percentiles) "
        "VALUES (?,?,?,?,?,?,?,0,?,?,?,?,?,?,?,0,?,?,?,?)");
    sqlite3_bind_int64 (st, 1, im->run);
    sqlite3_bind_int (st, 2, (int) si);
    sqlite3_bind_int64 (st, 3, aid);
    sqlite3_bind_text (st, 4, x->target, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 5, dir_name (d), -1, SQLITE_STATIC);
    double ops = json_number_value (json_object_get (dj, "total_ios"));
    double bytes = json_number_value (json_object_get (dj, "io_bytes"));
    double iops = json_number_value (json_object_get (dj, "iops"));
    double bw = json_number_value (json_object_get (dj, "bw_bytes"));
    sqlite3_bind_int64 (st, 6, (sqlite3_int64) ops);
    sqlite3_bind_int64 (st, 7, (sqlite3_int64) bytes);
    sqlite3_bind_int64 (st, 8, (sqlite3_int64) (json_number_value (json_object_get (dj, "runtime")) * 1e6));
    sqlite3_bind_double (st, 9, iops);
    sqlite3_bind_double (st, 10, bw);
    sqlite3_bind_int64 (st, 11, (sqlite3_int64) json_number_value (json_object_get (clat, "min")));
    sqlite3_bind_int64 (st, 12, (sqlite3_int64) json_number_value (json_object_get (clat, "max")));
    sqlite3_bind_double (st, 13, json_number_value (json_object_get (clat, "mean")));
    sqlite3_bind_double (st, 14, json_number_value (json_object_get (clat, "stddev")));
    s_put_hist (st, 15, &h[LK_CLAT]);
    s_put_hist (st, 16, &h[LK_SLAT]);
    s_put_hist (st, 17, &h[LK_LAT]);
    if (pct_text)
        sqlite3_bind_text (st, 18, pct_text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null (st, 18);
    free (pct_text);
    im->bad |= store_step_done (im->store, st, "store imported result");
    for (int k = 0; k < LK_N; k++)
        histogram_merge (&acc->fleet[d * LK_N + k], &h[k]);
    acc->ops[d] += ops;
    acc->bytes[d] += bytes;
    acc->iops[d] += iops;
    acc->bw[d] += bw;
    json_decref (acc->only_pct[d]);
    acc->only_pct[d] = pct;
}

/* Entry x of step si: its host's agent, its target in acc->per_agent,
   and a results row per direction.  Failures count in im->bad; err may
   hold a direction's note.  Can't fail otherwise. */
static void
s_store_entry (import_t *im, size_t si, entry_t *x, step_acc_t *acc, char *err, size_t errlen)
{
    int64_t aid = s_agent_id (im->store, x, im->now);
    if (!aid) {
        im->bad = 1;
        return;
    }
    json_t *tl = json_object_get (acc->per_agent, x->agent);
    if (!tl) {
        tl = json_array ();
        json_object_set_new (acc->per_agent, x->agent, tl);
    }
    json_array_append_new (tl, json_string (x->target));
    acc->members++;
    bool has_bins = false;
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!import_check_has_direction (x->entry, d))
            continue;
        json_t *dj = json_object_get (x->entry, dir_name (d));
        json_t *pct;
        import_check_direction (dj, x, dir_name (d), im->h, &pct, err, errlen);
        has_bins |= im->h[LK_CLAT].count > 0;
        s_store_result (im, si, aid, x, d, dj, pct, acc);
    }
    acc->binned += has_bins;
}

/* Which targets each host ran in step si (the report lists them from
   here).  Failures count in im->bad. */
static void
s_store_step_agents (import_t *im, size_t si, const step_acc_t *acc)
{
    store_t *store = im->store;
    const char *an;
    json_t *tl;
    json_object_foreach (acc->per_agent, an, tl) {
        sqlite3_stmt *st = store_stmt (store,
            "INSERT OR IGNORE INTO run_agents (run_id, agent_id, status, message) "
            "VALUES (?, (SELECT id FROM agents WHERE name = ?), 'done', 'imported')");
        sqlite3_bind_int64 (st, 1, im->run);
        sqlite3_bind_text (st, 2, an, -1, SQLITE_TRANSIENT);
        im->bad |= store_step_done (store, st, "store imported host of a run");
        char *tt = json_dumps (tl, JSON_COMPACT);
        st = store_stmt (store,
            "INSERT OR REPLACE INTO step_agents (run_id, step_idx, agent_id, status, message, "
            " targets, actual_start) VALUES (?, ?, (SELECT id FROM agents WHERE name = ?), "
            " 'done', '', ?, ?)");
        sqlite3_bind_int64 (st, 1, im->run);
        sqlite3_bind_int (st, 2, (int) si);
        sqlite3_bind_text (st, 3, an, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text (st, 4, tt ? tt : "[]", -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64 (st, 5, im->at);
        free (tt);
        im->bad |= store_step_done (store, st, "store imported host of a step");
    }
}

/* Step si's fleet_results, a row per direction it did; acc's percentiles
   are spent.  Failures count in im->bad. */
static void
s_store_fleet (import_t *im, size_t si, step_acc_t *acc)
{
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!dir_reported (d, (uint64_t) acc->ops[d], 0))
            continue;
        sqlite3_stmt *st = store_stmt (im->store,
            "INSERT OR REPLACE INTO fleet_results (run_id, step_idx, direction, agents, ops, bytes, "
            " errors, iops, bw, hist, slat_hist, lat_hist, percentiles) "
            "VALUES (?,?,?,?,?,?,0,?,?,?,?,?,?)");
        sqlite3_bind_int64 (st, 1, im->run);
        sqlite3_bind_int (st, 2, (int) si);
        sqlite3_bind_text (st, 3, dir_name (d), -1, SQLITE_STATIC);
        sqlite3_bind_int (st, 4, (int) json_object_size (acc->per_agent));
        sqlite3_bind_int64 (st, 5, (sqlite3_int64) acc->ops[d]);
        sqlite3_bind_int64 (st, 6, (sqlite3_int64) acc->bytes[d]);
        sqlite3_bind_double (st, 7, acc->iops[d]);
        sqlite3_bind_double (st, 8, acc->bw[d]);
        s_put_hist (st, 9, &acc->fleet[d * LK_N + LK_CLAT]);
        s_put_hist (st, 10, &acc->fleet[d * LK_N + LK_SLAT]);
        s_put_hist (st, 11, &acc->fleet[d * LK_N + LK_LAT]);
        /* fio's percentiles stand for the step only when one entry ran
           it; several entries without bins cannot be merged. */
        char *pt = acc->members == 1 && acc->binned == 0 && acc->only_pct[d]
                   ? json_dumps (acc->only_pct[d], JSON_COMPACT) : NULL;
        if (pt)
            sqlite3_bind_text (st, 12, pt, -1, SQLITE_TRANSIENT);
        else if (acc->binned < acc->members)
            sqlite3_bind_text (st, 12, "null", -1, SQLITE_STATIC);
        else
            sqlite3_bind_null (st, 12);
        free (pt);
        im->bad |= store_step_done (im->store, st, "store imported fleet result");
        json_decref (acc->only_pct[d]);
    }
}

/* Step si (named sn): its row, its entries' results, its hosts and its
   fleet.  Failures count in im->bad.  Can't fail otherwise. */
static void
s_store_step (import_t *im, size_t si, json_t *sn, char *err, size_t errlen)
{
    s_store_step_row (im, si, sn);
    step_acc_t acc = { .fleet = im->h + LK_N, .per_agent = json_object () };
    for (int k = 0; k < DIR_COUNT * LK_N; k++)
        histogram_reset (&acc.fleet[k]);
    for (int i = 0; i < im->n; i++)
        if (im->e[i].step == (int) si)
            s_store_entry (im, si, &im->e[i], &acc, err, errlen);
    s_store_step_agents (im, si, &acc);
    s_store_fleet (im, si, &acc);
    json_decref (acc.per_agent);
}

/* The answer to an import: the run, and what its latencies are made of.
   Can't fail. */
static json_t *
s_answer (const import_t *im)
{
    json_t *result = json_pack ("{s:I, s:s, s:i, s:i, s:s}", "run", (json_int_t) im->run,
                                "plan", im->plan, "entries", im->n,
                                "steps", (int) json_array_size (im->steps),
                                "latency", "histograms");
    int with_bins = 0;
    for (int i = 0; i < im->n; i++) {
        bool bins = false;
        for (int d = 0; d < DIR_COUNT; d++)
            bins |= import_check_has_direction (im->e[i].entry, d)
                    && json_object_get (json_object_get (json_object_get (im->e[i].entry,
                                                                          dir_name (d)),
                                                         "clat_ns"), "bins") != NULL;
        with_bins += bins;
    }
    if (with_bins < im->n)
        json_object_set_new (result, "latency", json_string (with_bins ? "mixed"
                             : "percentiles only (no json+ bins)"));
    return result;
}

/* Every row of the import, in a savepoint inside the tick's transaction:
   a failure undoes the import only, not the snapshots stored beside it.
   Returns 0, or -1 with err (nothing of the file is stored). */
static int
s_store (import_t *im, const char *text, const char *labels_text, char *err, size_t errlen)
{
    store_t *store = im->store;
    store_begin (store);
    sqlite3_exec (store_db (store), "SAVEPOINT import", NULL, NULL, NULL);
    s_store_run (im, text, labels_text);
    size_t si;
    json_t *sn;
    json_array_foreach (im->steps, si, sn)
        s_store_step (im, si, sn, err, errlen);
    if (im->bad) {
        /* Roll the whole file back: half an import is worse than none. */
        sqlite3_exec (store_db (store), "ROLLBACK TO import; RELEASE import", NULL, NULL, NULL);
        store_commit (store);
        snprintf (err, errlen, "%s: database error while storing it; nothing was imported "
                  "(see the controller's log)", im->source);
        return -1;
    }
    sqlite3_exec (store_db (store), "RELEASE import", NULL, NULL, NULL);
    store_commit (store);
    log_info ("imported %s as run %lld: %d entries, %zu steps", im->source, (long long) im->run,
              im->n, json_array_size (im->steps));
    return 0;
}

json_t *
import_fio (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    import_t im = { .store = ctl->store };
    if (s_request (req, &im, err, errlen))
        return NULL;
    im.e = calloc (IMPORT_ENTRIES_MAX, sizeof *im.e);
    im.steps = json_array ();
    im.h = malloc (sizeof (histogram_t) * LK_N * (1 + DIR_COUNT));
    json_t *result = NULL;
    char *text = NULL, *canon = NULL, *labels_text = NULL;
    if (!im.e || !im.steps || !im.h) {
        snprintf (err, errlen, "out of memory");
        goto done;
    }
    if (import_check (req, im.fio, im.e, &im.n, im.steps, err, errlen)) {
        char msg[1024];
        snprintf (msg, sizeof msg, "%s: %s", im.source, err);
        snprintf (err, errlen, "%s", msg);
        goto done;
    }
    /* The same document twice is one run. */
    canon = json_dumps (im.fio, JSON_COMPACT | JSON_SORT_KEYS);
    hash_text (canon ? canon : "", im.hash);
    if (s_find_earlier (&im, err, errlen))
        goto done;
    s_times (&im);
    text = s_plan_text (im.fio, im.e, im.n);
    json_t *labels = json_object_get (req, "labels");
    if (runs_labels_check (labels, NULL, err, errlen))
        goto done;
    labels_text = json_dumps (labels ? labels : json_object (), JSON_COMPACT | JSON_SORT_KEYS);
    if (!text || !labels_text) {
        snprintf (err, errlen, "out of memory");
        goto done;
    }
    if (s_store (&im, text, labels_text, err, errlen) == 0)
        result = s_answer (&im);
done:
    free (im.e);
    free (im.h);
    free (text);
    free (canon);
    free (labels_text);
    json_decref (im.steps);
    return result;
}
