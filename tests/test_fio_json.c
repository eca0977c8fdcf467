/*  test_fio_json.c: unit tests for common/fio_json.c.

    Two jobs with known samples (and a third that trims) go through
    fio_json_report (json and json+) and fio_text_report; the results are checked field by field with
    jansson, against figures computed here from the raw samples: fio's bins
    with fio's own plat_val_to_idx / plat_idx_to_val (not the module's
    merge of our buckets), fio's latency ranges with its io_u_mark_latency
    thresholds, stddev two-pass from the samples.  The json+ document is
    also read by python3's json module and by Debian fio's
    fio_jsonplus_clat2csv (with --validate) when they are installed.
*/
#include "fio_json.h"
#include "testutil.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#define NEAR(a, b, rel) (fabs ((a) - (b)) <= (rel) * fmax (fabs (a), fabs (b)) + 1e-12)

//  ---------------------------------------------------------------------
//  fio's definitions, written out from fio's stat.c / io_u.c

#define FIO_IO_U_PLAT_BITS      6
#define FIO_IO_U_PLAT_VAL       (1 << FIO_IO_U_PLAT_BITS)
#define FIO_IO_U_PLAT_GROUP_NR  29
#define FIO_IO_U_PLAT_NR        (FIO_IO_U_PLAT_GROUP_NR * FIO_IO_U_PLAT_VAL)

static unsigned int
fio_plat_val_to_idx (unsigned long long val)
{
    unsigned int msb, error_bits, base, offset, idx;
    if (val == 0)
        msb = 0;
    else
        msb = (sizeof (val) * 8) - __builtin_clzll (val) - 1;
    if (msb <= FIO_IO_U_PLAT_BITS)
        return (unsigned int) val;
    error_bits = msb - FIO_IO_U_PLAT_BITS;
    base = (error_bits + 1) << FIO_IO_U_PLAT_BITS;
    offset = (FIO_IO_U_PLAT_VAL - 1) & (val >> error_bits);
    idx = (base + offset) < (FIO_IO_U_PLAT_NR - 1) ? (base + offset) : (FIO_IO_U_PLAT_NR - 1);
    return idx;
}

static unsigned long long
fio_plat_idx_to_val (unsigned int idx)
{
    unsigned int error_bits;
    unsigned long long k, base;
    if (idx < (FIO_IO_U_PLAT_VAL << 1))
        return idx;
    error_bits = (idx >> FIO_IO_U_PLAT_BITS) - 1;
    base = ((unsigned long long) 1) << (error_bits + FIO_IO_U_PLAT_BITS);
    k = idx % FIO_IO_U_PLAT_VAL;
    return base + ((k + 0.5) * (1 << error_bits));
}

//  io_u_mark_latency: 0..9 ns ranges, 10..19 us, 20..31 ms.
static int
fio_lat_range (uint64_t nsec)
{
    static const uint64_t b[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000 };
    uint64_t x = nsec < 1000 ? nsec : nsec < 1000000 ? nsec / 1000 : nsec / 1000000;
    int nb = nsec < 1000000 ? 10 : 11, i = 0;
    while (i < nb && x >= b[i])
        i++;
    return (nsec < 1000 ? 0 : nsec < 1000000 ? 10 : 20) + i;
}

//  ---------------------------------------------------------------------
//  Test data: each histogram keeps its raw samples too

#define MAXVALS 1000000

typedef struct {
    histogram_t h;
    uint64_t *v;
    int n;
} samples_t;

static samples_t *
samples_new (void)
{
    samples_t *s = calloc (1, sizeof *s);
    s->v = calloc (MAXVALS, sizeof *s->v);
    histogram_reset (&s->h);
    return s;
}

static void
samples_destroy (samples_t **s)
{
    free ((*s)->v);
    free (*s);
    *s = NULL;
}

static void
rec (samples_t *s, uint64_t v, int times)
{
    for (int i = 0; i < times; i++) {
        histogram_record (&s->h, v);
        if (s->n < MAXVALS)
            s->v[s->n++] = v;
    }
}

static double
sample_stddev (const samples_t *s)
{
    long double mean = 0, ss = 0;
    for (int i = 0; i < s->n; i++)
        mean += s->v[i];
    mean /= s->n;
    for (int i = 0; i < s->n; i++)
        ss += ((long double) s->v[i] - mean) * ((long double) s->v[i] - mean);
    return s->n > 1 ? (double) sqrtl (ss / (s->n - 1)) : 0;
}

//  ---------------------------------------------------------------------
//  JSON helpers

static json_t *
path (json_t *o, const char *a, const char *b, const char *c)
{
    if (a)
        o = json_object_get (o, a);
    if (b)
        o = json_object_get (o, b);
    if (c)
        o = json_object_get (o, c);
    return o;
}

static bool
is_int (json_t *o, long long want)
{
    return json_is_integer (o) && json_integer_value (o) == want;
}

static bool
is_real (json_t *o, double want, double rel)
{
    return json_is_real (o) && NEAR (json_real_value (o), want, rel);
}

//  Checks a *_ns object against samples s (NULL: empty).
static void
check_lat (json_t *o, const samples_t *s, const char *what)
{
    int bad = 0;
    uint64_t n = s ? s->h.count : 0;
    if (!json_is_object (o))
        bad |= 1;
    if (!is_int (json_object_get (o, "N"), (long long) n))
        bad |= 2;
    if (!is_int (json_object_get (o, "min"), n ? (long long) s->h.min : 0))
        bad |= 4;
    if (!is_int (json_object_get (o, "max"), n ? (long long) s->h.max : 0))
        bad |= 8;
    if (!is_real (json_object_get (o, "mean"), n ? histogram_mean (&s->h) : 0, 1e-12))
        bad |= 16;
    if (!is_real (json_object_get (o, "stddev"), n ? sample_stddev (s) : 0, 1e-9))
        bad |= 32;
    CHECK_MSG (bad == 0, "%s: bad fields, mask %#x", what, bad);
}

