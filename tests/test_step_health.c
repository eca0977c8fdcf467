/*  test_step_health.c: controller/report/step_health.c on a database of its own.
    The write path checks every record an agent sends (a bad one is
    stored as unavailable, saying why, and counted; a list of the wrong
    length is not stored); the read path judges each drive from its two
    records and the temperatures its snapshots carried (the snapshots
    table's temperature_mc, through the blocks), draws the temperature
    series, names the outlier's cause, applies the rule, and gives
    history its figure per group. */
#include "controller.h"
#include "health.h"
#include "step_health.h"
#include "testutil.h"
#include "store_fx.h"
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RUN 1
#define STEP 0
#define S_NS 1000000000ull

static int64_t
counter (store_t *store, const char *name)
{
    store_commit (store);
    sqlite3_stmt *st = store_stmt (store, "SELECT value FROM counters WHERE name = ?");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int64_t v = sqlite3_step (st) == SQLITE_ROW ? sqlite3_column_int64 (st, 0) : 0;
    sqlite3_reset (st);
    return v;
}

/* The JSON of a simulated-like NVMe record. */
static char *
record (int temp, int media, int thm1, long long written, long long nand)
{
    health_t h;
    health_init (&h, "nvme-ioctl", "nvme");
    health_set (&h, HF_TEMPERATURE_C, temp);
    health_set (&h, HF_WARNING_TEMP_C, 70);
    health_set (&h, HF_CRITICAL_WARNING, 0);
    health_set (&h, HF_MEDIA_ERRORS, media);
    health_set (&h, HF_ERROR_LOG_ENTRIES, media);
    health_set (&h, HF_THROTTLE1_TRANSITIONS, thm1);
    health_set (&h, HF_THROTTLE2_TRANSITIONS, 0);
    health_set (&h, HF_HOST_BYTES_WRITTEN, written);
    health_set (&h, HF_NAND_BYTES_WRITTEN, nand);
    json_t *j = health_to_json (&h);
    char *s = json_dumps (j, JSON_COMPACT);
    json_decref (j);
    return s;
}

/* Agent a's target t at interval seq: 1000 reads, and a temperature. */
static void
snapshot (store_t *store, int a, int t, int seq, int temp_mc)
{
    char sql[512];
    snprintf (sql, sizeof sql, "INSERT INTO snapshots (run_id, step_idx, agent_id, target, seq, "
              "t_start, t_end, read_ops, read_bytes, read_errors, write_ops, write_bytes, "
              "write_errors, temperature_mc) VALUES (%d, %d, %d, %d, %d, %llu, %llu, 1000, "
              "4096000, 0, 0, 0, 0, %d)", RUN, STEP, a, t, seq,
              (unsigned long long) (seq * S_NS), (unsigned long long) ((seq + 1) * S_NS), temp_mc);
    CHECK (store_fx_exec (store, sql) == SQLITE_OK);
}

