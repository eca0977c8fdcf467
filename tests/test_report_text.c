/*  test_report_text.c: a report written one agent at a time
    (report_json_text, what `iofleet report` gets) says exactly what the tree
    of report_json says, with and without --by, --where, an SLA, histograms,
    a refused agent and drives with lint; "verdict" is its first key; and
    its errors are report_json's.  Also json_text itself, plain and
    turning gzip past GZ_AFTER (a reply), read back by gz_inflate.

    report_json_text frees each agent once written: the groups, outliers, SLA,
    lint and missing intervals it adds are taken from each agent as it
    passes, not from the step's agents afterwards.
*/
#include "controller.h"
#include "json_text.h"
#include "report.h"
#include "testutil.h"
#include "store_fx.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

/* Run 1 of plan "p", steps 0 ("rr", an SLA that target a/x fails) and 1
   ("rw"): agents a and b, two targets each (b's /dev/y a drive with a
   lint line), agent c refused both steps. */
static void
store_run (store_t *store)
{
    CHECK (store_fx_exec (store,
        "INSERT INTO agents (id, name, first_seen, last_seen, labels) VALUES "
        " (1, 'a', 0, 0, '{\"rack\":\"r1\"}'), (2, 'b', 0, 0, '{\"rack\":\"r2\"}'),"
        " (3, 'c', 0, 0, '{}');"
        "INSERT INTO plans (id, name, version, source, text, steps, created_at) "
        " VALUES (1, 'p', 1, 'p.fio', '', '[]', 0);"
        "INSERT INTO runs (id, plan_id, status, created_at) VALUES (1, 1, 'complete', 1);"
        "INSERT INTO steps (run_id, idx, name, spec, status) VALUES "
        " (1, 0, 'rr', '{\"sla\":\"iops>1500\"}', 'done'), (1, 1, 'rw', '{}', 'done');"
        "INSERT INTO step_agents (run_id, step_idx, agent_id, status, message, targets, "
        " target_drives) VALUES "
        " (1, 0, 1, 'done', '', '[\"/dev/x\",\"/dev/y\"]', NULL),"
        " (1, 0, 2, 'done', '', '[\"/dev/x\",\"/dev/y\"]',"
        "  '[{\"model\":\"M1\"},{\"model\":\"M2\",\"lint\":[\"nr_requests 2 is low\"]}]'),"
        " (1, 0, 3, 'refused', 'no /dev/x here', '[]', NULL),"
        " (1, 1, 1, 'done', '', '[\"/dev/x\",\"/dev/y\"]', NULL),"
        " (1, 1, 2, 'done', '', '[\"/dev/x\",\"/dev/y\"]', NULL),"
        " (1, 1, 3, 'refused', 'no /dev/x here', '[]', NULL);")
        == SQLITE_OK);
    /* Snapshots (agent b misses interval 1 of step 0) and results. */
    for (int step = 0; step < 2; step++)
        for (int agent = 1; agent <= 2; agent++)
            for (int t = 0; t < 2; t++) {
                int ops = 1000 * agent + 100 * t + 10 * step;
                char sql[1024];
                for (int seq = 0; seq < 2; seq++) {
                    if (step == 0 && agent == 2 && seq == 1)
                        continue;
                    snprintf (sql, sizeof sql,
                        "INSERT INTO snapshots (run_id, step_idx, agent_id, target, seq, t_start, "
                        " t_end, read_ops, read_bytes, read_errors, write_ops, write_bytes, "
                        " write_errors) VALUES (1, %d, %d, %d, %d, %d, %d, %d, %d, 0, %d, %d, 0);",
                        step, agent, t, seq, seq * 1000000000, (seq + 1) * 1000000000, ops,
                        ops * 4096, step * ops / 2, step * ops * 2048);
                    CHECK (store_fx_exec (store, sql) == SQLITE_OK);
                }
                for (int d = 0; d < 1 + step; d++) {
                    int n = d ? ops / 2 : ops;
                    snprintf (sql, sizeof sql,
                        "INSERT INTO results (run_id, step_idx, agent_id, target, direction, ops, "
                        " bytes, errors, window_ns, iops, bw, lat_min, lat_max, lat_mean, "
                        " lat_stddev, snapshots, hist) VALUES (1, %d, %d, '/dev/%c', '%s', %d, %d, "
                        " 0, 2000000000, %d, %d, 0, 0, 0, 0, 2, X'');",
                        step, agent, "xy"[t], d ? "write" : "read", 2 * n, 2 * n * 4096, n,
                        n * 4096);
                    CHECK (store_fx_exec (store, sql) == SQLITE_OK);
                }
            }
    CHECK (store_fx_exec (store,
        "INSERT INTO fleet_results (run_id, step_idx, direction, agents, ops, bytes, errors, "
        " iops, bw, hist) VALUES (1, 0, 'read', 2, 8400, 34406400, 0, 4200, 17203200, X''),"
        " (1, 1, 'read', 2, 8440, 34570240, 0, 4220, 17285120, X''),"
        " (1, 1, 'write', 2, 4220, 17285120, 0, 2110, 8642560, X'');") == SQLITE_OK);
}

