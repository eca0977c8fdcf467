/*  import_check.c: the checks of fio's JSON output before an import
    (import.h); everything here is pure: no database, no allocation kept. */
#include "import.h"
#include "jobfile.h"
#include "util.h"
#include "snapshot_store.h"
#include "import_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const s_lat_keys[LK_N] = { "clat_ns", "slat_ns", "lat_ns" };

/* Samples of one direction's bins: import.c merges up to IMPORT_ENTRIES_MAX
   of them into the fleet's histogram, whose count must not wrap. */
#define SAMPLES_MAX (UINT64_MAX / IMPORT_ENTRIES_MAX)


/* A non-negative finite number at key of o (absent = 0 when optional). */
static int
number (json_t *o, const char *key, bool optional, double *out, const entry_t *e,
        const char *where, char *err, size_t errlen)
{
    json_t *v = json_object_get (o, key);
    if (!v && optional) {
        *out = 0;
        return 0;
    }
    if (!json_is_number (v) || !isfinite (json_number_value (v)) || json_number_value (v) < 0
        || json_number_value (v) > 1e18) {
        snprintf (err, errlen, "%s[%zu].%s.%s: %s (want a number 0..1e18)", e->field, e->index,
                  where, key, v ? "not a number in range" : "missing");
        return -1;
    }
    *out = json_number_value (v);
    return 0;
}

/* An option value as text (fio writes them all as strings). */
const char *
import_check_option (json_t *fio, json_t *entry, const char *key)
{
    const char *v = json_string_value (json_object_get (json_object_get (entry, "job options"), key));
    if (!v)
        v = json_string_value (json_object_get (json_object_get (fio, "global options"), key));
    return v;
}

bool
import_check_has_direction (json_t *entry, int d)
{
    json_t *ios = json_object_get (json_object_get (entry, dir_name (d)), "total_ios");
    return dir_reported (d, json_is_number (ios) && json_number_value (ios) >= 1
                            ? (uint64_t) 1 : 0, 0);
}

/* Body of import_check_direction: on error, *pct may hold a reference already
   (the percentiles are read before the slat and lat checks). */
