/*  bench_histogram.c: cost and accuracy of common/histogram.c.

    Measures histogram_record in ns/op (50M log-normal values cycled from a
    1M array, best of 5), the worst relative error of histogram_percentile
    against the exact percentile of sorted samples over the test suite's
    three distributions, the cost of histogram_merge and the encoded size of
    a typical histogram.  Prints a table, or with --json one JSON line:
    {"record_ns_per_op":..., "max_rel_error_pct":..., "merge_us":...,
     "encoded_bytes":...}
*/
#include "histogram.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POOL        (1u << 20)          /* pre-generated values, cycled */
#define RECORDS     50000000u
#define RUNS        5
#define NSAMPLES    200000              /* per distribution, for accuracy */
#define MERGES      20000

static uint64_t rng_state = 0x10f1ee7u;

//  splitmix64, as in the tests.
static uint64_t
rng_next (void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double
rng_unit (void)
{
    return (double) (rng_next () >> 11) * 0x1p-53;
}

static double
rng_normal (void)
{
    double u1 = 1.0 - rng_unit (), u2 = rng_unit ();
    return sqrt (-2.0 * log (u1)) * cos (2.0 * M_PI * u2);
}

static uint64_t
gen_uniform (void)
{
    return 1000 + (uint64_t) (rng_unit () * (10000000.0 - 1000.0 + 1.0));
}

static uint64_t
gen_lognormal (void)
{
    return (uint64_t) llround (100000.0 * exp (rng_normal ()));
}

static uint64_t
gen_bimodal (void)
{
    double mode = rng_unit () < 0.9 ? 50000.0 : 5000000.0;
    return (uint64_t) llround (mode * exp (0.1 * rng_normal ()));
}

static double
now_ns (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static int
cmp_u64 (const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x > y) - (x < y);
}

static void *
xmalloc (size_t size)
{
    void *p = malloc (size);
    if (!p) {
        perror ("malloc");
        exit (2);
    }
    return p;
}

//  Worst relative error over p = 0.1, 0.2, ... 100 plus the tail points,
//  for one distribution.  p in parts per million keeps the exact rank in
//  integers.
static double
worst_error (uint64_t (*gen) (void), histogram_t *h, uint64_t *v)
{
    histogram_reset (h);
    for (size_t k = 0; k < NSAMPLES; k++) {
        v [k] = gen ();
        histogram_record (h, v [k]);
    }
    qsort (v, NSAMPLES, sizeof *v, cmp_u64);
    static const uint64_t tail [] = { 999900, 999990, 999999 };
    size_t ntail = sizeof tail / sizeof tail [0];
    double worst = 0;
    for (size_t k = 0; k < 1000 + ntail; k++) {
        uint64_t ppm = k < 1000 ? (k + 1) * 1000 : tail [k - 1000];
        uint64_t rank = (ppm * NSAMPLES + 999999) / 1000000;
        double exact = (double) v [rank - 1];
        double got = (double) histogram_percentile (h, (double) ppm / 10000.0);
        double err = fabs (got - exact) / exact;
        if (err > worst)
            worst = err;
    }
    return worst;
}

//  The peer: what fio does per completion latency sample, written from its
//  documented behaviour: a log-linear histogram of 64 sub-buckets per power
//  of two (FIO_IO_U_PLAT_BITS = 6, 29 groups, 1856 bins) plus min, max and
//  Welford's running mean and variance in double, as fio's io_stat keeps.
#define FIO_BITS    6
#define FIO_VAL     (1u << FIO_BITS)
#define FIO_NR      (29 * FIO_VAL)

typedef struct {
    uint64_t bins[FIO_NR];
    uint64_t min, max, samples;
    double mean, S;
} fio_style_t;

static inline void
fio_style_record (fio_style_t *f, uint64_t v)
{
    uint32_t idx;
    if (v < 2 * FIO_VAL)
        idx = (uint32_t) v;
    else {
        int msb = 63 - __builtin_clzll (v);
        int err = msb - FIO_BITS;
        idx = (uint32_t) ((err + 1) * FIO_VAL + ((v >> err) & (FIO_VAL - 1)));
        if (idx >= FIO_NR)
            idx = FIO_NR - 1;
    }
    f->bins[idx]++;
    if (v < f->min)
        f->min = v;
    if (v > f->max)
        f->max = v;
    f->samples++;
    double delta = (double) v - f->mean;
    f->mean += delta / (double) f->samples;
    f->S += delta * ((double) v - f->mean);
}

int
main (int argc, char *argv [])
{
    int json = argc > 1 && strcmp (argv [1], "--json") == 0;
    if (argc > 1 && !json) {
        fprintf (stderr, "usage: %s [--json]\n", argv [0]);
        return 2;
    }
    histogram_t *h = xmalloc (sizeof *h), *other = xmalloc (sizeof *other);
    uint64_t *pool = xmalloc (POOL * sizeof *pool);
    for (size_t k = 0; k < POOL; k++)
        pool [k] = gen_lognormal ();

    //  Record: best of RUNS.  The histogram is touched after each run so the
    //  loop can't be dropped.
    double best = 1e300;
    uint64_t sink = 0;
    for (int run = 0; run < RUNS; run++) {
        histogram_reset (h);
        double t0 = now_ns ();
        for (uint32_t k = 0; k < RECORDS; k++)
            histogram_record (h, pool [k & (POOL - 1)]);
        double t = now_ns () - t0;
        sink += h->count + histogram_percentile (h, 99);
        if (t < best)
            best = t;
    }
    double record_ns = best / RECORDS;

    //  The peer, same values, same loop, same machine, same run.
    fio_style_t *fs = xmalloc (sizeof *fs);
    double best_fio = 1e300;
    for (int run = 0; run < RUNS; run++) {
        memset (fs, 0, sizeof *fs);
        fs->min = UINT64_MAX;
        double t0 = now_ns ();
        for (uint32_t k = 0; k < RECORDS; k++)
            fio_style_record (fs, pool [k & (POOL - 1)]);
        double t = now_ns () - t0;
        sink += fs->samples + fs->bins[100] + (uint64_t) fs->S;
        if (t < best_fio)
            best_fio = t;
    }
    double fio_ns = best_fio / RECORDS;
    free (fs);

    //  Accuracy.
    uint64_t *v = xmalloc (NSAMPLES * sizeof *v);
    double err_uniform = worst_error (gen_uniform, other, v);
    double err_lognormal = worst_error (gen_lognormal, other, v);
    double err_bimodal = worst_error (gen_bimodal, other, v);
    double err = fmax (err_uniform, fmax (err_lognormal, err_bimodal));

    //  Typical histogram: 1M log-normal samples (the pool).
    histogram_reset (other);
    for (size_t k = 0; k < POOL; k++)
        histogram_record (other, pool [k]);
    uint8_t *buf = xmalloc (HIST_WIRE_MAX);
    int encoded = histogram_encode (other, buf, HIST_WIRE_MAX);
    uint32_t nonempty = 0;
    for (uint32_t i = 0; i < HIST_NBUCKETS; i++)
        nonempty += other->buckets[i] != 0;

    //  Merge: the whole bucket array is walked whatever it holds.
    histogram_reset (h);
    double best_merge = 1e300;
    for (int run = 0; run < RUNS; run++) {
        double t0 = now_ns ();
        for (int k = 0; k < MERGES; k++)
            histogram_merge (h, other);
        double t = now_ns () - t0;
        if (t < best_merge)
            best_merge = t;
    }
    sink += h->count;
    double merge_us = best_merge / MERGES / 1000.0;

    //  Encode / decode speed of the typical histogram, for the table.
    double t0 = now_ns ();
    for (int k = 0; k < 2000; k++)
        sink += (uint64_t) histogram_encode (other, buf, HIST_WIRE_MAX);
    double encode_us = (now_ns () - t0) / 2000 / 1000.0;
    t0 = now_ns ();
    for (int k = 0; k < 2000; k++)
        sink += (uint64_t) histogram_decode (h, buf, (size_t) encoded);
    double decode_us = (now_ns () - t0) / 2000 / 1000.0;

    if (json)
        printf ("{\"record_ns_per_op\":%.3f,\"fio_style_record_ns_per_op\":%.3f,"
                "\"record_ratio_vs_fio_style\":%.3f,\"max_rel_error_pct\":%.4f,"
                "\"merge_us\":%.3f,\"encoded_bytes\":%d}\n",
                record_ns, fio_ns, record_ns / fio_ns, err * 100, merge_us, encoded);
    else {
        printf ("histogram bench (%u buckets, %zu-byte struct)\n",
                HIST_NBUCKETS, sizeof (histogram_t));
        printf ("  record            %8.3f ns/op   (best of %d x %uM)\n",
                record_ns, RUNS, RECORDS / 1000000);
        printf ("  fio-style record  %8.3f ns/op   (peer: 64 sub-buckets, Welford mean/var)\n",
                fio_ns);
        printf ("  ratio             %8.3f         (iofleet / fio-style, lower is faster)\n",
                record_ns / fio_ns);
        printf ("  max rel error     %8.4f %%      (uniform %.4f, lognormal %.4f, bimodal %.4f)\n",
                err * 100, err_uniform * 100, err_lognormal * 100, err_bimodal * 100);
        printf ("  merge             %8.3f us\n", merge_us);
        printf ("  encoded size      %8d bytes  (1M lognormal samples, %u buckets used)\n",
                encoded, nonempty);
        printf ("  encode / decode   %8.3f / %.3f us\n", encode_us, decode_us);
    }
    //  Keeps sink alive without printing it.
    if (sink == 42)
        fputc ('\n', stderr);
    free (buf);
    free (v);
    free (pool);
    free (other);
    free (h);
    return 0;
}
