/*  iofleet: the command line for an iofleet controller. */
#define _GNU_SOURCE
#include "cli.h"
#include "json_get.h"
#include "commands.h"
#include "help.h"
#include "html_report.h"
#include "jobfile.h"
#include "util.h"

#include <czmq.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


static const char *s_endpoint;
static json_t *
call (json_t *req, int timeout_ms)
{
    return cli_ask (s_endpoint, req, timeout_ms);
}

/* iofleet agents --rejected: the CURVE keys the controller refused. */
static int
rejected (bool json)
{
    json_t *r = call (json_pack ("{s:s}", "cmd", "rejected"), CALL_TIMEOUT_MS);
    if (!r)
        return 1;
    if (json)
        cli_print_json (r);
    else {
        printf ("%-42s %-7s %-22s %8s  %s\n", "public key", "as", "from", "attempts", "last (UTC)");
        size_t i;
        json_t *k;
        json_array_foreach (r, i, k) {
            char when[32];
            time_t t = (time_t) (json_integer_value (json_object_get (k, "last_seen")) / 1000000000);
            struct tm tm;
            gmtime_r (&t, &tm);
            strftime (when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
            printf ("%-42s %-7s %-22s %8lld  %s\n",
                    json_string_value (json_object_get (k, "public_key")),
                    json_string_value (json_object_get (k, "domain")),
                    json_string_value (json_object_get (k, "address")),
                    (long long) json_integer_value (json_object_get (k, "attempts")), when);
        }
        if (json_array_size (r) == 0)
            printf ("(no key refused; without --keys the controller does not check keys)\n");
    }
    json_decref (r);
    return 0;
}

static const char *
jstr (json_t *o, const char *key)
{
    return json_get_str_or (o, key, "-");
}

static int
compare_str (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* An agent's labels as KEY=VALUE,KEY=VALUE sorted by key into buf (cut
   to fit), "-" for none.  Can't fail. */
static const char *
labels_text (json_t *labels, char *buf, size_t cap)
{
    const char *keys[128], *k;
    size_t n = 0, off = 0;
    json_t *v;
    json_object_foreach (labels, k, v)
        if (n < sizeof keys / sizeof *keys)
            keys[n++] = k;
    qsort (keys, n, sizeof *keys, compare_str);
    buf[0] = '\0';
    for (size_t i = 0; i < n && off < cap; i++)
        off += (size_t) snprintf (buf + off, cap - off, "%s%s=%s", i ? "," : "", keys[i],
                                  jstr (labels, keys[i]));
    return n ? buf : "-";
}

static int
cmd_agents (int argc, char **argv)
{
    bool json = false;
    if (argc >= 2 && strcmp (argv[1], "--rejected") == 0) {
        if (cli_flag_json (argc, argv, 2, &json))
            return 2;
        return rejected (json);
    }
    if (cli_flag_json (argc, argv, 1, &json))
        return 2;
    json_t *r = call (json_pack ("{s:s}", "cmd", "agents"), CALL_TIMEOUT_MS);
    if (!r)
        return 1;
    if (json)
        cli_print_json (r);
    else {
        /* The release beside each agent: a rolling upgrade shows who is on what. */
        printf ("%-20s %-12s %-20s %-8s %-24s %s\n", "name", "state", "host", "release", "kernel",
                "labels");
        size_t i;
        json_t *a;
        json_array_foreach (r, i, a) {
            char labels[2048];
            printf ("%-20s %-12s %-20s %-8s %-24s %s\n",
                    json_string_value (json_object_get (a, "name")),
                    json_is_true (json_object_get (a, "connected")) ? "connected" : "gone",
                    json_string_value (json_object_get (a, "hostname")),
                    jstr (a, "version"), json_string_value (json_object_get (a, "kernel")),
                    labels_text (json_object_get (a, "labels"), labels, sizeof labels));
        }
        if (json_array_size (r) == 0)
            printf ("(no agents yet: start iofleet-agent --controller tcp://THIS-HOST:5570 on "
                    "the hosts to test)\n");
    }
    json_decref (r);
    return 0;
}

static int
cmd_inventory (int argc, char **argv)
{
    const char *agent = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--json") == 0)
            json = true;
        else if (argv[i][0] != '-' && !agent)
            agent = argv[i];
        else {
            fprintf (stderr, "iofleet inventory: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!agent) {
        fprintf (stderr, "iofleet inventory: which agent? e.g. iofleet inventory node17 "
                 "(see iofleet agents)\n");
        return 2;
    }
    json_t *r = call (json_pack ("{s:s, s:s}", "cmd", "inventory", "agent", agent),
                      CALL_TIMEOUT_MS);
    if (!r)
        return 1;
    if (json) {
        cli_print_json (r);
        json_decref (r);
        return 0;
    }
    json_t *inv = json_object_get (r, "inventory");
    json_t *h = json_object_get (inv, "host");
    printf ("%s: host %s, %s, kernel %s, %s x %lld CPUs, %.1f GiB (inventory %s)\n", agent,
            jstr (h, "hostname"), jstr (h, "os_release"), jstr (h, "kernel"), jstr (h, "cpu_model"),
            (long long) json_integer_value (json_object_get (h, "cpu_count")),
            (double) json_integer_value (json_object_get (h, "memory_bytes")) / (1 << 30),
            jstr (r, "hash"));
    size_t i;
    json_t *c;
    printf ("\ncontrollers:\n  %-14s %-10s %-28s %-10s %-14s %-14s %s\n", "pci", "driver",
            "device", "drv ver", "firmware", "link", "max link");
    json_array_foreach (json_object_get (inv, "controllers"), i, c)
        printf ("  %-14s %-10s %-28.28s %-10s %-14s %s x%s   %s x%s\n", jstr (c, "pci_address"),
                jstr (c, "driver"), jstr (c, "device"), jstr (c, "driver_version"),
                jstr (c, "firmware"), jstr (c, "link_speed"), jstr (c, "link_width"),
                jstr (c, "max_link_speed"), jstr (c, "max_link_width"));
    printf ("\ndrives:\n  %-10s %-7s %-28s %-10s %-20s %10s %-12s %s\n", "name", "transport",
            "model", "firmware", "serial", "GB", "scheduler", "state");
    json_array_foreach (json_object_get (inv, "drives"), i, c) {
        char state[64] = "";
        if (json_is_true (json_object_get (c, "boot")))
            strcat (state, "boot ");
        if (json_is_true (json_object_get (c, "mounted")))
            strcat (state, "mounted ");
        if (json_is_true (json_object_get (c, "holders")))
            strcat (state, "held ");
        if (json_is_true (json_object_get (c, "partitioned")))
            strcat (state, "partitioned");
        printf ("  %-10s %-7s %-28.28s %-10s %-20.20s %10.1f %-12s %s\n", jstr (c, "name"),
                jstr (c, "transport"), jstr (c, "model"), jstr (c, "firmware"), jstr (c, "serial"),
                json_number_value (json_object_get (c, "size_bytes")) / 1e9, jstr (c, "scheduler"),
                state);
    }
    json_decref (r);
    return 0;
}

static int
cmd_plan (int argc, char **argv)
{
    if (argc >= 2 && strcmp (argv[1], "add") == 0) {
        if (argc != 4) {
            fprintf (stderr, "iofleet plan add: expected NAME FILE, e.g. iofleet plan add qualify "
                     "plans/qualify.fio\n");
            return 2;
        }
        /* Read and checked as iofleet-agent run reads and checks it (the
           same reader and parser, the same messages), before anything is
           sent: the text goes whole, with its length (at most 1 MiB, so
           an int). */
        size_t len;
        char err[1024];
        char *text = jobfile_read (argv[3], &len, err, sizeof err);
        jobfile_t *jf = text ? jobfile_parse (argv[3], text, err, sizeof err) : NULL;
        if (!jf) {
            fprintf (stderr, "%s\n", err);
            free (text);
            return 1;
        }
        jobfile_destroy (&jf);
        json_t *r = call (json_pack ("{s:s, s:s, s:s, s:s#}", "cmd", "plan_add", "name", argv[2],
                                     "source", argv[3], "text", text, (int) len), CALL_TIMEOUT_MS);
        free (text);
        if (!r)
            return 1;
        long long nsteps = (long long) json_integer_value (json_object_get (r, "steps"));
        printf ("plan '%s' version %lld: %lld %s\n", argv[2],
                (long long) json_integer_value (json_object_get (r, "version")), nsteps,
                plural (nsteps, "step", "steps"));
        size_t i;
        json_t *w;
        json_array_foreach (json_object_get (r, "warnings"), i, w)
            fprintf (stderr, "iofleet plan add: warning: %s\n", json_string_value (w));
        json_decref (r);
        return 0;
    }
    if (argc >= 2 && strcmp (argv[1], "list") == 0) {
        bool json = false;
        if (cli_flag_json (argc, argv, 2, &json))
            return 2;
        json_t *r = call (json_pack ("{s:s}", "cmd", "plan_list"), CALL_TIMEOUT_MS);
        if (!r)
            return 1;
        if (json)
            cli_print_json (r);
        else {
            printf ("%-24s %7s %6s  %s\n", "name", "version", "steps", "source");
            size_t i;
            json_t *p;
            json_array_foreach (r, i, p)
                printf ("%-24s %7lld %6lld  %s\n", json_string_value (json_object_get (p, "name")),
                        (long long) json_integer_value (json_object_get (p, "version")),
                        (long long) json_integer_value (json_object_get (p, "steps")),
                        json_string_value (json_object_get (p, "source")));
        }
        json_decref (r);
        return 0;
    }
    if (argc >= 2 && strcmp (argv[1], "show") == 0)
        return cmd_plan_show (s_endpoint, argc, argv);
    if (argc >= 2 && strcmp (argv[1], "diff") == 0)
        return cmd_plan_diff (s_endpoint, argc, argv);
    if (argc >= 2 && strcmp (argv[1], "rm") == 0)
        return cmd_plan_rm (s_endpoint, argc, argv);
    fprintf (stderr, "iofleet plan: expected 'add NAME FILE', 'list', 'show NAME', "
             "'diff NAME V1 V2' or 'rm NAME'\n");
    return 2;
}

/* format: "text", "json", "fio-json" or "fio-json+". */
static int
report_to (FILE *f, long long run, const char *format, const char *by, json_t *where)
{
    bool text = strcmp (format, "text") == 0, csv = strcmp (format, "csv") == 0;
    json_t *req = json_pack ("{s:s, s:I, s:s}", "cmd", "report", "run", (json_int_t) run,
                             "format", text || csv ? "json" : format);
    if (by)
        json_object_set_new (req, "by", json_string (by));
    if (where)
        json_object_set (req, "where", where);
    if (!text && !csv) {
        /* Passed through as the controller wrote it (compact): a fleet's
           report is tens of megabytes, parsed and indented again it
           would cost more than building it. */
        char err[1024];
        char *body = client_call_text (s_endpoint, req, REPORT_TIMEOUT_MS, err, sizeof err);
        json_decref (req);
        if (!body) {
            fprintf (stderr, "iofleet: %s\n", err);
            return -1;
        }
        fputs (body, f);
        fputc ('\n', f);
        /* The report puts its verdict first. */
        int rc = strncmp (body, "{\"verdict\":\"fail\"", 17) == 0 ? 1 : 0;
        if (strncmp (body, "{\"verdict\":", 11) != 0) {
            json_t *r = json_loads (body, 0, NULL);
            const char *verdict = json_string_value (json_object_get (r, "verdict"));
            rc = verdict && strcmp (verdict, "fail") == 0 ? 1 : 0;
            json_decref (r);
        }
        free (body);
        return rc;
    }
    json_t *r = call (req, REPORT_TIMEOUT_MS);
    if (!r)
        return -1;
    if (text)
        text_report (f, r);
    else if (csv)
        report_csv (f, r);
    else
        cli_print_json (r);
    /* Cron and CI gate on this: a failed SLA is a failed command. */
    const char *verdict = json_string_value (json_object_get (r, "verdict"));
    int rc = verdict && strcmp (verdict, "fail") == 0 ? 1 : 0;
    json_decref (r);
    return rc;
}

static int watch (const char *cmd, long long run, bool json);

static int
cmd_run (int argc, char **argv)
{
    const char *plan = NULL, *agents = "all", *note = "";
    bool wait = false, json = false, require_all = false, tolerate_gaps = false;
    uint64_t min_agents = 0;
    json_t *labels = json_object ();
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--wait") == 0)
            wait = true;
        else if (strcmp (argv[i], "--label") == 0 && i + 1 < argc) {
            if (cli_label_arg (labels, "run", argv[++i])) {
                json_decref (labels);
                return 2;
            }
        } else if (strcmp (argv[i], "--note") == 0 && i + 1 < argc)
            note = argv[++i];
        else if (strcmp (argv[i], "--require-all") == 0)
            require_all = true;
        else if (strcmp (argv[i], "--tolerate-gaps") == 0)
            tolerate_gaps = true;
        else if (strcmp (argv[i], "--min-agents") == 0 && i + 1 < argc) {
            if (parse_u64 (argv[++i], 1, 100000, &min_agents)) {
                fprintf (stderr, "iofleet run: --min-agents '%s': a number 1..100000\n", argv[i]);
                json_decref (labels);
                return 2;
            }
        }
        else if (strcmp (argv[i], "--json") == 0)
            json = true;
        else if (strcmp (argv[i], "--agents") == 0 && i + 1 < argc)
            agents = argv[++i];
        else if (strncmp (argv[i], "--agents=", 9) == 0)
            agents = argv[i] + 9;
        else if (argv[i][0] != '-' && !plan)
            plan = argv[i];
        else {
            fprintf (stderr, "iofleet run: unexpected argument '%s' (see iofleet --help)\n",
                     argv[i]);
            json_decref (labels);
            return 2;
        }
    }
    if (!plan) {
        fprintf (stderr, "iofleet run: which plan? e.g. iofleet run qualify --wait "
                 "(see iofleet plan list)\n");
        json_decref (labels);
        return 2;
    }
    json_t *r = call (json_pack ("{s:s, s:s, s:s, s:I, s:b, s:o, s:s, s:b}", "cmd", "run",
                                 "plan", plan, "agents", agents,
                                 "min_agents", (json_int_t) min_agents,
                                 "require_all", require_all, "labels", labels, "note", note,
                                 "tolerate_gaps", tolerate_gaps),
                      CALL_TIMEOUT_MS);
    if (!r)
        return 1;
    long long run = (long long) json_integer_value (json_object_get (r, "run"));
    if (!wait) {
        if (json)
            cli_print_json (r);
        else
            printf ("%lld\n", run);
        json_decref (r);
        return 0;
    }
    size_t nagents = json_array_size (json_object_get (r, "agents"));
    fprintf (stderr, "run %lld queued on %zu %s\n", run, nagents,
             plural ((long long) nagents, "agent", "agents"));
    json_decref (r);
    return watch ("run", run, json);
}

/* Shows a run's progress until it ends, then its summary (cmd: the
   command that waits, for its messages).  Exit 0 only for a complete run
   that meets its SLA; 128 + the signal when interrupted. */
static int
watch (const char *cmd, long long run, bool json)
{
    char err[1024];
    const char *status = wait_run (s_endpoint, run, &g_interrupted, err, sizeof err);
    if (!status && g_interrupted) {
        /* Only the wait stops: say so, and how to stop the run itself. */
        fprintf (stderr, "iofleet %s: interrupted: run %lld goes on in the controller (iofleet "
                 "watch %lld follows it again; iofleet cancel %lld stops it)\n", cmd, run, run,
                 run);
        return 128 + g_interrupted;
    }
    if (!status) {
        fprintf (stderr, "iofleet %s: %s (run %lld: iofleet watch %lld follows it again once "
                 "the controller answers)\n", cmd, err, run, run);
        return 1;
    }
    json_t *rep = call (json_pack ("{s:s, s:I}", "cmd", "report", "run", (json_int_t) run),
                        REPORT_TIMEOUT_MS);
    if (!rep)
        return 1;
    if (json) {
        json_t *o = json_pack ("{s:I, s:s, s:O}", "run", (json_int_t) run, "status", status,
                               "report", rep);
        cli_print_json (o);
        json_decref (o);
    } else
        text_summary (stdout, rep);
    const char *verdict = json_string_value (json_object_get (rep, "verdict"));
    bool sla_failed = verdict && strcmp (verdict, "fail") == 0;
    if (sla_failed) {
        fprintf (stderr, "run %lld: verdict fail:", run);
        size_t i;
        json_t *why;
        json_array_foreach (json_object_get (rep, "failed_by"), i, why)
            fprintf (stderr, "%s %s", i ? "," : "", json_string_value (why));
        fprintf (stderr, " (see iofleet report %lld)\n", run);
    }
    if (strcmp (status, "cancelled") == 0)
        fprintf (stderr, "run %lld was %s (see iofleet report %lld)\n", run,
                 jstr (rep, "message"), run);
    else if (!sla_failed && strcmp (status, "complete") != 0)
        fprintf (stderr, "run %lld %s: each agent's reason is in iofleet report %lld\n", run,
                 status, run);
    json_decref (rep);
    return strcmp (status, "complete") == 0 && !sla_failed ? 0 : 1;
}

/* iofleet watch RUN [--json] */
static int
cmd_watch (int argc, char **argv)
{
    bool json = false;
    long long run = 0;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (strcmp (argv[i], "--json") == 0)
            json = true;
        else if ((run = strtoll (argv[i], &end, 10)) <= 0 || *end) {
            fprintf (stderr, "usage: iofleet watch RUN [--json]   (RUN: a run id, see iofleet "
                     "runs)\n");
            return 2;
        }
    }
    if (run <= 0) {
        fprintf (stderr, "usage: iofleet watch RUN [--json]\n");
        return 2;
    }
    return watch ("watch", run, json);
}