//  Checks the percentiles of a clat_ns object (keys "%f", sorted list).
static void
check_percentiles (json_t *o, const samples_t *s, const double *plist, int n, const char *what)
{
    json_t *pct = json_object_get (o, "percentile");
    int bad = 0;
    if (!json_is_object (pct) || (int) json_object_size (pct) != n)
        bad++;
    for (int i = 0; i < n; i++) {
        char key[64];
        snprintf (key, sizeof key, "%f", plist[i]);
        if (!is_int (json_object_get (pct, key), (long long) histogram_percentile (&s->h, plist[i])))
            bad++;
    }
    CHECK_MSG (bad == 0, "%s: %d bad percentiles", what, bad);
}

//  Checks json+ bins against fio's own binning of the raw samples.
static void
check_bins (json_t *o, const samples_t *s, const char *what)
{
    json_t *bins = json_object_get (o, "bins");
    CHECK_MSG (json_is_object (bins), "%s: no bins", what);
    if (!json_is_object (bins))
        return;
    uint64_t *want = calloc (FIO_IO_U_PLAT_NR, sizeof *want);
    for (int i = 0; i < s->n; i++)
        want[fio_plat_val_to_idx (s->v[i])]++;
    size_t nonempty = 0;
    int bad = 0;
    for (unsigned b = 0; b < FIO_IO_U_PLAT_NR; b++) {
        if (!want[b])
            continue;
        nonempty++;
        char key[32];
        snprintf (key, sizeof key, "%llu", fio_plat_idx_to_val (b));
        if (!is_int (json_object_get (bins, key), (long long) want[b]) && !bad++)
            fprintf (stderr, "%s: bin %s: want %" PRIu64 "\n", what, key, want[b]);
    }
    CHECK_MSG (bad == 0 && json_object_size (bins) == nonempty,
               "%s: %d bad bins, %zu bins, want %zu", what, bad, json_object_size (bins), nonempty);

    //  Keys are decimal numbers, values positive, total N.
    const char *key;
    json_t *val;
    long long sum = 0;
    int badkey = 0;
    json_object_foreach (bins, key, val) {
        char *end;
        strtoull (key, &end, 10);
        if (!*key || *end || !json_is_integer (val) || json_integer_value (val) <= 0)
            badkey++;
        sum += json_is_integer (val) ? json_integer_value (val) : 0;
    }
    CHECK_MSG (badkey == 0 && sum == (long long) s->h.count,
               "%s: %d bad keys, bins sum %lld, N %" PRIu64, what, badkey, sum, s->h.count);
    free (want);
}

//  ---------------------------------------------------------------------

static const double bw_a[3] = { 100 * 1048576.0, 110 * 1048576.0, 90 * 1048576.0 };
static const double iops_a[3] = { 100, 110, 90 };

typedef struct {
    samples_t *a_slat, *a_clat, *a_lat;
    samples_t *b_rclat, *b_rlat, *b_wclat, *b_wlat;
    histogram_t empty;
    job_t jobb;
    fio_job_t jobs[2];
} fixture_t;

static const double b_pct[3] = { 99.9, 50, 99 };
static const double b_pct_sorted[3] = { 50, 99, 99.9 };

static void
fixture_init (fixture_t *fx)
{
    memset (fx, 0, sizeof *fx);
    histogram_reset (&fx->empty);
    fx->a_slat = samples_new ();
    fx->a_clat = samples_new ();
    fx->a_lat = samples_new ();
    fx->b_rclat = samples_new ();
    fx->b_rlat = samples_new ();
    fx->b_wclat = samples_new ();
    fx->b_wlat = samples_new ();

    //  Job A, read: 111 I/Os whose completion latencies are
    //    100..199 ns once each  fio: 100..127 exact, 128..199 in 2 ns bins
    //    1000, 1001             fio bin [1000, 1008): key 1004
    //    5000 x3, 123456 x2, 1 ms, 60 ms
    //    2^35 ns, 2^41 ns       past fio's last bin and our range: 17112760320
    for (uint64_t v = 100; v < 200; v++)
        rec (fx->a_clat, v, 1);
    rec (fx->a_clat, 1000, 1);
    rec (fx->a_clat, 1001, 1);
    rec (fx->a_clat, 5000, 3);
    rec (fx->a_clat, 123456, 2);
    rec (fx->a_clat, 1000000, 1);
    rec (fx->a_clat, 60000000, 1);
    rec (fx->a_clat, (uint64_t) 1 << 35, 1);
    rec (fx->a_clat, (uint64_t) 1 << 41, 1);
    for (int i = 0; i < fx->a_clat->n; i++) {
        rec (fx->a_slat, 10 + (uint64_t) i % 50, 1);
        rec (fx->a_lat, fx->a_clat->v[i] + 10 + (uint64_t) i % 50, 1);
    }

    fio_job_t *a = &fx->jobs[0];
    a->jobname = "jobA";
    a->groupid = 0;
    a->dir[0] = (fio_dir_t) {
        .ops = 111, .bytes = 111 * 4096, .runtime_ns = 2000500000,
        .slat = &fx->a_slat->h, .clat = &fx->a_clat->h, .lat = &fx->a_lat->h,
        .iops_samples = iops_a, .bw_samples = bw_a, .nsamples = 3,
    };
    a->dir[1] = (fio_dir_t) { .clat = &fx->empty, .lat = &fx->empty };
    a->usr_cpu = 12.5;
    a->sys_cpu = 3.25;
    a->ctx = 77;
    a->job_runtime_ms = 2001;

    //  Job B: fio's example read line, 912384 I/Os of 4 KiB in 10001 ms,
    //  all at 120 ns; writes spread over 1 us .. 20 ms.  No slat.
    rec (fx->b_rclat, 120, 912384);
    rec (fx->b_rlat, 150, 912384);
    unsigned long long st = 42;
    for (int i = 0; i < 5000; i++) {
        double u = (double) (test_splitmix64 (&st) >> 11) * 0x1p-53;
        uint64_t v = (uint64_t) (1000 * pow (20000.0, u));
        rec (fx->b_wclat, v, 1);
        rec (fx->b_wlat, v + 1000, 1);
    }
    strcpy (fx->jobb.name, "jobB");
    strcpy (fx->jobb.ioengine, "libaio");
    fx->jobb.rw = JOB_RW_RANDRW;
    fx->jobb.bs[0] = fx->jobb.bs[1] = 4096;
    fx->jobb.iodepth = 32;
    fx->jobb.numjobs = 1;
    fx->jobb.runtime_ns = 60 * 1000000000ull;
    fx->jobb.direct = true;

    fio_job_t *b = &fx->jobs[1];
    b->jobname = "jobB";
    b->hostname = "host1";
    b->groupid = 0;
    b->job = &fx->jobb;
    b->dir[0] = (fio_dir_t) {
        .ops = 912384, .bytes = 3737124864ull, .runtime_ns = 10001000000ull,
        .clat = &fx->b_rclat->h, .lat = &fx->b_rlat->h,
    };
    b->dir[1] = (fio_dir_t) {
        .ops = 5000, .bytes = 5000 * 4096, .runtime_ns = 10001000000ull,
        .clat = &fx->b_wclat->h, .lat = &fx->b_wlat->h,
    };
    b->percentiles = b_pct;
    b->npercentiles = 3;
    b->job_runtime_ms = 10002;
}