/* report_json_text's report, parsed; NULL (err filled) when it failed. */
static json_t *
text_report (store_t *store, const char *by, json_t *where, bool histograms, char *err,
             size_t errlen, char **raw)
{
    json_text_t out;
    json_text_init (&out);
    int rc = report_json_text (store, 1, by, where, NULL, histograms, &out, err, errlen);
    size_t len;
    char *text = json_text_take (&out, &len);
    json_t *rep = NULL;
    if (rc == 0 && text) {
        json_error_t jerr;
        rep = json_loads (text, 0, &jerr);
        CHECK_MSG (rep != NULL, "report_json_text wrote no JSON: %s", jerr.text);
    }
    if (raw)
        *raw = text;
    else
        free (text);
    return rc == 0 ? rep : NULL;
}

/* report_json_text and report_json agree on run 1 reported with by and where. */
static void
same_report (store_t *store, const char *by, const char *where_text, bool histograms)
{
    char err1[512] = "", err2[512] = "";
    json_t *where = where_text ? json_pack ("[s]", where_text) : NULL;
    json_t *tree = report_json (store, 1, by, where, NULL, err1, sizeof err1);
    CHECK_MSG (tree != NULL, "report_json by %s where %s: %s", by ? by : "-",
               where_text ? where_text : "-", err1);
    if (tree && histograms)
        CHECK (report_add_histograms (store, 1, tree) == 0);
    char *raw = NULL;
    json_t *text = text_report (store, by, where, histograms, err2, sizeof err2, &raw);
    CHECK_MSG (text != NULL, "report_json_text by %s: %s", by ? by : "-", err2);
    CHECK_MSG (json_equal (tree, text), "report_json_text differs from report_json (by %s, where %s)",
               by ? by : "-", where_text ? where_text : "-");
    CHECK_MSG (raw && strncmp (raw, "{\"verdict\":", 11) == 0, "verdict not first: %.40s",
               raw ? raw : "(none)");
    /* What the agents pass on is there: the SLA failures name targets,
       the lint line its agent, the refused agent its reason. */
    json_t *s0 = json_array_get (json_object_get (text, "steps"), 0);
    CHECK (json_array_size (json_object_get (s0, "agents")) >= 1);
    if (!where_text) {
        CHECK (json_array_size (json_object_get (s0, "agents")) == 3);
        CHECK (strcmp (json_string_value (json_object_get (text, "verdict")) ?: "", "fail") == 0);
        CHECK (json_array_size (json_object_get (json_object_get (s0, "sla"), "failures")) >= 2);
        CHECK (json_array_size (json_object_get (s0, "lint")) == 1);
        CHECK (json_array_size (json_object_get (s0, "refused_agents")) == 1);
        CHECK (json_array_size (json_object_get (s0, "incomplete_agents")) == 1);
    }
    json_decref (tree);
    json_decref (text);
    json_decref (where);
    free (raw);
}