static int
cmd_runs (int argc, char **argv)
{
    if (argc >= 2 && strcmp (argv[1], "rm") == 0)
        return cmd_runs_rm (s_endpoint, argc, argv);
    bool json = false;
    if (cli_flag_json (argc, argv, 1, &json))
        return 2;
    json_t *r = call (json_pack ("{s:s}", "cmd", "runs"), CALL_TIMEOUT_MS);
    if (!r)
        return 1;
    if (json)
        cli_print_json (r);
    else {
        printf ("%6s  %-23s %-24s %-9s %6s  %s\n", "id", "created", "plan (version)", "status",
                "agents", "labels, note, message");
        size_t i;
        json_t *x;
        json_array_foreach (r, i, x) {
            char when[40], plan[128];
            snprintf (plan, sizeof plan, "%s (v%lld)", json_string_value (json_object_get (x, "plan")),
                      (long long) json_integer_value (json_object_get (x, "plan_version")));
            printf ("%6lld  %-23s %-24s %-9s %6lld ",
                    (long long) json_integer_value (json_object_get (x, "id")),
                    cli_utc (json_integer_value (json_object_get (x, "created_at")), when,
                             sizeof when), plan,
                    json_string_value (json_object_get (x, "status")),
                    (long long) json_integer_value (json_object_get (x, "agents")));
            const char *k, *sep = " ";
            json_t *v;
            json_object_foreach (json_object_get (x, "labels"), k, v) {
                printf ("%s%s=%s", sep, k, json_string_value (v));
                sep = ",";
            }
            const char *note = json_string_value (json_object_get (x, "note"));
            const char *msg = json_string_value (json_object_get (x, "message"));
            if (note && *note)
                printf (" \"%s\"", note);
            if (msg && *msg)
                printf (" %s", msg);
            printf ("\n");
        }
    }
    json_decref (r);
    return 0;
}


