/*  cmd_db.c: iofleet db (usage, check, backup) and iofleet stats: what
    the controller's database holds and what the controller took in.  */
#include "cli.h"
#include "json_get.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* iofleet db usage: a line per table, biggest first. */
static void
print_usage (json_t *r)
{
    double total = (double) json_integer_value (json_object_get (r, "bytes"));
    printf ("database: %.1f MiB in %lld pages of %lld bytes; %.1f MiB free (reused before the "
            "file grows)\n", total / 1048576.0,
            (long long) json_integer_value (json_object_get (r, "pages")),
            (long long) json_integer_value (json_object_get (r, "page_size")),
            (double) json_integer_value (json_object_get (r, "free_bytes")) / 1048576.0);
    printf ("%-22s %12s %10s %10s %6s\n", "table", "rows", "MiB", "index MiB", "share");
    size_t i;
    json_t *t;
    json_array_foreach (json_object_get (r, "tables"), i, t) {
        double b = (double) json_integer_value (json_object_get (t, "bytes"));
        printf ("%-22s %12lld %10.1f %10.1f %5.1f%%\n",
                json_string_value (json_object_get (t, "table")),
                (long long) json_integer_value (json_object_get (t, "rows")), b / 1048576.0,
                (double) json_integer_value (json_object_get (t, "index_bytes")) / 1048576.0,
                total > 0 ? 100.0 * b / total : 0.0);
    }
    json_t *sn = json_object_get (r, "snapshots");
    printf ("per-interval data: %lld target-intervals in %lld blocks (%lld compressed with a "
            "dictionary), %.1f bytes each on disk with their index\n",
            (long long) json_integer_value (json_object_get (sn, "target_intervals")),
            (long long) json_integer_value (json_object_get (sn, "blocks")),
            (long long) json_integer_value (json_object_get (sn, "blocks_with_dictionary")),
            json_real_value (json_object_get (sn, "bytes_per_target_interval")));
}

/* iofleet db check | usage | backup FILE */
int
cmd_db (const char *endpoint, int argc, char **argv)
{
    bool json = false;
    if (argc >= 2 && strcmp (argv[1], "usage") == 0) {
        if (cli_flag_json (argc, argv, 2, &json))
            return 2;
        fprintf (stderr, "reading every page of the database (seconds per GiB)...\n");
        json_t *r = cli_ask (endpoint, json_pack ("{s:s}", "cmd", "db_usage"), REPORT_TIMEOUT_MS * 10);
        if (!r)
            return 1;
        if (json)
            cli_print_json (r);
        else
            print_usage (r);
        json_decref (r);
        return 0;
    }
    if (argc >= 2 && strcmp (argv[1], "check") == 0) {
        if (cli_flag_json (argc, argv, 2, &json))
            return 2;
        json_t *r = cli_ask (endpoint, json_pack ("{s:s}", "cmd", "db_check"), REPORT_TIMEOUT_MS * 10);
        if (!r)
            return 1;
        bool ok = json_is_true (json_object_get (r, "ok"));
        if (json)
            cli_print_json (r);
        else {
            printf ("database %s: %lld pages of %lld bytes (%.1f MiB)\n",
                    ok ? "ok" : "DAMAGED", (long long) json_integer_value (json_object_get (r, "pages")),
                    (long long) json_integer_value (json_object_get (r, "page_size")),
                    (double) json_integer_value (json_object_get (r, "bytes")) / (1 << 20));
            size_t i;
            json_t *m;
            json_array_foreach (json_object_get (r, "problems"), i, m)
                printf ("  %s\n", json_string_value (m));
        }
        json_decref (r);
        return ok ? 0 : 1;
    }
    if (argc >= 3 && strcmp (argv[1], "backup") == 0) {
        if (cli_flag_json (argc, argv, 3, &json))
            return 2;
        /* The path is on the controller's host; a relative one means this
           directory when the CLI runs there too. */
        char abs[4096];
        const char *path = argv[2];
        if (path[0] != '/' && getcwd (abs, sizeof abs - strlen (path) - 2)) {
            strcat (abs, "/");
            strcat (abs, path);
            path = abs;
        }
        fprintf (stderr, "backing up the controller's database to %s ...\n", path);
        json_t *r = cli_ask (endpoint, json_pack ("{s:s, s:s}", "cmd", "db_backup", "path", path),
                          REPORT_TIMEOUT_MS * 10);
        if (!r)
            return 1;
        if (json)
            cli_print_json (r);
        else
            printf ("%s: %.1f MiB, %lld pages, in %.0f ms (checked)\n", path,
                    (double) json_integer_value (json_object_get (r, "bytes")) / (1 << 20),
                    (long long) json_integer_value (json_object_get (r, "pages")),
                    json_number_value (json_object_get (r, "ms")));
        json_decref (r);
        return 0;
    }
    fprintf (stderr, "usage: iofleet db check [--json] | iofleet db usage [--json] | iofleet db "
             "backup FILE [--json]\n");
    return 2;
}

