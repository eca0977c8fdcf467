/*  rounds.c: the rounds' steady-state rule (rounds.h). */
#include "rounds.h"
#include "units.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rounds_metric_names[ROUNDS_NMETRICS] = { "iops", "bw", "mean" };

/* "20%" or "20": a percent in (0, 100].  Returns 0 or -1. */
static int
parse_pct (const char *s, double *out)
{
    char *end;
    double v = strtod (s, &end);
    if (end == s || (*end && strcmp (end, "%") != 0) || !(v > 0) || v > 100)
        return -1;
    *out = v;
    return 0;
}

int
rounds_rule_parse (const char *text, rounds_rule_t *out, char *why, size_t whylen)
{
    rounds_rule_t r = { .metric = ROUNDS_IOPS, .window = ROUNDS_WINDOW,
                        .range_pct = ROUNDS_RANGE_PCT, .slope_pct = ROUNDS_SLOPE_PCT };
    char buf[256];
    if (strlen (text) >= sizeof buf) {
        snprintf (why, whylen, "longer than %zu characters", sizeof buf - 1);
        return -1;
    }
    memcpy (buf, text, strlen (text) + 1);
    char *save = NULL, *part = strtok_r (buf, ",", &save);
    char *colon = part ? strchr (part, ':') : NULL;
    if (!colon || colon == part || !colon[1]) {
        snprintf (why, whylen, "'%s': give STEP:METRIC first (the step tracked, by its job "
                  "name, and iops, bw or mean), e.g. steady_state=randwrite-4k:iops",
                  part ? part : "");
        return -1;
    }
    *colon = '\0';
    if (strlen (part) >= sizeof r.step) {
        snprintf (why, whylen, "step '%s': longer than %zu characters", part, sizeof r.step - 1);
        return -1;
    }
    str_copy (r.step, sizeof r.step, part);
    int m = 0;
    while (m < ROUNDS_NMETRICS && strcmp (colon + 1, rounds_metric_names[m]) != 0)
        m++;
    if (m == ROUNDS_NMETRICS) {
        snprintf (why, whylen, "metric '%s': give iops, bw or mean (the mean completion "
                  "latency)", colon + 1);
        return -1;
    }
    r.metric = (rounds_metric_t) m;
    while ((part = strtok_r (NULL, ",", &save))) {
        char *eq = strchr (part, '=');
        if (!eq) {
            snprintf (why, whylen, "'%s': give window=N, range=P%% or slope=P%%", part);
            return -1;
        }
        *eq = '\0';
        const char *v = eq + 1;
        if (strcmp (part, "window") == 0) {
            char *end;
            long w = strtol (v, &end, 10);
            if (end == v || *end || w < 2 || w > ROUNDS_MAX) {
                snprintf (why, whylen, "window=%s: give 2 to %d rounds (the PTS: 5)", v,
                          ROUNDS_MAX);
                return -1;
            }
            r.window = (int) w;
        } else if (strcmp (part, "range") == 0) {
            if (parse_pct (v, &r.range_pct)) {
                snprintf (why, whylen, "range=%s: give a percent of the window's mean, "
                          "above 0 and at most 100 (the PTS: 20%%)", v);
                return -1;
            }
        } else if (strcmp (part, "slope") == 0) {
            if (parse_pct (v, &r.slope_pct)) {
                snprintf (why, whylen, "slope=%s: give a percent of the window's mean, "
                          "above 0 and at most 100 (the PTS: 10%%)", v);
                return -1;
            }
        } else {
            snprintf (why, whylen, "'%s': unknown; give window=N, range=P%% or slope=P%%", part);
            return -1;
        }
    }
    *out = r;
    return 0;
}

void
rounds_rule_text (const rounds_rule_t *rule, char *buf, size_t cap)
{
    snprintf (buf, cap, "%s:%s,window=%d,range=%g%%,slope=%g%%", rule->step,
              rounds_metric_names[rule->metric], rule->window, rule->range_pct,
              rule->slope_pct);
}

bool
rounds_judge (const rounds_rule_t *rule, const double *y, int n, rounds_window_t *out)
{
    int w = rule->window;
    if (n < w || w < 2)
        return false;
    const double *v = y + n - w;
    double sum = 0, lo = v[0], hi = v[0];
    for (int i = 0; i < w; i++) {
        sum += v[i];
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    double mean = sum / w;
    /* Least squares over x = 0..w-1 (the rounds' numbers shifted: the
       slope is the same). */
    double xm = (w - 1) / 2.0, sxy = 0, sxx = 0;
    for (int i = 0; i < w; i++) {
        sxy += (i - xm) * (v[i] - mean);
        sxx += (i - xm) * (i - xm);
    }
    double slope = sxy / sxx;
    rounds_window_t r = { .mean = mean, .slope = slope };
    if (mean > 0) {
        r.range_pct = (hi - lo) / mean * 100.0;
        r.excursion_pct = fabs (slope) * (w - 1) / mean * 100.0;
        r.range_ok = r.range_pct <= rule->range_pct;
        r.slope_ok = r.excursion_pct <= rule->slope_pct;
        r.steady = r.range_ok && r.slope_ok;
    } else {
        r.range_pct = r.excursion_pct = INFINITY;
        r.steady = false;
    }
    *out = r;
    return true;
}

int
rounds_first_steady (const rounds_rule_t *rule, const double *y, int n, rounds_window_t *out)
{
    for (int k = rule->window; k <= n; k++) {
        rounds_window_t w;
        if (rounds_judge (rule, y, k, &w) && w.steady) {
            *out = w;
            return k;
        }
    }
    return 0;
}
