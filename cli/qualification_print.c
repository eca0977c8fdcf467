/*  qualification_print.c: iofleet report --template qualification as text:
    the controller's qualification report (controller/templates/qualification.h),
    table by table, in the order of the tri-mode HBA report it follows.
    Every figure is the controller's; this file only lays them out. */
#include "cli.h"
#define JSON_GET_SHORT     /* num () and str () */
#include "json_get.h"
#include "util.h"


#include <math.h>
#include <string.h>

static const char *
lat (json_t *o, const char *key, char *buf, size_t cap)
{
    return isfinite (num (o, key)) ? fmt_lat (num (o, key), buf, cap) : "-";
}

static const char *
iops (double v, char *buf, size_t cap)
{
    return isfinite (v) ? fmt_iops (v, buf, cap) : "-";
}

static const char *
bs (json_t *o, char *buf, size_t cap)
{
    return isfinite (num (o, "bs")) ? fmt_size_option ((uint64_t) num (o, "bs"), buf, cap) : "-";
}

static const char *
depth (json_t *o, const char *key, char *buf, size_t cap)
{
    if (!isfinite (num (o, key)))
        return "-";
    snprintf (buf, cap, "QD%.0f", num (o, key));
    return buf;
}

static const char *
bw (double v, char *buf, size_t cap)
{
    return isfinite (v) ? fmt_bw (v, buf, cap) : "-";
}

static const char *
pct (double v, char *buf, size_t cap)
{
    if (!isfinite (v))
        return "-";
    snprintf (buf, cap, "%.0f%%", v);
    return buf;
}

/* One large-block step against its paths' ceilings (controller/templates/paths.h). */
static void
paths_print (FILE *f, json_t *p)
{
    char a[32], b[32], c[32], z[16];
    size_t i;
    json_t *r;
    json_t *lim = json_object_get (p, "limited_by");
    fprintf (f, "\nlarge blocks against the path's ceiling: step %s (%s, %s, QD%.0f); "
             "hosts limited by the HBA's PCIe link %.0f, an expander uplink %.0f, the drives' "
             "links %.0f, unknown %.0f\n", str (p, "step"), str (p, "rw"), bs (p, z, sizeof z),
             num (p, "iodepth"), num (lim, "hba"), num (lim, "uplink"), num (lim, "drives"),
             num (lim, "unknown"));
    fprintf (f, "  %-14s %7s %12s %14s %6s\n", "GROUP", "TARGETS", "BANDWIDTH", "DRIVE LINKS",
             "USED");
    json_array_foreach (json_object_get (p, "groups"), i, r)
        fprintf (f, "  %-14s %7.0f %12s %14s %6s\n", str (r, "group"), num (r, "targets"),
                 bw (num (r, "bw"), a, sizeof a), bw (num (r, "drive_links_bps"), b, sizeof b),
                 pct (num (r, "used_pct"), c, sizeof c));
    fprintf (f, "  %-20s %-13s %7s %12s %12s %6s  %s\n", "AGENT", "CONTROLLER", "TARGETS",
             "BANDWIDTH", "CEILING", "USED", "LIMITED BY");
    json_array_foreach (json_object_get (p, "hosts"), i, r)
        fprintf (f, "  %-20s %-13s %7.0f %12s %12s %6s  %s: %s\n", str (r, "agent"),
                 str (r, "controller")[0] ? str (r, "controller") : "-", num (r, "targets"),
                 bw (num (r, "bw"), a, sizeof a), bw (num (r, "ceiling_bps"), b, sizeof b),
                 pct (num (r, "used_pct"), c, sizeof c), str (r, "limited_by"), str (r, "limit"));
}

/* The tuning checklist (controller/templates/checklist.h). */
static void
checklist_print (FILE *f, json_t *list)
{
    size_t i, k;
    json_t *r, *g;
    fprintf (f, "\ntuning checklist (drives failing a rule in any step / drives it applied to)\n");
    json_array_foreach (list, i, r) {
        fprintf (f, "  %s: %s\n", str (r, "rule"), str (r, "advice"));
        json_array_foreach (json_object_get (r, "groups"), k, g) {
            if (!(num (g, "checked") > 0)) {
                fprintf (f, "    %-14s -     (the inventory does not tell, or the rule does not "
                         "apply)\n", str (g, "group"));
                continue;
            }
            fprintf (f, "    %-14s %-5s %.0f/%.0f%s%s\n", str (g, "group"),
                     num (g, "failing") > 0 ? "FAIL" : "ok", num (g, "failing"),
                     num (g, "checked"), str (g, "example")[0] ? "  e.g. " : "",
                     str (g, "example"));
        }
    }
}

