/*  fio_json.c: results in fio's own output formats (json, json+, normal).

    Sources: fio 3.x stat.c (show_thread_status_json, add_ddir_status_json,
    add_ddir_lat_json, plat_val_to_idx, plat_idx_to_val, calc_lat,
    stat_calc_lat, show_ddir_status, display_lat, show_clat_percentiles,
    show_lat, show_group_stats, __show_run_stats), stat.h (nsec_to_usec,
    nsec_to_msec, FIO_IO_U_PLAT_*), io_u.c (io_u_mark_latency and its
    thresholds), lib/num2str.c and parse.c (percentile precision), checked
    against the output of fio 3.33 itself.

    JSON, per job, in fio's order:
      jobname, groupid, error, eta (0), elapsed (job wall time in s, rounded
      up), "job options" (only with a job_t, as fio omits an empty list),
      read / write / trim (all zero without trims) / sync (zero), job_runtime,
      usr_cpu, sys_cpu, ctx, majf (0), minf (0), iodepth_level /
      iodepth_submit / iodepth_complete (fio's keys, all 0.0: iofleet does
      not track queue depths), latency_ns / latency_us / latency_ms,
      latency_depth ... latency_window (with a job_t), hostname (when set;
      fio's client mode adds it last, the same way).
    Per direction:
      io_bytes, io_kbytes = io_bytes >> 10, bw_bytes (B/s), bw = bw_bytes /
      1024 (KiB/s), iops, runtime (ms), total_ios, short_ios, drop_ios,
      slat_ns, clat_ns, lat_ns, bw_min ... bw_samples, iops_min ...
      iops_samples.  Units as fio: bw_min, bw_max, bw_mean, bw_dev in KiB/s.
      Trims have the same keys; fio measures no slat for them (zeros, N 0,
      as any unmeasured slat).

    Choices and the few differences from fio, each deliberate:
      - bw_bytes and iops divide by the exact runtime in ns; fio divides by
        whole milliseconds (runtime is reported in ms, truncated, as fio).
      - Percentiles (JSON and text) are histogram_percentile: the midpoint
        of our 128-per-octave bucket, clamped to [min, max], twice as fine
        as fio's bin midpoints.
      - Only clat_ns carries "percentile" (and "bins" in json+), as fio 3.33
        does by default (clat_percentiles=1, lat_percentiles=0,
        slat_percentiles=0); like fio, none when N is 0.
      - stddev is the sample standard deviation (n - 1), as fio's calc_lat,
        for latencies and for the bw / iops samples alike.
      - An unmeasured slat (NULL) gives zeros and N = 0 in JSON, exactly as
        fio prints it for sync engines, and no slat line in text.
      - bw_agg: the job's mean bw as a percentage of its group's aggregate
        (sum of io_bytes / longest runtime), capped at 100, as fio.
      - latency_ns/us/ms: fio counts each I/O's completion latency (clat)
        into ranges whose bounds (2, 4, 10, 20, 50, 100, 250, 500, 750, 1000
        ns, us, ms; 2000 ms; >= 2000 ms) are not all on our bucket bounds;
        each of our buckets goes to the range of its midpoint (the value the
        percentiles report), so a range is off by at most one bucket's width
        (< 0.8 %).  Overflowed samples go to ">=2000" ms.

    json+ "bins", exactly as fio: fio's clat histogram has 64 sub-buckets per
    power of two (FIO_IO_U_PLAT_BITS 6), 29 groups (FIO_IO_U_PLAT_NR 1856
    bins), values below 128 ns one bin each.  plat_val_to_idx(v) is v for
    v < 128; otherwise, with msb the index of v's top bit and e = msb - 6,
    (e + 1) * 64 + ((v >> e) & 63), capped at 1855.  The key fio prints is
    plat_idx_to_val(idx): idx for idx < 128; otherwise, with e = idx/64 - 1
    and k = idx % 64, 2^(e+6) + (k + 0.5) * 2^e, i.e. the bin's midpoint
    (the low edge plus half the width; for the 2 ns bins of 128..255 that is
    the odd number 129, 131, ..., 255; for the last, open-ended bin
    2^33 + 63.5 * 2^27 = 17112760320, the constant fio_jsonplus_clat2csv
    starts from).
    Ours (histogram.h): one bucket per value below 256, then 128 per power
    of two, i = (msb - 6) * 128 + ((v >> (msb - 7)) & 127).  For every
    value, fio's index is ours for i < 128 and 64 + i / 2 for i >= 128:
      - i < 128:        both are v, one value per bin;
      - 128 <= i < 256: fio's 2 ns bins, idx = 128 + (v >> 1) - 64 = 64 + v/2;
      - i >= 256:       i / 2 = (msb - 6) * 64 + ((v >> (msb - 6)) & 63) and
                        fio's idx = (msb - 5) * 64 + the same bits.
    So fio bin b (b >= 128) is exactly the union of our buckets 2b - 128 and
    2b - 127, every one of our buckets lies inside one fio bin, and the
    export is exact: no sample moves to a neighbouring bin.  Our buckets at
    and past fio bin 1855 (values >= 2^34 - 2^27 ns, ~17.05 s) and our
    overflow go into fio's last bin, as fio's own cap puts them.

    Text: fio's layout ("  read: IOPS=91.2k, BW=356MiB/s (374MB/s)(3564MiB/
    10001msec)", slat/clat/lat lines with fio's unit switch, percentiles in
    fio's bracketed columns, bw/iops sample lines, the latency ranges, cpu,
    issued rwts, and "Run status group" lines; "  trim:" and "   TRIM:"
    only where trims happened, as fio), with fio's num2str rounding
    (4 significant figures, IEC then SI).  Left out: pid and date on the job
    line (hostname is shown instead when set), "IO depths" (not tracked),
    disk stats.  Unlike fio, a job that did no I/O still gets its header
    line, so that its error shows.
*/
#include "fio_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const double fio_default_percentiles[] = {
    1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99
};
const int fio_default_npercentiles =
    (int) (sizeof fio_default_percentiles / sizeof fio_default_percentiles[0]);

