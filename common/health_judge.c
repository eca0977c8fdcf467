/*  health_judge.c: what a step did to a drive, see health_judge.h. */
#include "health_judge.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* After minus before of field f, or -1 when either lacks it (a counter
   that went down, a drive replaced or reset, is -1 too). */
static int64_t
delta (const health_t *b, const health_t *a, health_field_t f)
{
    if (!b || !a || !health_has (b, f) || !health_has (a, f) || a->v[f] < b->v[f])
        return -1;
    return a->v[f] - b->v[f];
}

/* a + b, at most INT64_MAX (both >= 0). */
static int64_t
add_sat (int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* The sum of two deltas, -1 when neither is known. */
static int64_t
delta2 (const health_t *b, const health_t *a, health_field_t f, health_field_t g)
{
    int64_t x = delta (b, a, f), y = delta (b, a, g);
    return x < 0 && y < 0 ? -1 : add_sat (x > 0 ? x : 0, y > 0 ? y : 0);
}

void
health_temps_add (health_temps_t *t, int32_t mc, uint64_t span_ns, int64_t warning_c)
{
    double c = mc / 1000.0;
    if (t->n == 0 || c > t->max_c)
        t->max_c = c;
    t->n++;
    t->sum_c += c;
    if (warning_c >= 0 && c >= (double) warning_c)
        t->above_warning_s += (double) span_ns / 1e9;
}

int64_t
health_warning_c (const health_t *before, const health_t *after)
{
    return after && health_has (after, HF_WARNING_TEMP_C) ? after->v[HF_WARNING_TEMP_C]
         : before && health_has (before, HF_WARNING_TEMP_C) ? before->v[HF_WARNING_TEMP_C] : -1;
}

void
health_judge (const health_t *before, const health_t *after, const health_temps_t *temps,
              health_judgement_t *j)
{
    memset (j, 0, sizeof *j);
    const health_t *b = before && before->available ? before : NULL;
    const health_t *a = after && after->available ? after : NULL;
    j->available = b && a;
    if (!j->available)
        snprintf (j->reason, sizeof j->reason, "%s",
                  before && !before->available ? before->reason
                  : after && !after->available ? after->reason
                  : !before ? "the agent sent no health record before the step"
                  : "the agent sent no health record after the step");
    j->warning_c = health_warning_c (b, a);
    j->nsamples = temps ? temps->n : 0;
    j->have_temp = j->nsamples > 0;
    j->temp_max_c = j->have_temp ? temps->max_c : NAN;
    j->temp_mean_c = j->have_temp ? temps->sum_c / temps->n : NAN;
    j->above_warning_s = j->have_temp ? temps->above_warning_s : 0;
    /* No series: the records' readings are all there is. */
    const health_t *rec[2] = { b, a };
    for (int k = 0; k < 2 && !j->nsamples; k++)
        if (rec[k] && health_has (rec[k], HF_TEMPERATURE_C)
            && (!j->have_temp || (double) rec[k]->v[HF_TEMPERATURE_C] > j->temp_max_c)) {
            j->temp_max_c = (double) rec[k]->v[HF_TEMPERATURE_C];
            j->have_temp = true;
        }
    j->throttle_transitions = delta2 (b, a, HF_THROTTLE1_TRANSITIONS, HF_THROTTLE2_TRANSITIONS);
    j->throttle_seconds = delta2 (b, a, HF_THROTTLE1_SECONDS, HF_THROTTLE2_SECONDS);
    j->media_errors = delta (b, a, HF_MEDIA_ERRORS);
    j->error_log_entries = delta (b, a, HF_ERROR_LOG_ENTRIES);
    j->reallocated = delta (b, a, HF_REALLOCATED_SECTORS);
    j->pending = delta (b, a, HF_PENDING_SECTORS);
    j->uncorrectable = delta (b, a, HF_UNCORRECTABLE_SECTORS);
    j->grown_defects = delta (b, a, HF_GROWN_DEFECTS);
    j->new_critical_bits = b && a && health_has (b, HF_CRITICAL_WARNING)
                           && health_has (a, HF_CRITICAL_WARNING)
                           ? a->v[HF_CRITICAL_WARNING] & ~b->v[HF_CRITICAL_WARNING] : -1;
    j->host_written = delta (b, a, HF_HOST_BYTES_WRITTEN);
    j->nand_written = delta (b, a, HF_NAND_BYTES_WRITTEN);
    bool coarse = a && strcmp (a->protocol, "ata") == 0
                  && j->host_written < HEALTH_WAF_ATA_MIN_BYTES;
    j->waf = j->host_written > 0 && j->nand_written >= 0 && !coarse
             ? (double) j->nand_written / (double) j->host_written : NAN;
}

bool
health_judge_hot (const health_judgement_t *j)
{
    double limit = j->warning_c >= 0 ? (double) j->warning_c : HEALTH_HOT_DEFAULT_C;
    return (j->have_temp && j->temp_max_c >= limit) || j->throttle_transitions > 0;
}

/* The names of the NVMe critical warning bits (base spec, SMART log byte 0). */
static const char *const s_warning_bits[8] = {
    "spare below threshold", "temperature", "reliability degraded", "read-only",
    "volatile memory backup failed", "persistent memory region read-only", "bit 6", "bit 7"
};

int
health_judge_findings (const health_judgement_t *j, char lines[][160], int max)
{
    int n = 0;
    if (n < max && health_judge_hot (j)) {
        int off = snprintf (lines[n], 160, "hot: %.0f C", j->temp_max_c);
        if (!j->have_temp)
            off = snprintf (lines[n], 160, "hot");
        if (j->throttle_transitions > 0)
            snprintf (lines[n] + off, 160 - (size_t) off, ", %lld throttle transition%s",
                      (long long) j->throttle_transitions,
                      j->throttle_transitions == 1 ? "" : "s");
        else if (j->warning_c >= 0)
            snprintf (lines[n] + off, 160 - (size_t) off, " (warning %lld C)",
                      (long long) j->warning_c);
        n++;
    }
    const struct { int64_t v; const char *what; } grew[] = {
        { j->media_errors, "media error" }, { j->error_log_entries, "error-log entr" },
        { j->reallocated, "reallocated sector" }, { j->pending, "pending sector" },
        { j->uncorrectable, "uncorrectable sector" }, { j->grown_defects, "grown defect" },
    };
    for (size_t i = 0; i < sizeof grew / sizeof *grew && n < max; i++)
        if (grew[i].v > 0) {
            bool entry = strcmp (grew[i].what, "error-log entr") == 0;
            snprintf (lines[n++], 160, "%lld new %s%s", (long long) grew[i].v, grew[i].what,
                      entry ? (grew[i].v == 1 ? "y" : "ies") : grew[i].v == 1 ? "" : "s");
        }
    if (n < max && j->new_critical_bits > 0) {
        int off = snprintf (lines[n], 160, "critical warning appeared:");
        for (int b = 0; b < 8; b++)
            if (j->new_critical_bits >> b & 1)
                off += snprintf (lines[n] + off, off < 160 ? 160 - (size_t) off : 0, " %s",
                                 s_warning_bits[b]);
        n++;
    }
    return n;
}

/* An integer figure, or null when unknown. */
static json_t *
known (int64_t v)
{
    return v < 0 ? json_null () : json_integer (v);
}

/* A real figure rounded to r decimals, or null when unknown. */
static json_t *
real (double v, double scale)
{
    return isfinite (v) ? json_real (round (v * scale) / scale) : json_null ();
}

json_t *
health_judge_json (const health_judgement_t *j)
{
    json_t *o = json_object ();
    if (!o)
        return NULL;
    json_object_set_new (o, "available", json_boolean (j->available));
    if (!j->available)
        json_object_set_new (o, "reason", json_string (j->reason));
    json_object_set_new (o, "temperature_max_c", real (j->temp_max_c, 10));
    json_object_set_new (o, "temperature_mean_c", real (j->temp_mean_c, 10));
    json_object_set_new (o, "temperature_samples", json_integer (j->nsamples));
    json_object_set_new (o, "warning_temp_c", known (j->warning_c));
    json_object_set_new (o, "above_warning_s",
                         j->warning_c >= 0 ? real (j->above_warning_s, 10) : json_null ());
    json_object_set_new (o, "throttle_transitions", known (j->throttle_transitions));
    json_object_set_new (o, "throttle_seconds", known (j->throttle_seconds));
    json_object_set_new (o, "media_errors_delta", known (j->media_errors));
    json_object_set_new (o, "error_log_entries_delta", known (j->error_log_entries));
    json_object_set_new (o, "reallocated_sectors_delta", known (j->reallocated));
    json_object_set_new (o, "pending_sectors_delta", known (j->pending));
    json_object_set_new (o, "uncorrectable_sectors_delta", known (j->uncorrectable));
    json_object_set_new (o, "grown_defects_delta", known (j->grown_defects));
    json_object_set_new (o, "new_critical_warning_bits", known (j->new_critical_bits));
    json_object_set_new (o, "host_bytes_written", known (j->host_written));
    json_object_set_new (o, "nand_bytes_written", known (j->nand_written));
    json_object_set_new (o, "waf", real (j->waf, 1000));
    json_object_set_new (o, "hot", json_boolean (health_judge_hot (j)));
    char lines[8][160];
    int n = health_judge_findings (j, lines, 8);
    json_t *f = json_array ();
    for (int i = 0; i < n; i++)
        json_array_append_new (f, json_string (lines[i]));
    json_object_set_new (o, "findings", f);
    return o;
}
