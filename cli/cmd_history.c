/*  history.c: iofleet history: a metric across runs, as text, CSV (csv.c's
    rules) or JSON; and --since, which schedule's regressions take too. */
#define _GNU_SOURCE
#include "cli.h"
#include "direction.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

/* --since: "30d", "12h", "2w", "90m", or a date "2026-01-31" or
   "2026-01-31T12:00:00Z" (UTC).  Returns 0 with *ns since the epoch. */
int
parse_since (const char *s, int64_t *ns)
{
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (end != s && errno == 0 && v >= 0 && end[0] && !end[1] && strchr ("mhdw", end[0])) {
        double unit = end[0] == 'm' ? 60 : end[0] == 'h' ? 3600 : end[0] == 'd' ? 86400 : 604800;
        *ns = (int64_t) clock_real_ns () - (int64_t) (v * unit * 1e9);
        if (*ns < 0)
            *ns = 0;
        return 0;
    }
    struct tm tm;
    memset (&tm, 0, sizeof tm);
    const char *rest = strptime (s, "%Y-%m-%d", &tm);
    if (rest && *rest)
        rest = strptime (rest, "T%H:%M:%SZ", &tm);
    if (!rest || *rest)
        return -1;
    time_t t = timegm (&tm);
    if (t < 0)
        return -1;
    *ns = (int64_t) t * 1000000000;
    return 0;
}

static void
history_text (FILE *f, json_t *h)
{
    const char *metric = json_string_value (json_object_get (h, "metric"));
    json_t *rows = json_object_get (h, "rows");
    fprintf (f, "%6s  %-20s %-16s %-24s %-24s %-5s %12s\n", "run", "time (UTC)", "plan", "step",
             "group", "dir", metric);
    size_t i;
    json_t *r;
    /* The controller says the metric's unit: the CLI only renders it. */
    const char *unit = json_string_value (json_object_get (h, "unit"));
    if (!unit)
        unit = "";
    bool any_pct_only = false;
    json_array_foreach (rows, i, r) {
        json_t *v = json_object_get (r, "value");
        char val[32];
        if (!json_is_number (v))
            snprintf (val, sizeof val, "-");
        else if (strcmp (unit, "ns") == 0)
            fmt_lat (json_number_value (v), val, sizeof val);
        else if (strcmp (unit, "bytes/s") == 0)
            fmt_bw (json_number_value (v), val, sizeof val);
        else if (strcmp (unit, "iops") == 0)
            fmt_iops (json_number_value (v), val, sizeof val);
        else if (strcmp (unit, "C") == 0)
            snprintf (val, sizeof val, "%.1f C", json_number_value (v));
        else if (strcmp (unit, "ratio") == 0)
            snprintf (val, sizeof val, "%.2f", json_number_value (v));
        else
            snprintf (val, sizeof val, "%.0f", json_number_value (v));
        bool pct_only = json_is_true (json_object_get (r, "percentiles_only"));
        any_pct_only |= pct_only;
        char when[32];
        snprintf (when, sizeof when, "%s", json_string_value (json_object_get (r, "time")));
        char *t = strchr (when, 'T');
        if (t)
            *t = ' ';
        fprintf (f, "%6lld  %-20.19s %-16.16s %-24.24s %-24.24s %-5s %12s%s%s\n",
                 (long long) json_integer_value (json_object_get (r, "run")), when,
                 json_string_value (json_object_get (r, "plan")),
                 json_string_value (json_object_get (r, "step")),
                 json_string_value (json_object_get (r, "group")),
                 json_string_value (json_object_get (r, "direction")), val,
                 strcmp (json_string_value (json_object_get (r, "origin")), "fio") == 0
                 ? "  (fio import)" : "", pct_only ? " *" : "");
    }
    if (any_pct_only)
        fprintf (f, "* fio's own percentiles (imported without json+ bins; not merged)\n");
    if (json_object_get (h, "truncated"))
        fprintf (f, "%s\n", json_string_value (json_object_get (h, "truncated")));
    if (json_array_size (rows) == 0)
        fprintf (f, "(no runs match; see iofleet runs, and --step, --since, --where)\n");
}

static void
history_csv (FILE *f, json_t *h)
{
    static const char *cols[] = { "run", "time", "plan", "origin", "step", "group", "direction",
                                  "metric", "value", "percentiles_only" };
    for (int i = 0; i < 10; i++)
        csv_field (f, cols[i], i == 9);
    size_t i;
    json_t *r;
    json_array_foreach (json_object_get (h, "rows"), i, r) {
        for (int k = 0; k < 9; k++)
            csv_json (f, json_object_get (r, cols[k]), false);
        csv_field (f, json_is_true (json_object_get (r, "percentiles_only")) ? "true" : "false",
                   true);
    }
}

int
cmd_history (const char *endpoint, int argc, char **argv)
{
    json_t *req = json_pack ("{s:s, s:[]}", "cmd", "history", "where");
    const char *format = "text";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        if (has && (strcmp (a, "--step") == 0 || strcmp (a, "--metric") == 0
                    || strcmp (a, "--by") == 0 || strcmp (a, "--plan") == 0
                    || strcmp (a, "--direction") == 0))
            json_object_set_new (req, a + 2, json_string (argv[++i]));
        else if (has && strcmp (a, "--where") == 0)
            json_array_append_new (json_object_get (req, "where"), json_string (argv[++i]));
        else if (has && strcmp (a, "--since") == 0) {
            int64_t ns;
            if (parse_since (argv[++i], &ns)) {
                fprintf (stderr, "iofleet history: --since '%s': use an age (30d, 12h, 2w, 90m) "
                         "or a UTC date (2026-01-31 or 2026-01-31T12:00:00Z)\n", argv[i]);
                json_decref (req);
                return 2;
            }
            json_object_set_new (req, "since_ns", json_integer (ns));
        } else if (has && strcmp (a, "--format") == 0) {
            format = argv[++i];
            if (strcmp (format, "text") && strcmp (format, "json") && strcmp (format, "csv")) {
                fprintf (stderr, "iofleet history: --format '%s': use text, json or csv\n", format);
                json_decref (req);
                return 2;
            }
        } else if (strcmp (a, "--json") == 0)
            format = "json";
        else if (strcmp (a, "--no-index") == 0)
            json_object_set_new (req, "index", json_false ());
        else {
            fprintf (stderr, "iofleet history: unexpected argument '%s' (see iofleet --help)\n", a);
            json_decref (req);
            return 2;
        }
    }
    char err[1024];
    json_t *h = client_call (endpoint, req, 120000, err, sizeof err);
    json_decref (req);
    if (!h) {
        fprintf (stderr, "iofleet history: %s\n", err);
        return 1;
    }
    if (strcmp (format, "json") == 0) {
        char *text = json_dumps (h, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
        if (text)
            puts (text);
        free (text);
    } else if (strcmp (format, "csv") == 0)
        history_csv (stdout, h);
    else
        history_text (stdout, h);
    json_decref (h);
    return 0;
}
