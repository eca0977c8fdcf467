/*  metrics_schedules.c: each schedule's latest figures for /metrics, see
    metrics_schedules.h. */
#include "metrics_sched.h"
#include "controller.h"
#include "log.h"
#include "metrics.h"
#include "report.h"
#include "scheduler.h"
#include "fires.h"
#include "regressions.h"
#include "schedules.h"
#include "store.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The families, in the order they are written (each one group of lines,
   as the text format wants). */
enum { F_NEXT, F_LAST, F_SKIPPED, F_VERDICT, F_SLA, F_REGRESSION, F_IOPS, F_BW, F_P99, F_N };
static const struct { const char *name, *help; } s_fam[F_N] = {
    { "iofleet_schedule_next_fire_timestamp_seconds", "When the schedule falls due next." },
    { "iofleet_schedule_last_fire_timestamp_seconds", "The cron time of its latest fire." },
    { "iofleet_schedule_last_fire_skipped", "1: its latest fire queued no run." },
    { "iofleet_schedule_verdict", "Its latest judged run's verdict against the baseline: 1 on "
      "the verdict it had." },
    { "iofleet_schedule_sla_failed", "1: its latest judged run failed its plan's SLA." },
    { "iofleet_schedule_regression_percent", "A significant change for the worse of its latest "
      "judged run against its baseline, in percent." },
    { "iofleet_schedule_iops", "Its latest judged run's IOPS per step, direction and group." },
    { "iofleet_schedule_bandwidth_bytes", "Its latest judged run's bytes/s per step, "
      "direction and group." },
    { "iofleet_schedule_p99_seconds", "Its latest judged run's p99 completion latency per "
      "step, direction and group." },
};
static const char *const s_verdicts[] = { "pass", "regressed", "failed", "no-baseline",
                                          "unjudged" };

/* A run's figure lines (F_SLA, F_IOPS, F_BW, F_P99), with its labels'
   schedule and plan, as the report made them. */
typedef struct {
    char schedule[SCHED_NAME_MAX + 1];
    int64_t run;
    char *lines[F_N];
} kept_t;

struct metrics_sched {
    kept_t *k;
    size_t n, cap;
};

metrics_sched_t *
metrics_sched_new (void)
{
    return calloc (1, sizeof (metrics_sched_t));
}

static void
kept_free (kept_t *k)
{
    for (int f = 0; f < F_N; f++) {
        free (k->lines[f]);
        k->lines[f] = NULL;
    }
}

void
metrics_sched_destroy (metrics_sched_t **self_p)
{
    metrics_sched_t *self = *self_p;
    if (!self)
        return;
    for (size_t i = 0; i < self->n; i++)
        kept_free (&self->k[i]);
    free (self->k);
    free (self);
    *self_p = NULL;
}

/* A label, key="value", escaped. */
static void
label (FILE *f, const char *key, const char *v, bool comma)
{
    fprintf (f, "%s%s=", comma ? "," : "", key);
    metrics_label_value (f, v ? v : "");
}

/* The labels schedule="..",plan=".."[,run="N"] (run 0: none), malloc'd;
   NULL when out of memory. */
static char *
labels_text (const char *schedule, const char *plan, int64_t run)
{
    char *h = NULL;
    size_t hn = 0;
    FILE *hf = open_memstream (&h, &hn);
    if (!hf)
        return NULL;
    label (hf, "schedule", schedule, false);
    label (hf, "plan", plan, true);
    if (run > 0)
        fprintf (hf, ",run=\"%" PRId64 "\"", run);
    if (fclose (hf) != 0) {
        free (h);
        return NULL;
    }
    return h;
}

/* One group's figures (dirs: an object of "read", "write", "trim") of a
   step into the figure families. */