static void
fixture_fini (fixture_t *fx)
{
    samples_destroy (&fx->a_slat);
    samples_destroy (&fx->a_clat);
    samples_destroy (&fx->a_lat);
    samples_destroy (&fx->b_rclat);
    samples_destroy (&fx->b_rlat);
    samples_destroy (&fx->b_wclat);
    samples_destroy (&fx->b_wlat);
}

//  The rate fields of a direction object.
static void
check_rates (json_t *d, const fio_dir_t *fd, const char *what)
{
    uint64_t bw_bytes = fd->runtime_ns
        ? (uint64_t) ((unsigned __int128) fd->bytes * 1000000000u / fd->runtime_ns) : 0;
    double iops = fd->runtime_ns ? (double) fd->ops * 1e9 / (double) fd->runtime_ns : 0;
    int bad = 0;
    if (!is_int (json_object_get (d, "io_bytes"), (long long) fd->bytes)) bad |= 1;
    if (!is_int (json_object_get (d, "io_kbytes"), (long long) (fd->bytes / 1024))) bad |= 2;
    if (!is_int (json_object_get (d, "bw_bytes"), (long long) bw_bytes)) bad |= 4;
    if (!is_int (json_object_get (d, "bw"), (long long) (bw_bytes / 1024))) bad |= 8;
    if (!is_real (json_object_get (d, "iops"), iops, 1e-12)) bad |= 16;
    if (!is_int (json_object_get (d, "runtime"), (long long) (fd->runtime_ns / 1000000))) bad |= 32;
    if (!is_int (json_object_get (d, "total_ios"), (long long) fd->ops)) bad |= 64;
    if (!is_int (json_object_get (d, "short_ios"), 0)) bad |= 128;
    if (!is_int (json_object_get (d, "drop_ios"), 0)) bad |= 256;
    CHECK_MSG (bad == 0, "%s: bad rate fields, mask %#x", what, bad);
}

static void
check_no_samples (json_t *d, const char *what)
{
    static const char *const ints[] = { "bw_min", "bw_max", "bw_samples", "iops_min",
                                        "iops_max", "iops_samples" };
    static const char *const reals[] = { "bw_agg", "bw_mean", "bw_dev", "iops_mean",
                                         "iops_stddev" };
    int bad = 0;
    for (int i = 0; i < 6; i++)
        bad += !is_int (json_object_get (d, ints[i]), 0);
    for (int i = 0; i < 5; i++)
        bad += !is_real (json_object_get (d, reals[i]), 0, 0);
    CHECK_MSG (bad == 0, "%s: %d sample fields not zero", what, bad);
}

//  Checks that o has exactly the keys want[0..n), in that order (fio's;
//  jansson keeps insertion order).
static void
check_keys (json_t *o, const char *const *want, size_t n, const char *what)
{
    const char *key;
    json_t *val;
    size_t k = 0;
    int bad = 0;
    json_object_foreach (o, key, val) {
        (void) val;
        if (k >= n || strcmp (key, want[k++]))
            bad++;
    }
    CHECK_MSG (json_is_object (o) && bad == 0 && k == n, "%s: keys differ from fio's", what);
}

static const char *const dir_keys[] = { "io_bytes", "io_kbytes", "bw_bytes", "bw", "iops",
    "runtime", "total_ios", "short_ios", "drop_ios", "slat_ns", "clat_ns", "lat_ns", "bw_min",
    "bw_max", "bw_agg", "bw_mean", "bw_dev", "bw_samples", "iops_min", "iops_max",
    "iops_mean", "iops_stddev", "iops_samples" };
static const char *const lat_keys[] = { "min", "max", "mean", "stddev", "N", "percentile",
    "bins" };
#define NKEYS(a) (sizeof (a) / sizeof (a)[0])

