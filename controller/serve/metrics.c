/*  metrics.c: the controller's figures for Prometheus, see metrics.h. */
#include "metrics.h"
#include "store.h"
#include "buckets.h"
#include "direction.h"
#include "fleet.h"
#include "runner.h"
#include "series.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a target moved data in direction k (it has series for it). */
static bool
dir_active (const series_target_t *fig, int k)
{
    return fig->ops[k] || fig->count[k];
}

typedef struct {
    size_t lab;                     /* its labels' offset in labels */
    series_target_t fig;
} snap_target_t;

struct metrics_snap {
    metrics_targets_t targets;
    char *head;                     /* everything but the targets' series */
    size_t head_len;
    snap_target_t *t;               /* the targets' figures */
    size_t n;
    char *labels;                   /* agent="..",target=".." of each, NUL-ended */
    size_t labels_len;
};

void
metrics_label_value (FILE *f, const char *s)
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

/* A histogram_t as the exposition's lines at BUCKETS_FLEET. */
static void
fleet_histogram (FILE *f, const char *name, const char *labels, const histogram_t *h)
{
    uint64_t slots[BUCKETS_SLOTS (BUCKETS_FLEET)] = { 0 };
    buckets_add (BUCKETS_FLEET, h, slots);
    buckets_write (f, name, labels, BUCKETS_FLEET, slots, h->count, h->sum);
}

/* The fleet's series: everything but the targets'. */
static void
write_head (ctl_t *ctl, FILE *f)
{
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
    fleet_histogram (f, "iofleet_ingest_lag_seconds", "", &is->lag);
    fputs ("# HELP iofleet_commit_seconds One tick's database commit.\n"
           "# TYPE iofleet_commit_seconds histogram\n", f);
    fleet_histogram (f, "iofleet_commit_seconds", "", &is->commit);

    /* store_failing only: the figures of store_held read the file system. */
    fprintf (f, "# HELP iofleet_store_held 1 while the database cannot be written and runs "
             "hold (iofleet stats says why).\n# TYPE iofleet_store_held gauge\n"
             "iofleet_store_held %d\n", store_failing (ctl->store) ? 1 : 0);

    runner_t *r = ctl->runner;
    fputs ("# HELP iofleet_run_active The run in hand.\n# TYPE iofleet_run_active gauge\n", f);
    char run[32];
    if (r->phase != R_IDLE) {
        snprintf (run, sizeof run, "%" PRId64, r->run);
        fprintf (f, "iofleet_run_active{run=\"%s\",plan=", run);
        metrics_label_value (f, r->plan_name);
        fputs ("} 1\n", f);
    }
    fputs ("# HELP iofleet_step_active The step in hand.\n# TYPE iofleet_step_active gauge\n", f);
    const series_total_t *t = series_total (r->series);
    /* The step's labels, as the exposition escapes them: its figures stay
       after it ends, until the next step's begin. */
    char labels[1024] = "";
    if (t->run >= 0) {
        char *lb = NULL;
        size_t lbn = 0;
        FILE *lf = open_memstream (&lb, &lbn);
        if (lf) {
            fprintf (lf, "run=\"%" PRId64 "\",step=\"%d\",name=", t->run, t->step);
            metrics_label_value (lf, t->name);
            fclose (lf);
            snprintf (labels, sizeof labels, "%s", lb ? lb : "");
            free (lb);
        }
        if (r->phase != R_IDLE && t->run == r->run && t->step == r->cur)
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
        fleet_histogram (f, "iofleet_step_latency_seconds", dl, &t->hist[k]);
    }
}

/* The targets' figures and labels into snap.  Returns 0 or -1 (out of
   memory). */
static int
collect_targets (ctl_t *ctl, metrics_snap_t *snap)
{
    const series_total_t *t = series_total (ctl->runner->series);
    size_t n = 0;
    for (int w = 0; w < t->nwho; w++)
        n += t->who[w].n;
    snap->t = n ? malloc (n * sizeof *snap->t) : NULL;
    if (n && !snap->t)
        return -1;
    FILE *lf = open_memstream (&snap->labels, &snap->labels_len);
    if (!lf)
        return -1;
    for (int w = 0; w < t->nwho; w++) {
        const series_who_t *who = &t->who[w];
        for (uint32_t i = 0; i < who->n; i++) {
            const series_target_t *fig = &who->t[i];
            bool any = false;
            for (int k = 0; k < DIR_COUNT; k++)
                any = any || dir_active (fig, k);
            if (!any)
                continue;
            snap_target_t *st = &snap->t[snap->n++];
            fflush (lf);
            st->lab = snap->labels_len;
            st->fig = *fig;
            /* Unnamed (not reached: READY names them): by index. */
            char wn[16], tn[16];
            snprintf (wn, sizeof wn, "#%d", w);
            snprintf (tn, sizeof tn, "%u", i);
            const char *tl = json_string_value (json_array_get (who->labels, i));
            fputs ("agent=", lf);
            metrics_label_value (lf, who->name[0] ? who->name : wn);
            fputs (",target=", lf);
            metrics_label_value (lf, tl ? tl : tn);
            fputc ('\0', lf);
        }
    }
    return fclose (lf) == 0 ? 0 : -1;
}