#define FIO_PLAT_BITS   6
#define FIO_PLAT_VAL    (1u << FIO_PLAT_BITS)                   /* 64 */
#define FIO_PLAT_NR     (29 * FIO_PLAT_VAL)                     /* 1856 */

#define NS_PER_S        ((uint64_t) 1000000000)
#define NS_PER_MS       ((uint64_t) 1000000)

//  Percentiles beyond this many are ignored (fio's own limit is 20).
#define PCT_MAX         JOB_PCT_MAX

static const histogram_t s_empty_hist = { .min = UINT64_MAX };

//  ---------------------------------------------------------------------
//  Shared figures

//  fio bin index of our bucket i, see the header comment.  Can't fail.
static uint32_t
s_fio_idx (uint32_t i)
{
    uint32_t idx = i < 2 * FIO_PLAT_VAL ? i : FIO_PLAT_VAL + i / 2;
    return idx < FIO_PLAT_NR - 1 ? idx : FIO_PLAT_NR - 1;
}

//  fio's plat_idx_to_val: the bin's midpoint (its value when 1 ns wide).
//  The double expression (k + 0.5) * 2^e of fio is an integer for e >= 1,
//  so this integer form is exact.  Can't fail.
static uint64_t
s_fio_idx_to_val (uint32_t idx)
{
    if (idx < 2 * FIO_PLAT_VAL)
        return idx;
    uint32_t e = idx / FIO_PLAT_VAL - 1;
    uint64_t k = idx % FIO_PLAT_VAL;
    return ((uint64_t) 1 << (e + FIO_PLAT_BITS)) + ((2 * k + 1) << (e - 1));
}

static const histogram_t *
s_hist (const histogram_t *h)
{
    return h ? h : &s_empty_hist;
}

//  Latency figures as fio's calc_lat: min, max, mean, sample stddev.
typedef struct {
    uint64_t n, min, max;
    double mean, dev;
} s_lat_t;

static s_lat_t
s_lat (const histogram_t *h)
{
    s_lat_t l = { 0, 0, 0, 0, 0 };
    if (!h || h->count == 0)
        return l;
    l.n = h->count;
    l.min = h->min;
    l.max = h->max;
    l.mean = histogram_mean (h);
    if (h->count > 1)
        l.dev = histogram_stddev (h) * sqrt ((double) h->count / (double) (h->count - 1));
    return l;
}

//  Per-second sample figures, scaled (1/1024 for bw: KiB/s), as fio's
//  calc_lat over its bw / iops stats.  min and max are whole numbers like
//  fio's integer samples.  Returns false when there are none.
typedef struct {
    uint64_t n, min, max;
    double mean, dev;
} s_samp_t;

static uint64_t
s_whole (double x)
{
    if (!(x > 0))
        return 0;
    if (x >= 1.8e19)
        return UINT64_MAX;
    return (uint64_t) x;
}

static bool
s_samples (const double *x, int n, double scale, s_samp_t *out)
{
    memset (out, 0, sizeof *out);
    if (!x || n <= 0)
        return false;
    double mn = x[0] * scale, mx = mn, mean = 0, m2 = 0;
    for (int i = 0; i < n; i++) {
        double v = x[i] * scale;
        if (v < mn)
            mn = v;
        if (v > mx)
            mx = v;
        double d = v - mean;            //  Welford
        mean += d / (i + 1);
        m2 += d * (v - mean);
    }
    out->n = (uint64_t) n;
    out->min = s_whole (mn);
    out->max = s_whole (mx);
    out->mean = mean;
    out->dev = n > 1 && m2 > 0 ? sqrt (m2 / (n - 1)) : 0;
    return true;
}

//  A direction's rates: bw in B/s and iops, over the exact runtime.
static uint64_t
s_bw_bytes (const fio_dir_t *d)
{
    if (!d->runtime_ns)
        return 0;
    unsigned __int128 x = (unsigned __int128) d->bytes * NS_PER_S / d->runtime_ns;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t) x;
}