/* The keys of the report, its jobs and their directions. */
static void
check_report_keys (json_t *root, bool plus)
{
    static const char *const top_keys[] = { "fio version", "timestamp", "timestamp_ms",
        "time", "global options", "jobs", "disk_util" };
    check_keys (root, top_keys, NKEYS (top_keys), "top level");
    //  Direction objects; *_ns with percentiles (and bins) on clat only,
    //  and only when it has samples.
    for (size_t j = 0; j < 2; j++) {
        static const char *const dirs[3] = { "read", "write", "trim" };
        for (int d = 0; d < 3; d++) {
            json_t *o = path (json_array_get (json_object_get (root, "jobs"), j), dirs[d],
                              NULL, NULL);
            char what[64];
            snprintf (what, sizeof what, "job %zu %s", j, dirs[d]);
            check_keys (o, dir_keys, NKEYS (dir_keys), what);
            bool has = json_integer_value (path (o, "clat_ns", "N", NULL)) > 0;
            check_keys (json_object_get (o, "slat_ns"), lat_keys, 5, what);
            check_keys (json_object_get (o, "clat_ns"), lat_keys, has ? (plus ? 7 : 6) : 5, what);
            check_keys (json_object_get (o, "lat_ns"), lat_keys, 5, what);
        }
    }
}

/* The report's top level and the jobs' header fields. */
static void
check_report_header (json_t *root)
{
    CHECK (json_is_object (root));
    CHECK (json_is_string (json_object_get (root, "fio version"))
           && !strcmp (json_string_value (json_object_get (root, "fio version")), "iofleet-0.1.0"));
    CHECK (is_int (json_object_get (root, "timestamp"), 1700000000));
    CHECK (is_int (json_object_get (root, "timestamp_ms"), 1700000000123ll));
    json_t *t = json_object_get (root, "time");
    CHECK (json_is_string (t) && strstr (json_string_value (t), "2023")
           && json_string_value (t)[strlen (json_string_value (t)) - 1] != '\n');
    CHECK (json_is_object (json_object_get (root, "global options"))
           && json_object_size (json_object_get (root, "global options")) == 0);
    CHECK (json_is_array (json_object_get (root, "disk_util"))
           && json_array_size (json_object_get (root, "disk_util")) == 0);
    json_t *jobs = json_object_get (root, "jobs");
    CHECK (json_is_array (jobs) && json_array_size (jobs) == 2);
    json_t *a = json_array_get (jobs, 0), *b = json_array_get (jobs, 1);

    //  Job header fields.
    CHECK (json_is_string (json_object_get (a, "jobname"))
           && !strcmp (json_string_value (json_object_get (a, "jobname")), "jobA"));
    CHECK (is_int (json_object_get (a, "groupid"), 0) && is_int (json_object_get (a, "error"), 0));
    CHECK (json_object_get (a, "job options") == NULL && json_object_get (a, "hostname") == NULL);
    CHECK (json_is_string (json_object_get (b, "hostname"))
           && !strcmp (json_string_value (json_object_get (b, "hostname")), "host1"));
    json_t *opts = json_object_get (b, "job options");
    static const char *const want_opts[][2] = {
        { "name", "jobB" }, { "rw", "randrw" }, { "bs", "4k" }, { "ioengine", "libaio" },
        { "iodepth", "32" }, { "numjobs", "1" }, { "runtime", "60" }, { "direct", "1" },
    };
    int badopt = 0;
    for (size_t i = 0; i < sizeof want_opts / sizeof want_opts[0]; i++) {
        json_t *v = json_object_get (opts, want_opts[i][0]);
        if (!json_is_string (v) || strcmp (json_string_value (v), want_opts[i][1]))
            badopt++;
    }
    CHECK_MSG (badopt == 0 && json_object_size (opts) == 8, "%d bad job options", badopt);
    CHECK (is_int (json_object_get (a, "job_runtime"), 2001));
    CHECK (is_real (json_object_get (a, "usr_cpu"), 12.5, 0)
           && is_real (json_object_get (a, "sys_cpu"), 3.25, 0)
           && is_int (json_object_get (a, "ctx"), 77)
           && is_int (json_object_get (a, "majf"), 0) && is_int (json_object_get (a, "minf"), 0));
    CHECK (json_object_size (json_object_get (a, "iodepth_level")) == 7
           && is_real (path (a, "iodepth_level", ">=64", NULL), 0, 0)
           && is_real (path (a, "iodepth_submit", "0", NULL), 0, 0)
           && is_real (path (a, "iodepth_complete", "64", NULL), 0, 0));
}