static const char *const s_targets[] = { "histogram", "counters", "off" };

int
metrics_targets_parse (const char *s, metrics_targets_t *out)
{
    for (int i = 0; i < 3; i++)
        if (strcmp (s, s_targets[i]) == 0) {
            *out = (metrics_targets_t) i;
            return 0;
        }
    return -1;
}

const char *
metrics_targets_name (metrics_targets_t t)
{
    return s_targets[t];
}

metrics_snap_t *
metrics_collect (ctl_t *ctl, metrics_targets_t targets)
{
    metrics_snap_t *snap = calloc (1, sizeof *snap);
    if (!snap)
        return NULL;
    snap->targets = targets;
    FILE *f = open_memstream (&snap->head, &snap->head_len);
    if (!f) {
        free (snap);
        return NULL;
    }
    write_head (ctl, f);
    if (fclose (f) != 0 || (targets != METRICS_TARGETS_OFF && collect_targets (ctl, snap))) {
        metrics_snap_free (&snap);
        return NULL;
    }
    return snap;
}

int
metrics_write (const metrics_snap_t *snap, FILE *f)
{
    fwrite (snap->head, 1, snap->head_len, f);
    static const struct { const char *name, *type, *help; } fam[] = {
        { "iofleet_target_ops_total", "counter",
          "I/Os of the step in hand, per agent and target." },
        { "iofleet_target_bytes_total", "counter",
          "Bytes of the step in hand, per agent and target." },
        { "iofleet_target_latency_seconds", "histogram",
          "Completion latency of the step in hand, per agent and target, a bucket per power "
          "of two." },
    };
    size_t nfam = snap->targets == METRICS_TARGETS_HISTOGRAM ? 3
                  : snap->targets == METRICS_TARGETS_COUNTERS ? 2 : 0;
    /* The targets' histograms share the edges any of them needs
       (buckets_write_range): a fleet's drives span a few powers of two of
       the 27 (4 for the simulator's: 24 MB of text at 1,000 x 24, against
       91 MB with all 27). */
    int lo = -1, hi = -1;
    for (size_t i = 0; nfam == 3 && i < snap->n; i++)
        for (int k = 0; k < DIR_COUNT; k++)
            buckets_span (BUCKETS_TARGET, snap->t[i].fig.slots[k], &lo, &hi);
    for (size_t m = 0; m < nfam; m++) {
        fprintf (f, "# HELP %s %s\n# TYPE %s %s\n", fam[m].name, fam[m].help, fam[m].name,
                 fam[m].type);
        for (size_t i = 0; i < snap->n; i++) {
            const series_target_t *fig = &snap->t[i].fig;
            const char *lab = snap->labels + snap->t[i].lab;
            for (int k = 0; k < DIR_COUNT; k++) {
                if (!dir_active (fig, k))
                    continue;
                if (m < 2) {
                    fprintf (f, "%s{%s,direction=\"%s\"} %" PRIu64 "\n", fam[m].name, lab,
                             dir_name (k), m == 0 ? fig->ops[k] : fig->bytes[k]);
                    continue;
                }
                char dl[2048];
                snprintf (dl, sizeof dl, "%s,direction=\"%s\"", lab, dir_name (k));
                buckets_write_range (f, fam[m].name, dl, BUCKETS_TARGET, fig->slots[k],
                                     fig->count[k], fig->sum[k], lo, hi);
            }
        }
    }
    return ferror (f) ? -1 : 0;
}

void
metrics_snap_free (metrics_snap_t **snap_p)
{
    metrics_snap_t *snap = *snap_p;
    if (!snap)
        return;
    free (snap->head);
    free (snap->t);
    free (snap->labels);
    free (snap);
    *snap_p = NULL;
}