static double
s_iops (const fio_dir_t *d)
{
    return d->runtime_ns ? (double) d->ops * 1e9 / (double) d->runtime_ns : 0;
}

//  The group's aggregate bandwidth in B/s for direction dir, as fio's
//  rs->agg: all the group's bytes over its longest runtime.
static double
s_group_agg (const fio_job_t *jobs, int njobs, int groupid, int dir)
{
    double bytes = 0;
    uint64_t maxrun = 0;
    for (int j = 0; j < njobs; j++) {
        if (jobs[j].groupid != groupid)
            continue;
        bytes += (double) jobs[j].dir[dir].bytes;
        if (jobs[j].dir[dir].runtime_ns > maxrun)
            maxrun = jobs[j].dir[dir].runtime_ns;
    }
    return maxrun ? bytes * 1e9 / (double) maxrun : 0;
}

//  bw_agg / "per=": mean bw (KiB/s) as a percentage of the group's, <= 100.
static double
s_p_of_agg (double mean_kib, double agg_bytes)
{
    if (agg_bytes <= 1024)
        return 100.0;
    double p = mean_kib * 100.0 / (agg_bytes / 1024.0);
    return p > 100.0 ? 100.0 : p;
}

//  The percentile list to use: valid entries (0 < p <= 100), at most
//  PCT_MAX of them, sorted ascending as fio sorts its list.  Returns the
//  count.
static int
s_cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static int
s_plist (const fio_job_t *job, double *out)
{
    //  No list, or an empty one (job_t's npercentiles = 0): fio's default.
    bool own = job->percentiles && job->npercentiles > 0;
    const double *p = own ? job->percentiles : fio_default_percentiles;
    int n = own ? job->npercentiles : fio_default_npercentiles;
    int len = 0;
    for (int i = 0; i < n && len < PCT_MAX; i++)
        if (p[i] > 0 && p[i] <= 100)
            out[len++] = p[i];
    qsort (out, (size_t) len, sizeof *out, s_cmp_double);
    return len;
}

//  fio's latency ranges (io_u_mark_latency): a value goes to the first
//  range whose bound exceeds it, in ns below 1 us, in whole us below 1 ms,
//  in whole ms above; the last ms range is ">= 2000".
static const unsigned s_lat_bounds[11] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000 };
static const char *const s_lat_names[12] = {
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"
};

typedef struct {
    double n[10], u[10], m[12];     /* percent, as fio's stat_calc_lat */
} s_latdist_t;

static int
s_lat_range (uint64_t x, int nbounds)
{
    int i = 0;
    while (i < nbounds && x >= s_lat_bounds[i])
        i++;
    return i;
}

//  fio's stat_calc_lat: percentages of all I/Os, a non-empty range being
//  shown as at least 0.01.
static void
s_pcts (double *dst, const uint64_t *src, int n, uint64_t total)
{
    for (int i = 0; i < n; i++) {
        dst[i] = total ? 100.0 * (double) src[i] / (double) total : 0.0;
        if (dst[i] < 0.01 && src[i])
            dst[i] = 0.01;
    }
}

static void
s_latdist (const fio_job_t *job, s_latdist_t *out)
{
    uint64_t cn[10] = { 0 }, cu[10] = { 0 }, cm[12] = { 0 }, total = 0;
    //  fio's ranges count every direction's I/Os.
    for (int d = 0; d < DIR_COUNT; d++) {
        const histogram_t *h = s_hist (job->dir[d].clat);
        if (h->count == 0)
            continue;
        total += h->count;
        cm[11] += h->overflow;
        for (uint32_t i = 0; i < HIST_NBUCKETS; i++) {
            if (!h->buckets[i])
                continue;
            uint64_t v = histogram_bucket_low (i) + histogram_bucket_width (i) / 2;
            if (v < 1000)
                cn[s_lat_range (v, 10)] += h->buckets[i];
            else if (v < NS_PER_MS)
                cu[s_lat_range (v / 1000, 10)] += h->buckets[i];
            else
                cm[s_lat_range (v / NS_PER_MS, 11)] += h->buckets[i];
        }
    }
    s_pcts (out->n, cn, 10, total);
    s_pcts (out->u, cu, 10, total);
    s_pcts (out->m, cm, 12, total);
}

//  ---------------------------------------------------------------------
//  JSON

//  Adds key: val to obj; clears *ok on any failure (val NULL from a failed
//  constructor, or no memory in the object).  Takes val's reference.
static void
s_set (json_t *obj, const char *key, json_t *val, bool *ok)
{
    if (json_object_set_new (obj, key, val) != 0)
        *ok = false;
}

//  A JSON string; bytes that are not UTF-8 (a job name from a Latin-1 job
//  file, say) become '?' rather than failing the whole report.
static json_t *
s_str (const char *s)
{
    if (!s)
        s = "";
    json_t *j = json_string (s);
    if (j)
        return j;
    char *copy = strdup (s);
    if (!copy)
        return NULL;
    for (char *p = copy; *p; p++)
        if ((unsigned char) *p >= 0x80)
            *p = '?';
    j = json_string (copy);
    free (copy);
    return j;
}