/* Job A's reads: rates, latencies, percentiles, bins, samples. */
static void
check_report_a_read (json_t *root, fixture_t *fx, bool plus)
{
    json_t *a = json_array_get (json_object_get (root, "jobs"), 0);
    //  Job A read.
    json_t *ar = json_object_get (a, "read");
    check_rates (ar, &fx->jobs[0].dir[0], "A read");
    CHECK (is_int (json_object_get (ar, "bw_bytes"), 227271)      //  454656e9 / 2000500000
           && is_int (json_object_get (ar, "bw"), 221)
           && is_int (json_object_get (ar, "io_kbytes"), 444)
           && is_int (json_object_get (ar, "runtime"), 2000));
    check_lat (json_object_get (ar, "slat_ns"), fx->a_slat, "A slat");
    check_lat (json_object_get (ar, "clat_ns"), fx->a_clat, "A clat");
    check_lat (json_object_get (ar, "lat_ns"), fx->a_lat, "A lat");
    check_percentiles (json_object_get (ar, "clat_ns"), fx->a_clat, fio_default_percentiles,
                       fio_default_npercentiles, "A clat");
    CHECK (is_int (path (ar, "clat_ns", "percentile", "99.000000"),
                   (long long) histogram_percentile (&fx->a_clat->h, 99))
           && is_int (path (ar, "clat_ns", "percentile", "99.990000"), 1ll << 41)
           && is_int (path (ar, "clat_ns", "percentile", "50.000000"), 155));
    //  fio prints no percentiles for slat and lat by default.
    CHECK (!path (ar, "slat_ns", "percentile", NULL) && !path (ar, "lat_ns", "percentile", NULL));
    CHECK (!path (ar, "slat_ns", "bins", NULL) && !path (ar, "lat_ns", "bins", NULL));
    if (plus) {
        check_bins (json_object_get (ar, "clat_ns"), fx->a_clat, "A clat");
        //  Hand-computed keys: 100 is its own bin; 128 and 129 share the
        //  bin [128, 130) printed as its midpoint 129; 1000 and 1001 share
        //  [1000, 1008) = 512 + 61.5 * 8 = 1004; 2^35 and 2^41 fall in
        //  fio's last bin, 2^33 + 63.5 * 2^27.
        CHECK (is_int (path (ar, "clat_ns", "bins", "100"), 1)
               && is_int (path (ar, "clat_ns", "bins", "129"), 2)
               && is_int (path (ar, "clat_ns", "bins", "199"), 2)
               && is_int (path (ar, "clat_ns", "bins", "1004"), 2)
               && is_int (path (ar, "clat_ns", "bins", "17112760320"), 2)
               && !path (ar, "clat_ns", "bins", "128"));
    }
    else
        CHECK (!path (ar, "clat_ns", "bins", NULL));

    //  Per-second samples: bw in KiB/s 102400, 112640, 92160; iops 100,
    //  110, 90; sample stddev sqrt((d^2 + 0 + d^2) / 2) = d.
    double agg = (454656.0 + 3737124864.0) * 1e9 / 10001000000.0;
    CHECK (is_int (json_object_get (ar, "bw_min"), 92160)
           && is_int (json_object_get (ar, "bw_max"), 112640)
           && is_real (json_object_get (ar, "bw_mean"), 102400, 1e-12)
           && is_real (json_object_get (ar, "bw_dev"), 10240, 1e-12)
           && is_int (json_object_get (ar, "bw_samples"), 3)
           && is_real (json_object_get (ar, "bw_agg"), 102400 * 100.0 / (agg / 1024), 1e-9));
    CHECK (is_int (json_object_get (ar, "iops_min"), 90)
           && is_int (json_object_get (ar, "iops_max"), 110)
           && is_real (json_object_get (ar, "iops_mean"), 100, 1e-12)
           && is_real (json_object_get (ar, "iops_stddev"), 10, 1e-12)
           && is_int (json_object_get (ar, "iops_samples"), 3));
}

/* Job A's writes and trims (zero) and its latency ranges. */
static void
check_report_a_rest (json_t *root, fixture_t *fx)
{
    json_t *a = json_array_get (json_object_get (root, "jobs"), 0);
    //  Job A write, and trim: present and zero, no percentiles or bins.
    const char *const zdirs[2] = { "write", "trim" };
    for (int z = 0; z < 2; z++) {
        json_t *d = json_object_get (a, zdirs[z]);
        fio_dir_t zero = { 0 };
        check_rates (d, &zero, zdirs[z]);
        check_lat (json_object_get (d, "slat_ns"), NULL, zdirs[z]);
        check_lat (json_object_get (d, "clat_ns"), NULL, zdirs[z]);
        check_lat (json_object_get (d, "lat_ns"), NULL, zdirs[z]);
        CHECK (!path (d, "clat_ns", "percentile", NULL) && !path (d, "clat_ns", "bins", NULL));
        check_no_samples (d, zdirs[z]);
    }
    CHECK (is_int (path (a, "sync", "total_ios", NULL), 0)
           && is_int (path (a, "sync", "lat_ns", "N"), 0));

    //  Job A latency ranges: fio's io_u_mark_latency over the raw clat
    //  samples (none of them in one of our buckets that straddles a range
    //  bound), as percentages of all I/Os, a non-empty range >= 0.01.
    uint64_t cnt[32] = { 0 };
    for (int i = 0; i < fx->a_clat->n; i++)
        cnt[fio_lat_range (fx->a_clat->v[i])]++;
    static const char *const names[12] = { "2", "4", "10", "20", "50", "100", "250", "500",
                                           "750", "1000", "2000", ">=2000" };
    const char *const groups[3] = { "latency_ns", "latency_us", "latency_ms" };
    int badlat = 0;
    double total = 0;
    for (int g = 0; g < 3; g++) {
        int n = g == 2 ? 12 : 10;
        if (json_object_size (json_object_get (a, groups[g])) != (size_t) n)
            badlat++;
        for (int i = 0; i < n; i++) {
            uint64_t c = cnt[g * 10 + i];
            double want = 100.0 * (double) c / fx->a_clat->n;
            if (c && want < 0.01)
                want = 0.01;
            json_t *v = path (a, groups[g], names[i], NULL);
            if (!is_real (v, want, 1e-12) && !badlat++)
                fprintf (stderr, "%s %s: %g, want %g\n", groups[g], names[i],
                         json_real_value (v), want);
            total += json_real_value (v);
        }
    }
    CHECK_MSG (badlat == 0, "%d bad latency ranges", badlat);
    CHECK (NEAR (total, 100.0, 1e-9));
    CHECK (is_real (path (a, "latency_ns", "250", NULL), 10000.0 / 111, 1e-12)
           && is_real (path (a, "latency_ms", ">=2000", NULL), 200.0 / 111, 1e-12));
}