int
main (void)
{
    char dir[] = "/tmp/iofleet-step-health.XXXXXX";
    store_t *store = store_fx_open (dir);
    if (!store)
        return TEST_DONE ();
    CHECK (store_fx_exec (store,
        "INSERT INTO agents (id, name, first_seen, last_seen) VALUES (1, 'a1', 0, 0), "
        " (2, 'a2', 0, 0), (3, 'a3', 0, 0);"
        "INSERT INTO plans (id, name, version, source, text, steps, created_at) "
        " VALUES (1, 'p', 1, 'p.fio', '', '[]', 0);"
        "INSERT INTO runs (id, plan_id, status, created_at) VALUES (1, 1, 'complete', 0);"
        "INSERT INTO steps (run_id, idx, name, spec) VALUES (1, 0, 's', '{}');"
        "INSERT INTO step_agents (run_id, step_idx, agent_id, status, targets, target_drives) "
        " VALUES (1, 0, 1, 'done', '[\"/dev/nvme0n1\",\"/dev/nvme1n1\"]', "
        "  '[{\"model\":\"M1\",\"firmware\":\"F1\",\"serial\":\"S1\",\"transport\":\"nvme\"},"
        "    {\"model\":\"M1\",\"firmware\":\"F2\",\"serial\":\"S2\",\"transport\":\"nvme\"}]'),"
        " (1, 0, 2, 'done', '[\"/dev/nvme0n1\",\"/dev/nvme1n1\"]', NULL),"
        " (1, 0, 3, 'done', '[\"/dev/loop0\"]', NULL)") == SQLITE_OK);

    /* Write path.  Agent 1: both drives report; nvme1n1 heats (the
       series below), throttles 6 times and gains 2 media errors. */
    char *b0 = record (40, 0, 10, 1000000, 3000000), *a0 = record (41, 0, 10, 2000000, 4500000);
    char *b1 = record (45, 5, 0, 0, 0), *a1 = record (79, 7, 6, 1000, 1000);
    char *before1[2] = { b0, b1 }, *after1[2] = { a0, a1 };
    step_health_save (store, RUN, STEP, 1, false, before1, 2, 2);
    step_health_save (store, RUN, STEP, 1, true, after1, 2, 2);
    /* Agent 2: one record is not JSON, one has a field out of range:
       each stored as unavailable saying why, and counted. */
    int64_t bad0 = counter (store, "bad_agent_messages");
    char *before2[2] = { "{\"available\":true,\"temperature_c\":5000}", "not json" };
    step_health_save (store, RUN, STEP, 2, false, before2, 2, 2);
    CHECK (counter (store, "bad_agent_messages") == bad0 + 2);
    /* ... and a list of the wrong length: none stored, counted. */
    step_health_save (store, RUN, STEP, 2, true, after1, 1, 2);
    CHECK (counter (store, "bad_agent_messages") == bad0 + 3);
    /* Agent 3: a loop device. */
    char *loop[1] = { "{\"available\":false,\"reason\":\"loop device: the file behind it has no "
                      "SMART\"}" };
    step_health_save (store, RUN, STEP, 3, false, loop, 1, 1);
    step_health_save (store, RUN, STEP, 3, true, loop, 1, 1);
    sqlite3_stmt *st;
    CHECK (sqlite3_prepare_v2 (store_db (store), "SELECT health_before, health_after FROM "
                               "step_agents WHERE agent_id = 2", -1, &st, NULL) == SQLITE_OK);
    CHECK (sqlite3_step (st) == SQLITE_ROW);
    const char *stored = (const char *) sqlite3_column_text (st, 0);
    CHECK_MSG (stored && strstr (stored, "\"available\":false")
               && strstr (stored, "health.temperature_c: 5000") && strstr (stored, "not JSON"),
               "%s", stored ? stored : "(null)");
    CHECK (sqlite3_column_type (st, 1) == SQLITE_NULL);
    sqlite3_finalize (st);

    /* Four intervals: agent 1's drives and agent 3's loop device (no
       temperature: NULL), agent 2's too. */
    static const int hot[4] = { 55000, 71000, 78500, 76000 };
    for (int k = 0; k < 4; k++) {
        snapshot (store, 1, 0, k, k == 0 ? -500 : 40000 + 250 * k);    /* below 0 C once */
        snapshot (store, 1, 1, k, hot[k]);
    }
    CHECK (store_fx_exec (store, "INSERT INTO snapshots (run_id, step_idx, agent_id, target, seq, "
                          "t_start, t_end, read_ops, read_bytes, read_errors, write_ops, "
                          "write_bytes, write_errors) VALUES (1, 0, 3, 0, 0, 0, 1000000000, 10, "
                          "40960, 0, 0, 0, 0)") == SQLITE_OK);

    /* Read path: a report's step. */
    json_t *s = json_pack ("{s:i, s:s, s:[{s:s, s:s, s:s, s:f}]}", "index", STEP, "name", "s",
                           "outliers", "agent", "a1", "target", "/dev/nvme1n1", "metric", "iops",
                           "value", 100.0);
    json_t *job = json_pack ("{s:s}", "health", "no_new_media_errors,max_temp<75");
    bool judged = false, failed = false;
    CHECK (step_health_add (store, RUN, STEP, job, NULL, s, &judged, &failed) == 0);
    CHECK (judged && failed);
    json_t *h = json_object_get (s, "health");
    CHECK (json_integer_value (json_object_get (h, "drives_total")) == 5);
    CHECK (json_integer_value (json_object_get (h, "reporting")) == 2);
    CHECK (json_integer_value (json_object_get (h, "not_sent")) == 0);
    json_t *un = json_object_get (h, "unavailable");
    CHECK (json_integer_value (json_object_get (un, "loop device: the file behind it has no "
                                                    "SMART")) == 1);
    CHECK (json_object_size (un) == 3);     /* two bad records, one loop device */
    json_t *d1 = json_object_get (json_array_get (json_object_get (h, "drives"), 1), "judgement");
    /* The series' highest, not the after record's 79 C. */
    CHECK (json_real_value (json_object_get (d1, "temperature_max_c")) == 78.5);
    CHECK (json_real_value (json_object_get (d1, "above_warning_s")) == 3.0);
    CHECK (json_integer_value (json_object_get (d1, "throttle_transitions")) == 6);
    CHECK (json_integer_value (json_object_get (d1, "media_errors_delta")) == 2);
    CHECK (json_real_value (json_object_get (d1, "waf")) == 1.0);
    json_t *d0 = json_object_get (json_array_get (json_object_get (h, "drives"), 0), "judgement");
    CHECK (json_real_value (json_object_get (d0, "waf")) == 1.5);
    CHECK (json_array_size (json_object_get (d0, "findings")) == 0);
    json_t *t = json_object_get (h, "temperature");
    CHECK (json_array_size (json_object_get (t, "max_c")) == 4);
    CHECK (json_real_value (json_array_get (json_object_get (t, "max_c"), 2)) == 78.5);
    CHECK (json_real_value (json_array_get (json_object_get (t, "mean_c"), 0)) == 27.3);
    CHECK (json_real_value (json_array_get (json_object_get (t, "mean_c"), 1)) == 55.6);
    CHECK (json_real_value (json_object_get (t, "interval_s")) == 1.0);
    json_t *named = json_object_get (t, "drives");
    CHECK (json_array_size (named) == 1
           && !strcmp (json_string_value (json_object_get (json_array_get (named, 0), "target")),
                       "/dev/nvme1n1"));
    json_t *o = json_array_get (json_object_get (s, "outliers"), 0);
    CHECK_MSG (!strcmp (json_string_value (json_object_get (o, "health_cause")) ?: "",
                        "hot: 78 C, 6 throttle transitions"), "%s",
               json_string_value (json_object_get (o, "health_cause")));
    json_t *rule = json_object_get (h, "rule");
    CHECK (json_is_false (json_object_get (rule, "pass")));
    CHECK (json_array_size (json_object_get (rule, "failures")) == 2);    /* temp, media */
    CHECK (json_integer_value (json_object_get (rule, "drives_not_judged")) == 3);
    json_decref (s);

    /* No rule: judged stays false, the verdict is not touched. */
    s = json_pack ("{s:i}", "index", STEP);
    json_t *nojob = json_object ();
    CHECK (step_health_add (store, RUN, STEP, nojob, NULL, s, &judged, &failed) == 0);
    CHECK (!judged && !failed && !json_object_get (json_object_get (s, "health"), "rule"));
    json_decref (s);

    /* A --where that kept agent 1's cool drive: only it is reported, the
       rule passes on it, the series is its own. */
    s = json_pack ("{s:i}", "index", STEP);
    json_t *keep = json_pack ("{s:b}", "a1\x1f/dev/nvme0n1", 1);
    CHECK (step_health_add (store, RUN, STEP, job, keep, s, &judged, &failed) == 0);
    h = json_object_get (s, "health");
    CHECK (judged && !failed);
    CHECK (json_integer_value (json_object_get (h, "drives_total")) == 1
           && json_array_size (json_object_get (h, "drives")) == 1
           && json_object_size (json_object_get (h, "unavailable")) == 0);
    CHECK (json_real_value (json_array_get (json_object_get (json_object_get (h, "temperature"),
                                                             "max_c"), 2)) == 40.5);
    json_decref (keep);
    json_decref (s);
    json_decref (nojob);
    json_decref (job);

    /* History: per group. */
    json_t *rows = step_health_history (store, RUN, STEP, "temperature.max", NULL);
    CHECK (json_array_size (rows) == 1
           && json_real_value (json_object_get (json_array_get (rows, 0), "figure")) == 78.5);
    json_decref (rows);
    rows = step_health_history (store, RUN, STEP, "media_errors.delta", "drive.firmware");
    size_t i;
    json_t *r;
    int seen = 0;
    json_array_foreach (rows, i, r) {
        const char *g = json_string_value (json_object_get (r, "value"));
        json_t *f = json_object_get (r, "figure");
        if (!strcmp (g, "F1"))
            seen += json_real_value (f) == 0.0;
        else if (!strcmp (g, "F2"))
            seen += json_real_value (f) == 2.0;
        else
            seen += json_is_null (f) && !strcmp (g, "(unknown)");   /* no inventory, no record */
    }
    CHECK (seen == 3 && json_array_size (rows) == 3);
    json_decref (rows);
    rows = step_health_history (store, RUN, STEP, "waf", "health.temperature_c");
    int buckets = 0;
    json_array_foreach (rows, i, r) {
        const char *g = json_string_value (json_object_get (r, "value"));
        if (!strcmp (g, "40-44 C"))
            buckets += json_real_value (json_object_get (r, "figure")) == 1.5;
        if (!strcmp (g, "45-49 C"))
            buckets += json_real_value (json_object_get (r, "figure")) == 1.0;
    }
    CHECK (buckets == 2);
    json_decref (rows);
    char err[256];
    CHECK (step_health_by_check ("host.kernel", err, sizeof err) == -1
           && strstr (err, "with a health metric") != NULL);
    CHECK (step_health_by_check ("health.nope", err, sizeof err) == -1);
    CHECK (step_health_by_check ("health.percentage_used", err, sizeof err) == 0);
    CHECK (step_health_is_metric ("waf") && !step_health_is_metric ("p99"));
    CHECK (!strcmp (step_health_metric_unit ("temperature.mean"), "C"));

    free (b0);
    free (a0);
    free (b1);
    free (a1);
    store_fx_close (&store, dir);
    return TEST_DONE ();
}
