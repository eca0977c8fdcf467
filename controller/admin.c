/*  admin.c: the CLI's endpoint.  One JSON request, one JSON reply:
      {"cmd": "agents" | "inventory" | "plan_add" | "plan_list" | "plan_show" | "plan_rm"
              | "run" | "runs" | "runs_rm" | "status" | "cancel"
              | "report" | "compare" | "history" | "import" | "stats", ...}
      -> {"ok": true, "result": ...} or {"ok": false, "error": "what went wrong and what to do"}
*/
#include "compare_admin.h"
#include "controller.h"
#include "html_figures.h"
#include "jobfile.h"
#include "log.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* Large enough for the fio JSON of an import (json+ of many jobs). */
#define ADMIN_MAX_REQUEST (64u << 20)

static int64_t
run_arg (json_t *req, char *err, size_t errlen)
{
    json_t *v = json_object_get (req, "run");
    if (!json_is_integer (v) || json_integer_value (v) <= 0) {
        snprintf (err, errlen, "'run' must be a positive run id (see 'iofleet runs')");
        return 0;
    }
    return json_integer_value (v);
}

/* Who asks to cancel, as the CLI says ("USER@HOST"): printable text of at
   most 128 bytes, else "(not said)".  Can't fail. */
static const char *
cancel_by (json_t *req)
{
    const char *by = json_string_value (json_object_get (req, "by"));
    size_t n = by ? strlen (by) : 0;
    if (n == 0 || n > 128 || utf8_invalid_at (by, n) >= 0)
        return "(not said)";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char) by[i] < 0x20 || by[i] == 0x7f)
            return "(not said)";
    return by;
}

static json_t *
ns_summary (const histogram_t *h)
{
    return json_pack ("{s:I, s:f, s:f, s:f, s:f}", "count", (json_int_t) h->count,
                      "p50_ms", (double) histogram_percentile (h, 50) / 1e6,
                      "p99_ms", (double) histogram_percentile (h, 99) / 1e6,
                      "max_ms", h->count ? (double) h->max / 1e6 : 0.0,
                      "mean_ms", histogram_mean (h) / 1e6);
}

/* The "stats" command: what this controller took in since it started,
   and what it costs (the bench/fleet-scale figures come from here). */