static int
direction (json_t *d, const entry_t *e, const char *dir, histogram_t h[LK_N], json_t **pct,
           char *err, size_t errlen)
{
    double v;
    char where[64];
    *pct = NULL;
    for (int k = 0; k < LK_N; k++)
        histogram_reset (&h[k]);
    if (!d)
        return 0;
    if (!json_is_object (d)) {
        snprintf (err, errlen, "%s[%zu].%s: not an object", e->field, e->index, dir);
        return -1;
    }
    static const char *nums[] = { "io_bytes", "bw_bytes", "iops", "runtime", "total_ios" };
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
        if (number (d, nums[i], false, &v, e, dir, err, errlen))
            return -1;
    for (int k = 0; k < LK_N; k++) {
        json_t *lat = json_object_get (d, s_lat_keys[k]);
        snprintf (where, sizeof where, "%s.%s", dir, s_lat_keys[k]);
        if (!lat) {
            if (k == LK_CLAT && json_number_value (json_object_get (d, "total_ios")) > 0) {
                snprintf (err, errlen, "%s[%zu].%s: missing (fio writes it for every direction "
                          "with I/O)", e->field, e->index, where);
                return -1;
            }
            continue;
        }
        static const char *stats[] = { "min", "max", "mean", "stddev", "N" };
        for (size_t i = 0; i < sizeof stats / sizeof *stats; i++)
            if (number (lat, stats[i], true, &v, e, where, err, errlen))
                return -1;
        json_t *bins = json_object_get (lat, "bins");
        if (bins) {
            if (!json_is_object (bins) || json_object_size (bins) > IMPORT_BINS_MAX) {
                snprintf (err, errlen, "%s[%zu].%s.bins: not an object of at most %d bins",
                          e->field, e->index, where, IMPORT_BINS_MAX);
                return -1;
            }
            const char *key;
            json_t *cnt;
            json_object_foreach (bins, key, cnt) {
                char *end;
                unsigned long long ns = strtoull (key, &end, 10);
                if (end == key || *end || !json_is_integer (cnt) || json_integer_value (cnt) < 0) {
                    snprintf (err, errlen, "%s[%zu].%s.bins: '%.32s': want \"NANOSECONDS\": COUNT",
                              e->field, e->index, where, key);
                    return -1;
                }
                if ((uint64_t) json_integer_value (cnt) > SAMPLES_MAX - h[k].count) {
                    snprintf (err, errlen, "%s[%zu].%s.bins: more than %llu samples", e->field,
                              e->index, where, (unsigned long long) SAMPLES_MAX);
                    return -1;
                }
                histogram_record_n (&h[k], ns, (uint64_t) json_integer_value (cnt));
            }
            /* fio's exact figures where it has them. */
            if (h[k].count) {
                double n = (double) h[k].count, mean = json_number_value (json_object_get (lat, "mean"));
                double sd = json_number_value (json_object_get (lat, "stddev"));
                /* fio's bins hold a representative value of each of its
                   buckets, so its exact min and max can fall in one of our
                   buckets next to the bins'; they are kept only where they
                   land in the same bucket (a histogram's min and max live
                   in its first and last buckets). */
                uint64_t lo = (uint64_t) json_number_value (json_object_get (lat, "min"));
                uint64_t hi = (uint64_t) json_number_value (json_object_get (lat, "max"));
                if (lo <= h[k].min && !(lo >> HIST_MAX_BITS) && !(h[k].min >> HIST_MAX_BITS)
                    && histogram_index (lo) == histogram_index (h[k].min))
                    h[k].min = lo;
                if (hi >= h[k].max && !(hi >> HIST_MAX_BITS) && !(h[k].max >> HIST_MAX_BITS)
                    && histogram_index (hi) == histogram_index (h[k].max))
                    h[k].max = hi;
                /* Saturated: mean and stddev go up to 1e18 and N to 2^64,
                   past what the conversions can hold. */
                double sum = round (mean * n);
                double sq = (sd * sd * (n > 1 ? n - 1 : n) / n + mean * mean) * n;
                h[k].sum = sum < 0x1p64 ? (uint64_t) sum : UINT64_MAX;
                h[k].sumsq = sq < 0x1p128 ? (unsigned __int128) sq : ~(unsigned __int128) 0;
            }
        }
        if (k != LK_CLAT)
            continue;
        json_t *p = json_object_get (lat, "percentile");
        if (p && !json_is_object (p)) {
            snprintf (err, errlen, "%s[%zu].%s.percentile: not an object", e->field, e->index, where);
            return -1;
        }
        const char *key;
        json_t *pv;
        json_t *out = json_object ();
        json_object_foreach (p, key, pv) {
            char *end;
            double q = strtod (key, &end);
            if (end == key || *end || !(q > 0 && q <= 100) || !json_is_number (pv)
                || !(json_number_value (pv) >= 0 && json_number_value (pv) <= 1e18)) {
                json_decref (out);
                snprintf (err, errlen, "%s[%zu].%s.percentile: '%.32s': want \"PERCENT\": "
                          "NANOSECONDS (0..1e18)", e->field, e->index, where, key);
                return -1;
            }
            char name[32];
            snprintf (name, sizeof name, "p%g", q);
            json_object_set_new (out, name, json_integer ((json_int_t) json_number_value (pv)));
        }
        *pct = out;
    }
    return 0;
}

/* Checks one direction of an entry; fills h[] from bins when present and
   returns in *pct fio's percentiles ({"p99": ns, ...}, new reference, NULL
   on error). */
int
import_check_direction (json_t *d, const entry_t *e, const char *dir, histogram_t h[LK_N], json_t **pct,
           char *err, size_t errlen)
{
    int rc = direction (d, e, dir, h, pct, err, errlen);
    if (rc) {
        json_decref (*pct);
        *pct = NULL;
    }
    return rc;
}