int
cmd_stats (const char *endpoint, int argc, char **argv)
{
    bool json = false;
    if (cli_flag_json (argc, argv, 1, &json))
        return 2;
    json_t *r = cli_ask (endpoint, json_pack ("{s:s}", "cmd", "stats"), CALL_TIMEOUT_MS);
    if (!r)
        return 1;
    if (json) {
        cli_print_json (r);
        json_decref (r);
        return 0;
    }
    json_t *a = json_object_get (r, "agents"), *in = json_object_get (r, "ingest");
    json_t *pr = json_object_get (r, "process");
#define I(o, k) ((long long) json_integer_value (json_object_get (o, k)))
#define F(o, k) json_number_value (json_object_get (o, k))
    printf ("controller %s, up %.0f s; agents: %lld connected of %lld known\n",
            json_string_value (json_object_get (r, "version")), F (r, "uptime_s"),
            I (a, "connected"), I (a, "known"));
    printf ("ingest: %lld snapshots stored (%lld target rows), %lld messages, %.1f MiB received, "
            "%lld commits\n", I (in, "snapshots"), I (in, "target_snapshots"), I (in, "messages"),
            (double) I (in, "bytes") / 1048576.0, I (in, "commits"));
    static const char *what[] = { "lag", "end of interval -> committed", "commit",
                                  "one tick's commit" };
    for (int k = 0; k < 4; k += 2) {
        json_t *h = json_object_get (in, what[k]);
        printf ("  %-30s p50 %.1f ms, p99 %.1f ms, max %.1f ms (%lld)\n", what[k + 1],
                F (h, "p50_ms"), F (h, "p99_ms"), F (h, "max_ms"), I (h, "count"));
    }
    printf ("process: RSS %.1f MiB (peak %.1f MiB), CPU %.1f s user + %.1f s system\n",
            (double) I (pr, "rss_kib") / 1024, (double) I (pr, "rss_peak_kib") / 1024,
            F (pr, "cpu_user_s"), F (pr, "cpu_system_s"));
    printf ("database: %.1f MiB, %.1f MiB of it free (reused before the file grows)\n",
            (double) I (json_object_get (r, "database"), "bytes") / 1048576.0,
            (double) I (json_object_get (r, "database"), "free_bytes") / 1048576.0);
    const char *held = json_string_value (json_object_get (json_object_get (json_object_get (r,
                                          "database"), "held"), "message"));
    if (held)
        printf ("%s\n", held);
    json_t *ret = json_object_get (r, "retention");
    if (!json_is_true (json_object_get (ret, "policy")))
        printf ("retention: none (per-interval data kept for ever; see --retain-intervals and "
                "--retain-interval-runs)\n");
    else
        printf ("retention: per-interval data kept %s; %lld %s dropped, %lld snapshot rows, "
                "%.1f MiB freed\n", json_string_value (json_object_get (ret, "kept")),
                I (ret, "runs"), I (ret, "runs") == 1 ? "run" : "runs",
                I (ret, "snapshot_rows"), (double) I (ret, "bytes_freed") / 1048576.0);
    json_t *hi = json_object_get (r, "history_index");
    printf ("history index: %lld steps indexed since start%s\n", I (hi, "steps"),
            json_is_true (json_object_get (hi, "working")) ? ", more to do (while idle)" : "");
    json_t *sd = json_object_get (r, "snapshot_dict");
    if (!json_is_true (json_object_get (sd, "have")))
        printf ("snapshot blocks: compressed without a dictionary yet (one is trained while "
                "idle once 200 are stored)\n");
    else if (I (sd, "bytes") > 0)
        printf ("snapshot blocks: compressed with a dictionary of %lld bytes trained here on %lld "
                "blocks in %lld ms\n", I (sd, "bytes"), I (sd, "samples"), I (sd, "ms"));
    else
        printf ("snapshot blocks: compressed with the database's dictionary\n");
    const char *k;
    json_t *v;
    json_object_foreach (json_object_get (r, "counters"), k, v)
        printf ("counter %s: %lld\n", k, (long long) json_integer_value (v));
#undef I
#undef F
    json_decref (r);
    return 0;
}