static json_t *
s_int (uint64_t v)
{
    return json_integer (v > INT64_MAX ? INT64_MAX : (json_int_t) v);
}

//  jansson refuses NaN and infinities; fio would print them as garbage.
static json_t *
s_real (double v)
{
    return json_real (isfinite (v) ? v : 0.0);
}

//  {"min", "max", "mean", "stddev", "N"} [+ "percentile"] [+ "bins"].
static json_t *
s_lat_json (const histogram_t *h, const double *plist, int npct, bool plus, bool *ok)
{
    h = s_hist (h);
    s_lat_t l = s_lat (h);
    json_t *o = json_object ();
    s_set (o, "min", s_int (l.min), ok);
    s_set (o, "max", s_int (l.max), ok);
    s_set (o, "mean", s_real (l.mean), ok);
    s_set (o, "stddev", s_real (l.dev), ok);
    s_set (o, "N", s_int (l.n), ok);
    if (!plist || l.n == 0)
        return o;

    json_t *pct = json_object ();
    for (int i = 0; i < npct; i++) {
        char key[64];
        snprintf (key, sizeof key, "%f", plist[i]);
        s_set (pct, key, s_int (histogram_percentile (h, plist[i])), ok);
    }
    s_set (o, "percentile", pct, ok);

    if (plus) {
        uint64_t fio[FIO_PLAT_NR];
        memset (fio, 0, sizeof fio);
        for (uint32_t i = 0; i < HIST_NBUCKETS; i++)
            fio[s_fio_idx (i)] += h->buckets[i];
        fio[FIO_PLAT_NR - 1] += h->overflow;
        json_t *bins = json_object ();
        for (uint32_t b = 0; b < FIO_PLAT_NR; b++) {
            if (!fio[b])
                continue;
            char key[24];
            snprintf (key, sizeof key, "%" PRIu64, s_fio_idx_to_val (b));
            s_set (bins, key, s_int (fio[b]), ok);
        }
        s_set (o, "bins", bins, ok);
    }
    return o;
}

//  One direction object (all zero for a direction without I/O, as fio).
static json_t *
s_dir_json (const fio_dir_t *d, double agg, const double *plist, int npct, bool plus, bool *ok)
{
    json_t *o = json_object ();
    uint64_t bw_bytes = s_bw_bytes (d);
    s_set (o, "io_bytes", s_int (d->bytes), ok);
    s_set (o, "io_kbytes", s_int (d->bytes >> 10), ok);
    s_set (o, "bw_bytes", s_int (bw_bytes), ok);
    s_set (o, "bw", s_int (bw_bytes / 1024), ok);
    s_set (o, "iops", s_real (s_iops (d)), ok);
    s_set (o, "runtime", s_int (d->runtime_ns / NS_PER_MS), ok);
    s_set (o, "total_ios", s_int (d->ops), ok);
    s_set (o, "short_ios", s_int (0), ok);
    s_set (o, "drop_ios", s_int (0), ok);
    s_set (o, "slat_ns", s_lat_json (d->slat, NULL, 0, false, ok), ok);
    s_set (o, "clat_ns", s_lat_json (d->clat, plist, npct, plus, ok), ok);
    s_set (o, "lat_ns", s_lat_json (d->lat, NULL, 0, false, ok), ok);

    s_samp_t s;
    double p_of_agg = 0;
    if (s_samples (d->bw_samples, d->nsamples, 1.0 / 1024, &s))
        p_of_agg = s_p_of_agg (s.mean, agg);
    s_set (o, "bw_min", s_int (s.min), ok);
    s_set (o, "bw_max", s_int (s.max), ok);
    s_set (o, "bw_agg", s_real (p_of_agg), ok);
    s_set (o, "bw_mean", s_real (s.mean), ok);
    s_set (o, "bw_dev", s_real (s.dev), ok);
    s_set (o, "bw_samples", s_int (s.n), ok);

    s_samples (d->iops_samples, d->nsamples, 1.0, &s);
    s_set (o, "iops_min", s_int (s.min), ok);
    s_set (o, "iops_max", s_int (s.max), ok);
    s_set (o, "iops_mean", s_real (s.mean), ok);
    s_set (o, "iops_stddev", s_real (s.dev), ok);
    s_set (o, "iops_samples", s_int (s.n), ok);
    return o;
}

//  A size as a job file would write it: 4k, 1m, 1g, or bytes.
static void
s_size_str (char *buf, size_t cap, uint64_t v)
{
    if (v && v % (1ull << 30) == 0)
        snprintf (buf, cap, "%" PRIu64 "g", v >> 30);
    else if (v && v % (1ull << 20) == 0)
        snprintf (buf, cap, "%" PRIu64 "m", v >> 20);
    else if (v && v % 1024 == 0)
        snprintf (buf, cap, "%" PRIu64 "k", v >> 10);
    else
        snprintf (buf, cap, "%" PRIu64, v);
}