/* A report request's --by and --where.  Can't fail. */
static void
report_scope (json_t *req, const char *by, json_t *where)
{
    if (by)
        json_object_set_new (req, "by", json_string (by));
    if (json_array_size (where))
        json_object_set (req, "where", where);
}

/* --format html and -o go together: false, or true having said why not. */
static bool
html_out_mismatch (bool html, const char *out)
{
    if (html == (out != NULL))
        return false;
    fprintf (stderr, html ? "iofleet report: --format html writes a file: give -o FILE "
                            "(or -o - for stdout)\n"
                          : "iofleet report: -o is for --format html; redirect the other "
                            "formats (> FILE)\n");
    return true;
}

static int
cmd_report (int argc, char **argv)
{
    long long run = 0;
    const char *format = "text", *by = NULL, *out = NULL, *template = NULL;
    json_t *where = json_array ();
    /* --template's own options, passed on as they are (the controller
       checks them: qualification.h). */
    json_t *topts = json_object ();
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--by") == 0 && i + 1 < argc) {
            by = argv[++i];
            continue;
        }
        if (strcmp (argv[i], "--template") == 0 && i + 1 < argc) {
            template = argv[++i];
            continue;
        }
        if ((strcmp (argv[i], "--target-iops") == 0 || strcmp (argv[i], "--headroom") == 0)
            && i + 1 < argc) {
            char *end;
            double v = strtod (argv[i + 1], &end);
            if (end == argv[i + 1] || *end) {
                fprintf (stderr, "iofleet report: %s '%s': give a number\n", argv[i],
                         argv[i + 1]);
                json_decref (where);
                json_decref (topts);
                return 2;
            }
            json_object_set_new (topts, argv[i][2] == 't' ? "target_iops" : "headroom_pct",
                                 json_real (v));
            i++;
            continue;
        }
        if (strcmp (argv[i], "--sla-class") == 0 && i + 1 < argc) {
            json_t *cl = json_object_get (topts, "sla_classes");
            if (!cl)
                json_object_set_new (topts, "sla_classes", cl = json_array ());
            json_array_append_new (cl, json_string (argv[++i]));
            continue;
        }
        if ((strcmp (argv[i], "-o") == 0 || strcmp (argv[i], "--output") == 0) && i + 1 < argc) {
            out = argv[++i];
            continue;
        }
        if (strcmp (argv[i], "--where") == 0 && i + 1 < argc) {
            json_array_append_new (where, json_string (argv[++i]));
            continue;
        }
        if (strcmp (argv[i], "--format") == 0 && i + 1 < argc) {
            format = argv[++i];
            if (strcmp (format, "json") && strcmp (format, "text") && strcmp (format, "fio-json")
                && strcmp (format, "fio-json+") && strcmp (format, "csv") && strcmp (format, "html")) {
                fprintf (stderr, "iofleet report: --format '%s': use text, json, csv, fio-json, "
                         "fio-json+ or html\n", format);
                json_decref (where);
                return 2;
            }
        } else if (strcmp (argv[i], "--json") == 0)
            format = "json";
        else if (run == 0 && argv[i][0] != '-') {
            uint64_t v;
            if (parse_u64 (argv[i], 1, INT64_MAX, &v)) {
                fprintf (stderr, "iofleet report: '%s' is not a run id (see iofleet runs)\n",
                         argv[i]);
                json_decref (where);
                return 2;
            }
            run = (long long) v;
        } else {
            fprintf (stderr, "iofleet report: unexpected argument '%s'\n", argv[i]);
            json_decref (where);
            return 2;
        }
    }
    if (!run) {
        fprintf (stderr, "iofleet report: which run? e.g. iofleet report 3 (see iofleet runs)\n");
        json_decref (where);
        return 2;
    }
    if (!template && json_object_size (topts)) {
        fprintf (stderr, "iofleet report: --target-iops, --headroom and --sla-class go with "
                 "--template qualification\n");
        json_decref (where);
        json_decref (topts);
        return 2;
    }
    if (template) {
        bool thtml = strcmp (format, "html") == 0;

        if (strcmp (format, "text") != 0 && strcmp (format, "json") != 0 && !thtml) {
            fprintf (stderr, "iofleet report: --template renders as text, json or html, not %s\n",
                     format);
            json_decref (where);
            json_decref (topts);
            return 2;
        }
        if (html_out_mismatch (thtml, out)) {
            json_decref (where);
            json_decref (topts);
            return 2;
        }
        json_t *req = json_pack ("{s:s, s:I, s:s}", "cmd", "report", "run", (json_int_t) run,
                                 "template", template);
        json_object_update (req, topts);
        json_decref (topts);
        report_scope (req, by, where);
        json_decref (where);
        json_t *r = call (req, REPORT_TIMEOUT_MS);
        if (!r)
            return 1;
        int rc = 0;
        if (thtml) {
            char err[512];
            rc = (strcmp (template, "pts") == 0 ? html_pts_write (out, r, err, sizeof err)
                  : html_qualification_write (out, r, err, sizeof err)) ? 1 : 0;
            if (rc)
                fprintf (stderr, "iofleet report: %s\n", err);
        } else if (strcmp (format, "json") == 0)
            cli_print_json (r);
        else if (strcmp (template, "pts") == 0)
            pts_print (stdout, r);
        else
            qualification_print (stdout, r);
        const char *verdict = json_string_value (json_object_get (r, "verdict"));
        rc = rc ? rc : verdict && strcmp (verdict, "fail") == 0 ? 1 : 0;
        json_decref (r);
        return rc;
    }
    json_decref (topts);
    bool html = strcmp (format, "html") == 0;
    if (html_out_mismatch (html, out)) {
        json_decref (where);
        return 2;
    }
    if (html) {
        /* With the figures only the page shows, inventories included
           (controller/serve/html_figures.h). */
        json_t *req = json_pack ("{s:s, s:I, s:s, s:b}", "cmd", "report", "run", (json_int_t) run,
                                 "format", "json", "html_figures", 1);
        report_scope (req, by, where);
        json_decref (where);
        json_t *r = call (req, REPORT_TIMEOUT_MS);
        if (!r)
            return 1;
        char err[512];
        int rc = html_report_write (out, r, err, sizeof err);
        if (rc)
            fprintf (stderr, "iofleet report: %s\n", err);
        const char *verdict = json_string_value (json_object_get (r, "verdict"));
        int status = rc ? 1 : verdict && strcmp (verdict, "fail") == 0 ? 1 : 0;
        json_decref (r);
        return status;
    }
    int rc = report_to (stdout, run, format, by, json_array_size (where) ? where : NULL);
    json_decref (where);
    return rc ? 1 : 0;  /* -1: no report, 1: SLA failed */
}