/* Job B, and fio's key order in a job object. */
static void
check_report_b (json_t *root, fixture_t *fx, bool plus)
{
    const char *mode = plus ? "json+" : "json";
    json_t *a = json_array_get (json_object_get (root, "jobs"), 0);
    json_t *b = json_array_get (json_object_get (root, "jobs"), 1);
    //  Job B.
    json_t *br = json_object_get (b, "read"), *bwr = json_object_get (b, "write");
    check_rates (br, &fx->jobs[1].dir[0], "B read");
    check_rates (bwr, &fx->jobs[1].dir[1], "B write");
    CHECK (is_int (json_object_get (br, "bw_bytes"), 373675118)
           && is_int (json_object_get (br, "bw"), 364917)
           && is_int (json_object_get (br, "io_kbytes"), 3649536)
           && is_int (json_object_get (br, "runtime"), 10001)
           && is_real (json_object_get (br, "iops"), 912384 / 10.001, 1e-12));
    check_lat (json_object_get (br, "slat_ns"), NULL, "B slat");
    check_lat (json_object_get (br, "clat_ns"), fx->b_rclat, "B read clat");
    check_lat (json_object_get (bwr, "clat_ns"), fx->b_wclat, "B write clat");
    check_lat (json_object_get (bwr, "lat_ns"), fx->b_wlat, "B write lat");
    check_percentiles (json_object_get (br, "clat_ns"), fx->b_rclat, b_pct_sorted, 3, "B read");
    check_percentiles (json_object_get (bwr, "clat_ns"), fx->b_wclat, b_pct_sorted, 3, "B write");
    CHECK (is_int (path (br, "clat_ns", "percentile", "99.900000"), 120));
    check_no_samples (br, "B read");
    if (plus) {
        check_bins (json_object_get (br, "clat_ns"), fx->b_rclat, "B read clat");
        check_bins (json_object_get (bwr, "clat_ns"), fx->b_wclat, "B write clat");
        //  120 < 128: its own bin.
        CHECK (is_int (path (br, "clat_ns", "bins", "120"), 912384)
               && json_object_size (path (br, "clat_ns", "bins", NULL)) == 1);
    }
    CHECK (is_int (json_object_get (b, "latency_depth"), 32)
           && is_real (json_object_get (b, "latency_percentile"), 100, 0));
    CHECK (json_object_get (a, "latency_depth") == NULL);

    //  fio's key order in a job object (jansson keeps insertion order).
    static const char *const order[] = { "jobname", "groupid", "error", "eta", "elapsed",
        "job options", "read", "write", "trim", "sync", "job_runtime", "usr_cpu", "sys_cpu",
        "ctx", "majf", "minf", "iodepth_level", "iodepth_submit", "iodepth_complete",
        "latency_ns", "latency_us", "latency_ms", "latency_depth", "latency_target",
        "latency_percentile", "latency_window", "hostname" };
    check_keys (b, order, NKEYS (order), mode);
}

static void
check_report (json_t *root, fixture_t *fx, bool plus)
{
    check_report_keys (root, plus);
    check_report_header (root);
    check_report_a_read (root, fx, plus);
    check_report_a_rest (root, fx);
    check_report_b (root, fx, plus);
}

//  Runs cmd through the shell; returns its exit status, -1 if it did not
//  exit normally.
static int
run (const char *cmd)
{
    int rc = system (cmd);
    return rc != -1 && WIFEXITED (rc) ? WEXITSTATUS (rc) : -1;
}

static void
check_external_tools (json_t *plus_doc)
{
    char base[] = "/var/tmp/iofleet-fj-XXXXXX";
    int fd = mkstemp (base);
    CHECK (fd >= 0);
    if (fd < 0)
        return;
    char *text = json_dumps (plus_doc, JSON_INDENT (2));
    FILE *f = fdopen (fd, "w");
    CHECK (text && f && fputs (text, f) >= 0);
    if (f)
        fclose (f);
    free (text);

    char cmd[1024];
    if (run ("command -v python3 >/dev/null 2>&1") == 0) {
        snprintf (cmd, sizeof cmd,
                  "python3 -c \"import json,sys; json.load(open(sys.argv[1]))\" %s", base);
        CHECK_MSG (run (cmd) == 0, "python3 could not load %s", base);
    }
    else
        fprintf (stderr, "note: python3 not found, skipping the python json check\n");

    if (run ("command -v fio_jsonplus_clat2csv >/dev/null 2>&1") == 0) {
        //  It writes DEST-stub_jobN.csv for each job and --validate reads
        //  them back against the json+ bins.
        snprintf (cmd, sizeof cmd, "fio_jsonplus_clat2csv %s %s.csv >/dev/null", base, base);
        CHECK_MSG (run (cmd) == 0, "fio_jsonplus_clat2csv failed on %s", base);
        snprintf (cmd, sizeof cmd, "fio_jsonplus_clat2csv --validate %s %s.csv >/dev/null",
                  base, base);
        CHECK_MSG (run (cmd) == 0, "fio_jsonplus_clat2csv --validate failed on %s", base);
        for (int j = 0; j < 2; j++) {
            char csv[256];
            snprintf (csv, sizeof csv, "%s_job%d.csv", base, j);
            FILE *c = fopen (csv, "r");
            char line[4096] = "";
            int lines = 0;
            while (c && fgets (line, sizeof line, c))
                lines++;
            CHECK_MSG (c && lines > 1, "%s: %d lines", csv, lines);
            if (c)
                fclose (c);
            unlink (csv);
        }
    }
    else
        fprintf (stderr, "note: fio_jsonplus_clat2csv not found, skipping it\n");
    unlink (base);
}

static char *
text_of (const fio_job_t *jobs, int njobs)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    fio_text_report (f, jobs, njobs, "iofleet-0.1.0");
    fclose (f);
    return buf;
}

static int
count_of (const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr (p, needle)); p++)
        n++;
    return n;
}