//  fio's "job options": strings as a job file would give them.
static json_t *
s_options_json (const fio_job_t *fj, bool *ok)
{
    const job_t *job = fj->job;
    json_t *o = json_object ();
    char buf[64], b2[32];
    s_set (o, "name", s_str (job->name[0] ? job->name : fj->jobname),
           ok);
    s_set (o, "rw", json_string (job_rw_name (job->rw)), ok);
    s_size_str (buf, sizeof buf, job->bs[0]);
    if (job->bs[1] != job->bs[0]) {
        s_size_str (b2, sizeof b2, job->bs[1]);
        strncat (buf, ",", sizeof buf - strlen (buf) - 1);
        strncat (buf, b2, sizeof buf - strlen (buf) - 1);
    }
    s_set (o, "bs", json_string (buf), ok);
    if (job->ioengine[0]) {
        snprintf (buf, sizeof buf, "%.*s", (int) sizeof job->ioengine, job->ioengine);
        s_set (o, "ioengine", s_str (buf), ok);
    }
    snprintf (buf, sizeof buf, "%" PRIu32, job->iodepth);
    s_set (o, "iodepth", json_string (buf), ok);
    snprintf (buf, sizeof buf, "%" PRIu32, job->numjobs);
    s_set (o, "numjobs", json_string (buf), ok);
    if (job->runtime_ns) {
        //  A bare number is seconds to fio.
        if (job->runtime_ns % NS_PER_S == 0)
            snprintf (buf, sizeof buf, "%" PRIu64, job->runtime_ns / NS_PER_S);
        else if (job->runtime_ns % NS_PER_MS == 0)
            snprintf (buf, sizeof buf, "%" PRIu64 "ms", job->runtime_ns / NS_PER_MS);
        else
            snprintf (buf, sizeof buf, "%" PRIu64 "us", job->runtime_ns / 1000);
        s_set (o, "runtime", json_string (buf), ok);
    }
    if (job->direct)
        s_set (o, "direct", json_string ("1"), ok);
    return o;
}

static json_t *
s_pct_object (const char *const *names, const double *v, int n, bool *ok)
{
    json_t *o = json_object ();
    for (int i = 0; i < n; i++)
        s_set (o, names[i], s_real (v ? v[i] : 0.0), ok);
    return o;
}

static json_t *
s_job_json (const fio_job_t *jobs, int njobs, int j, bool plus, bool *ok)
{
    const fio_job_t *fj = &jobs[j];
    double plist[PCT_MAX];
    int npct = s_plist (fj, plist);

    json_t *o = json_object ();
    s_set (o, "jobname", s_str (fj->jobname), ok);
    s_set (o, "groupid", json_integer (fj->groupid), ok);
    s_set (o, "error", json_integer (fj->error), ok);
    s_set (o, "eta", s_int (0), ok);
    s_set (o, "elapsed", s_int ((fj->job_runtime_ms + 999) / 1000), ok);
    if (fj->job)
        s_set (o, "job options", s_options_json (fj, ok), ok);
    for (int d = 0; d < DIR_COUNT; d++)
        s_set (o, dir_name (d),
               s_dir_json (&fj->dir[d], s_group_agg (jobs, njobs, fj->groupid, d),
                           plist, npct, plus, ok), ok);

    json_t *sync = json_object ();
    s_set (sync, "total_ios", s_int (0), ok);
    s_set (sync, "lat_ns", s_lat_json (NULL, NULL, 0, false, ok), ok);
    s_set (o, "sync", sync, ok);

    s_set (o, "job_runtime", s_int (fj->job_runtime_ms), ok);
    s_set (o, "usr_cpu", s_real (fj->usr_cpu), ok);
    s_set (o, "sys_cpu", s_real (fj->sys_cpu), ok);
    s_set (o, "ctx", s_int (fj->ctx), ok);
    s_set (o, "majf", s_int (0), ok);
    s_set (o, "minf", s_int (0), ok);

    static const char *const depth[7] = { "1", "2", "4", "8", "16", "32", ">=64" };
    static const char *const subm[7] = { "0", "4", "8", "16", "32", "64", ">=64" };
    s_set (o, "iodepth_level", s_pct_object (depth, NULL, 7, ok), ok);
    s_set (o, "iodepth_submit", s_pct_object (subm, NULL, 7, ok), ok);
    s_set (o, "iodepth_complete", s_pct_object (subm, NULL, 7, ok), ok);

    s_latdist_t ld;
    s_latdist (fj, &ld);
    s_set (o, "latency_ns", s_pct_object (s_lat_names, ld.n, 10, ok), ok);
    s_set (o, "latency_us", s_pct_object (s_lat_names, ld.u, 10, ok), ok);
    s_set (o, "latency_ms", s_pct_object (s_lat_names, ld.m, 12, ok), ok);

    if (fj->job) {
        /* fio prints these for every job: without a target, the depth is
           iodepth and the rest fio's defaults.  target ns, window us. */
        const job_t *jb = fj->job;
        s_set (o, "latency_depth",
               s_int (jb->latency_target_ns && fj->latency_depth ? fj->latency_depth : jb->iodepth),
               ok);
        s_set (o, "latency_target", s_int (jb->latency_target_ns), ok);
        s_set (o, "latency_percentile", s_real (jb->latency_target_ns ? jb->latency_percentile
                                                                      : 100.0), ok);
        s_set (o, "latency_window", s_int (jb->latency_window_ns / 1000), ok);
    }
    if (fj->hostname)
        s_set (o, "hostname", s_str (fj->hostname), ok);
    return o;
}