/* Checks the request and the document; fills e[] (one per kept entry). */
int
import_check (json_t *req, json_t *fio, entry_t *e, int *n, json_t *steps, char *err, size_t errlen)
{
    const char *host = json_string_value (json_object_get (req, "host"));
    if (!host)
        host = "unknown";
    if (!*host || strlen (host) + strlen (IMPORT_AGENT_PREFIX) > MSG_NAME_MAX
        || utf8_invalid_at (host, strlen (host)) >= 0 || strchr (host, ':')) {
        snprintf (err, errlen, "--host '%.64s': want 1..%zu characters, no ':'", host,
                  MSG_NAME_MAX - strlen (IMPORT_AGENT_PREFIX));
        return -1;
    }
    if (!json_is_string (json_object_get (fio, "fio version"))) {
        snprintf (err, errlen, "no \"fio version\": is this fio's --output-format=json output?");
        return -1;
    }
    json_t *list = json_object_get (fio, "client_stats");
    const char *field = "client_stats";
    if (!list) {
        list = json_object_get (fio, "jobs");
        field = "jobs";
    }
    if (!json_is_array (list) || json_array_size (list) == 0
        || json_array_size (list) > IMPORT_ENTRIES_MAX) {
        snprintf (err, errlen, "want a list \"jobs\" (or \"client_stats\", fio's client/server "
                  "mode) of 1..%d entries", IMPORT_ENTRIES_MAX);
        return -1;
    }
    bool client = strcmp (field, "client_stats") == 0;
    size_t i;
    json_t *x;
    *n = 0;
    json_array_foreach (list, i, x) {
        entry_t *c = &e[*n];
        memset (c, 0, sizeof *c);
        c->field = field;
        c->index = i;
        c->entry = x;
        const char *name = json_string_value (json_object_get (x, "jobname"));
        if (!json_is_object (x) || !name || !*name || strlen (name) > MSG_NAME_MAX) {
            snprintf (err, errlen, "%s[%zu].jobname: want 1..%d characters", field, i, MSG_NAME_MAX);
            return -1;
        }
        if (client && strcmp (name, "All clients") == 0)
            continue;       /* fio's sum over the servers */
        if (client) {
            const char *h = json_string_value (json_object_get (x, "hostname"));
            json_t *port = json_object_get (x, "port");
            if (!h || !*h || strlen (h) > 40) {
                snprintf (err, errlen, "%s[%zu].hostname: want 1..40 characters", field, i);
                return -1;
            }
            snprintf (c->host, sizeof c->host, "%s", h);
            if (json_is_integer (port))
                snprintf (c->agent, sizeof c->agent, "%s%s:%lld", IMPORT_AGENT_PREFIX, h,
                          (long long) json_integer_value (port));
            else
                snprintf (c->agent, sizeof c->agent, "%s%s", IMPORT_AGENT_PREFIX, h);
        } else {
            snprintf (c->host, sizeof c->host, "%s", host);
            snprintf (c->agent, sizeof c->agent, "%s%s", IMPORT_AGENT_PREFIX, host);
        }
        /* The step: one per job name, in order of appearance. */
        c->step = -1;
        size_t k;
        json_t *sn;
        json_array_foreach (steps, k, sn)
            if (strcmp (json_string_value (sn), name) == 0)
                c->step = (int) k;
        if (c->step < 0) {
            if (json_array_size (steps) >= JOB_MAX_STEPS) {
                snprintf (err, errlen, "more than %d job names (steps)", JOB_MAX_STEPS);
                return -1;
            }
            c->step = (int) json_array_size (steps);
            json_array_append_new (steps, json_string (name));
        }
        /* The target: the job's filename, numbered when it repeats. */
        const char *fn = import_check_option (fio, x, "filename");
        char base[MSG_PATH_MAX + 1];
        snprintf (base, sizeof base, "%s", fn && *fn ? fn : name);
        snprintf (c->target, sizeof c->target, "%s", base);
        for (int dup = 2;; dup++) {
            bool taken = false;
            for (int j = 0; j < *n; j++)
                taken |= e[j].step == c->step && strcmp (e[j].agent, c->agent) == 0
                         && strcmp (e[j].target, c->target) == 0;
            if (!taken)
                break;
            snprintf (c->target, sizeof c->target, "%.*s #%d", MSG_PATH_MAX - 12, base, dup);
        }
        histogram_t h[LK_N];
        json_t *pct;
        for (int d = 0; d < DIR_COUNT; d++) {
            if (!import_check_has_direction (x, d))
                continue;
            if (import_check_direction (json_object_get (x, dir_name (d)), c, dir_name (d), h, &pct,
                                  err, errlen))
                return -1;
            json_decref (pct);
        }
        (*n)++;
    }
    if (*n == 0) {
        snprintf (err, errlen, "no job entries besides fio's \"All clients\" sum");
        return -1;
    }
    json_t *labels = json_object_get (req, "labels");
    if (labels && (!json_is_object (labels) || json_object_size (labels) > IMPORT_LABELS_MAX)) {
        snprintf (err, errlen, "labels: want at most %d KEY=VALUE", IMPORT_LABELS_MAX);
        return -1;
    }
    const char *lk;
    json_t *lv;
    json_object_foreach (labels, lk, lv) {
        size_t kl = strlen (lk);
        if (kl == 0 || kl > 64 || strspn (lk, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_.") != kl
            || !json_is_string (lv) || strlen (json_string_value (lv)) > 256) {
            snprintf (err, errlen, "--label '%.64s': want KEY=VALUE, KEY of 1..64 letters, digits, "
                      "'-', '_', '.', VALUE of at most 256 characters", lk);
            return -1;
        }
    }
    return 0;
}
