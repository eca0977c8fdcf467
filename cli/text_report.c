/*  text_report.c: the human form of reports, and waiting on a run. */
#include "cli.h"
#include "json_get.h"
#include "direction.h"
#include "util.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static double
num (json_t *o, const char *key)
{
    return json_get_num_or (o, key, 0);
}

static const char *
str (json_t *o, const char *key)
{
    return json_get_str_or (o, key, "");
}

static const char *
fmt_bytes (double b, char *buf, size_t cap)
{
    if (b >= 1 << 20 && (long long) b % (1 << 20) == 0)
        snprintf (buf, cap, "%.0fm", b / (1 << 20));
    else if (b >= 1024 && (long long) b % 1024 == 0)
        snprintf (buf, cap, "%.0fk", b / 1024);
    else
        snprintf (buf, cap, "%.0f", b);
    return buf;
}

/* One line of direction dir of figures o (a target, group or the fleet),
   when it has ops: a direction absent from o (no trims) has none. */
static void
row (FILE *f, const char *who, const char *target, int dir, json_t *o)
{
    json_t *d = json_object_get (o, dir_name (dir));
    if (!d || num (d, "ops") == 0)
        return;
    json_t *lat = json_object_get (d, "lat_ns");
    json_t *p = json_object_get (d, "percentiles");
    char mean[16], p50[16], p99[16], p999[16], max[16], iops[16];
    fprintf (f, "    %-16s %-28.28s %-5s %10s %9.1f %9s %9s %9s %9s %9s%s\n", who, target,
             dir_name (dir),
             fmt_iops (num (d, "iops"), iops, sizeof iops), num (d, "bw") / (1 << 20),
             fmt_lat (num (lat, "mean"), mean, sizeof mean),
             fmt_lat (num (p, "p50"), p50, sizeof p50),
             fmt_lat (num (p, "p99"), p99, sizeof p99),
             fmt_lat (num (p, "p99.9"), p999, sizeof p999),
             fmt_lat (num (lat, "max"), max, sizeof max),
             num (d, "errors") > 0 ? "  ERRORS" : "");
}

