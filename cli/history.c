/*  history.c: iofleet history and iofleet import, and the CSV form of
    reports, comparisons and history (RFC 4180: a header line, fields with
    a comma, quote or line break in double quotes, numbers in C locale). */
#define _GNU_SOURCE
#include "cli.h"
#include "direction.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#define IMPORT_FILE_MAX (48u << 20)

void
csv_field (FILE *f, const char *s, bool last)
{
    if (!s)
        s = "";
    if (strpbrk (s, ",\"\r\n")) {
        fputc ('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc ('"', f);
            fputc (*s, f);
        }
        fputc ('"', f);
    } else
        fputs (s, f);
    fputc (last ? '\n' : ',', f);
}

/* A JSON value as a CSV field: numbers exactly, null as empty. */
void
csv_json (FILE *f, json_t *v, bool last)
{
    char buf[64];
    if (json_is_integer (v))
        snprintf (buf, sizeof buf, "%lld", (long long) json_integer_value (v));
    else if (json_is_real (v))
        snprintf (buf, sizeof buf, "%.15g", json_real_value (v));
    else if (json_is_true (v) || json_is_false (v))
        snprintf (buf, sizeof buf, "%s", json_is_true (v) ? "true" : "false");
    else {
        csv_field (f, json_string_value (v), last);
        return;
    }
    csv_field (f, buf, last);
}

static const char *const s_report_cols[] = {
    "run", "step", "scope", "agent", "target", "group", "direction", "ops", "iops",
    "bw_bytes_per_s", "mean_ns", "p50_ns", "p90_ns", "p95_ns", "p99_ns", "p99.9_ns", "p99.99_ns",
    "max_ns", "errors", "percentiles_only",
};

static void
report_csv_row (FILE *f, json_t *rep, json_t *s, const char *scope, const char *agent,
                const char *target, const char *group, int dir, json_t *o)
{
    json_t *d = json_object_get (o, dir_name (dir));
    if (!d || json_number_value (json_object_get (d, "ops")) <= 0)
        return;
    json_t *lat = json_object_get (d, "lat_ns"), *p = json_object_get (d, "percentiles");
    csv_json (f, json_object_get (rep, "run"), false);
    csv_json (f, json_object_get (s, "name"), false);
    csv_field (f, scope, false);
    csv_field (f, agent, false);
    csv_field (f, target, false);
    csv_field (f, group, false);
    csv_field (f, dir_name (dir), false);
    csv_json (f, json_object_get (d, "ops"), false);
    csv_json (f, json_object_get (d, "iops"), false);
    csv_json (f, json_object_get (d, "bw"), false);
    csv_json (f, json_object_get (lat, "mean"), false);
    static const char *pk[] = { "p50", "p90", "p95", "p99", "p99.9", "p99.99" };
    for (int i = 0; i < 6; i++)
        csv_json (f, json_object_get (p, pk[i]), false);
    csv_json (f, json_object_get (lat, "max"), false);
    csv_json (f, json_object_get (d, "errors"), false);
    csv_field (f, json_is_true (json_object_get (d, "percentiles_only")) ? "true" : "false", true);
}

void
report_csv (FILE *f, json_t *rep)
{
    size_t n = sizeof s_report_cols / sizeof *s_report_cols;
    for (size_t i = 0; i < n; i++)
        csv_field (f, s_report_cols[i], i + 1 == n);
    size_t si, ai, ti, gi;
    json_t *s, *a, *t, *g;
    json_array_foreach (json_object_get (rep, "steps"), si, s) {
        json_array_foreach (json_object_get (s, "agents"), ai, a)
            json_array_foreach (json_object_get (a, "targets"), ti, t)
                for (int d = 0; d < DIR_COUNT; d++)
                    report_csv_row (f, rep, s, "target",
                                    json_string_value (json_object_get (a, "agent")),
                                    json_string_value (json_object_get (t, "target")), "", d, t);
        json_array_foreach (json_object_get (s, "groups"), gi, g) {
            const char *by = json_string_value (json_object_get (g, "by"));
            if (by && strcmp (by, "all") == 0)
                continue;       /* the same as the fleet row */
            char label[600];
            snprintf (label, sizeof label, "%s=%s", by ? by : "",
                      json_string_value (json_object_get (g, "value")));
            for (int d = 0; d < DIR_COUNT; d++)
                report_csv_row (f, rep, s, "group", "", "", label, d, g);
        }
        json_t *fl = json_object_get (s, "fleet");
        for (int d = 0; d < DIR_COUNT; d++)
            report_csv_row (f, rep, s, "fleet", "", "", "", d, fl);
    }
}

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

