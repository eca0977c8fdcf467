/*  admin.c: the CLI's endpoint.  One JSON request, one JSON reply:
      {"cmd": "agents" | "inventory" | "plan_add" | "plan_list" | "plan_show" | "plan_rm"
              | "run" | "runs" | "runs_rm" | "status" | "cancel"
              | "report" | "compare" | "history" | "import" | "stats", ...}
      -> {"ok": true, "result": ...} or {"ok": false, "error": "what went wrong and what to do"}

    The socket is a ROUTER: the CLI's REQ clients (and DEALERs) are
    answered in the order each asked, every command where its table line
    says: on the event loop (what needs its memory, and every write), or
    on a reader thread with a read-only connection (readers.h).
*/
#include "admin.h"
#include "decode_pool.h"
#include "qualification.h"
#include "paths.h"
#include "checklist.h"
#include "pts.h"
#include "compare_admin.h"
#include "html_figures.h"
#include "jobfile.h"
#include "readers.h"
#include "log.h"
#include "util.h"
#include "auth.h"
#include "cancel.h"
#include "history_index.h"
#include "import.h"
#include "inventories.h"
#include "plans.h"
#include "retention.h"
#include "runs.h"
#include "scheduler.h"
#include "snapdict.h"
#include "step_gaps.h"
#include "status.h"
#include "submit.h"
#include "fio_export.h"
#include "fleet.h"
#include "history.h"
#include "json_text.h"
#include "report.h"
#include "store.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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
    store_counters (ctl->store, counters);      /* those read before an error (logged) */
    uint64_t ck[4];
    store_checkpoints (ctl->store, &ck[0], &ck[1], &ck[2], &ck[3]);
    json_object_set_new (counters, "checkpoints", json_integer ((json_int_t) ck[0]));
    json_object_set_new (counters, "checkpoints_busy", json_integer ((json_int_t) ck[1]));
    json_object_set_new (counters, "checkpoints_failed", json_integer ((json_int_t) ck[2]));
    json_object_set_new (counters, "wal_pages", json_integer ((json_int_t) ck[3]));
    json_t *o = json_pack ("{s:s, s:f, s:{s:i, s:i}, s:{s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:i, "
                           "s:I}, s:{s:I, s:I, s:f, s:f}, s:{s:I, s:I}, s:o, s:o, s:o, s:o}",
        "version", IOF_VERSION,
        "uptime_s", (double) (clock_mono_ns () - is->started) / 1e9,
        "agents", "known", known, "connected", connected,
        "ingest", "messages", (json_int_t) is->messages, "bytes", (json_int_t) is->bytes,
        "snapshots", (json_int_t) is->snapshots, "target_snapshots", (json_int_t) is->rows,
        "commits", (json_int_t) is->commits, "lag", ns_summary (&is->lag),
        "commit", ns_summary (&is->commit),
        "decode_threads", decode_pool_threads (ctl->decode),
        "decode_pending", (json_int_t) (ctl->decode ? decode_pool_pending (ctl->decode) : 0),
        "process", "rss_kib", (json_int_t) rss, "rss_peak_kib", (json_int_t) hwm,
        "cpu_user_s", (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
        "cpu_system_s", (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
        "database", "bytes", (json_int_t) (pages * page_size),
        "free_bytes", (json_int_t) (store_free_pages (ctl->store) * page_size),
        "retention", retention_json (ctl->retention),
        "history_index", history_index_json (ctl->history_index),
        "snapshot_dict", snapdict_json (ctl->snapdict),
        "counters", counters);
    /* While the database cannot be written: why, and what it needs. */
    json_t *held = store_held_json (ctl->store);
    if (o && held)
        json_object_set_new (json_object_get (o, "database"), "held", held);
    else
        json_decref (held);
    return o;
}

/* The commands.  Each takes the request and returns its result, or NULL
   with err filled.  A READ command runs on a reader thread, where ctl
   holds nothing but a read-only store: it may use ctl->store only, and
   must not write. */
typedef json_t *(admin_cmd_fn) (ctl_t *ctl, json_t *req, char *err, size_t errlen);
/* A command whose result is too big to hold as a tree: it writes the
   result's JSON text into out.  Returns 0, or -1 with err filled. */
typedef int (admin_text_fn) (ctl_t *ctl, json_t *req, json_text_t *out, char *err,
                             size_t errlen);

static json_t *
cmd_agents (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    (void) req, (void) err, (void) errlen;
    return fleet_agents_json (ctl->fleet);
}

static json_t *
cmd_stats (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    (void) req, (void) err, (void) errlen;
    return stats_json (ctl);
}

static json_t *
cmd_rejected (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    (void) req;
    return auth_rejected_json (ctl, err, errlen);
}

static json_t *
cmd_inventory (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    const char *agent = json_string_value (json_object_get (req, "agent"));
    if (!agent) {
        snprintf (err, errlen, "inventory needs 'agent'");
        return NULL;
    }
    return inventories_of (ctl, agent, err, errlen);
}

static json_t *
cmd_plan_list (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    (void) req;
    return plan_list (ctl, err, errlen);
}

static json_t *
cmd_runs (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    (void) req;
    return runs_list (ctl, err, errlen);
}

static json_t *
cmd_runs_rm (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    int64_t run = run_arg (req, err, errlen);
    return run ? runs_rm (ctl, run, json_is_true (json_object_get (req, "dry_run")), err, errlen)
               : NULL;
}

static json_t *
cmd_run (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
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
    if (runs_labels_check (labels, note, err, errlen))
        return NULL;
    json_t *res = submit_run (ctl, plan, json_string_value (json_object_get (req, "agents")),
                                 min ? (int) json_integer_value (min) : 0,
                                 json_is_true (json_object_get (req, "require_all")), false,
                                 err, errlen);
    if (res && (runs_annotate (ctl, json_integer_value (json_object_get (res, "run")), labels,
                               note)
                || step_gaps_set_tolerate (ctl->store,
                                           json_integer_value (json_object_get (res, "run")),
                                           json_is_true (json_object_get (req, "tolerate_gaps"))))) {
        json_decref (res);
        snprintf (err, errlen, "database error labelling the run; see the controller's log");
        return NULL;
    }
    if (res)
        store_commit (ctl->store);
    return res;
}

static json_t *
cmd_cancel (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    int64_t run = run_arg (req, err, errlen);
    return run ? cancel_run (ctl, run, cancel_by (req), err, errlen) : NULL;
}

static json_t *
cmd_status (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    int64_t run = run_arg (req, err, errlen);
    return run ? status_run (ctl, run, err, errlen) : NULL;
}

/* A report: written one agent at a time (report_json_text), but for the HTML
   report, whose figures (html_figures_add) are drawn from the whole tree. */
static int
cmd_report (ctl_t *ctl, json_t *req, json_text_t *out, char *err, size_t errlen)
{
    int64_t run = run_arg (req, err, errlen);
    if (!run)
        return -1;
    const char *format = json_string_value (json_object_get (req, "format"));
    /* where_flag: the option the conditions came from (compare --a),
       so that an error names what the user typed. */
    const char *flag = json_string_value (json_object_get (req, "where_flag"));
    if (flag && strcmp (flag, "--where") && strcmp (flag, "--a") && strcmp (flag, "--b"))
        flag = NULL;
    const char *by = json_string_value (json_object_get (req, "by"));
    json_t *where = json_object_get (req, "where");
    bool histograms = json_is_true (json_object_get (req, "histograms"));
    json_t *rep = NULL;
    const char *template = json_string_value (json_object_get (req, "template"));
    if (template) {
        /* A report in a seed's shape (qualification.h), computed here from
           the run's report grouped by --by (the media type by default). */
        qual_opts_t qo;
        if (strcmp (template, "pts") == 0) {
            rep = pts_json (ctl->store, run, err, errlen);
            if (!rep)
                return -1;
            json_text_dump (out, rep);
            json_decref (rep);
            return 0;
        }
        if (strcmp (template, "qualification") != 0) {
            snprintf (err, errlen, "--template '%.32s': use qualification or pts (compare "
                      "--template ab is not implemented yet)", template);
            return -1;
        }
        if (qualification_opts (req, &qo, err, errlen))
            return -1;
        if (!by)
            by = QUAL_BY;
        json_t *full = report_json (ctl->store, run, by, where, flag, err, errlen);
        if (!full)
            return -1;
        rep = qualification_json (full, by, &qo);
        /* The parts drawn from the inventories as well (paths.h,
           checklist.h). */
        json_t *paths = rep ? paths_json (ctl->store, run, full) : NULL;
        json_t *checklist = paths ? checklist_json (ctl->store, run, full) : NULL;
        json_decref (full);
        if (!checklist) {
            json_decref (rep);
            json_decref (paths);
            snprintf (err, errlen, "could not read the run's inventories for the qualification "
                      "report (out of memory or a database error; see the controller's log)");
            return -1;
        }
        json_object_set_new (rep, "paths", paths);
        json_object_set_new (rep, "checklist", checklist);
    } else if (!format || strcmp (format, "json") == 0) {
        if (!json_is_true (json_object_get (req, "html_figures")))
            return report_json_text (ctl->store, run, by, where, flag, histograms, out, err, errlen);
        rep = report_json (ctl->store, run, by, where, flag, err, errlen);
        if (rep && histograms)
            report_add_histograms (ctl->store, run, rep);
        if (rep) {
            html_figures_add (rep);
            /* The inventories the report's agents ran with (those --where
               kept), for its inventory section; a database error leaves
               them out (logged). */
            json_t *inv = inventories_of_run (ctl->store, run);
            json_t *kept = json_object ();
            size_t i, j;
            json_t *s, *a;
            json_array_foreach (json_object_get (rep, "steps"), i, s)
                json_array_foreach (json_object_get (s, "agents"), j, a) {
                    const char *name = json_string_value (json_object_get (a, "agent"));
                    json_t *one = name ? json_object_get (inv, name) : NULL;
                    if (one)
                        json_object_set (kept, name, one);
                }
            json_decref (inv);
            json_object_set_new (rep, "inventories", kept);
        }
    } else if (strcmp (format, "fio-json") == 0 || strcmp (format, "fio-json+") == 0)
        rep = fio_export_json (ctl->store, run, format[8] == '+', where, flag, err, errlen);
    else
        snprintf (err, errlen, "report format '%.32s': use json, fio-json or fio-json+", format);
    if (!rep)
        return -1;
    json_text_dump (out, rep);
    json_decref (rep);
    return 0;
}

static json_t *
cmd_db_check (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    (void) req;
    return store_check (ctl->store, err, errlen);
}

static json_t *
cmd_db_usage (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    (void) req;
    return store_usage (ctl->store, err, errlen);
}

static json_t *
cmd_db_backup (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    return store_backup (ctl->store, json_string_value (json_object_get (req, "path")), err,
                         errlen);
}

static json_t *
cmd_compare (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    return compare_admin (ctl->store, req, err, errlen);
}

/* {run, step}: report_step_intervals (the live page's chart). */
static json_t *
cmd_intervals (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    int64_t run = run_arg (req, err, errlen);
    json_t *sj = json_object_get (req, "step");
    if (run && !json_is_integer (sj)) {
        snprintf (err, errlen, "intervals needs 'step', a step index");
        return NULL;
    }
    return run ? report_step_intervals (ctl->store, run, (int) json_integer_value (sj), err,
                                        errlen) : NULL;
}

static json_t *
cmd_history (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    return history_json (ctl->store, req, err, errlen);
}

static json_t *
cmd_sched (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    return scheduler_admin (ctl, json_string_value (json_object_get (req, "cmd")), req, err, errlen);
}

/* test_hold {"file"} (tests only, --test-clock): keeps its reader busy
   while file exists (60 s at most), after adding a line to FILE.held, so
   that a test knows the reader is held and can show that the loop answers
   meanwhile, without timing anything. */
static json_t *
cmd_test_hold (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    (void) ctl;
    const char *file = json_string_value (json_object_get (req, "file"));
    if (!file || file[0] != '/' || strlen (file) > 1000) {
        snprintf (err, errlen, "test_hold needs 'file', an absolute path");
        return NULL;
    }
    char held[1100];
    snprintf (held, sizeof held, "%s.held", file);
    FILE *f = fopen (held, "a");
    if (!f || fputs ("held\n", f) < 0 || fclose (f) != 0) {
        snprintf (err, errlen, "test_hold: cannot write %s", held);
        return NULL;
    }
    int waited = 0;
    for (; waited < 6000 && access (file, F_OK) == 0; waited++)
        usleep (10000);
    return json_pack ("{s:b}", "released", waited < 6000);
}

/* ON_LOOP_READ: on the loop, but only reading its memory (what the
   HTTP pages may ask it, admin_loop_read). */
typedef enum { ON_LOOP, ON_LOOP_READ, ON_READER } admin_place_t;

typedef struct {
    const char *name;
    admin_place_t place;
    admin_cmd_fn *fn;
    bool test_only;             /* refused unless started with --test-clock */
    admin_text_fn *text;        /* instead of fn: writes its result's text */
} admin_cmd_t;

/* Every command, and where it runs.  ON_LOOP: it needs the loop's memory
   (peers, runs in hand, the scheduler) or writes; ON_READER: it only
   reads the database.  db_backup stays on the loop: its copy, from a
   connection that others write meanwhile, would start over at each of
   their commits.  Returns the command's line, or NULL for an unknown
   one.  Can't fail. */
static const admin_cmd_t *
admin_cmd (const char *name)
{
    static const admin_cmd_t cmds[] = {
        { "agents",           ON_LOOP_READ, cmd_agents, false, NULL },
        { "stats",            ON_LOOP_READ, cmd_stats, false, NULL },
        { "rejected",         ON_LOOP,   cmd_rejected, false, NULL },
        { "status",           ON_LOOP_READ, cmd_status, false, NULL },
        { "run",              ON_LOOP,   cmd_run, false, NULL },
        { "cancel",           ON_LOOP,   cmd_cancel, false, NULL },
        { "plan_add",         ON_LOOP,   plan_add, false, NULL },
        { "plan_rm",          ON_LOOP,   plan_rm, false, NULL },
        { "runs_rm",          ON_LOOP,   cmd_runs_rm, false, NULL },
        { "import",           ON_LOOP,   import_fio, false, NULL },
        { "db_backup",        ON_LOOP,   cmd_db_backup, false, NULL },
        { "schedule_add",     ON_LOOP,   cmd_sched, false, NULL },
        { "schedule_list",    ON_LOOP_READ, cmd_sched, false, NULL },
        { "schedule_rm",      ON_LOOP,   cmd_sched, false, NULL },
        { "schedule_run_now", ON_LOOP,   cmd_sched, false, NULL },
        { "regressions",      ON_LOOP,   cmd_sched, false, NULL },
        { "gc",               ON_LOOP,   cmd_sched, false, NULL },
        { "test_clock",       ON_LOOP,   cmd_sched, false, NULL },
        { "inventory",        ON_READER, cmd_inventory, false, NULL },
        { "plan_list",        ON_READER, cmd_plan_list, false, NULL },
        { "plan_show",        ON_READER, plan_show, false, NULL },
        { "runs",             ON_READER, cmd_runs, false, NULL },
        { "report",           ON_READER, NULL, false, cmd_report },
        { "compare",          ON_READER, cmd_compare, false, NULL },
        { "history",          ON_READER, cmd_history, false, NULL },
        { "intervals",        ON_READER, cmd_intervals, false, NULL },
        { "db_check",         ON_READER, cmd_db_check, false, NULL },
        { "db_usage",         ON_READER, cmd_db_usage, false, NULL },
        { "test_hold",        ON_READER, cmd_test_hold, true, NULL },
    };
    for (size_t i = 0; name && i < sizeof cmds / sizeof *cmds; i++)
        if (strcmp (name, cmds[i].name) == 0)
            return &cmds[i];
    return NULL;
}

/* The request in body as a JSON object, or NULL with err filled. */
static json_t *
parse_request (zframe_t *body, char *err, size_t errlen)
{
    if (!body || zframe_size (body) > ADMIN_MAX_REQUEST) {
        snprintf (err, errlen, "admin requests are one JSON frame of at most %u bytes",
                  ADMIN_MAX_REQUEST);
        return NULL;
    }
    json_error_t jerr;
    json_t *req = json_loadb ((const char *) zframe_data (body), zframe_size (body), 0, &jerr);
    if (!req || !json_is_object (req)) {
        snprintf (err, errlen, "admin request is not a JSON object: %s",
                  req ? "wrong type" : jerr.text);
        json_decref (req);
        return NULL;
    }
    return req;
}

/* Runs the request (NULL: err says why there is none) and returns the
   reply's text (malloc'd; NULL only out of memory), *len bytes; *failed:
   it is an error.  may_gz (a reader's answer): gzip when longer than
   GZ_AFTER (gz.h); the loop's answers stay plain, so that no compressing
   holds the loop.  A success is written as exactly
   {"ok":true,"result":RESULT}: the CLI passes a report's text through
   without parsing it. */
static char *
answer (ctl_t *ctl, json_t *req, bool may_gz, char *err, size_t errlen, size_t *len,
        bool *failed)
{
    json_t *result = NULL;
    json_text_t out;
    if (may_gz)
        json_text_init_gz (&out);
    else
        json_text_init (&out);
    json_text_str (&out, "{\"ok\":true,\"result\":");
    bool written = false;
    if (req) {
        const char *name = json_string_value (json_object_get (req, "cmd"));
        const admin_cmd_t *c = admin_cmd (name);
        if (!name)
            snprintf (err, errlen, "request has no 'cmd'");
        else if (!c)
            snprintf (err, errlen, "unknown command '%.64s' (this controller is version %s)",
                      name, IOF_VERSION);
        else if (c->text)
            written = c->text (ctl, req, &out, err, errlen) == 0;
        else
            result = c->fn (ctl, req, err, errlen);
    }
    if (result) {
        json_text_dump (&out, result);
        json_decref (result);
        written = true;
    }
    char *text = NULL;
    if (written) {
        json_text_str (&out, "}");
        text = json_text_take (&out, len);
        if (!text)
            snprintf (err, errlen, "out of memory writing the reply");
    }
    json_text_fini (&out);
    *failed = !text;
    if (!text) {
        json_t *reply = json_pack ("{s:b, s:s}", "ok", 0, "error", err);
        text = json_dumps (reply, JSON_COMPACT);
        json_decref (reply);
        if (!text)
            text = strdup ("{\"ok\":false,\"error\":\"out of memory\"}");
        *len = text ? strlen (text) : 0;
    }
    return text;
}

/* readers_fn: a read command, on a reader thread. */
static char *
reader_answer (ctl_t *ctl, zframe_t *body, size_t *len, bool *failed)
{
    char err[1024] = "";
    json_t *req = parse_request (body, err, sizeof err);
    IOF_ASSERT (!req || admin_cmd (json_string_value (json_object_get (req, "cmd")))->place
                        == ON_READER);
    char *text = answer (ctl, req, true, err, sizeof err, len, failed);
    json_decref (req);
    return text;
}

/* answer () for a command of place only; any other is refused. */
static char *
answer_only (ctl_t *ctl, json_t *req, admin_place_t place, size_t *len, bool *failed)
{
    char err[1024] = "";
    const admin_cmd_t *c = admin_cmd (json_string_value (json_object_get (req, "cmd")));
    if (!c || c->place != place) {
        *failed = true;
        char *text = strdup ("{\"ok\":false,\"error\":\"not a read-only command\"}");
        *len = text ? strlen (text) : 0;
        return text;
    }
    return answer (ctl, req, false, err, sizeof err, len, failed);
}

char *
admin_read (ctl_t *ctl, json_t *req, size_t *len, bool *failed)
{
    char *text = answer_only (ctl, req, ON_READER, len, failed);
    store_end_read (ctl->store);
    return text;
}

bool
admin_on_loop (const char *cmd)
{
    const admin_cmd_t *c = admin_cmd (cmd);
    return c && c->place == ON_LOOP_READ;
}

char *
admin_loop_read (ctl_t *ctl, json_t *req, size_t *len, bool *failed)
{
    return answer_only (ctl, req, ON_LOOP_READ, len, failed);
}

/* A request waiting for its turn: its client's envelope (routing id, and
   the empty delimiter of a REQ client), its body (NULL: not one frame),
   and where it runs. */
typedef struct {
    zmsg_t *envelope;
    zframe_t *body;
    char *client;               /* the routing id in hex */
    json_t *req;                /* NULL: err says why */
    char err[1024];             /* as long as the loop's answers have always had */
    admin_place_t place;
} admin_job_t;

static void
admin_job_destroy (admin_job_t **self_p)
{
    admin_job_t *self = *self_p;
    if (!self)
        return;
    zmsg_destroy (&self->envelope);
    zframe_destroy (&self->body);
    free (self->client);
    json_decref (self->req);
    free (self);
    *self_p = NULL;
}

struct admin {
    ctl_t *ctl;
    readers_t *readers;
    admin_job_t **queue;        /* in arrival order, not yet started */
    size_t nqueue, cap;
    zhashx_t *inflight;         /* client -> its requests on a reader (as a count) */
    bool wrote;                 /* a loop command ran since the last commit */
    bool testing;               /* test_only commands are allowed */
};

admin_t *
admin_new (ctl_t *ctl, const char *db_path, int nreaders, bool testing, char *err, size_t errlen)
{
    admin_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    self->ctl = ctl;
    self->testing = testing;
    self->inflight = zhashx_new ();
    self->readers = readers_new (db_path, nreaders, reader_answer, err, errlen);
    if (!self->inflight || !self->readers) {
        if (!self->inflight)
            snprintf (err, errlen, "out of memory");
        admin_destroy (&self);
        return NULL;
    }
    return self;
}

void
admin_destroy (admin_t **self_p)
{
    IOF_ASSERT (self_p);
    admin_t *self = *self_p;
    if (!self)
        return;
    readers_destroy (&self->readers);
    for (size_t i = 0; i < self->nqueue; i++)
        admin_job_destroy (&self->queue[i]);
    free (self->queue);
    zhashx_destroy (&self->inflight);
    free (self);
    *self_p = NULL;
}

void
admin_poll (admin_t *self, zpoller_t *poller)
{
    readers_poll (self->readers, poller);
}

/* Sends the len bytes of text to the client of envelope (which is used
   up).  Can't fail (a client gone is forgotten by the socket). */
static void
send_reply (admin_t *self, zmsg_t *envelope, const char *text, size_t len, bool failed)
{
    if (failed)
        store_count (self->ctl->store, "admin_errors", 1);
    zmsg_addmem (envelope, text, len);
    if (zmsg_send (&envelope, self->ctl->admin))
        zmsg_destroy (&envelope);
}

static size_t
inflight_of (admin_t *self, const char *client)
{
    return (size_t) (uintptr_t) zhashx_lookup (self->inflight, client);
}

static void
inflight_add (admin_t *self, const char *client, int delta)
{
    size_t n = inflight_of (self, client) + (size_t) delta;
    if (n)
        zhashx_update (self->inflight, client, (void *) (uintptr_t) n);
    else
        zhashx_delete (self->inflight, client);
}

/* Starts the queued jobs whose turn it is: a client's job waits while an
   earlier one of the same client is on a reader or still queued, so each
   client is answered in the order it asked; a read waits for an idle
   reader.  Can't fail. */
static void
pump (admin_t *self)
{
    size_t i = 0;
    while (i < self->nqueue) {
        admin_job_t *j = self->queue[i];
        bool earlier = inflight_of (self, j->client) > 0;
        for (size_t k = 0; !earlier && k < i; k++)
            earlier = strcmp (self->queue[k]->client, j->client) == 0;
        if (earlier) {
            i++;
            continue;
        }
        if (j->place == ON_READER) {
            /* The reader must see what this loop wrote for a client
               before: commit it now rather than at the tick's end. */
            if (self->wrote && store_in_tx (self->ctl->store))
                store_commit (self->ctl->store);
            self->wrote = false;
            zmsg_t *msg = zmsg_dup (j->envelope);
            zframe_t *body = zframe_dup (j->body);
            if (!msg || !body || zmsg_append (msg, &body)
                || readers_send (self->readers, &msg)) {
                zmsg_destroy (&msg);
                zframe_destroy (&body);
                i++;            /* every reader busy: its turn comes with a reply */
                continue;
            }
            inflight_add (self, j->client, 1);
        } else {
            bool failed;
            size_t len;
            char *text = answer (self->ctl, j->req, false, j->err, sizeof j->err, &len,
                                 &failed);
            send_reply (self, j->envelope, text, text ? len : 0, failed);
            j->envelope = NULL;
            free (text);
            self->wrote = true;
        }
        admin_job_destroy (&self->queue[i]);
        memmove (&self->queue[i], &self->queue[i + 1],
                 (self->nqueue - i - 1) * sizeof *self->queue);
        self->nqueue--;
        i = 0;                  /* a job started may unblock an earlier one's client */
    }
}

/* A job of msg (a message of the ROUTER), which it takes, or NULL when
   out of memory. */
static admin_job_t *
admin_job_new (admin_t *self, zmsg_t *msg)
{
    admin_job_t *j = calloc (1, sizeof *j);
    if (!j) {
        zmsg_destroy (&msg);
        return NULL;
    }
    /* [routing id] ([empty delimiter] of REQ) [body] */
    j->envelope = zmsg_new ();
    zframe_t *rid = zmsg_pop (msg);
    j->client = rid ? zframe_strhex (rid) : strdup ("");
    zmsg_append (j->envelope, &rid);
    zframe_t *f = zmsg_first (msg);
    if (f && zframe_size (f) == 0) {
        f = zmsg_pop (msg);
        zmsg_append (j->envelope, &f);
    }
    if (zmsg_size (msg) == 1)
        j->body = zmsg_pop (msg);
    zmsg_destroy (&msg);
    j->req = parse_request (j->body, j->err, sizeof j->err);
    const admin_cmd_t *c = j->req ? admin_cmd (json_string_value (json_object_get (j->req, "cmd")))
                                  : NULL;
    if (c && c->test_only && !self->testing) {
        snprintf (j->err, sizeof j->err, "%s needs a controller started with --test-clock",
                  c->name);
        json_decref (j->req);
        j->req = NULL;
        c = NULL;
    }
    j->place = c ? c->place : ON_LOOP;
    if (j->place == ON_READER) {
        json_decref (j->req);   /* the reader reads it again */
        j->req = NULL;
    }
    return j;
}

void
admin_on_request (admin_t *self)
{
    zmsg_t *msg = zmsg_recv_nowait (self->ctl->admin);
    if (!msg)
        return;
    admin_job_t *j = admin_job_new (self, msg);
    if (j && self->nqueue == self->cap) {
        size_t cap = self->cap ? self->cap * 2 : 16;
        admin_job_t **q = realloc (self->queue, cap * sizeof *q);
        if (q)
            self->queue = q, self->cap = cap;
    }
    if (!j || self->nqueue == self->cap) {
        admin_job_destroy (&j);       /* out of memory: the client's REQ times out */
        return;
    }
    self->queue[self->nqueue++] = j;
    pump (self);
}

void
admin_on_replies (admin_t *self)
{
    bool failed = false;
    zmsg_t *msg;
    while ((msg = readers_recv (self->readers, &failed))) {
        char *client = zframe_strhex (zmsg_first (msg));
        inflight_add (self, client, -1);
        free (client);
        zframe_t *text = zmsg_last (msg);
        zmsg_remove (msg, text);
        if (failed)
            store_count (self->ctl->store, "admin_errors", 1);
        zmsg_append (msg, &text);
        if (zmsg_send (&msg, self->ctl->admin))
            zmsg_destroy (&msg);
    }
    pump (self);
}