/* A time as a job file would write it: 2.2ms, 200ms, 500us. */
static const char *
fmt_opt_ns (double ns, char *buf, size_t cap)
{
    static const struct { double ns; const char *unit; } u[] = {
        { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" },
    };
    int i = 0;
    while (i < 3 && ns < u[i].ns)
        i++;
    snprintf (buf, cap, "%g%s", ns / u[i].ns, u[i].unit);
    return buf;
}

/* Agent a's gaps (the report's "gaps": stopped, silent, lost, restarted,
   above its pace), a line each, and the window its figures cover. */
static void
gap_lines (FILE *f, json_t *a)
{
    size_t i;
    json_t *g;
    json_array_foreach (json_object_get (a, "gaps"), i, g) {
        fprintf (f, "    %-16s GAP %s, intervals %.0f-%.0f", str (a, "agent"), str (g, "cause"),
                 num (g, "from_interval"), num (g, "to_interval"));
        if (json_object_get (g, "seconds"))
            fprintf (f, " (%.1f s)", num (g, "seconds"));
        fprintf (f, "%s: %s\n", json_is_true (json_object_get (g, "partial")) ? ", partial" : "",
                 str (g, "io"));
    }
    json_t *w = json_object_get (a, "measured_window");
    if (w)
        fprintf (f, "    %-16s window: %s\n", str (a, "agent"), str (w, "note"));
}

/* latency_target: a line per job with a target, the depth agent a's
   search found under it (from the report's "latency_target"). */
static void
latency_lines (FILE *f, json_t *a, bool named)
{
    size_t i;
    json_t *e;
    json_array_foreach (json_object_get (a, "latency_target"), i, e) {
        char target[32], window[32], depth[32];
        json_t *d = json_object_get (e, "depth");
        if (json_is_integer (d))
            snprintf (depth, sizeof depth, "depth %lld", (long long) json_integer_value (d));
        else
            snprintf (depth, sizeof depth, "no depth reported");
        fprintf (f, "    %-16s latency_target %s p%g window %s%s%s%s: %s\n", str (a, "agent"),
                 fmt_opt_ns (num (e, "target_ns"), target, sizeof target), num (e, "percentile"),
                 fmt_opt_ns (num (e, "window_ns"), window, sizeof window),
                 named ? " (job " : "", named ? str (e, "job") : "", named ? ")" : "", depth);
    }
}

/* Shortens a long path from the left so the file name stays visible. */
static const char *
short_path (const char *path, char *buf, size_t cap)
{
    size_t n = strlen (path);
    if (n < 28)
        return path;
    snprintf (buf, cap, "...%s", path + n - 25);
    return buf;
}

static void
step_header (FILE *f, json_t *s, int nsteps)
{
    json_t *job = json_object_get (s, "job");
    char bs[16];
    fprintf (f, "\nstep %d/%d %s: %s\n  %s bs=%s iodepth=%d numjobs=%d", (int) num (s, "index") + 1,
             nsteps, str (s, "name"), str (s, "status"), str (job, "rw"),
             fmt_bytes (num (job, "bs"), bs, sizeof bs), (int) num (job, "iodepth"),
             (int) num (job, "numjobs"));
    if (!strcmp (str (job, "rw"), "randrw") || !strcmp (str (job, "rw"), "rw"))
        fprintf (f, " rwmixread=%d", (int) num (job, "rwmixread"));
    if (num (job, "runtime_ns") > 0)
        fprintf (f, ", %.0f s", num (job, "runtime_ns") / 1e9);
    if (json_object_get (s, "skew_ns"))
        fprintf (f, ", start skew %.3f ms", num (s, "skew_ns") / 1e6);
    fprintf (f, "\n");
    json_t *sel = json_object_get (s, "selected");
    if (sel)
        fprintf (f, "  selected: %.0f of %.0f agents, %.0f of %.0f targets\n", num (sel, "agents"),
                 num (sel, "agents_of"), num (sel, "targets"), num (sel, "targets_of"));
}

/* A figure of the tracked metric (rounds.h) as text. */
static const char *
fmt_figure (const char *metric, double v, char *buf, size_t cap)
{
    if (!strcmp (metric, "mean"))
        return fmt_lat (v, buf, cap);
    if (!strcmp (metric, "bw")) {
        snprintf (buf, cap, "%.1fMiB/s", v / (1 << 20));
        return buf;
    }
    return fmt_iops (v, buf, cap);
}

/* The rounds and each drive's steady state, as the controller judged
   them (the report's "rounds"). */
static void
text_rounds (FILE *f, json_t *rep)
{
    json_t *ro = json_object_get (rep, "rounds");
    if (!json_is_object (ro))
        return;
    json_t *rule = json_object_get (ro, "steady_state");
    fprintf (f, "\nrounds: %d run, at most %d\n", (int) num (ro, "rounds_run"),
             (int) num (ro, "rounds_max"));
    if (!rule)
        return;
    const char *metric = str (rule, "metric");
    fprintf (f, "steady state of %s %s over a window of %d rounds: range <= %g%% and slope "
             "excursion <= %g%% of the window's mean\n", str (rule, "step"), metric,
             (int) num (rule, "window"), num (rule, "range_pct"), num (rule, "slope_pct"));
    fprintf (f, "  %-16s %-20s %-12s %10s %7s %7s  %s\n", "AGENT", "TARGET", "STEADY", "MEAN",
             "RANGE", "SLOPE", "PER ROUND");
    size_t i;
    json_t *d;
    json_array_foreach (json_object_get (ro, "drives"), i, d) {
        bool steady = json_is_true (json_object_get (d, "steady"));
        json_t *w = json_object_get (d, steady ? "window" : "last_window");
        char at[24], mean[24] = "-", range[16] = "-", slope[16] = "-";
        if (steady)
            snprintf (at, sizeof at, "round %d", (int) num (d, "steady_round"));
        else
            snprintf (at, sizeof at, "NOT STEADY");
        if (json_object_get (w, "mean")) {
            fmt_figure (metric, num (w, "mean"), mean, sizeof mean);
            snprintf (range, sizeof range, "%.1f%%", num (w, "range_pct"));
            snprintf (slope, sizeof slope, "%.1f%%", num (w, "excursion_pct"));
        }
        fprintf (f, "  %-16s %-20s %-12s %10s %7s %7s ", str (d, "agent"), str (d, "target"), at,
                 mean, range, slope);
        size_t k;
        json_t *v;
        json_array_foreach (json_object_get (d, "figures"), k, v) {
            char b[24];
            fprintf (f, " %s", json_is_number (v) ? fmt_figure (metric, json_number_value (v), b,
                                                                sizeof b) : "-");
        }
        fputc ('\n', f);
    }
    fprintf (f, "  %d drive(s) steady, %d not%s\n", (int) num (ro, "steady"),
             (int) num (ro, "not_steady"), num (ro, "not_steady") > 0
             ? ": their figures are not those of a drive in steady state" : "");
}

/* A step's drive health (step_health.c): how many drives report it,
   why the others do not, the temperature, each drive's findings and the
   health rule's verdict.  Can't fail. */
static void
health_lines (FILE *f, json_t *h)
{
    /* Nothing to say of a run whose agents sent no health (before 0.4.0). */
    if (!h || num (h, "drives_total") <= 0 || num (h, "not_sent") == num (h, "drives_total"))
        return;
    fprintf (f, "  health: %.0f of %.0f drives report it", num (h, "reporting"),
             num (h, "drives_total"));
    const char *reason;
    json_t *c;
    json_object_foreach (json_object_get (h, "unavailable"), reason, c)
        fprintf (f, "; %lld unavailable: %s", (long long) json_integer_value (c), reason);
    if (num (h, "not_sent") > 0)
        fprintf (f, "; %.0f not sent (agents before health records)", num (h, "not_sent"));
    json_t *t = json_object_get (h, "temperature");
    if (json_is_object (t)) {
        double top = -1e9, sum = 0;
        int n = 0;
        size_t k;
        json_t *v;
        json_array_foreach (json_object_get (t, "max_c"), k, v)
            if (json_is_number (v) && json_number_value (v) > top)
                top = json_number_value (v);
        json_array_foreach (json_object_get (t, "mean_c"), k, v)
            if (json_is_number (v)) {
                sum += json_number_value (v);
                n++;
            }
        if (n)
            fprintf (f, "; temperature max %.1f C, fleet mean %.1f C", top, sum / n);
    }
    fprintf (f, "\n");
    size_t i;
    json_t *d;
    json_array_foreach (json_object_get (h, "drives"), i, d) {
        json_t *j = json_object_get (d, "judgement"), *fl = json_object_get (j, "findings");
        if (!json_array_size (fl))
            continue;
        char sp[32];
        fprintf (f, "    health %-16s %-28s ", str (d, "agent"),
                 short_path (str (d, "target"), sp, sizeof sp));
        size_t k;
        json_t *line;
        json_array_foreach (fl, k, line)
            fprintf (f, "%s%s", k ? "; " : "", json_string_value (line));
        fprintf (f, "\n");
    }
    json_t *rule = json_object_get (h, "rule");
    if (rule) {
        fprintf (f, "  health rule %s: %s", str (rule, "conditions"),
                 json_is_true (json_object_get (rule, "pass")) ? "pass" : "FAIL");
        if (num (rule, "drives_not_judged") > 0)
            fprintf (f, " (%.0f drive(s) without the figures, not judged)",
                     num (rule, "drives_not_judged"));
        fprintf (f, "\n");
        json_array_foreach (json_object_get (rule, "failures"), i, d)
            fprintf (f, "    FAIL %s %s %s: %s\n", str (d, "agent"), str (d, "target"),
                     str (d, "condition"), str (d, "why"));
    }
}

void
text_report (FILE *f, json_t *rep)
{
    json_t *steps = json_object_get (rep, "steps");
    fprintf (f, "run %lld: plan '%s' v%d, %s\n", (long long) num (rep, "run"), str (rep, "plan"),
             (int) num (rep, "plan_version"), str (rep, "status"));
    if (json_object_get (rep, "intervals_dropped_at"))
        fprintf (f, "  (per-interval data removed by the retention policy or iofleet gc: "
                 "results and histograms are whole; per-second series, missing intervals and "
                 "significance are not)\n");
    if (str (rep, "message")[0])
        fprintf (f, "  %s\n", str (rep, "message"));
    json_t *where = json_object_get (rep, "where");
    if (json_array_size (where)) {
        size_t wi;
        json_t *w;
        fprintf (f, " ");
        json_array_foreach (where, wi, w)
            fprintf (f, " --where %s", json_string_value (w));
        fprintf (f, ": every figure below (fleet, groups, outliers, SLA) is of the selected "
                 "targets only\n");
    }
    size_t i;
    json_t *s;
    json_array_foreach (steps, i, s) {
        step_header (f, s, (int) json_array_size (steps));
        json_t *sla = json_object_get (s, "sla");
        if (sla) {
            fprintf (f, "  SLA %s: %s\n", str (sla, "conditions"), str (sla, "verdict"));
            size_t fi;
            json_t *fj;
            json_array_foreach (json_object_get (sla, "failures"), fi, fj)
                fprintf (f, "    FAIL %s%s%s %s %s: %.0f\n",
                         json_object_get (fj, "agent") ? str (fj, "agent") : "fleet",
                         json_object_get (fj, "target") ? " " : "",
                         json_object_get (fj, "target") ? str (fj, "target") : "",
                         str (fj, "condition"), str (fj, "direction"), num (fj, "value"));
        }
        size_t li;
        json_t *lj;
        json_array_foreach (json_object_get (s, "lint"), li, lj)
            fprintf (f, "  lint: %s\n", json_string_value (lj));
        fprintf (f, "    %-16s %-28s %-5s %10s %9s %9s %9s %9s %9s %9s\n", "agent", "target", "dir",
                 "IOPS", "MiB/s", "mean", "p50", "p99", "p99.9", "max");
        size_t j, k;
        json_t *a, *t;
        json_array_foreach (json_object_get (s, "agents"), j, a) {
            const char *status = str (a, "status");
            if (strcmp (status, "done") != 0 || str (a, "message")[0])
                fprintf (f, "    %-16s %s%s%s\n", str (a, "agent"), status,
                         str (a, "message")[0] ? ": " : "", str (a, "message"));
            json_t *miss = json_object_get (a, "missing_intervals");
            if (json_is_true (json_object_get (a, "incomplete")) && json_array_size (miss)
                && strcmp (status, "refused") != 0) {
                /* Ranges: "1-3, 7". */
                char list[256] = "";
                size_t len = 0, k = 0, nm = json_array_size (miss);
                while (k < nm && len + 32 < sizeof list) {
                    long long lo = (long long) json_integer_value (json_array_get (miss, k)), hi = lo;
                    while (k + 1 < nm && json_integer_value (json_array_get (miss, k + 1)) == hi + 1)
                        hi = (long long) json_integer_value (json_array_get (miss, ++k));
                    k++;
                    if (hi > lo)
                        len += (size_t) snprintf (list + len, sizeof list - len, "%s%lld-%lld",
                                                  len ? ", " : "", lo, hi);
                    else
                        len += (size_t) snprintf (list + len, sizeof list - len, "%s%lld",
                                                  len ? ", " : "", lo);
                }
                fprintf (f, "    %-16s INCOMPLETE: missing %s %s%s of 0-%.0f; its "
                         "other intervals are counted\n", str (a, "agent"),
                         plural ((long long) nm, "interval", "intervals"), list,
                         k < nm ? ", ..." : "", num (a, "intervals_expected") - 1);
            }
            if (num (a, "spool_dropped") > 0)
                fprintf (f, "    %-16s spool overflowed: %.0f %s let go before the "
                         "controller acknowledged them (the controller was away longer than "
                         "its --spool-max holds); any that never arrived are missing\n",
                         str (a, "agent"), num (a, "spool_dropped"),
                         plural ((long long) num (a, "spool_dropped"), "snapshot", "snapshots"));
            gap_lines (f, a);
            latency_lines (f, a, json_is_array (json_object_get (json_object_get (s, "job"),
                                                                 "jobs")));
            json_array_foreach (json_object_get (a, "targets"), k, t) {
                char sp[32];
                const char *tp = short_path (str (t, "target"), sp, sizeof sp);
                for (int d = 0; d < DIR_COUNT; d++)
                    row (f, str (a, "agent"), tp, d, t);
            }
        }
        size_t gi;
        json_t *g;
        json_t *groups = json_object_get (s, "groups");
        if (json_array_size (groups) > 1 || (json_array_size (groups) == 1
            && strcmp (str (json_array_get (groups, 0), "by"), "all") != 0))
            json_array_foreach (groups, gi, g) {
                char label[48];
                snprintf (label, sizeof label, "%s=%s", str (g, "by"), str (g, "value"));
                for (int d = 0; d < DIR_COUNT; d++)
                    row (f, label, "merged histograms", d, g);
            }
        json_array_foreach (json_object_get (s, "outliers"), gi, g) {
            const char *metric = str (g, "metric");
            char v[16], m[16];
            bool lat = strcmp (metric, "p99") == 0;
            if (lat) {
                fmt_lat (num (g, "value"), v, sizeof v);
                fmt_lat (num (g, "group_median"), m, sizeof m);
            } else {
                snprintf (v, sizeof v, "%.0f", num (g, "value"));
                snprintf (m, sizeof m, "%.0f", num (g, "group_median"));
            }
            fprintf (f, "  OUTLIER %s%s%s%s: %s %s against the group's median %s (%+.1f%%)%s%s\n",
                     str (g, "agent"), json_is_string (json_object_get (g, "target")) ? "" : " (host)",
                     json_is_string (json_object_get (g, "target")) ? " " : "",
                     json_is_string (json_object_get (g, "target")) ? str (g, "target") : "",
                     metric, v, m, num (g, "deviation_pct"),
                     json_object_get (g, "health_cause") ? ": " : "",
                     json_object_get (g, "health_cause") ? str (g, "health_cause") : "");
        }
        health_lines (f, json_object_get (s, "health"));
        json_t *fleet = json_object_get (s, "fleet");
        char who[32];
        snprintf (who, sizeof who, "FLEET (%d)", (int) num (json_object_get (fleet, "read"), "agents"));
        for (int d = 0; d < DIR_COUNT; d++)
            row (f, who, "merged histograms", d, fleet);
    }
    json_array_foreach (json_object_get (rep, "sweeps"), i, s) {
        fprintf (f, "\nsweep %s\n", str (s, "curve"));
        size_t k;
        json_t *p;
        json_array_foreach (json_object_get (s, "points"), k, p) {
            char iops[16], p99[16];
            json_t *ok = json_object_get (p, "sla_latency_pass");
            fprintf (f, "    iodepth %-5.0f %10s IOPS  p99 %9s%s\n", num (p, "iodepth"),
                     fmt_iops (num (p, "iops"), iops, sizeof iops),
                     fmt_lat (num (p, "p99"), p99, sizeof p99),
                     !ok ? "" : json_is_true (ok) ? "  meets the SLA" : "  misses the SLA");
        }
        json_t *knee = json_object_get (s, "knee_iodepth");
        if (json_is_number (knee))
            fprintf (f, "  knee at iodepth %.0f (%s)\n", json_number_value (knee), str (s, "knee_rule"));
        else
            /* The rule is the controller's (knee_rule), not typed here again. */
            fprintf (f, "  no knee (knee: %s)\n", str (s, "knee_rule"));
        json_t *cap = json_object_get (s, "sla_capacity");
        if (json_is_object (cap) && json_is_number (json_object_get (cap, "iops"))) {
            char iops[16], p99[16];
            fprintf (f, "  SLA capacity: %s IOPS at iodepth %.0f (p99 %s", fmt_iops (num (cap, "iops"),
                     iops, sizeof iops), num (cap, "iodepth"), fmt_lat (num (cap, "p99"), p99, sizeof p99));
            if (json_object_get (cap, "p99_headroom_pct"))
                fprintf (f, ", %.0f%% headroom under the p99 limit", num (cap, "p99_headroom_pct"));
            fprintf (f, ")\n");
        } else if (json_is_object (cap))
            fprintf (f, "  SLA capacity: none, %s\n", str (cap, "note"));
    }
    text_rounds (f, rep);
    if (strcmp (str (rep, "verdict"), "none") != 0)
        fprintf (f, "\nverdict (SLA and steady state): %s\n", str (rep, "verdict"));
    fprintf (f, "\nIOPS and MiB/s: sums over agents of ops (bytes) / measured window.\n"
                "Latency: completion latency; percentiles from merged histograms "
                "(bucket midpoints, <= 0.4%% error).\n");
}

/* "STATUS: MESSAGE\n", or the message alone when it says the status
   already ("cancelled by ...").  Can't fail. */
/* Agents the --wait summary names per step (the report names them all). */
#define SUMMARY_AGENTS_MAX 5

static void
status_message (FILE *f, const char *status, const char *msg)
{
    size_t n = strlen (status);
    if (strncmp (msg, status, n) == 0 && (msg[n] == ' ' || msg[n] == ':'))
        fprintf (f, "%s\n", msg);
    else
        fprintf (f, "%s%s%s\n", status, msg[0] ? ": " : "", msg);
}

void
text_summary (FILE *f, json_t *rep)
{
    size_t i;
    json_t *s;
    fprintf (f, "run %lld ", (long long) num (rep, "run"));
    status_message (f, str (rep, "status"), str (rep, "message"));
    json_array_foreach (json_object_get (rep, "steps"), i, s) {
        /* Why an agent did not run the step through (refused, lost,
           cancelled): what the run's status stands on. */
        size_t k, shown = 0, more = 0;
        json_t *a;
        json_array_foreach (json_object_get (s, "agents"), k, a)
            if (strcmp (str (a, "status"), "done") != 0 || str (a, "message")[0]) {
                /* A fleet's worth of one reason is the report's to list. */
                if (shown++ >= SUMMARY_AGENTS_MAX) {
                    more++;
                    continue;
                }
                fprintf (f, "  %-24s agent %s ", str (s, "name"), str (a, "agent"));
                status_message (f, str (a, "status"), str (a, "message"));
            }
        if (more)
            fprintf (f, "  %-24s and %zu more agent%s: iofleet report %lld lists each\n",
                     str (s, "name"), more, more == 1 ? "" : "s", (long long) num (rep, "run"));
        json_t *fleet = json_object_get (s, "fleet");
        for (int d = 0; d < DIR_COUNT; d++) {
            json_t *x = json_object_get (fleet, dir_name (d));
            if (!x || num (x, "ops") == 0)
                continue;
            char p99[16];
            char iops[16];
            fprintf (f, "  %-24s %-5s %10s IOPS %9.1f MiB/s  p99 %s  (%d %s)\n",
                     str (s, "name"), dir_name (d), fmt_iops (num (x, "iops"), iops, sizeof iops),
                     num (x, "bw") / (1 << 20),
                     fmt_lat (num (json_object_get (x, "percentiles"), "p99"), p99, sizeof p99),
                     (int) num (x, "agents"), plural ((long long) num (x, "agents"), "agent", "agents"));
        }
    }
    json_t *ro = json_object_get (rep, "rounds");
    if (json_is_object (ro) && json_object_get (ro, "steady_state"))
        fprintf (f, "  rounds: %d of at most %d; %d drive(s) steady, %d not\n",
                 (int) num (ro, "rounds_run"), (int) num (ro, "rounds_max"),
                 (int) num (ro, "steady"), (int) num (ro, "not_steady"));
}

/* One progress line of a running step into line: a bar of elapsed against
   planned time, the time left, the last interval's fleet IOPS and p99,
   the agents by state and the outliers of that interval. */
static void
progress_line (json_t *st, long long run, bool bar, char *line, size_t cap)
{
    int step = (int) num (st, "step");
    double el = num (st, "elapsed_s"), plan = num (st, "planned_s");
    size_t off = (size_t) snprintf (line, cap, "run %lld step %d/%d %s: ", run, step + 1,
                                    (int) num (st, "steps"), str (st, "step_name"));
#define ADD(...) do { if (off < cap) off += (size_t) snprintf (line + off, cap - off, __VA_ARGS__); } while (0)
    /* First, before a terminal's width cuts the line: why nothing moves. */
    const char *held = str (json_object_get (st, "held"), "message");
    if (held[0])
        ADD ("%s | ", held);
    ADD ("%s", str (st, "phase"));
    if (json_object_get (st, "round"))
        ADD (" (round %d of at most %d)", (int) num (st, "round"), (int) num (st, "rounds_max"));
    if (json_object_get (st, "progress")) {
        double f = num (st, "progress");
        if (bar) {
            char b[21];
            int k = (int) (f * 20 + 0.5);
            for (int i = 0; i < 20; i++)
                b[i] = i < k ? '#' : '.';
            b[20] = '\0';
            ADD (" [%s]", b);
        }
        if (plan > 0)
            ADD (" %.0f/%.0f s, %.0f s left", el, plan, num (st, "left_s"));
        else if (json_object_get (st, "left_s"))    /* size-bound: by its bytes */
            ADD (" %.0f%% %.0f s, about %.0f s left", 100 * f, el, num (st, "left_s"));
        else
            ADD (" %.0f%% %.0f s", 100 * f, el);
    } else if (strcmp (str (st, "phase"), "running") == 0)
        ADD (" %.0f s", el);
    json_t *dp = json_object_get (st, "drives_progress");
    if (dp) {
        char mv[32], pl[32];
        json_t *sl = json_object_get (dp, "slowest");
        fmt_size ((uint64_t) num (dp, "moved_bytes"), mv, sizeof mv);
        fmt_size ((uint64_t) num (dp, "planned_bytes"), pl, sizeof pl);
        ADD (" | drives %d/%d done, %s of %s, slowest %s %s %.0f%%", (int) num (dp, "done"),
             (int) num (dp, "drives"), mv, pl, str (sl, "agent"), str (sl, "target"),
             100 * num (sl, "fraction"));
    }
    json_t *li = json_object_get (st, "last_interval");
    if (li) {
        char iops[32], p99[32] = "-";
        fmt_iops (num (li, "iops"), iops, sizeof iops);
        if (json_object_get (li, "p99"))
            fmt_lat (num (li, "p99"), p99, sizeof p99);
        ADD (" | interval %lld: %s IOPS, p99 %s", (long long) num (li, "seq"), iops, p99);
    }
    const char *k;
    json_t *v;
    int first = 1;
    json_object_foreach (json_object_get (st, "agents"), k, v) {
        ADD ("%s%lld %s", first ? " | agents " : ", ", (long long) json_integer_value (v), k);
        first = 0;
    }
    size_t i;
    json_t *o;
    json_array_foreach (json_object_get (li, "outliers"), i, o)
        ADD (" | OUTLIER %s %+.0f%% IOPS", str (o, "agent"), num (o, "delta_pct"));
#undef ADD
}

const char *
wait_run (const char *endpoint, long long run, volatile sig_atomic_t *interrupted, char *err,
          size_t errlen)
{
    static char status[32];
    bool tty = isatty (STDERR_FILENO);
    int last_step = -1;
    char last_phase[32] = "";
    bool last_held = false;
    uint64_t last_print = 0;
    int failures = 0;
    char first_err[1024] = "";
    while (!*interrupted) {
        json_t *req = json_pack ("{s:s, s:I}", "cmd", "status", "run", (json_int_t) run);
        json_t *st = client_call (endpoint, req, 5000, err, errlen);
        json_decref (req);
        if (!st) {
            /* A busy controller may miss one poll; three in a row is an
               outage, said as its first poll found it (a controller that
               went away, not the timeouts of the polls after it). */
            if (failures == 0)
                snprintf (first_err, sizeof first_err, "%s", err);
            if (++failures >= 3) {
                if (tty)
                    fprintf (stderr, "\r\033[K");
                snprintf (err, errlen, "%s", first_err);
                return NULL;
            }
            usleep (500 * 1000);        /* a failure said at once is not a poll sooner */
            continue;
        }
        failures = 0;
        const char *s = str (st, "status");
        if (strcmp (s, "queued") != 0 && strcmp (s, "running") != 0) {
            snprintf (status, sizeof status, "%s", s);
            if (tty)
                fprintf (stderr, "\r\033[K");
            json_decref (st);
            return status;
        }
        int step = json_object_get (st, "step") ? (int) num (st, "step") : -1;
        const char *phase = str (st, "phase");
        const char *held = str (json_object_get (st, "held"), "message");
        char line[512];
        if (step < 0)
            snprintf (line, sizeof line, "run %lld %s%s%s", run, s, held[0] ? ": " : "", held);
        else
            progress_line (st, run, tty, line, sizeof line);
        /* Not a terminal (a log, CI): plain lines, at each change of step or
           phase and every 5 s. */
        uint64_t now = clock_mono_ns ();
        if (tty) {
            struct winsize ws;
            int cols = ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 200;
            if ((int) strlen (line) >= cols)
                line[cols - 1] = '\0';
            fprintf (stderr, "\r\033[K%s", line);
        } else if (step != last_step || strcmp (phase, last_phase) != 0
                   || (held[0] != 0) != last_held || now - last_print > 5 * NS_PER_SEC) {
            fprintf (stderr, "%s\n", line);
            last_print = now;
        }
        last_step = step;
        last_held = held[0] != 0;
        snprintf (last_phase, sizeof last_phase, "%s", phase);
        json_decref (st);
        usleep (500 * 1000);
    }
    if (tty)
        fprintf (stderr, "\r\033[K");       /* the message goes on a line of its own */
    snprintf (err, errlen, "interrupted");
    return NULL;
}