static json_t *
stats_json (ctl_t *ctl)
{
    const ingest_stats_t *is = ctl->stats;
    int connected = 0, known = 0;
    for (peer_t *p = fleet_first (ctl->fleet); p; p = fleet_next (ctl->fleet)) {
        known++;
        connected += p->connected;
    }
    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    long rss = 0, hwm = 0;
    FILE *f = fopen ("/proc/self/status", "r");
    char line[256];
    while (f && fgets (line, sizeof line, f)) {
        sscanf (line, "VmRSS: %ld", &rss);
        sscanf (line, "VmHWM: %ld", &hwm);
    }
    if (f)
        fclose (f);
    int64_t pages = 0, page_size = 0;
    store_size (ctl->store, &pages, &page_size);
    json_t *counters = json_object ();
    sqlite3_stmt *st = store_stmt (ctl->store, "SELECT name, value FROM counters ORDER BY name");
    while (st && sqlite3_step (st) == SQLITE_ROW)
        json_object_set_new (counters, (const char *) sqlite3_column_text (st, 0),
                             json_integer (sqlite3_column_int64 (st, 1)));
    if (st)
        sqlite3_reset (st);
    uint64_t ck[4];
    store_checkpoints (ctl->store, &ck[0], &ck[1], &ck[2], &ck[3]);
    json_object_set_new (counters, "checkpoints", json_integer ((json_int_t) ck[0]));
    json_object_set_new (counters, "checkpoints_busy", json_integer ((json_int_t) ck[1]));
    json_object_set_new (counters, "checkpoints_failed", json_integer ((json_int_t) ck[2]));
    json_object_set_new (counters, "wal_pages", json_integer ((json_int_t) ck[3]));
    return json_pack ("{s:s, s:f, s:{s:i, s:i}, s:{s:I, s:I, s:I, s:I, s:I, s:o, s:o}, "
                      "s:{s:I, s:I, s:f, s:f}, s:{s:I}, s:o}",
        "version", IOF_VERSION,
        "uptime_s", (double) (clock_mono_ns () - is->started) / 1e9,
        "agents", "known", known, "connected", connected,
        "ingest", "messages", (json_int_t) is->messages, "bytes", (json_int_t) is->bytes,
        "snapshots", (json_int_t) is->snapshots, "target_snapshots", (json_int_t) is->rows,
        "commits", (json_int_t) is->commits, "lag", ns_summary (&is->lag),
        "commit", ns_summary (&is->commit),
        "process", "rss_kib", (json_int_t) rss, "rss_peak_kib", (json_int_t) hwm,
        "cpu_user_s", (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
        "cpu_system_s", (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
        "database", "bytes", (json_int_t) (pages * page_size),
        "counters", counters);
}

static json_t *
dispatch (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    const char *cmd = json_string_value (json_object_get (req, "cmd"));
    if (!cmd) {
        snprintf (err, errlen, "request has no 'cmd'");
        return NULL;
    }
    if (strcmp (cmd, "agents") == 0)
        return fleet_agents_json (ctl->fleet);
    if (strcmp (cmd, "stats") == 0)
        return stats_json (ctl);
    if (strcmp (cmd, "rejected") == 0)
        return auth_rejected_json (ctl, err, errlen);
    if (strcmp (cmd, "inventory") == 0) {
        const char *agent = json_string_value (json_object_get (req, "agent"));
        if (!agent) {
            snprintf (err, errlen, "inventory needs 'agent'");
            return NULL;
        }
        return inventory_of (ctl, agent, err, errlen);
    }
    if (strcmp (cmd, "plan_add") == 0)
        return plan_add (ctl, req, err, errlen);
    if (strcmp (cmd, "plan_list") == 0)
        return plan_list (ctl, err, errlen);
    if (strcmp (cmd, "plan_show") == 0)
        return plan_show (ctl, req, err, errlen);
    if (strcmp (cmd, "plan_rm") == 0)
        return plan_rm (ctl, req, err, errlen);
    if (strcmp (cmd, "runs") == 0)
        return runs_list (ctl, err, errlen);
    if (strcmp (cmd, "runs_rm") == 0) {
        int64_t run = run_arg (req, err, errlen);
        return run ? runs_rm (ctl, run, json_is_true (json_object_get (req, "dry_run")), err,
                              errlen) : NULL;
    }
    if (strcmp (cmd, "run") == 0) {
        const char *plan = json_string_value (json_object_get (req, "plan"));
        if (!plan) {
            snprintf (err, errlen, "run needs 'plan'");
            return NULL;
        }
        json_t *min = json_object_get (req, "min_agents");
        if (min && (!json_is_integer (min) || json_integer_value (min) < 0
                    || json_integer_value (min) > 100000)) {
            snprintf (err, errlen, "'min_agents' must be an integer 0..100000");
            return NULL;
        }
        json_t *labels = json_object_get (req, "labels");
        const char *note = json_string_value (json_object_get (req, "note"));
        if (run_labels_check (labels, note, err, errlen))
            return NULL;
        json_t *res = runner_submit (ctl, plan, json_string_value (json_object_get (req, "agents")),
                                     min ? (int) json_integer_value (min) : 0,
                                     json_is_true (json_object_get (req, "require_all")), false,
                                     err, errlen);
        if (res && run_annotate (ctl, json_integer_value (json_object_get (res, "run")), labels,
                                 note)) {
            json_decref (res);
            snprintf (err, errlen, "database error labelling the run; see the controller's log");
            return NULL;
        }
        if (res)
            store_commit (ctl->store);
        return res;
    }
    if (strcmp (cmd, "cancel") == 0) {
        int64_t run = run_arg (req, err, errlen);
        return run ? runner_cancel (ctl, run, cancel_by (req), err, errlen) : NULL;
    }
    if (strcmp (cmd, "status") == 0 || strcmp (cmd, "report") == 0) {
        int64_t run = run_arg (req, err, errlen);
        if (!run)
            return NULL;
        if (cmd[0] == 's')
            return runner_status (ctl, run, err, errlen);
        const char *format = json_string_value (json_object_get (req, "format"));
        /* where_flag: the option the conditions came from (compare --a),
           so that an error names what the user typed. */
        const char *flag = json_string_value (json_object_get (req, "where_flag"));
        if (flag && strcmp (flag, "--where") && strcmp (flag, "--a") && strcmp (flag, "--b"))
            flag = NULL;
        if (!format || strcmp (format, "json") == 0) {
            json_t *rep = report_json (ctl->store, run,
                                       json_string_value (json_object_get (req, "by")),
                                       json_object_get (req, "where"), flag, err, errlen);
            if (rep && json_is_true (json_object_get (req, "histograms")))
                report_add_histograms (ctl->store, run, rep);
            if (rep && json_is_true (json_object_get (req, "html_figures")))
                html_figures_add (rep);
            return rep;
        }
        if (strcmp (format, "fio-json") == 0 || strcmp (format, "fio-json+") == 0)
            return report_fio_json (ctl->store, run, format[8] == '+',
                                    json_object_get (req, "where"), flag, err, errlen);
        snprintf (err, errlen, "report format '%.32s': use json, fio-json or fio-json+", format);
        return NULL;
    }
    if (strcmp (cmd, "db_check") == 0)
        return store_check (ctl->store, err, errlen);
    if (strcmp (cmd, "db_backup") == 0)
        return store_backup (ctl->store, json_string_value (json_object_get (req, "path")), err,
                             errlen);
    if (strcmp (cmd, "compare") == 0)
        return compare_admin (ctl->store, req, err, errlen);
    if (strcmp (cmd, "history") == 0)
        return history_json (ctl->store, req, err, errlen);
    if (strcmp (cmd, "import") == 0)
        return import_fio (ctl, req, err, errlen);
    static const char *sched_cmds[] = { "schedule_add", "schedule_list", "schedule_rm",
                                        "schedule_run_now", "regressions", "gc", "test_clock" };
    for (size_t i = 0; i < sizeof sched_cmds / sizeof *sched_cmds; i++)
        if (strcmp (cmd, sched_cmds[i]) == 0)
            return sched_admin (ctl, cmd, req, err, errlen);
    snprintf (err, errlen, "unknown command '%.64s' (this controller is version %s)", cmd,
              IOF_VERSION);
    return NULL;
}

void
admin_on_request (ctl_t *ctl)
{
    zmsg_t *msg = zmsg_recv (ctl->admin);
    if (!msg)
        return;
    char err[1024] = "";
    json_t *result = NULL;
    zframe_t *f = zmsg_first (msg);
    if (zmsg_size (msg) != 1 || !f || zframe_size (f) > ADMIN_MAX_REQUEST) {
        snprintf (err, sizeof err, "admin requests are one JSON frame of at most %u bytes",
                  ADMIN_MAX_REQUEST);
    } else {
        json_error_t jerr;
        json_t *req = json_loadb ((const char *) zframe_data (f), zframe_size (f), 0, &jerr);
        if (!req || !json_is_object (req))
            snprintf (err, sizeof err, "admin request is not a JSON object: %s",
                      req ? "wrong type" : jerr.text);
        else
            result = dispatch (ctl, req, err, sizeof err);
        json_decref (req);
    }
    zmsg_destroy (&msg);
    /* A success is written as exactly {"ok":true,"result":RESULT}: the CLI
       passes a report's text through without parsing it. */
    char *text = NULL;
    if (result) {
        char *body = json_dumps (result, JSON_COMPACT | JSON_ENCODE_ANY);
        json_decref (result);
        size_t n = body ? strlen (body) : 0;
        text = body ? malloc (n + 32) : NULL;
        if (text)
            snprintf (text, n + 32, "{\"ok\":true,\"result\":%s}", body);
        free (body);
    } else {
        store_count (ctl->store, "admin_errors", 1);
        json_t *reply = json_pack ("{s:b, s:s}", "ok", 0, "error", err);
        text = json_dumps (reply, JSON_COMPACT);
        json_decref (reply);
    }
    zstr_send (ctl->admin, text ? text : "{\"ok\":false,\"error\":\"out of memory\"}");
    free (text);
}
