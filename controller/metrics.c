/*  metrics.c: the controller's figures for Prometheus, see metrics.h. */
#include "metrics.h"
#include "fleet.h"
#include "runstate.h"
#include "series.h"
#include "direction.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A label value as the exposition format escapes it. */
static void
label_value (FILE *f, const char *s)
{
    fputc ('"', f);
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fprintf (f, "\\%c", *s);
        else if (*s == '\n')
            fputs ("\\n", f);
        else
            fputc (*s, f);
    }
    fputc ('"', f);
}

void
metrics_histogram (FILE *f, const char *name, const char *labels, const histogram_t *h)
{
    uint64_t below = 0;             /* samples under the edge */
    uint32_t i = 0;
    for (int b = METRICS_LOW_BITS; b < METRICS_HIGH_BITS; b++)
        for (int j = 0; j < METRICS_OCTAVE_SPLIT; j++) {
            uint64_t edge = (1ull << b) + (uint64_t) j * (1ull << (b - 3));
            while (i < HIST_NBUCKETS && histogram_bucket_low (i) < edge)
                below += h->buckets[i++];
            fprintf (f, "%s_bucket{%s%sle=\"%" PRIu64 ".%09" PRIu64 "\"} %" PRIu64 "\n", name,
                     labels, labels[0] ? "," : "", (edge - 1) / 1000000000u,
                     (edge - 1) % 1000000000u, below);
        }
    /* The last edge, 2^36 ns. */
    uint64_t edge = 1ull << METRICS_HIGH_BITS;
    while (i < HIST_NBUCKETS && histogram_bucket_low (i) < edge)
        below += h->buckets[i++];
    fprintf (f, "%s_bucket{%s%sle=\"%" PRIu64 ".%09" PRIu64 "\"} %" PRIu64 "\n", name, labels,
             labels[0] ? "," : "", (edge - 1) / 1000000000u, (edge - 1) % 1000000000u, below);
    fprintf (f, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, labels[0] ? "," : "",
             h->count);
    fprintf (f, "%s_sum%s%s%s %" PRIu64 ".%09" PRIu64 "\n", name, labels[0] ? "{" : "", labels,
             labels[0] ? "}" : "", h->sum / 1000000000u, h->sum % 1000000000u);
    fprintf (f, "%s_count%s%s%s %" PRIu64 "\n", name, labels[0] ? "{" : "", labels,
             labels[0] ? "}" : "", h->count);
}

