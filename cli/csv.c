/*  csv.c: the CSV form of reports and comparisons' cells (RFC 4180: a
    header line, fields with a comma, quote or line break in double quotes,
    numbers in C locale). */
#define _GNU_SOURCE
#include "cli.h"
#include "direction.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

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