int
main (int argc, char **argv)
{
    char admin[512];
    const char *cert = getenv ("IOFLEET_CERT"), *server_cert = getenv ("IOFLEET_CONTROLLER_KEY");
    s_endpoint = getenv ("IOFLEET_CONTROLLER");
    if (!s_endpoint || !*s_endpoint)
        s_endpoint = default_admin_endpoint (admin, sizeof admin, false);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const command_opt_t *o = NULL;
        for (const command_opt_t *g = commands_global_opts; g->name && !o; g++)
            if (strcmp (argv[i], g->name) == 0 || (g->alias && strcmp (argv[i], g->alias) == 0)
                || (g->arg && strncmp (argv[i], g->name, strlen (g->name)) == 0
                    && argv[i][strlen (g->name)] == '='))
                o = g;
        if (!o) {
            fprintf (stderr, "iofleet: unknown option '%s' (see iofleet --help)\n", argv[i]);
            return 2;
        }
        const char *value = o->arg ? strchr (argv[i], '=') : NULL;
        if (value)
            value++;
        else if (o->arg && i + 1 < argc)
            value = argv[++i];
        else if (o->arg) {
            fprintf (stderr, "iofleet: option '%s' needs a value, %s (see iofleet --help)\n",
                     argv[i], o->arg);
            return 2;
        }
        if (strcmp (o->name, "--controller") == 0)
            s_endpoint = value;
        else if (strcmp (o->name, "--cert") == 0)
            cert = value;
        else if (strcmp (o->name, "--controller-key") == 0)
            server_cert = value;
        else if (strcmp (o->name, "--help") == 0) {
            help_list (stdout);
            return 0;
        } else if (strcmp (o->name, "--version") == 0) {
            printf ("iofleet %s\n", IOF_VERSION);
            return 0;
        }
    }
    if (i >= argc) {
        help_list (stderr);
        return 2;
    }
    int sub_argc = argc - i;
    char **sub_argv = argv + i;
    /* The table first: an unknown command or option, or --help anywhere,
       is answered before any handler can act on the line. */
    const command_t *entry;
    switch (commands_check (sub_argc, sub_argv, &entry)) {
    case COMMANDS_HELP:
        help_command (stdout, entry);
        return 0;
    case COMMANDS_USAGE:
        return 2;
    case COMMANDS_RUN:
        break;
    }
    zsys_init ();
    zsys_set_logstream (NULL);
    zsys_handler_set (NULL);
    client_set_curve (cert && *cert ? cert : NULL, server_cert && *server_cert ? server_cert : NULL);
    cli_catch_interrupts ();
    const char *cmd = argv[i];
    if (strcmp (cmd, "help") == 0)
        return cmd_help (sub_argc, sub_argv);
    if (strcmp (cmd, "completion") == 0)
        return cmd_completion (sub_argc, sub_argv);
    if (strcmp (cmd, "agents") == 0)
        return cmd_agents (sub_argc, sub_argv);
    if (strcmp (cmd, "keys") == 0)
        return cmd_keys (sub_argc, sub_argv);
    if (strcmp (cmd, "db") == 0)
        return cmd_db (s_endpoint, sub_argc, sub_argv);
    if (strcmp (cmd, "plan") == 0)
        return cmd_plan (sub_argc, sub_argv);
    if (strcmp (cmd, "inventory") == 0)
        return cmd_inventory (sub_argc, sub_argv);
    if (strcmp (cmd, "run") == 0)
        return cmd_run (sub_argc, sub_argv);
    if (strcmp (cmd, "stats") == 0)
        return cmd_stats (s_endpoint, sub_argc, sub_argv);
    if (strcmp (cmd, "runs") == 0)
        return cmd_runs (sub_argc, sub_argv);
    if (strcmp (cmd, "report") == 0)
        return cmd_report (sub_argc, sub_argv);
    if (strcmp (cmd, "watch") == 0)
        return cmd_watch (sub_argc, sub_argv);
    if (strcmp (cmd, "cancel") == 0)
        return cmd_cancel (s_endpoint, sub_argc, sub_argv);
    if (strcmp (cmd, "compare") == 0)
        return cmd_compare (s_endpoint, sub_argc, sub_argv);
    if (strcmp (cmd, "demo") == 0)
        return cmd_demo (sub_argc, sub_argv);
    if (strcmp (cmd, "history") == 0)
        return cmd_history (s_endpoint, sub_argc, sub_argv);
    if (strcmp (cmd, "import") == 0)
        return cmd_import (s_endpoint, sub_argc, sub_argv);
    if (strcmp (cmd, "schedule") == 0)
        return cmd_schedule (s_endpoint, sub_argc, sub_argv);
    if (strcmp (cmd, "regressions") == 0)
        return cmd_regressions (s_endpoint, sub_argc, sub_argv);
    if (strcmp (cmd, "gc") == 0)
        return cmd_gc (s_endpoint, sub_argc, sub_argv);
    if (strcmp (cmd, "test-clock") == 0)
        return cmd_test_clock (s_endpoint, sub_argc, sub_argv);
    /* In the table but not dispatched here: a bug, not a usage error. */
    fprintf (stderr, "iofleet: command '%s' has no handler\n", cmd);
    return 1;
}