/* fio writes notes ("note: both iodepth >= 1 and synchronous I/O engine
   ...") and, in client/server mode, "<host> ..." lines before its JSON:
   the document starts at the first line that begins with '{'. */
static json_t *
load_fio_json (const char *path, char *err, size_t errlen)
{
    size_t len;
    char *text = file_read_all (path, IMPORT_FILE_MAX, &len);
    if (!text) {
        snprintf (err, errlen, "%s: %s", path, errno == EFBIG || errno == E2BIG
                  ? "larger than the 48 MiB an import takes" : strerror (errno));
        return NULL;
    }
    char *start = text[0] == '{' ? text : strstr (text, "\n{");
    if (start && start != text)
        start++;
    if (!start) {
        snprintf (err, errlen, "%s: no JSON document (write it with fio --output-format=json "
                  "or json+)", path);
        free (text);
        return NULL;
    }
    json_error_t jerr;
    json_t *doc = json_loadb (start, len - (size_t) (start - text), JSON_DISABLE_EOF_CHECK, &jerr);
    if (!doc)
        snprintf (err, errlen, "%s: not valid JSON (line %d, column %d of the document): %s",
                  path, jerr.line, jerr.column, jerr.text);
    free (text);
    return doc;
}

int
cmd_import (const char *endpoint, int argc, char **argv)
{
    json_t *labels = json_object ();
    const char *plan = NULL, *host = NULL;
    bool json = false;
    int nfiles = 0, failed = 0;
    const char *files[256];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp (a, "--label") == 0 && i + 1 < argc) {
            if (cli_label_arg (labels, "import", argv[++i])) {
                json_decref (labels);
                return 2;
            }
        } else if (strcmp (a, "--plan") == 0 && i + 1 < argc)
            plan = argv[++i];
        else if (strcmp (a, "--host") == 0 && i + 1 < argc)
            host = argv[++i];
        else if (strcmp (a, "--json") == 0)
            json = true;
        else if (a[0] != '-' && nfiles < 256)
            files[nfiles++] = a;
        else {
            fprintf (stderr, "iofleet import: unexpected argument '%s' (see iofleet --help)\n", a);
            json_decref (labels);
            return 2;
        }
    }
    if (nfiles == 0) {
        fprintf (stderr, "iofleet import: which files? e.g. iofleet import fio-fw1.json "
                 "--label drive.firmware=1.2\n");
        json_decref (labels);
        return 2;
    }
    for (int k = 0; k < nfiles; k++) {
        char err[1024];
        json_t *doc = load_fio_json (files[k], err, sizeof err);
        if (!doc) {
            fprintf (stderr, "iofleet import: %s\n", err);
            failed++;
            continue;
        }
        const char *base = strrchr (files[k], '/');
        json_t *req = json_pack ("{s:s, s:o, s:s, s:O}", "cmd", "import", "fio", doc,
                                 "source", base ? base + 1 : files[k], "labels", labels);
        if (plan)
            json_object_set_new (req, "plan", json_string (plan));
        if (host)
            json_object_set_new (req, "host", json_string (host));
        json_t *r = client_call (endpoint, req, 120000, err, sizeof err);
        json_decref (req);
        if (!r) {
            fprintf (stderr, "iofleet import: %s\n", err);
            failed++;
            continue;
        }
        if (json) {
            char *text = json_dumps (r, JSON_COMPACT);
            if (text)
                puts (text);
            free (text);
        } else
            printf ("%s: run %lld (%lld %s, %lld %s; latency: %s)\n", files[k],
                    (long long) json_integer_value (json_object_get (r, "run")),
                    (long long) json_integer_value (json_object_get (r, "entries")),
                    plural (json_integer_value (json_object_get (r, "entries")), "entry", "entries"),
                    (long long) json_integer_value (json_object_get (r, "steps")),
                    plural (json_integer_value (json_object_get (r, "steps")), "step", "steps"),
                    json_string_value (json_object_get (r, "latency")));
        json_decref (r);
    }
    json_decref (labels);
    return failed ? 1 : 0;
}