json_t *
fio_json_report (const fio_job_t *jobs, int njobs, bool plus, const char *version,
                 uint64_t timestamp_ms)
{
    bool ok = true;
    json_t *root = json_object ();
    if (!root)
        return NULL;

    //  fio: ctime of the report time, without its newline.
    char tbuf[64] = "";
    time_t t = (time_t) (timestamp_ms / 1000);
    struct tm tm;
    if (localtime_r (&t, &tm))
        strftime (tbuf, sizeof tbuf, "%a %b %e %H:%M:%S %Y", &tm);

    s_set (root, "fio version", s_str (version), &ok);
    s_set (root, "timestamp", s_int (timestamp_ms / 1000), &ok);
    s_set (root, "timestamp_ms", s_int (timestamp_ms), &ok);
    s_set (root, "time", json_string (tbuf), &ok);
    s_set (root, "global options", json_object (), &ok);
    json_t *arr = json_array ();
    for (int j = 0; arr && j < njobs; j++)
        if (json_array_append_new (arr, s_job_json (jobs, njobs, j, plus, &ok)) != 0)
            ok = false;
    s_set (root, "jobs", arr, &ok);
    s_set (root, "disk_util", json_array (), &ok);

    if (!ok) {
        json_decref (root);
        return NULL;
    }
    return root;
}

//  ---------------------------------------------------------------------
//  Text

enum { N2S_NONE, N2S_BYTE, N2S_BYTEPERSEC };

