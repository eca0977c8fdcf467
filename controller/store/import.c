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
plan_text (json_t *fio, entry_t *e, int n)
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
put_hist (sqlite3_stmt *st, int col, const histogram_t *h)
{
    static uint8_t buf[HIST_WIRE_MAX];
    int n = histogram_encode (h, buf, sizeof buf);
    if (n < 0)
        return -1;
    sqlite3_bind_blob (st, col, buf, n, SQLITE_TRANSIENT);
    return 0;
}

static int64_t
agent_id (store_t *store, const entry_t *e, int64_t now)
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

json_t *
import_fio (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    store_t *store = ctl->store;
    json_t *fio = json_object_get (req, "fio");
    const char *source = json_string_value (json_object_get (req, "source"));
    const char *plan = json_string_value (json_object_get (req, "plan"));
    if (!json_is_object (fio)) {
        snprintf (err, errlen, "import needs 'fio': the parsed JSON document");
        return NULL;
    }
    if (!source || strlen (source) > 256)
        source = "fio.json";
    if (!plan)
        plan = "fio-import";
    size_t pl = strlen (plan);
    if (pl == 0 || pl > 64 || strspn (plan, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_.") != pl) {
        snprintf (err, errlen, "--plan '%.64s': use 1..64 letters, digits, '-', '_' or '.'", plan);
        return NULL;
    }
    entry_t *e = calloc (IMPORT_ENTRIES_MAX, sizeof *e);
    json_t *steps = json_array ();
    /* One entry's direction (LK_N), then the fleet's (DIR_COUNT x LK_N). */
    histogram_t *h = malloc (sizeof (histogram_t) * LK_N * (1 + DIR_COUNT));
    json_t *result = NULL;
    char *text = NULL, *canon = NULL, *labels_text = NULL;
    int n = 0;
    if (!e || !steps || !h) {
        snprintf (err, errlen, "out of memory");
        goto done;
    }
    if (import_check (req, fio, e, &n, steps, err, errlen)) {
        char msg[1024];
        snprintf (msg, sizeof msg, "%s: %s", source, err);
        snprintf (err, errlen, "%s", msg);
        goto done;
    }

    /* The same document twice is one run. */
    canon = json_dumps (fio, JSON_COMPACT | JSON_SORT_KEYS);
    char hash[17];
    hash_text (canon ? canon : "", hash);
    sqlite3_stmt *st = store_stmt (store, "SELECT id FROM runs WHERE import_hash = ?");
    sqlite3_bind_text (st, 1, hash, -1, SQLITE_STATIC);
    int found = store_row (store, st, "find an earlier import");
    if (found == 1)
        snprintf (err, errlen, "%s was imported already, as run %lld", source,
                  (long long) sqlite3_column_int64 (st, 0));
    else if (found < 0)
        snprintf (err, errlen, "database error importing %s; see the controller's log", source);
    sqlite3_reset (st);
    if (found)
        goto done;

    int64_t now = (int64_t) clock_real_ns ();
    json_t *ts = json_object_get (fio, "timestamp");
    int64_t at = json_is_integer (ts) && json_integer_value (ts) > 0
                 && json_integer_value (ts) < (json_int_t) 1 << 33
                 ? (int64_t) json_integer_value (ts) * 1000000000 : now;
    double longest = 0;
    for (int i = 0; i < n; i++)
        for (int d = 0; d < DIR_COUNT; d++) {
            if (!import_check_has_direction (e[i].entry, d))
                continue;
            double r = json_number_value (json_object_get (json_object_get (e[i].entry,
                                          dir_name (d)), "runtime"));
            longest = r > longest ? r : longest;
        }
    text = plan_text (fio, e, n);
    json_t *labels = json_object_get (req, "labels");
    if (runs_labels_check (labels, NULL, err, errlen))
        goto done;
    labels_text = json_dumps (labels ? labels : json_object (), JSON_COMPACT | JSON_SORT_KEYS);
    if (!text || !labels_text) {
        snprintf (err, errlen, "out of memory");
        goto done;
    }

    /* A savepoint inside the tick's transaction: a failure undoes the
       import only, not the snapshots stored beside it. */
    store_begin (store);
    sqlite3_exec (store_db (store), "SAVEPOINT import", NULL, NULL, NULL);
    st = store_stmt (store,
        "INSERT INTO plans (name, version, source, text, steps, created_at) VALUES "
        "(?1, (SELECT COALESCE(MAX(version), 0) + 1 FROM plans WHERE name = ?1), ?2, ?3, '[]', ?4)");
    sqlite3_bind_text (st, 1, plan, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, source, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 3, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 4, now);
    int bad = store_step_done (store, st, "store imported plan");
    int64_t plan_id = sqlite3_last_insert_rowid (store_db (store));
    char message[512];
    snprintf (message, sizeof message, "imported from %s (%s%s)", source,
              json_string_value (json_object_get (fio, "fio version")),
              strcmp (e[0].field, "client_stats") == 0 ? ", client/server" : "");
    st = store_stmt (store,
        "INSERT INTO runs (plan_id, status, message, created_at, started_at, finished_at, origin, "
        " labels, import_hash) VALUES (?, 'complete', ?, ?, ?, ?, 'fio', ?, ?)");
    sqlite3_bind_int64 (st, 1, plan_id);
    sqlite3_bind_text (st, 2, message, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 3, at);
    sqlite3_bind_int64 (st, 4, at);
    sqlite3_bind_int64 (st, 5, at + (int64_t) (longest * 1e6));
    sqlite3_bind_text (st, 6, labels_text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 7, hash, -1, SQLITE_TRANSIENT);
    bad |= store_step_done (store, st, "store imported run");
    int64_t run = sqlite3_last_insert_rowid (store_db (store));

    size_t si;
    json_t *sn;
    json_array_foreach (steps, si, sn) {
        /* The step's spec: what the report reads (rw, bs, iodepth) and
           the options as fio reported them. */
        entry_t *first = NULL;
        for (int i = 0; i < n && !first; i++)
            if (e[i].step == (int) si)
                first = &e[i];
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
        st = store_stmt (store, "INSERT INTO steps (run_id, idx, name, spec, status, start_at, "
                                "finished_at) VALUES (?, ?, ?, ?, 'done', ?, ?)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, (int) si);
        sqlite3_bind_text (st, 3, json_string_value (sn), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text (st, 4, spec_text ? spec_text : "{}", -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64 (st, 5, at);
        sqlite3_bind_int64 (st, 6, at + (int64_t) (longest * 1e6));
        free (spec_text);
        bad |= store_step_done (store, st, "store imported step");

        /* Results per entry, and the fleet per direction. */
        histogram_t *fleet = h + LK_N;          /* [d * LK_N + k] */
        for (int k = 0; k < DIR_COUNT * LK_N; k++)
            histogram_reset (&fleet[k]);
        double f_ops[DIR_COUNT] = { 0 }, f_bytes[DIR_COUNT] = { 0 };
        double f_iops[DIR_COUNT] = { 0 }, f_bw[DIR_COUNT] = { 0 };
        int members = 0, binned = 0;
        json_t *only_pct[DIR_COUNT] = { NULL };
        json_t *per_agent = json_object ();      /* agent -> [targets] */
        for (int i = 0; i < n; i++) {
            if (e[i].step != (int) si)
                continue;
            int64_t aid = agent_id (store, &e[i], now);
            if (!aid) {
                bad = 1;
                continue;
            }
            json_t *tl = json_object_get (per_agent, e[i].agent);
            if (!tl) {
                tl = json_array ();
                json_object_set_new (per_agent, e[i].agent, tl);
            }
            json_array_append_new (tl, json_string (e[i].target));
            members++;
            bool has_bins = false;
            for (int d = 0; d < DIR_COUNT; d++) {
                if (!import_check_has_direction (e[i].entry, d))
                    continue;
                json_t *dj = json_object_get (e[i].entry, dir_name (d));
                json_t *pct;
                import_check_direction (dj, &e[i], dir_name (d), h, &pct, err, errlen);
                has_bins |= h[LK_CLAT].count > 0;
                json_t *clat = json_object_get (dj, "clat_ns");
                char *pct_text = pct ? json_dumps (pct, JSON_COMPACT) : NULL;
                st = store_stmt (store,
                    "INSERT OR REPLACE INTO results (run_id, step_idx, agent_id, target, direction, "
                    " ops, bytes, errors, window_ns, iops, bw, lat_min, lat_max, lat_mean, lat_stddev, "
                    " snapshots, hist, slat_hist, lat_hist, percentiles) "
                    "VALUES (?,?,?,?,?,?,?,0,?,?,?,?,?,?,?,0,?,?,?,?)");
                sqlite3_bind_int64 (st, 1, run);
                sqlite3_bind_int (st, 2, (int) si);
                sqlite3_bind_int64 (st, 3, aid);
                sqlite3_bind_text (st, 4, e[i].target, -1, SQLITE_TRANSIENT);
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
                put_hist (st, 15, &h[LK_CLAT]);
                put_hist (st, 16, &h[LK_SLAT]);
                put_hist (st, 17, &h[LK_LAT]);
                if (pct_text)
                    sqlite3_bind_text (st, 18, pct_text, -1, SQLITE_TRANSIENT);
                else
                    sqlite3_bind_null (st, 18);
                free (pct_text);
                bad |= store_step_done (store, st, "store imported result");
                for (int k = 0; k < LK_N; k++)
                    histogram_merge (&fleet[d * LK_N + k], &h[k]);
                f_ops[d] += ops;
                f_bytes[d] += bytes;
                f_iops[d] += iops;
                f_bw[d] += bw;
                json_decref (only_pct[d]);
                only_pct[d] = pct;
            }
            binned += has_bins;
        }
        /* Which targets each host ran (the report lists them from here). */
        const char *an;
        json_t *tl;
        json_object_foreach (per_agent, an, tl) {
            st = store_stmt (store,
                "INSERT OR IGNORE INTO run_agents (run_id, agent_id, status, message) "
                "VALUES (?, (SELECT id FROM agents WHERE name = ?), 'done', 'imported')");
            sqlite3_bind_int64 (st, 1, run);
            sqlite3_bind_text (st, 2, an, -1, SQLITE_TRANSIENT);
            bad |= store_step_done (store, st, "store imported host of a run");
            char *tt = json_dumps (tl, JSON_COMPACT);
            st = store_stmt (store,
                "INSERT OR REPLACE INTO step_agents (run_id, step_idx, agent_id, status, message, "
                " targets, actual_start) VALUES (?, ?, (SELECT id FROM agents WHERE name = ?), "
                " 'done', '', ?, ?)");
            sqlite3_bind_int64 (st, 1, run);
            sqlite3_bind_int (st, 2, (int) si);
            sqlite3_bind_text (st, 3, an, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text (st, 4, tt ? tt : "[]", -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64 (st, 5, at);
            free (tt);
            bad |= store_step_done (store, st, "store imported host of a step");
        }
        for (int d = 0; d < DIR_COUNT; d++) {
            if (!dir_reported (d, (uint64_t) f_ops[d], 0))
                continue;
            st = store_stmt (store,
                "INSERT OR REPLACE INTO fleet_results (run_id, step_idx, direction, agents, ops, bytes, "
                " errors, iops, bw, hist, slat_hist, lat_hist, percentiles) "
                "VALUES (?,?,?,?,?,?,0,?,?,?,?,?,?)");
            sqlite3_bind_int64 (st, 1, run);
            sqlite3_bind_int (st, 2, (int) si);
            sqlite3_bind_text (st, 3, dir_name (d), -1, SQLITE_STATIC);
            sqlite3_bind_int (st, 4, (int) json_object_size (per_agent));
            sqlite3_bind_int64 (st, 5, (sqlite3_int64) f_ops[d]);
            sqlite3_bind_int64 (st, 6, (sqlite3_int64) f_bytes[d]);
            sqlite3_bind_double (st, 7, f_iops[d]);
            sqlite3_bind_double (st, 8, f_bw[d]);
            put_hist (st, 9, &fleet[d * LK_N + LK_CLAT]);
            put_hist (st, 10, &fleet[d * LK_N + LK_SLAT]);
            put_hist (st, 11, &fleet[d * LK_N + LK_LAT]);
            /* fio's percentiles stand for the step only when one entry ran
               it; several entries without bins cannot be merged. */
            char *pt = members == 1 && binned == 0 && only_pct[d]
                       ? json_dumps (only_pct[d], JSON_COMPACT) : NULL;
            if (pt)
                sqlite3_bind_text (st, 12, pt, -1, SQLITE_TRANSIENT);
            else if (binned < members)
                sqlite3_bind_text (st, 12, "null", -1, SQLITE_STATIC);
            else
                sqlite3_bind_null (st, 12);
            free (pt);
            bad |= store_step_done (store, st, "store imported fleet result");
            json_decref (only_pct[d]);
        }
        json_decref (per_agent);
    }
    if (bad) {
        /* Roll the whole file back: half an import is worse than none. */
        sqlite3_exec (store_db (store), "ROLLBACK TO import; RELEASE import", NULL, NULL, NULL);
        store_commit (store);
        snprintf (err, errlen, "%s: database error while storing it; nothing was imported "
                  "(see the controller's log)", source);
        goto done;
    }
    sqlite3_exec (store_db (store), "RELEASE import", NULL, NULL, NULL);
    store_commit (store);
    log_info ("imported %s as run %lld: %d entries, %zu steps", source, (long long) run, n,
              json_array_size (steps));
    result = json_pack ("{s:I, s:s, s:i, s:i, s:s}", "run", (json_int_t) run, "plan", plan,
                        "entries", n, "steps", (int) json_array_size (steps),
                        "latency", "histograms");
    int with_bins = 0;
    for (int i = 0; i < n; i++) {
        bool bins = false;
        for (int d = 0; d < DIR_COUNT; d++)
            bins |= import_check_has_direction (e[i].entry, d)
                    && json_object_get (json_object_get (json_object_get (e[i].entry, dir_name (d)),
                                                         "clat_ns"), "bins") != NULL;
        with_bins += bins;
    }
    if (with_bins < n)
        json_object_set_new (result, "latency", json_string (with_bins ? "mixed"
                             : "percentiles only (no json+ bins)"));
done:
    free (e);
    free (h);
    free (text);
    free (canon);
    free (labels_text);
    json_decref (steps);
    return result;
}