static void
check_text (fixture_t *fx)
{
    char *t = text_of (fx->jobs, 2);
    CHECK_STR_CONTAINS (t, "iofleet-0.1.0\njobA: (groupid=0, jobs=1): err= 0\n  read: IOPS=");
    CHECK_STR_CONTAINS (t, "\njobB: (groupid=0, jobs=1): err= 0: host=host1\n");
    //  fio's own example line, from the same figures.
    CHECK_STR_CONTAINS (t, "\n  read: IOPS=91.2k, BW=356MiB/s (374MB/s)(3564MiB/10001msec)\n");
    CHECK_STR_CONTAINS (t, "\n    clat (nsec): min=120, max=120, avg=120.00, stdev= 0.00\n"
                           "     lat (nsec): min=150, max=150, avg=150.00, stdev= 0.00\n"
                           "    clat percentiles (nsec):\n"
                           "     | 50.0th=[  120], 99.0th=[  120], 99.9th=[  120]\n");
    CHECK_STR_CONTAINS (t, "    slat (nsec): min=10, max=59, avg=");
    //  Job A: default list, four to a line, 2^41 at the top (13 digits).
    CHECK_STR_CONTAINS (t, "    clat percentiles (nsec):\n     |  1.00th=[          101],");
    CHECK_STR_CONTAINS (t, "| 99.99th=[2199023255552]\n");
    CHECK_STR_CONTAINS (t, "\n   bw (  KiB/s): min=92160, max=112640, per=");
    CHECK_STR_CONTAINS (t, "avg=102400.00, stdev=10240.00, samples=3\n"
                           "   iops        : min=   90, max=  110, avg=100.00, stdev=10.00,"
                           " samples=3\n");
    CHECK_STR_CONTAINS (t, "  lat (nsec)   : 250=90.09%\n");
    CHECK_STR_CONTAINS (t, "  cpu          : usr=12.50%, sys=3.25%, ctx=77, majf=0, minf=0\n");
    CHECK_STR_CONTAINS (t, "     issued rwts: total=912384,5000,0,0 short=0,0,0,0 dropped=0,0,0,0\n");
    CHECK (count_of (t, "  write: IOPS=") == 1 && count_of (t, "  read: IOPS=") == 2);
    CHECK (count_of (t, "Run status group 0 (all jobs):") == 1);
    //  No trims: no trim line, no TRIM group line (as fio).
    CHECK (count_of (t, "  trim: IOPS=") == 0 && count_of (t, "TRIM:") == 0);
    CHECK_STR_CONTAINS (t, "\n   READ: bw=356MiB/s (374MB/s), ");
    CHECK_STR_CONTAINS (t, "io=3564MiB (3738MB), run=2000-10001msec\n  WRITE: bw=");
    free (t);

    //  An error with no I/O still shows; num2str's carry: 14999 IOPS is
    //  15.0k (fio itself prints 14.0k there).
    histogram_t h;
    histogram_reset (&h);
    histogram_record (&h, 5000);
    fio_job_t more[2] = {
        { .jobname = "jobE", .groupid = 1, .error = 5,
          .dir = { { .clat = &h, .lat = &h }, { .clat = &h, .lat = &h } } },
        { .jobname = "jobD", .groupid = 1,
          .dir = { { .ops = 14999, .bytes = 14999 * 4096, .runtime_ns = 1000000000,
                     .clat = &h, .lat = &h }, { .clat = &h, .lat = &h } } },
    };
    t = text_of (more, 2);
    CHECK_STR_CONTAINS (t, "jobE: (groupid=1, jobs=1): err= 5 (Input/output error)\njobD:");
    CHECK_STR_CONTAINS (t, "  read: IOPS=15.0k, BW=58.6MiB/s (61.4MB/s)(58.6MiB/1000msec)\n");
    CHECK_STR_CONTAINS (t, "Run status group 1 (all jobs):\n   READ: bw=58.6MiB/s (61.4MB/s),");
    free (t);

    //  A reporting group of two jobs (group_reporting): jobs=2, as fio's.
    more[1].members = 2;
    t = text_of (more + 1, 1);
    CHECK_STR_CONTAINS (t, "jobD: (groupid=1, jobs=2): err= 0\n");
    free (t);
}