static void
json_text_basics (void)
{
    json_text_t t;
    json_text_init (&t);
    CHECK (json_text_str (&t, "[") == 0);
    json_t *v = json_pack ("{s:i, s:s}", "a", 1, "b", "x\"y");
    for (int i = 0; i < 2000; i++) {        /* past a few doublings */
        if (i)
            CHECK (json_text_add (&t, ",", 1) == 0);
        CHECK (json_text_dump (&t, v) == 0);
    }
    CHECK (json_text_str (&t, "]") == 0);
    json_decref (v);
    size_t len = t.len, took;
    char *s = json_text_take (&t, &took);
    CHECK (s != NULL && strlen (s) == len && took == len);
    CHECK (t.len == 0 && t.data == NULL);
    json_t *back = s ? json_loads (s, 0, NULL) : NULL;
    CHECK (json_array_size (back) == 2000);
    CHECK (strcmp (json_string_value (json_object_get (json_array_get (back, 1999), "b")) ?: "",
                   "x\"y") == 0);
    json_decref (back);
    free (s);
    /* Prepended: before what the text holds, which stays whole. */
    CHECK (json_text_str (&t, "\"steps\":[1,2]}") == 0);
    const char *head = "{\"verdict\":\"pass\",";
    CHECK (json_text_prepend (&t, head, strlen (head)) == 0);
    s = json_text_take (&t, &took);
    CHECK_MSG (s && strcmp (s, "{\"verdict\":\"pass\",\"steps\":[1,2]}") == 0, "%s", s ? s : "");
    free (s);
    /* Past 1 MiB the block jumps above glibc's largest mmap threshold
       (32 MiB): mapped on its own, it grows by remapping; what it holds
       stays whole across the jump. */
    char chunk[4096];
    memset (chunk, 'x', sizeof chunk);
    for (int i = 0; i < 300; i++) {           /* 1.2 MiB */
        chunk[0] = (char) ('a' + i % 26);
        CHECK (json_text_add (&t, chunk, sizeof chunk) == 0);
    }
    CHECK (t.cap > ((size_t) 32 << 20) && t.len == 300 * sizeof chunk);
    CHECK (t.data[0] == 'a' && t.data[299 * sizeof chunk] == (char) ('a' + 299 % 26)
           && t.data[t.len - 1] == 'x' && t.data[t.len] == '\0');
    json_text_fini (&t);
    /* Empty: an empty string, not NULL. */
    s = json_text_take (&t, &took);
    CHECK (s != NULL && s[0] == '\0' && took == 0);
    free (s);
    /* Failed: every later append fails and take gives NULL. */
    CHECK (json_text_str (&t, "x") == 0);
    t.failed = true;
    CHECK (json_text_str (&t, "y") == -1);
    CHECK (json_text_take (&t, &took) == NULL);
    json_text_fini (&t);
}

/* A text made by json_text_init_gz: plain while short; past GZ_AFTER
   gzip, compressed as it grows, a prepend its own member in front; what
   gz_inflate reads back is the text a plain json_text holds. */
static void
json_text_gz (void)
{
    json_text_t z, p;
    size_t len;
    json_text_init_gz (&z);
    CHECK (json_text_str (&z, "{\"a\":1}") == 0);
    char *s = json_text_take (&z, &len);
    CHECK (s && !gz_is (s, len) && strcmp (s, "{\"a\":1}") == 0 && len == 7);
    free (s);
    json_text_init_gz (&z);
    json_text_init (&p);
    CHECK (json_text_str (&z, "[") == 0 && json_text_str (&p, "[") == 0);
    json_t *v = json_pack ("{s:i, s:s, s:f}", "iops", 0, "target", "/dev/sdq", "p99", 0.0);
    for (int i = 0; i < 40000; i++) {       /* about 3 MiB, past GZ_AFTER */
        json_object_set_new (v, "iops", json_integer (i * 7919 % 100003));
        json_object_set_new (v, "p99", json_real (i / 7.0));
        if (i) {
            CHECK (json_text_add (&z, ",", 1) == 0);
            CHECK (json_text_add (&p, ",", 1) == 0);
        }
        CHECK (json_text_dump (&z, v) == 0);
        CHECK (json_text_dump (&p, v) == 0);
    }
    json_decref (v);
    CHECK (z.gz != NULL && z.len < p.len / 3);
    const char *head = "{\"verdict\":\"pass\",\"steps\":";
    CHECK (json_text_prepend (&z, head, strlen (head)) == 0);
    CHECK (json_text_prepend (&p, head, strlen (head)) == 0);
    CHECK (json_text_str (&z, "]}") == 0 && json_text_str (&p, "]}") == 0);
    size_t plen;
    char *plain = json_text_take (&p, &plen);
    s = json_text_take (&z, &len);
    CHECK (plain && plen > GZ_AFTER && s && gz_is (s, len));
    char err[256] = "";
    size_t back_len = 0;
    char *back = s ? gz_inflate (s, len, (size_t) 64 << 20, &back_len, err, sizeof err) : NULL;
    CHECK_MSG (back != NULL, "gz_inflate: %s", err);
    CHECK (back && plain && back_len == plen && memcmp (back, plain, plen) == 0);
    json_t *doc = back ? json_loads (back, 0, NULL) : NULL;
    CHECK (json_array_size (json_object_get (doc, "steps")) == 40000);
    json_decref (doc);
    /* Limits: a reply longer than max, or cut short, is refused with why. */
    CHECK (s && gz_inflate (s, len, (size_t) 1 << 20, &back_len, err, sizeof err) == NULL
           && strstr (err, "longer than 1 MiB"));
    CHECK (s && gz_inflate (s, len / 2, (size_t) 64 << 20, &back_len, err, sizeof err) == NULL
           && strstr (err, "cannot be read"));
    CHECK (gz_inflate ("\x1f\x8bnot gzip at all", 17, 1 << 20, &back_len, err, sizeof err) == NULL
           && strstr (err, "cannot be read"));
    free (back);
    free (plain);
    free (s);
}