static void
group_lines (FILE **ff, const char *head, const char *step, const char *group, json_t *dirs)
{
    static const char *const dir[] = { "read", "write", "trim" };
    for (int d = 0; d < 3; d++) {
        json_t *o = json_object_get (dirs, dir[d]);
        if (!json_is_object (o) || json_integer_value (json_object_get (o, "ops")) <= 0)
            continue;
        char *lb = NULL;
        size_t lbn = 0;
        FILE *lf = open_memstream (&lb, &lbn);
        if (!lf)
            return;
        fputs (head, lf);
        label (lf, "step", step, true);
        label (lf, "group", group, true);
        label (lf, "direction", dir[d], true);
        fclose (lf);
        if (!lb)
            return;
        fprintf (ff[F_IOPS], "iofleet_schedule_iops{%s} %.17g\n", lb,
                 json_number_value (json_object_get (o, "iops")));
        fprintf (ff[F_BW], "iofleet_schedule_bandwidth_bytes{%s} %.17g\n", lb,
                 json_number_value (json_object_get (o, "bw")));
        json_t *p99 = json_object_get (json_object_get (o, "percentiles"), "p99");
        if (json_is_number (p99))
            fprintf (ff[F_P99], "iofleet_schedule_p99_seconds{%s} %.9f\n", lb,
                     json_number_value (p99) / 1e9);
        free (lb);
    }
}

/* Kept k's lines for run (of schedule, plan, compared by by) from its
   report.  Returns 0, or -1 (the report could not be made: logged once,
   and the run kept without figures, not tried again at every scrape). */
static int
keep_run (kept_t *k, store_t *reader, const char *schedule, const char *plan, int64_t run,
          const char *by)
{
    kept_free (k);
    char err[512];
    json_t *rep = report_json (reader, run, by && by[0] ? by : NULL, NULL, NULL, err, sizeof err);
    if (!rep) {
        log_warn ("/metrics: schedule '%s': run %" PRId64 "'s report: %s", schedule, run, err);
        return -1;
    }
    FILE *ff[F_N] = { NULL };
    size_t lens[F_N];
    int rc = 0;
    for (int f = F_SLA; f < F_N; f++)
        if (f != F_REGRESSION && !(ff[f] = open_memstream (&k->lines[f], &lens[f])))
            rc = -1;
    char *head = labels_text (schedule, plan, run);
    if (!rc && head) {
        const char *v = json_string_value (json_object_get (rep, "verdict"));
        fprintf (ff[F_SLA], "iofleet_schedule_sla_failed{%s} %d\n", head,
                 v && strcmp (v, "fail") == 0);
        size_t i;
        json_t *s;
        json_array_foreach (json_object_get (rep, "steps"), i, s) {
            const char *step = json_string_value (json_object_get (s, "name"));
            group_lines (ff, head, step ? step : "?", "fleet", json_object_get (s, "fleet"));
            size_t j;
            json_t *g;
            json_array_foreach (json_object_get (s, "groups"), j, g) {
                char gname[512];
                snprintf (gname, sizeof gname, "%s=%s",
                          json_string_value (json_object_get (g, "by")) ?: "?",
                          json_string_value (json_object_get (g, "value")) ?: "?");
                group_lines (ff, head, step ? step : "?", gname, g);
            }
        }
    } else
        rc = -1;
    for (int f = 0; f < F_N; f++)
        if (ff[f] && fclose (ff[f]) != 0)
            rc = -1;
    free (head);
    json_decref (rep);
    if (rc)
        kept_free (k);
    k->run = run;
    return rc;
}

/* The kept figures of schedule, made for run when they are of another. */
static const kept_t *
kept_for (metrics_sched_t *self, store_t *reader, const char *schedule, const char *plan,
          int64_t run, const char *by)
{
    kept_t *k = NULL;
    for (size_t i = 0; i < self->n && !k; i++)
        if (strcmp (self->k[i].schedule, schedule) == 0)
            k = &self->k[i];
    if (!k) {
        if (self->n == self->cap) {
            size_t cap = self->cap ? 2 * self->cap : 8;
            kept_t *nk = realloc (self->k, cap * sizeof *nk);
            if (!nk)
                return NULL;
            self->k = nk;
            self->cap = cap;
        }
        k = &self->k[self->n++];
        memset (k, 0, sizeof *k);
        snprintf (k->schedule, sizeof k->schedule, "%s", schedule);
    }
    if (k->run != run)
        keep_run (k, reader, schedule, plan, run, by);
    return k;
}