//  A trimwrite job (fio's rw=trimwrite): writes, and trims with clat and
//  lat but no slat (fio measures none for trims).  The trim object has
//  exactly read's keys and real figures; the text has fio's "trim:" and
//  "TRIM:" lines; the latency ranges count trims too.
static void
check_trim (void)
{
    samples_t *wclat = samples_new (), *wlat = samples_new ();
    samples_t *tclat = samples_new (), *tlat = samples_new ();
    histogram_t empty;
    histogram_reset (&empty);
    //  Writes at 20 us; trims 1000 at 200 us, 990 at 1.5 ms, 10 at 40 ms.
    rec (wclat, 20000, 1000);
    rec (wlat, 21000, 1000);
    rec (tclat, 200000, 1000);
    rec (tclat, 1500000, 990);
    rec (tclat, 40000000, 10);
    for (int i = 0; i < tclat->n; i++)
        rec (tlat, tclat->v[i] + 500, 1);
    static const double t_iops[2] = { 900, 1100 };
    static const double t_bw[2] = { 900 * 65536.0, 1100 * 65536.0 };
    fio_job_t c = { .jobname = "jobT", .groupid = 0 };
    c.dir[DIR_WRITE] = (fio_dir_t) {
        .ops = 1000, .bytes = 1000 * 4096, .runtime_ns = 2000000000,
        .clat = &wclat->h, .lat = &wlat->h,
    };
    c.dir[DIR_TRIM] = (fio_dir_t) {
        .ops = 2000, .bytes = 2000 * 65536ull, .runtime_ns = 2000000000,
        .slat = &empty, .clat = &tclat->h, .lat = &tlat->h,
        .iops_samples = t_iops, .bw_samples = t_bw, .nsamples = 2,
    };

    for (int plus = 0; plus < 2; plus++) {
        json_t *root = fio_json_report (&c, 1, plus, "iofleet-0.1.0", 1700000000123ull);
        json_t *j = json_array_get (json_object_get (root, "jobs"), 0);
        json_t *t = json_object_get (j, "trim");
        check_keys (t, dir_keys, NKEYS (dir_keys), "trim");
        check_rates (t, &c.dir[DIR_TRIM], "trim");
        CHECK (is_int (json_object_get (t, "total_ios"), 2000)
               && is_int (json_object_get (t, "io_bytes"), 131072000)
               && is_int (json_object_get (t, "bw_bytes"), 65536000)
               && is_real (json_object_get (t, "iops"), 1000, 1e-12)
               && is_int (json_object_get (t, "runtime"), 2000));
        //  slat: zeros, N 0, no percentiles (as fio for trims).
        check_lat (json_object_get (t, "slat_ns"), NULL, "trim slat");
        check_keys (json_object_get (t, "slat_ns"), lat_keys, 5, "trim slat");
        check_lat (json_object_get (t, "clat_ns"), tclat, "trim clat");
        check_lat (json_object_get (t, "lat_ns"), tlat, "trim lat");
        check_percentiles (json_object_get (t, "clat_ns"), tclat, fio_default_percentiles,
                           fio_default_npercentiles, "trim clat");
        //  The 10 slowest (0.5%) are the 99.9th: 40 ms within a bucket.
        json_t *p999 = path (t, "clat_ns", "percentile", "99.900000");
        CHECK (json_is_integer (p999) && NEAR ((double) json_integer_value (p999), 4e7, 0.004));
        if (plus)
            check_bins (json_object_get (t, "clat_ns"), tclat, "trim clat");
        else
            CHECK (!path (t, "clat_ns", "bins", NULL));
        //  Samples: bw 57600 and 70400 KiB/s, iops 900 and 1100.
        CHECK (is_int (json_object_get (t, "bw_min"), 57600)
               && is_int (json_object_get (t, "bw_max"), 70400)
               && is_real (json_object_get (t, "bw_mean"), 64000, 1e-12)
               && is_int (json_object_get (t, "bw_samples"), 2)
               && is_int (json_object_get (t, "iops_min"), 900)
               && is_int (json_object_get (t, "iops_max"), 1100)
               && is_int (json_object_get (t, "iops_samples"), 2));
        //  The other directions as before: writes real, reads all zero.
        check_rates (json_object_get (j, "write"), &c.dir[DIR_WRITE], "trimwrite write");
        fio_dir_t zero = { 0 };
        check_rates (json_object_get (j, "read"), &zero, "trimwrite read");
        check_lat (json_object_get (json_object_get (j, "read"), "clat_ns"), NULL, "tw read");
        //  Ranges over writes and trims: 3000 I/Os, 1000 at 20 us (50),
        //  1000 at 200 us (250), 990 at 1.5 ms (2), 10 at 40 ms (50).
        CHECK (is_real (path (j, "latency_us", "50", NULL), 100.0 / 3, 1e-12)
               && is_real (path (j, "latency_us", "250", NULL), 100.0 / 3, 1e-12)
               && is_real (path (j, "latency_ms", "2", NULL), 33.0, 1e-12)
               && is_real (path (j, "latency_ms", "50", NULL), 1.0 / 3, 1e-12));
        json_decref (root);
    }

    char *txt = text_of (&c, 1);
    CHECK_STR_CONTAINS (txt, "\n  write: IOPS=500, BW=2000KiB/s (2048kB/s)(4000KiB/2000msec)\n");
    CHECK_STR_CONTAINS (txt, "\n  trim: IOPS=1000, BW=62.5MiB/s (65.5MB/s)(125MiB/2000msec)\n"
                             "    clat (usec): min=200, max=40000, avg=");
    //  No slat line for trims, and no read line.
    CHECK (count_of (txt, "slat") == 0 && count_of (txt, "  read: IOPS=") == 0);
    CHECK_STR_CONTAINS (txt, "   bw (  KiB/s): min=57600, max=70400, per=100.00%, avg=64000.00, ");
    CHECK_STR_CONTAINS (txt, "     issued rwts: total=0,1000,2000,0 short=0,0,0,0 dropped=0,0,0,0\n");
    CHECK_STR_CONTAINS (txt, "\n  WRITE: bw=2000KiB/s (2048kB/s), ");
    CHECK_STR_CONTAINS (txt, "\n   TRIM: bw=62.5MiB/s (65.5MB/s), 62.5MiB/s-62.5MiB/s "
                             "(65.5MB/s-65.5MB/s), io=125MiB (131MB), run=2000-2000msec\n");
    free (txt);
    samples_destroy (&wclat);
    samples_destroy (&wlat);
    samples_destroy (&tclat);
    samples_destroy (&tlat);
}

int
main (void)
{
    static fixture_t fx;
    fixture_init (&fx);
    json_t *root;

    for (int plus = 0; plus < 2; plus++) {
        root = fio_json_report (fx.jobs, 2, plus, "iofleet-0.1.0", 1700000000123ull);
        CHECK (root != NULL);
        if (!root)
            continue;
        check_report (root, &fx, plus);
        //  Round trip through text.
        char *s = json_dumps (root, JSON_COMPACT);
        json_error_t err;
        json_t *back = s ? json_loads (s, 0, &err) : NULL;
        CHECK (back && json_equal (back, root));
        json_decref (back);
        free (s);
        if (plus)
            check_external_tools (root);
        json_decref (root);
    }

    //  An empty list (job_t's npercentiles = 0) means fio's default list.
    fio_job_t c = fx.jobs[1];
    c.npercentiles = 0;
    root = fio_json_report (&c, 1, false, "v", 0);
    CHECK (root && json_object_size (path (json_array_get (json_object_get (root, "jobs"), 0),
                                           "read", "clat_ns", "percentile"))
                   == (size_t) fio_default_npercentiles);
    json_decref (root);

    //  No jobs: the frame alone.
    root = fio_json_report (NULL, 0, false, "v", 0);
    CHECK (root && json_array_size (json_object_get (root, "jobs")) == 0
           && is_int (json_object_get (root, "timestamp"), 0));
    json_decref (root);

    check_text (&fx);
    check_trim ();
    fixture_fini (&fx);
    return TEST_DONE ();
}