/* A report written into a reply's text (json_text_init_gz): the same
   report, plain (it is short). */
static void
report_gz_short (store_t *store)
{
    json_text_t out;
    char err[512] = "";
    size_t len;
    json_text_init_gz (&out);
    CHECK (json_text_str (&out, "{\"ok\":true,\"result\":") == 0);
    CHECK_MSG (report_json_text (store, 1, NULL, NULL, NULL, false, &out, err, sizeof err) == 0, "%s",
               err);
    CHECK (json_text_str (&out, "}") == 0);
    char *s = json_text_take (&out, &len);
    CHECK (s && !gz_is (s, len) && strncmp (s, "{\"ok\":true,\"result\":{\"verdict\":", 31) == 0);
    free (s);
}

int
main (void)
{
    char dir[] = "/tmp/test_report_text.XXXXXX", err[512];
    json_text_basics ();
    json_text_gz ();
    store_t *store = store_fx_open (dir);
    if (!store)
        return 1;
    store_run (store);

    same_report (store, NULL, NULL, false);
    same_report (store, NULL, NULL, true);
    same_report (store, "agent", NULL, false);
    same_report (store, "label.rack", NULL, false);
    same_report (store, "drive.model", NULL, true);
    same_report (store, NULL, "agent=b", false);
    same_report (store, "agent", "agent=[ab]", false);
    report_gz_short (store);

    /* Errors: report_json's. */
    const char *errors[][2] = {
        { "drive.nosuch", NULL },       /* --by not a key */
        { NULL, "agent=zz" },           /* --where matching nothing */
    };
    for (size_t i = 0; i < sizeof errors / sizeof *errors; i++) {
        char e1[512] = "", e2[512] = "";
        json_t *where = errors[i][1] ? json_pack ("[s]", errors[i][1]) : NULL;
        json_t *tree = report_json (store, 1, errors[i][0], where, NULL, e1, sizeof e1);
        json_t *text = text_report (store, errors[i][0], where, false, e2, sizeof e2, NULL);
        CHECK_MSG (tree == NULL && text == NULL, "case %zu: a report", i);
        CHECK_MSG (e1[0] && strcmp (e1, e2) == 0, "errors differ: '%s' / '%s'", e1, e2);
        json_decref (where);
    }
    json_t *ok = text_report (store, NULL, NULL, false, err, sizeof err, NULL);
    CHECK_MSG (ok != NULL, "%s", err);      /* caches the statements */
    json_decref (ok);
    CHECK (store_fx_exec (store, "ALTER TABLE results RENAME TO away") == SQLITE_OK);
    err[0] = '\0';
    CHECK (text_report (store, NULL, NULL, false, err, sizeof err, NULL) == NULL);
    CHECK_MSG (strstr (err, "database error reading run 1") != NULL, "%s", err);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO results") == SQLITE_OK);

    store_fx_close (&store, dir);
    printf ("test_report_text: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