char *
metrics_render (ctl_t *ctl, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream (&buf, len);
    if (!f)
        return NULL;
    int up = 0, down = 0;
    for (peer_t *p = fleet_first (ctl->fleet); p; p = fleet_next (ctl->fleet))
        p->connected ? up++ : down++;
    fprintf (f, "# HELP iofleet_agents Agents that said HELLO since the controller started.\n"
             "# TYPE iofleet_agents gauge\n"
             "iofleet_agents{state=\"connected\"} %d\niofleet_agents{state=\"disconnected\"} %d\n",
             up, down);
    const ingest_stats_t *is = ctl->stats;
    static const struct { const char *name, *help; size_t off; } counters[] = {
        { "messages", "Messages taken in from agents.", offsetof (ingest_stats_t, messages) },
        { "bytes", "Bytes of those messages.", offsetof (ingest_stats_t, bytes) },
        { "snapshots", "Snapshots stored (committed).", offsetof (ingest_stats_t, snapshots) },
        { "rows", "Their target rows.", offsetof (ingest_stats_t, rows) },
        { "commits", "Database commits.", offsetof (ingest_stats_t, commits) },
    };
    for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++)
        fprintf (f, "# HELP iofleet_ingest_%s_total %s\n# TYPE iofleet_ingest_%s_total counter\n"
                 "iofleet_ingest_%s_total %" PRIu64 "\n", counters[k].name, counters[k].help,
                 counters[k].name, counters[k].name,
                 *(const uint64_t *) ((const char *) is + counters[k].off));

    fputs ("# HELP iofleet_ingest_lag_seconds From the end of a snapshot's interval to the "
           "commit that made it durable.\n# TYPE iofleet_ingest_lag_seconds histogram\n", f);
    metrics_histogram (f, "iofleet_ingest_lag_seconds", "", &is->lag);
    fputs ("# HELP iofleet_commit_seconds One tick's database commit.\n"
           "# TYPE iofleet_commit_seconds histogram\n", f);
    metrics_histogram (f, "iofleet_commit_seconds", "", &is->commit);

    runner_t *r = ctl->runner;
    fputs ("# HELP iofleet_run_active The run in hand.\n# TYPE iofleet_run_active gauge\n", f);
    char run[32], step[16], name[512];
    if (r->phase != R_IDLE) {
        snprintf (run, sizeof run, "%" PRId64, r->run);
        fprintf (f, "iofleet_run_active{run=\"%s\",plan=", run);
        label_value (f, r->plan_name);
        fputs ("} 1\n", f);
    }
    fputs ("# HELP iofleet_step_active The step in hand.\n# TYPE iofleet_step_active gauge\n", f);
    const series_total_t *t = series_total (r->series);
    /* The step's labels, kept for after the run ends (its plan is gone
       then), until the next step's totals begin. */
    static char s_labels[1024];
    static int64_t s_run = -1;
    static int s_step = -1;
    char labels[1024] = "";
    if (t->run >= 0 && t->run == s_run && t->step == s_step && r->phase == R_IDLE)
        snprintf (labels, sizeof labels, "%s", s_labels);
    else if (t->run >= 0 && t->run == r->run && r->phase != R_IDLE) {
        /* The step's labels, as the exposition escapes them. */
        char *lb = NULL;
        size_t lbn = 0;
        FILE *lf = open_memstream (&lb, &lbn);
        if (lf) {
            snprintf (step, sizeof step, "%d", t->step);
            fprintf (lf, "run=\"%" PRId64 "\",step=\"%s\",name=", t->run, step);
            label_value (lf, run_step_name (r, t->step, name, sizeof name));
            fclose (lf);
            snprintf (labels, sizeof labels, "%s", lb ? lb : "");
            free (lb);
        }
        snprintf (s_labels, sizeof s_labels, "%s", labels);
        s_run = t->run;
        s_step = t->step;
        if (r->phase != R_IDLE && t->step == r->cur)
            fprintf (f, "iofleet_step_active{%s} 1\n", labels);
    }
    fputs ("# HELP iofleet_step_ops_total I/Os of the step in hand, fleet-wide.\n"
           "# TYPE iofleet_step_ops_total counter\n", f);
    for (int k = 0; labels[0] && k < DIR_COUNT; k++)
        fprintf (f, "iofleet_step_ops_total{%s,direction=\"%s\"} %" PRIu64 "\n", labels,
                 dir_name (k), t->ops[k]);
    fputs ("# HELP iofleet_step_bytes_total Bytes of the step in hand, fleet-wide.\n"
           "# TYPE iofleet_step_bytes_total counter\n", f);
    for (int k = 0; labels[0] && k < DIR_COUNT; k++)
        fprintf (f, "iofleet_step_bytes_total{%s,direction=\"%s\"} %" PRIu64 "\n", labels,
                 dir_name (k), t->bytes[k]);
    fputs ("# HELP iofleet_step_latency_seconds Completion latency of the step in hand, "
           "fleet-wide.\n# TYPE iofleet_step_latency_seconds histogram\n", f);
    for (int k = 0; labels[0] && k < DIR_COUNT; k++) {
        char dl[1100];
        snprintf (dl, sizeof dl, "%s,direction=\"%s\"", labels, dir_name (k));
        metrics_histogram (f, "iofleet_step_latency_seconds", dl, &t->hist[k]);
    }
    if (fclose (f) != 0) {
        free (buf);
        return NULL;
    }
    return buf;
}