//  fio's num2str: num (times base) in at most maxlen digits, dividing by
//  1000 (SI) or 1024 (IEC) and showing what room is left as decimals.  One
//  fix: fio prints "14.0" for 14 + 1023/1024 with one decimal (the rounded
//  fraction "1.0" loses its carry); we carry it, giving "15.0".
static const char *
s_num2str (char *buf, size_t cap, uint64_t num, int maxlen, int base, bool pow2, int units)
{
    static const char *const si[] = { "", "k", "M", "G", "T", "P" };
    static const char *const iec[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
    static const char *const unit[] = { "", "B", "B/s" };
    const char *const *prefix = pow2 ? iec : si;
    const unsigned thousand = pow2 ? 1024 : 1000;
    int post = 0;
    for (; base > 1; post++)
        base /= (int) thousand;

    unsigned modulo = UINT32_MAX;
    bool carry = false;
    char tmp[32];
    while (post < 6) {
        snprintf (tmp, sizeof tmp, "%" PRIu64, num);
        if ((int) strlen (tmp) <= maxlen)
            break;
        modulo = (unsigned) (num % thousand);
        num /= thousand;
        carry = modulo >= thousand / 2;
        post++;
    }
    if (post >= 6)
        post = 0;                           //  as fio: no prefix left
    if (modulo != UINT32_MAX) {
        snprintf (tmp, sizeof tmp, "%" PRIu64, num);
        int decimals = maxlen - (int) strlen (tmp) - 1;
        if (decimals < 1) {
            if (carry)
                num++;
        }
        else {
            char frac[32];
            snprintf (frac, sizeof frac, "%.*f", decimals, (double) modulo / thousand);
            if (frac[0] == '1')
                num++;
            snprintf (buf, cap, "%" PRIu64 ".%s%s%s", num, frac + 2, prefix[post], unit[units]);
            return buf;
        }
    }
    snprintf (buf, cap, "%" PRIu64 "%s%s", num, prefix[post], unit[units]);
    return buf;
}

//  fio's display_lat: "    clat (usec): min=..., max=..., avg=..., stdev=...".
static void
s_display_lat (FILE *f, const char *name, const histogram_t *h)
{
    s_lat_t l = s_lat (h);
    if (l.n == 0)
        return;
    const char *base = "(nsec)";
    if (l.min > 2000000 && l.max > 99999999ull && l.dev > 1000000.0) {
        l.min /= 1000000;
        l.max /= 1000000;
        l.mean /= 1e6;
        l.dev /= 1e6;
        base = "(msec)";
    }
    else if (l.min > 2000 && l.max > 99999 && l.dev > 1000.0) {
        l.min /= 1000;
        l.max /= 1000;
        l.mean /= 1e3;
        l.dev /= 1e3;
        base = "(usec)";
    }
    char a[32], b[32];
    fprintf (f, "    %s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", name, base,
             s_num2str (a, sizeof a, l.min, 6, 1, false, N2S_NONE),
             s_num2str (b, sizeof b, l.max, 6, 1, false, N2S_NONE), l.mean, l.dev);
}

//  Decimals fio would use for the list: the most any entry was written
//  with (fio counts the digits typed; we count those the double needs).
static int
s_pct_precision (const double *plist, int n)
{
    int prec = 0;
    for (int i = 0; i < n; i++) {
        int d = 0;
        double scale = 1;
        while (d < 6 && fabs (plist[i] * scale - nearbyint (plist[i] * scale)) > 1e-6 * scale) {
            d++;
            scale *= 10;
        }
        if (d > prec)
            prec = d;
    }
    return prec;
}

//  fio's show_clat_percentiles.
static void
s_show_percentiles (FILE *f, const histogram_t *h, const double *plist, int n)
{
    if (h->count == 0 || n == 0)
        return;
    uint64_t vals[PCT_MAX], minv = UINT64_MAX, maxv = 0;
    for (int i = 0; i < n; i++) {
        vals[i] = histogram_percentile (h, plist[i]);
        if (vals[i] < minv)
            minv = vals[i];
        if (vals[i] > maxv)
            maxv = vals[i];
    }
    int scale_down;
    uint64_t divisor;
    const char *unit;
    if (minv > 2000000 && maxv > 99999999ull) {
        scale_down = 2, divisor = 1000000, unit = "msec";
    }
    else if (minv > 2000 && maxv > 99999) {
        scale_down = 1, divisor = 1000, unit = "usec";
    }
    else {
        scale_down = 0, divisor = 1, unit = "nsec";
    }
    fprintf (f, "    clat percentiles (%s):\n     |", unit);

    int prec = s_pct_precision (plist, n);
    int width = 5;
    if (maxv / divisor > 0 && (int) (log10 ((double) (maxv / divisor)) + 1) > width)
        width = (int) (log10 ((double) (maxv / divisor)) + 1);
    int per_line = (80 - 7) / (prec + 10 + width);
    if (per_line < 1)
        per_line = 1;
    for (int j = 0; j < n; j++) {
        if (j != 0 && j % per_line == 0)
            fputs ("     |", f);
        uint64_t v = vals[j];
        for (int i = 0; i < scale_down; i++)
            v = (v + 999) / 1000;
        bool last = j == n - 1;
        fprintf (f, " %*.*fth=[%*" PRIu64 "]%c", prec + 3, prec, plist[j], width, v,
                 last ? '\n' : ',');
        if (!last && j % per_line == per_line - 1)
            fputc ('\n', f);
    }
}

//  fio's show_ddir_status for one direction.
static void
s_show_dir (FILE *f, const fio_job_t *jobs, int njobs, const fio_job_t *fj, int dir,
            const double *plist, int npct)
{
    const fio_dir_t *d = &fj->dir[dir];
    if (!d->bytes || !d->runtime_ns)
        return;
    char iops[32], bw[32], bwalt[32], io[32];
    uint64_t bw_bytes = s_bw_bytes (d);
    uint64_t iops_i = s_whole (s_iops (d));
    fprintf (f, "  %s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)\n", dir_name (dir),
             s_num2str (iops, sizeof iops, iops_i, 4, 1, false, N2S_NONE),
             s_num2str (bw, sizeof bw, bw_bytes, 4, 1, true, N2S_BYTEPERSEC),
             s_num2str (bwalt, sizeof bwalt, bw_bytes, 4, 1, false, N2S_BYTEPERSEC),
             s_num2str (io, sizeof io, d->bytes, 4, 1, true, N2S_BYTE),
             d->runtime_ns / NS_PER_MS);

    s_display_lat (f, "slat", d->slat);
    s_display_lat (f, "clat", d->clat);
    s_display_lat (f, " lat", d->lat);
    s_show_percentiles (f, s_hist (d->clat), plist, npct);

    s_samp_t s;
    if (s_samples (d->bw_samples, d->nsamples, 1.0 / 1024, &s)) {
        double p = s_p_of_agg (s.mean, s_group_agg (jobs, njobs, fj->groupid, dir));
        double mn = (double) s.min, mx = (double) s.max;
        const char *u = "KiB";
        if (s.mean > 1024.0 * 1024.0) {
            mn /= 1024, mx /= 1024, s.mean /= 1024, s.dev /= 1024;
            u = "MiB";
        }
        fprintf (f, "   bw (%5s/s): min=%5" PRIu64 ", max=%5" PRIu64 ", per=%3.2f%%, "
                 "avg=%5.02f, stdev=%5.02f, samples=%" PRIu64 "\n",
                 u, s_whole (mn), s_whole (mx), p, s.mean, s.dev, s.n);
    }
    if (s_samples (d->iops_samples, d->nsamples, 1.0, &s))
        fprintf (f, "   iops        : min=%5" PRIu64 ", max=%5" PRIu64 ", "
                 "avg=%5.02f, stdev=%5.02f, samples=%" PRIu64 "\n",
                 s.min, s.max, s.mean, s.dev, s.n);
}

//  fio's show_lat: the non-empty ranges, five to a line.
static void
s_show_lat (FILE *f, const double *pct, int n, const char *unit)
{
    int on_line = 0;
    for (int i = 0; i < n; i++) {
        if (pct[i] <= 0)
            continue;
        if (on_line == 0)
            fprintf (f, "  lat (%s)   : ", unit);
        else
            fputs (", ", f);
        fprintf (f, "%s=%3.2f%%", s_lat_names[i], pct[i]);
        if (++on_line == 5) {
            fputc ('\n', f);
            on_line = 0;
        }
    }
    if (on_line)
        fputc ('\n', f);
}

static void
s_show_job (FILE *f, const fio_job_t *jobs, int njobs, const fio_job_t *fj)
{
    double plist[PCT_MAX];
    int npct = s_plist (fj, plist);

    fprintf (f, "%s: (groupid=%d, jobs=%d): err=%2d", fj->jobname ? fj->jobname : "",
             fj->groupid, fj->members > 1 ? fj->members : 1, fj->error);
    if (fj->error)
        fprintf (f, " (%s)", strerror (fj->error));
    if (fj->hostname)
        fprintf (f, ": host=%s", fj->hostname);
    fputc ('\n', f);
    bool any = false;
    for (int d = 0; d < DIR_COUNT; d++)
        any |= fj->dir[d].ops || fj->dir[d].bytes;
    if (!any)
        return;

    for (int d = 0; d < DIR_COUNT; d++)
        s_show_dir (f, jobs, njobs, fj, d, plist, npct);

    s_latdist_t ld;
    s_latdist (fj, &ld);
    s_show_lat (f, ld.n, 10, "nsec");
    s_show_lat (f, ld.u, 10, "usec");
    s_show_lat (f, ld.m, 12, "msec");
    fprintf (f, "  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%" PRIu64 ", majf=0, minf=0\n",
             fj->usr_cpu, fj->sys_cpu, fj->ctx);
    fprintf (f, "     issued rwts: total=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",0 short=0,0,0,0"
             " dropped=0,0,0,0\n", fj->dir[DIR_READ].ops, fj->dir[DIR_WRITE].ops,
             fj->dir[DIR_TRIM].ops);
}

//  fio's show_group_stats for group g.
static void
s_show_group (FILE *f, const fio_job_t *jobs, int njobs, int g)
{
    //  fio's show_group_stats names, right-aligned to 7.
    static const char *const name[DIR_COUNT] = { "   READ", "  WRITE", "   TRIM" };
    fprintf (f, "\nRun status group %d (all jobs):\n", g);
    for (int d = 0; d < DIR_COUNT; d++) {
        uint64_t bytes = 0, maxrun = 0, minrun = UINT64_MAX, minbw = UINT64_MAX, maxbw = 0;
        for (int j = 0; j < njobs; j++) {
            const fio_dir_t *x = &jobs[j].dir[d];
            if (jobs[j].groupid != g || !x->runtime_ns)
                continue;
            bytes += x->bytes;
            uint64_t run = x->runtime_ns / NS_PER_MS, bw = s_bw_bytes (x);
            if (x->runtime_ns > maxrun)
                maxrun = x->runtime_ns;
            if (run < minrun)
                minrun = run;
            if (bw < minbw)
                minbw = bw;
            if (bw > maxbw)
                maxbw = bw;
        }
        if (!maxrun)
            continue;
        uint64_t agg = s_whole (s_group_agg (jobs, njobs, g, d));
        char a[32], aa[32], mn[32], mna[32], mx[32], mxa[32], io[32], ioa[32];
        fprintf (f, "%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%" PRIu64 "-%" PRIu64
                 "msec\n", name[d],
                 s_num2str (a, sizeof a, agg, 4, 1, true, N2S_BYTEPERSEC),
                 s_num2str (aa, sizeof aa, agg, 4, 1, false, N2S_BYTEPERSEC),
                 s_num2str (mn, sizeof mn, minbw, 4, 1, true, N2S_BYTEPERSEC),
                 s_num2str (mx, sizeof mx, maxbw, 4, 1, true, N2S_BYTEPERSEC),
                 s_num2str (mna, sizeof mna, minbw, 4, 1, false, N2S_BYTEPERSEC),
                 s_num2str (mxa, sizeof mxa, maxbw, 4, 1, false, N2S_BYTEPERSEC),
                 s_num2str (io, sizeof io, bytes, 4, 1, true, N2S_BYTE),
                 s_num2str (ioa, sizeof ioa, bytes, 4, 1, false, N2S_BYTE),
                 minrun, maxrun / NS_PER_MS);
    }
}

void
fio_text_report (FILE *f, const fio_job_t *jobs, int njobs, const char *version)
{
    if (version)
        fprintf (f, "%s\n", version);
    for (int j = 0; j < njobs; j++)
        s_show_job (f, jobs, njobs, &jobs[j]);

    //  Groups in ascending order, each once.
    int prev = 0;
    bool any = false;
    for (;;) {
        bool found = false;
        int next = 0;
        for (int j = 0; j < njobs; j++) {
            int g = jobs[j].groupid;
            if ((!any || g > prev) && (!found || g < next)) {
                next = g;
                found = true;
            }
        }
        if (!found)
            break;
        s_show_group (f, jobs, njobs, next);
        prev = next;
        any = true;
    }
}