/* What schedule_lines writes with, and how it went. */
typedef struct {
    metrics_sched_t *self;
    store_t *reader;
    FILE **ff;
    int rc;
} writing_t;

/* One schedule's lines of each family (a schedules_each callback). */
static void
schedule_lines (void *arg, const schedules_row_t *row)
{
    writing_t *w = arg;
    FILE **ff = w->ff;
    char *head = labels_text (row->name, row->plan, 0);
    if (!head) {
        w->rc = -1;
        return;
    }
    fprintf (ff[F_NEXT], "%s{%s} %lld\n", s_fam[F_NEXT].name, head, (long long) row->next_fire);
    int64_t due_at;
    bool skipped;
    if (fires_latest (w->reader, row->name, &due_at, &skipped) == 1) {
        fprintf (ff[F_LAST], "%s{%s} %lld\n", s_fam[F_LAST].name, head, (long long) due_at);
        fprintf (ff[F_SKIPPED], "%s{%s} %d\n", s_fam[F_SKIPPED].name, head, skipped);
    }
    int64_t fire, run;
    char verdict[32];
    bool complete;
    if (fires_latest_judged (w->reader, row->name, &fire, &run, verdict, sizeof verdict,
                             &complete) == 1) {
        for (size_t v = 0; v < sizeof s_verdicts / sizeof *s_verdicts; v++)
            fprintf (ff[F_VERDICT], "%s{%s,run=\"%" PRId64 "\",verdict=\"%s\"} %d\n",
                     s_fam[F_VERDICT].name, head, run, s_verdicts[v],
                     strcmp (verdict, s_verdicts[v]) == 0);
        /* The rows read before an error (logged) are written. */
        json_t *regs = json_array ();
        regressions_of_fire (w->reader, fire, true, regs);
        size_t i;
        json_t *r;
        json_array_foreach (regs, i, r) {
            fprintf (ff[F_REGRESSION], "%s{%s,run=\"%" PRId64 "\"", s_fam[F_REGRESSION].name,
                     head, run);
            label (ff[F_REGRESSION], "step", json_string_value (json_object_get (r, "step")),
                   true);
            label (ff[F_REGRESSION], "group", json_string_value (json_object_get (r, "group")),
                   true);
            label (ff[F_REGRESSION], "metric", json_string_value (json_object_get (r, "metric")),
                   true);
            fprintf (ff[F_REGRESSION], "} %.17g\n",
                     json_number_value (json_object_get (r, "delta_pct")));
        }
        json_decref (regs);
        /* A failed run has no figures to show. */
        const kept_t *k = complete ? kept_for (w->self, w->reader, row->name, row->plan, run,
                                               row->by)
                                   : NULL;
        for (int i = F_SLA; k && i < F_N; i++)
            if (k->lines[i])
                fputs (k->lines[i], ff[i]);
    }
    free (head);
}

int
metrics_sched_write (metrics_sched_t *self, store_t *reader, FILE *f)
{
    char *text[F_N] = { NULL };
    size_t lens[F_N];
    FILE *ff[F_N];
    for (int i = 0; i < F_N; i++)
        if (!(ff[i] = open_memstream (&text[i], &lens[i]))) {
            for (int j = 0; j < i; j++) {
                fclose (ff[j]);
                free (text[j]);
            }
            return -1;
        }
    writing_t w = { .self = self, .reader = reader, .ff = ff, .rc = 0 };
    if (schedules_each (reader, schedule_lines, &w))
        w.rc = -1;
    int rc = w.rc;
    for (int i = 0; i < F_N; i++) {
        if (fclose (ff[i]) != 0)
            rc = -1;
        fprintf (f, "# HELP %s %s\n# TYPE %s gauge\n", s_fam[i].name, s_fam[i].help,
                 s_fam[i].name);
        if (text[i])
            fwrite (text[i], 1, lens[i], f);
        free (text[i]);
    }
    store_end_read (reader);
    return rc;
}