void
qualification_print (FILE *f, json_t *q)
{
    size_t i;
    json_t *r;
    char a[32], b[32], c[32], d[32], e[32], z[16];
    fprintf (f, "run %.0f: %s (%s), qualification by %s; verdict %s\n", num (q, "run"),
             str (q, "plan"), str (q, "status"), str (q, "by"), str (q, "verdict"));

    fprintf (f, "\nlatency of random reads (completion latency, merged histograms)\n");
    fprintf (f, "  %-14s %-24s %5s %6s %10s %10s %10s %10s %10s\n", "GROUP", "STEP", "BS", "QD",
             "IOPS", "MEAN", "P95", "P99", "P99.9");
    json_array_foreach (json_object_get (q, "latency"), i, r)
        fprintf (f, "  %-14s %-24s %5s %6.0f %10s %10s %10s %10s %10s\n", str (r, "group"),
                 str (r, "step"), bs (r, z, sizeof z), num (r, "iodepth"),
                 iops (num (r, "iops"), a, sizeof a), lat (r, "mean", b, sizeof b),
                 lat (r, "p95", c, sizeof c), lat (r, "p99", d, sizeof d),
                 lat (r, "p99.9", e, sizeof e));

    fprintf (f, "\npeak IOPS and the knee (%s)\n",
             str (json_object_get (q, "rules"), "knee"));
    fprintf (f, "  %-14s %-9s %5s %10s %7s %12s %7s\n", "GROUP", "RW", "BS", "PEAK IOPS", "AT",
             "PER TARGET", "KNEE");
    json_array_foreach (json_object_get (q, "curves"), i, r)
        fprintf (f, "  %-14s %-9s %5s %10s %7s %12s %7s\n", str (r, "group"), str (r, "rw"),
                 bs (r, e, sizeof e), iops (num (r, "peak_iops"), a, sizeof a),
                 depth (r, "peak_iodepth", b, sizeof b),
                 iops (num (r, "peak_iops_per_target"), c, sizeof c),
                 depth (r, "knee_iodepth", d, sizeof d));

    if (json_array_size (json_object_get (q, "mixed"))) {
        fprintf (f, "\nmixed workload against pure random reads (peak IOPS)\n");
        fprintf (f, "  %-14s %5s %6s %12s %12s %9s\n", "GROUP", "BS", "READS", "READ PEAK",
                 "MIXED PEAK", "PENALTY");
        json_array_foreach (json_object_get (q, "mixed"), i, r)
            fprintf (f, "  %-14s %5s %5.0f%% %12s %12s %8.1f%%\n", str (r, "group"),
                     bs (r, e, sizeof e), num (r, "rwmixread"),
                     iops (num (r, "read_peak_iops"), a, sizeof a),
                     iops (num (r, "mixed_peak_iops"), b, sizeof b), num (r, "penalty_pct"));
    }

    fprintf (f, "\nSLA classes (random reads: the highest IOPS whose p99 is below the limit)\n");
    fprintf (f, "  %-18s %8s %-14s %5s %5s %10s %12s %7s %9s\n", "CLASS", "P99 <", "GROUP", "BS",
             "", "IOPS", "PER TARGET", "AT", "P99");
    json_array_foreach (json_object_get (q, "sla_classes"), i, r)
        fprintf (f, "  %-18s %8s %-14s %5s %5s %10s %12s %7s %9s\n", str (r, "class"),
                 lat (r, "p99_limit", a, sizeof a), str (r, "group"), bs (r, z, sizeof z),
                 json_is_true (json_object_get (r, "pass")) ? "pass" : "FAIL",
                 iops (num (r, "capacity_iops"), b, sizeof b),
                 iops (num (r, "capacity_iops_per_target"), c, sizeof c),
                 depth (r, "iodepth", d, sizeof d), lat (r, "p99", e, sizeof e));

    json_array_foreach (json_object_get (q, "paths"), i, r)
        paths_print (f, r);
    checklist_print (f, json_object_get (q, "checklist"));

    json_t *o = json_object_get (q, "options");
    fprintf (f, "\ncapacity advice: targets (drives) per group for %s IOPS, each with %.0f%% p99 "
             "headroom\n", iops (num (o, "target_iops"), a, sizeof a), num (o, "headroom_pct"));
    fprintf (f, "  %-18s %-14s %5s %10s %12s %7s %9s %8s\n", "CLASS", "GROUP", "BS", "P99 <=",
             "PER TARGET", "AT", "P99", "TARGETS");
    json_array_foreach (json_object_get (q, "capacity"), i, r) {
        char n[16] = "none";
        if (isfinite (num (r, "targets_needed")))
            snprintf (n, sizeof n, "%.0f", num (r, "targets_needed"));
        fprintf (f, "  %-18s %-14s %5s %10s %12s %7s %9s %8s\n", str (r, "class"),
                 str (r, "group"), bs (r, e, sizeof e), lat (r, "p99_at_most", a, sizeof a),
                 iops (num (r, "per_target_iops"), b, sizeof b), depth (r, "iodepth", c, sizeof c),
                 lat (r, "p99", d, sizeof d), n);
    }
    json_t *rules = json_object_get (q, "rules");
    fprintf (f, "\nhow: %s.\n     %s.\n     %s.\n     %s.\n     %s.\n", str (rules, "mixed"),
             str (rules, "sla_classes"), str (rules, "capacity"), str (rules, "paths"),
             str (rules, "checklist"));
}
