/*  schedule.c: iofleet schedule add|list|rm|run-now, iofleet regressions,
    iofleet gc. */
#define _GNU_SOURCE
#include "cli.h"
#include "units.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TIMEOUT_MS  30000
#define GC_TIMEOUT_MS  (30 * 60 * 1000)     /* VACUUM of a large database */

static const char *
utc (int64_t t, char *buf, size_t cap)
{
    if (t <= 0 || t == INT64_MAX) {
        snprintf (buf, cap, "never");
        return buf;
    }
    time_t tt = (time_t) t;
    struct tm tm;
    gmtime_r (&tt, &tm);
    strftime (buf, cap, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

static int
schedule_add (const char *endpoint, int argc, char **argv)
{
    if (argc < 3 || argv[2][0] == '-') {
        fprintf (stderr, "iofleet schedule add: which name? e.g. iofleet schedule add nightly "
                 "--cron '0 2 * * *' --plan qualify (see iofleet help schedule add)\n");
        return 2;
    }
    json_t *req = json_pack ("{s:s, s:s}", "cmd", "schedule_add", "name", argv[2]);
    static const char *opts[][2] = {
        { "--cron", "cron" }, { "--plan", "plan" }, { "--agents", "agents" },
        { "--baseline", "baseline" }, { "--by", "by" }, { "--tz", "tz" },
        { "--overlap", "overlap" },
    };
    for (int i = 3; i < argc; i++) {
        bool done = false;
        for (size_t k = 0; k < sizeof opts / sizeof *opts && !done; k++)
            if (strcmp (argv[i], opts[k][0]) == 0 && i + 1 < argc) {
                json_object_set_new (req, opts[k][1], json_string (argv[++i]));
                done = true;
            }
        if (done)
            continue;
        if (strcmp (argv[i], "--no-catch-up") == 0)
            json_object_set_new (req, "catch_up", json_false ());
        else if (strcmp (argv[i], "--fail-on-regression") == 0 && i + 1 < argc) {
            char *end;
            const char *arg = argv[++i];
            double pct = strtod (arg, &end);
            if (end == arg || *end || !(pct >= 0 && pct <= 1000)) {
                fprintf (stderr, "iofleet schedule add: --fail-on-regression '%s': a "
                         "percentage 0..1000\n", argv[i]);
                json_decref (req);
                return 2;
            }
            json_object_set_new (req, "fail_on_regression", json_real (pct));
        } else {
            fprintf (stderr, "iofleet schedule add: unexpected argument '%s' (see iofleet "
                     "help schedule add)\n", argv[i]);
            json_decref (req);
            return 2;
        }
    }
    json_t *r = cli_call (endpoint, req, TIMEOUT_MS, "schedule add");
    if (!r)
        return 1;
    char when[40];
    printf ("schedule '%s' added; next fire %s\n", argv[2],
            utc (json_integer_value (json_object_get (r, "next_fire")), when, sizeof when));
    json_decref (r);
    return 0;
}

static int
schedule_list (const char *endpoint, bool json)
{
    json_t *r = cli_call (endpoint, json_pack ("{s:s}", "cmd", "schedule_list"), TIMEOUT_MS,
                      "schedule list");
    if (!r)
        return 1;
    if (json) {
        cli_print_json (r);
        json_decref (r);
        return 0;
    }
    printf ("%-16s %-18s %-14s %-16s %-21s %s\n", "schedule", "cron", "tz", "plan", "next fire",
            "last fire");
    size_t i;
    json_t *s;
    json_array_foreach (r, i, s) {
        char next[40], last[160] = "-";
        json_t *lf = json_object_get (s, "last_fire");
        if (lf) {
            char due[40];
            utc (json_integer_value (json_object_get (lf, "due_at")), due, sizeof due);
            const char *skipped = json_string_value (json_object_get (lf, "skipped"));
            const char *verdict = json_string_value (json_object_get (lf, "verdict"));
            if (skipped && *skipped)
                snprintf (last, sizeof last, "%s: skipped (%s)", due, skipped);
            else
                snprintf (last, sizeof last, "%s: run %lld %s", due,
                          (long long) json_integer_value (json_object_get (lf, "run")),
                          verdict && *verdict ? verdict : "(not finished)");
        }
        printf ("%-16s %-18s %-14s %-16s %-21s %s\n",
                json_string_value (json_object_get (s, "name")),
                json_string_value (json_object_get (s, "cron")),
                json_string_value (json_object_get (s, "tz")),
                json_string_value (json_object_get (s, "plan")),
                utc (json_integer_value (json_object_get (s, "next_fire")), next, sizeof next),
                last);
        /* What each fire does, as schedule add was told. */
        const char *agents = json_string_value (json_object_get (s, "agents"));
        const char *by = json_string_value (json_object_get (s, "by"));
        const char *base = json_string_value (json_object_get (s, "baseline"));
        printf ("%-16s agents %s; compared %s%s against %s%s; regression beyond %g%%; overlap %s; "
                "%s\n", "", agents ? agents : "all", by ? "by " : "as a fleet", by ? by : "",
                strcmp (base, "last-pass") == 0 ? "the last passing run" : "run ",
                strcmp (base, "last-pass") == 0 ? "" : base,
                json_number_value (json_object_get (s, "fail_on_regression")),
                json_string_value (json_object_get (s, "overlap")),
                json_is_true (json_object_get (s, "catch_up")) ? "catches up missed fires"
                                                               : "no catch-up");
    }
    if (json_array_size (r) == 0)
        printf ("(no schedules; add one with iofleet schedule add NAME --cron '0 2 * * *' "
                "--plan PLAN)\n");
    json_decref (r);
    return 0;
}

int
cmd_schedule (const char *endpoint, int argc, char **argv)
{
    const char *sub = argc >= 2 ? argv[1] : "";
    if (strcmp (sub, "add") == 0)
        return schedule_add (endpoint, argc, argv);
    if (strcmp (sub, "list") == 0) {
        bool json = argc == 3 && strcmp (argv[2], "--json") == 0;
        if (argc > 3 || (argc == 3 && !json)) {
            fprintf (stderr, "usage: iofleet schedule list [--json]\n");
            return 2;
        }
        return schedule_list (endpoint, json);
    }
    if ((strcmp (sub, "rm") == 0 || strcmp (sub, "run-now") == 0) && argc == 3) {
        bool rm = sub[0] == 'r' && sub[1] == 'm';
        json_t *r = cli_call (endpoint, json_pack ("{s:s, s:s}", "cmd",
                                               rm ? "schedule_rm" : "schedule_run_now", "name",
                                               argv[2]),
                          TIMEOUT_MS, rm ? "schedule rm" : "schedule run-now");
        if (!r)
            return 1;
        if (rm)
            printf ("schedule '%s' removed (its past fires and regressions are kept)\n", argv[2]);
        else
            printf ("%lld\n", (long long) json_integer_value (json_object_get (r, "run")));
        json_decref (r);
        return 0;
    }
    /* The dispatcher knows the subcommands: here is rm or run-now. */
    if (argc < 3)
        fprintf (stderr, "iofleet schedule %s: which schedule? e.g. iofleet schedule %s nightly "
                 "(see iofleet schedule list)\n", sub, sub);
    else
        fprintf (stderr, "iofleet schedule %s: unexpected argument '%s' (one schedule at a "
                 "time)\n", sub, argv[3]);
    return 2;
}

int
cmd_regressions (const char *endpoint, int argc, char **argv)
{
    bool json = false;
    json_t *req = json_pack ("{s:s}", "cmd", "regressions");
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--json") == 0)
            json = true;
        else if (strcmp (argv[i], "--since") == 0 && i + 1 < argc) {
            int64_t ns;
            if (parse_since (argv[++i], &ns)) {
                fprintf (stderr, "iofleet regressions: --since '%s': use an age (7d, 12h, 2w) or "
                         "a date (2026-01-31)\n", argv[i]);
                json_decref (req);
                return 2;
            }
            json_object_set_new (req, "since", json_integer (ns / 1000000000));
        } else if (strcmp (argv[i], "--schedule") == 0 && i + 1 < argc)
            json_object_set_new (req, "schedule", json_string (argv[++i]));
        else {
            fprintf (stderr, "usage: iofleet regressions [--since 7d|DATE] [--schedule NAME] "
                     "[--json]\n");
            json_decref (req);
            return 2;
        }
    }
    json_t *r = cli_call (endpoint, req, TIMEOUT_MS, "regressions");
    if (!r)
        return 1;
    if (json)
        cli_print_json (r);
    else {
        printf ("%-20s %-14s %6s %6s  %-20s %-24s %-6s %12s %12s %8s  %s\n", "recorded",
                "schedule", "run", "base", "step", "group", "metric", "baseline", "run",
                "delta", "hook");
        size_t i;
        json_t *g;
        json_array_foreach (r, i, g) {
            char when[40], a[32], b[32];
            const char *metric = json_string_value (json_object_get (g, "metric"));
            double va = json_number_value (json_object_get (g, "a"));
            double vb = json_number_value (json_object_get (g, "b"));
            if (metric[0] == 'p') {
                fmt_lat (va, a, sizeof a);
                fmt_lat (vb, b, sizeof b);
            } else if (strcmp (metric, "bw") == 0) {
                fmt_bw (va, a, sizeof a);
                fmt_bw (vb, b, sizeof b);
            } else {
                fmt_iops (va, a, sizeof a);
                fmt_iops (vb, b, sizeof b);
            }
            printf ("%-20s %-14s %6lld %6lld  %-20.20s %-24.24s %-6s %12s %12s %+7.1f%%  %s\n",
                    utc (json_integer_value (json_object_get (g, "recorded_at")), when,
                         sizeof when),
                    json_string_value (json_object_get (g, "schedule")),
                    (long long) json_integer_value (json_object_get (g, "run")),
                    (long long) json_integer_value (json_object_get (g, "baseline")),
                    json_string_value (json_object_get (g, "step")),
                    json_string_value (json_object_get (g, "group")), metric, a, b,
                    json_number_value (json_object_get (g, "delta_pct")),
                    json_string_value (json_object_get (g, "hook")));
        }
        if (json_array_size (r) == 0)
            printf ("(no regressions recorded in that time)\n");
    }
    json_decref (r);
    return 0;
}

int
cmd_gc (const char *endpoint, int argc, char **argv)
{
    bool json = false;
    int64_t keep = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--json") == 0)
            json = true;
        else if (strcmp (argv[i], "--keep-intervals") == 0 && i + 1 < argc) {
            if (units_parse_age (argv[++i], &keep)) {
                fprintf (stderr, "iofleet gc: --keep-intervals '%s': an age such as 30d, 2w, "
                         "12h\n", argv[i]);
                return 2;
            }
        } else {
            keep = -1;
            break;
        }
    }
    if (keep < 0) {
        fprintf (stderr, "usage: iofleet gc --keep-intervals AGE [--json], e.g. --keep-intervals "
                 "30d (see iofleet help gc)\n");
        return 2;
    }
    fprintf (stderr, "iofleet gc: dropping per-interval data older than %lld s and compacting "
             "the database (the controller pauses meanwhile)...\n", (long long) keep);
    json_t *r = cli_call (endpoint, json_pack ("{s:s, s:I}", "cmd", "gc", "keep_intervals_s",
                                           (json_int_t) keep), GC_TIMEOUT_MS, "gc");
    if (!r)
        return 1;
    if (json)
        cli_print_json (r);
    else
        printf ("gc: %lld %s, %lld snapshot %s dropped; database %.1f MiB -> %.1f MiB "
                "(%.0f ms)\n", (long long) json_integer_value (json_object_get (r, "runs")),
                plural (json_integer_value (json_object_get (r, "runs")), "run", "runs"),
                (long long) json_integer_value (json_object_get (r, "snapshot_rows")),
                plural (json_integer_value (json_object_get (r, "snapshot_rows")), "row", "rows"),
                (double) json_integer_value (json_object_get (r, "bytes_before")) / 1048576.0,
                (double) json_integer_value (json_object_get (r, "bytes_after")) / 1048576.0,
                json_number_value (json_object_get (r, "ms")));
    json_decref (r);
    return 0;
}

int
cmd_test_clock (const char *endpoint, int argc, char **argv)
{
    json_t *req = json_pack ("{s:s}", "cmd", "test_clock");
    if (argc == 2) {
        char *end;
        long long t = strtoll (argv[1], &end, 10);
        if (*end || t <= 0) {
            fprintf (stderr, "iofleet test-clock: '%s': Unix seconds\n", argv[1]);
            json_decref (req);
            return 2;
        }
        json_object_set_new (req, "set", json_integer (t));
    } else if (argc != 1) {
        fprintf (stderr, "usage: iofleet test-clock [EPOCH]\n");
        json_decref (req);
        return 2;
    }
    json_t *r = cli_call (endpoint, req, TIMEOUT_MS, "test-clock");
    if (!r)
        return 1;
    printf ("%lld\n", (long long) json_integer_value (json_object_get (r, "now")));
    json_decref (r);
    return 0;
}
