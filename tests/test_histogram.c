/*  test_histogram.c: unit tests for common/histogram.c.

    Loops over many cases count their failures and CHECK once, naming the
    first bad case, so the check count stays a count of properties.
*/
#include "histogram.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>

#define NSAMPLES    200000
#define LIMIT       ((uint64_t) 1 << HIST_MAX_BITS)

//  splitmix64: fixed seed, so every run tests the same samples.
static unsigned long long rng_state = 0x10f1ee7u;

static uint64_t
rng_next (void)
{
    return test_splitmix64 (&rng_state);
}

//  Uniform in [0, 1).
static double
rng_unit (void)
{
    return (double) (rng_next () >> 11) * 0x1p-53;
}

//  Standard normal, Box-Muller; 1 - u keeps log's argument in (0, 1].
static double
rng_normal (void)
{
    double u1 = 1.0 - rng_unit (), u2 = rng_unit ();
    return sqrt (-2.0 * log (u1)) * cos (2.0 * M_PI * u2);
}

static uint64_t
gen_uniform (void)
{
    //  [1 us, 10 ms]
    return 1000 + (uint64_t) (rng_unit () * (10000000.0 - 1000.0 + 1.0));
}

static uint64_t
gen_lognormal (void)
{
    //  median 100 us, sigma 1.0
    return (uint64_t) llround (100000.0 * exp (rng_normal ()));
}

static uint64_t
gen_bimodal (void)
{
    //  90% cache hits around 50 us, 10% misses around 5 ms: p90 sits on the
    //  cliff, so a rank off by one shows as a 100x error.
    double mode = rng_unit () < 0.9 ? 50000.0 : 5000000.0;
    return (uint64_t) llround (mode * exp (0.1 * rng_normal ()));
}

static int
cmp_u64 (const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x > y) - (x < y);
}

static histogram_t *
hist_new (void)
{
    histogram_t *h = malloc (sizeof *h);
    if (!h) {
        perror ("malloc");
        exit (2);
    }
    histogram_reset (h);
    return h;
}

static bool
hist_is_empty (const histogram_t *h)
{
    histogram_t *e = hist_new ();
    bool same = histogram_equal (h, e);
    free (e);
    return same;
}

//  ----------------------------------------------------------------------
//  Bucket layout

static void
test_buckets (void)
{
    uint32_t bad_range = 0, bad_contig = 0, bad_ratio = 0, bad_small = 0;
    uint32_t first_bad = UINT32_MAX;
    CHECK (histogram_bucket_low (0) == 0);
    for (uint32_t i = 0; i < HIST_NBUCKETS; i++) {
        uint64_t low = histogram_bucket_low (i);
        uint64_t width = histogram_bucket_width (i);
        bool bad = false;
        if (width == 0
        ||  histogram_index (low) != i
        ||  histogram_index (low + width - 1) != i) {
            bad_range++;
            bad = true;
        }
        if (histogram_bucket_low (i + 1) != low + width) {
            bad_contig++;
            bad = true;
        }
        if (i < 2 * HIST_SUB && (low != i || width != 1)) {
            bad_small++;
            bad = true;
        }
        //  width / low <= 1/128
        if (i >= 2 * HIST_SUB && width * HIST_SUB > low) {
            bad_ratio++;
            bad = true;
        }
        if (bad && first_bad == UINT32_MAX)
            first_bad = i;
    }
    CHECK_MSG (bad_range == 0, "%u buckets, first %u", bad_range, first_bad);
    CHECK_MSG (bad_contig == 0, "%u buckets, first %u", bad_contig, first_bad);
    CHECK_MSG (bad_small == 0, "%u buckets, first %u", bad_small, first_bad);
    CHECK_MSG (bad_ratio == 0, "%u buckets, first %u", bad_ratio, first_bad);

    //  The last bucket ends exactly where overflow begins.
    uint32_t last = HIST_NBUCKETS - 1;
    CHECK (histogram_index (LIMIT - 1) == last);
    CHECK (histogram_bucket_low (last) + histogram_bucket_width (last) == LIMIT);
    //  Past the end: documented values, no undefined shift.
    CHECK (histogram_bucket_low (HIST_NBUCKETS) == LIMIT);
    CHECK (histogram_bucket_width (HIST_NBUCKETS) == 0);
    CHECK (histogram_bucket_low (UINT32_MAX) == LIMIT);
    CHECK (histogram_bucket_width (UINT32_MAX) == 0);

    //  Random values of every magnitude land in a bucket that holds them.
    uint32_t bad_value = 0;
    uint64_t first_value = 0;
    for (int k = 0; k < 1000000; k++) {
        uint64_t v = rng_next () >> (64 - HIST_MAX_BITS + rng_next () % HIST_MAX_BITS);
        uint32_t i = histogram_index (v);
        uint64_t low = histogram_bucket_low (i);
        if (i >= HIST_NBUCKETS || v < low || v >= low + histogram_bucket_width (i)) {
            if (bad_value++ == 0)
                first_value = v;
        }
    }
    CHECK_MSG (bad_value == 0, "%u values, first %llu", bad_value,
               (unsigned long long) first_value);
}

//  ----------------------------------------------------------------------
//  Percentile ranks, exact where buckets are one value wide

static void
test_percentile_ranks (void)
{
    histogram_t *h = hist_new ();
    CHECK (histogram_percentile (h, 50) == 0);
    CHECK (histogram_mean (h) == 0);
    CHECK (histogram_stddev (h) == 0);

    //  Samples 0..n-1 each once: percentile p must be sample rank - 1 with
    //  rank = ceil(p/100 * n), computed here in integers for p = t/10.
    //  Floating-point p (99.6 is not exact) must not shift the rank.
    static const uint64_t sizes [] = { 1, 7, 200, 250, 256 };
    uint32_t bad = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes [0]; s++) {
        uint64_t n = sizes [s];
        histogram_reset (h);
        for (uint64_t v = 0; v < n; v++)
            histogram_record (h, v);
        for (uint64_t t = 1; t <= 1000; t++) {
            uint64_t rank = (t * n + 999) / 1000;
            uint64_t got = histogram_percentile (h, (double) t / 10.0);
            if (got != rank - 1 && bad++ == 0)
                fprintf (stderr, "n=%llu p=%.1f: got %llu want %llu\n",
                         (unsigned long long) n, (double) t / 10.0,
                         (unsigned long long) got, (unsigned long long) rank - 1);
        }
    }
    CHECK_MSG (bad == 0, "%u percentiles off", bad);

    //  Out-of-range p: clamps to rank 1 and rank N.
    histogram_reset (h);
    for (uint64_t v = 10; v < 20; v++)
        histogram_record (h, v);
    CHECK (histogram_percentile (h, 0) == 10);
    CHECK (histogram_percentile (h, -5) == 10);
    CHECK (histogram_percentile (h, NAN) == 10);
    CHECK (histogram_percentile (h, 100) == 19);
    CHECK (histogram_percentile (h, 1000) == 19);

    //  One sample: the midpoint is clamped to [min, max], so it's exact.
    histogram_reset (h);
    histogram_record (h, 1234567);
    CHECK (histogram_percentile (h, 1) == 1234567);
    CHECK (histogram_percentile (h, 50) == 1234567);
    CHECK (histogram_percentile (h, 100) == 1234567);
    free (h);
}

//  ----------------------------------------------------------------------
//  Mean and stddev on awkward inputs

static void
test_moments (void)
{
    histogram_t *h = hist_new ();
    for (int k = 0; k < 1000; k++)
        histogram_record (h, 777777);
    CHECK (histogram_mean (h) == 777777.0);
    CHECK (histogram_stddev (h) == 0.0);

    //  2^50 + {0, 1, 2}: variance 2/3.  sumsq/N - mean^2 in doubles gives
    //  garbage here (the terms are ~2^100).
    histogram_reset (h);
    for (uint64_t d = 0; d < 3; d++)
        histogram_record (h, ((uint64_t) 1 << 50) + d);
    CHECK (histogram_mean (h) == (double) (((uint64_t) 1 << 50) + 1));
    CHECK_MSG (fabs (histogram_stddev (h) - sqrt (2.0 / 3.0)) < 1e-12,
               "stddev %.17g", histogram_stddev (h));

    //  1 ms +- 1 ns, a million times: stddev exactly 1.
    histogram_reset (h);
    for (int k = 0; k < 1000000; k++)
        histogram_record (h, 1000000 + (k & 1 ? 1 : -1));
    CHECK (histogram_mean (h) == 1000000.0);
    CHECK_MSG (histogram_stddev (h) == 1.0, "stddev %.17g", histogram_stddev (h));

    //  decode doesn't vouch for sumsq (sums may legitimately wrap), so a
    //  forged sumsq < sum^2 / N must give 0, not sqrt of a wrapped number.
    histogram_reset (h);
    histogram_record (h, 1000);
    histogram_record (h, 3000);
    h->sumsq = 0;
    CHECK (histogram_stddev (h) == 0.0);
    free (h);
}

//  ----------------------------------------------------------------------
//  Distributions: percentiles, exact figures, merge, round trip

typedef struct {
    const char *name;
    uint64_t (*gen) (void);
} dist_t;

static void
test_distribution (const dist_t *d)
{
    uint64_t *v = malloc (NSAMPLES * sizeof *v);
    histogram_t *all = hist_new (), *a = hist_new (), *b = hist_new ();
    if (!v)
        exit (2);
    for (size_t k = 0; k < NSAMPLES; k++) {
        v [k] = d->gen ();
        histogram_record (all, v [k]);
        //  An uneven split, so merge sees different shapes.
        histogram_record (k % 3 ? b : a, v [k]);
    }
    CHECK (all->count == NSAMPLES);
    CHECK (all->overflow == 0);

    //  Exact figures, from the samples in wider arithmetic.
    uint64_t sum = 0, min = UINT64_MAX, max = 0;
    for (size_t k = 0; k < NSAMPLES; k++) {
        sum += v [k];
        min = v [k] < min ? v [k] : min;
        max = v [k] > max ? v [k] : max;
    }
    long double mean = (long double) sum / NSAMPLES, m2 = 0;
    for (size_t k = 0; k < NSAMPLES; k++)
        m2 += ((long double) v [k] - mean) * ((long double) v [k] - mean);
    double stddev = (double) sqrtl (m2 / NSAMPLES);
    CHECK_MSG (all->sum == sum && all->min == min && all->max == max, "%s", d->name);
    CHECK_MSG (fabs (histogram_mean (all) - (double) mean) <= 1e-9 * (double) mean,
               "%s: mean %.17g want %.17g", d->name, histogram_mean (all), (double) mean);
    CHECK_MSG (fabs (histogram_stddev (all) - stddev) <= 1e-6 * stddev,
               "%s: stddev %.17g want %.17g", d->name, histogram_stddev (all), stddev);

    //  Percentiles against the sorted samples.  p in parts per million so
    //  the exact rank is integer arithmetic.
    qsort (v, NSAMPLES, sizeof *v, cmp_u64);
    static const uint64_t ppm [] = {
        10000, 500000, 900000, 950000, 990000, 999000, 999900, 1000000
    };
    double worst = 0;
    for (size_t k = 0; k < sizeof ppm / sizeof ppm [0]; k++) {
        double p = (double) ppm [k] / 10000.0;
        uint64_t rank = (ppm [k] * NSAMPLES + 999999) / 1000000;
        uint64_t exact = v [rank - 1];
        uint64_t got = histogram_percentile (all, p);
        double err = fabs ((double) got - (double) exact) / (double) exact;
        CHECK_MSG (err <= 0.01, "%s p%g: got %llu exact %llu (%.3f%%)", d->name, p,
                   (unsigned long long) got, (unsigned long long) exact, err * 100);
        if (err > worst)
            worst = err;
    }
    //  The header's tighter claim: half a bucket, at most 1/256 of the value.
    CHECK_MSG (worst <= 1.0 / 256, "%s: worst %.4f%%", d->name, worst * 100);

    //  Merge equals recording everything into one, in either order.
    histogram_t *ba = hist_new ();
    histogram_merge (ba, b);
    histogram_merge (ba, a);
    histogram_merge (a, b);
    CHECK_MSG (histogram_equal (a, all), "%s: merge(a, b)", d->name);
    CHECK_MSG (histogram_equal (ba, all), "%s: merge(b, a)", d->name);
    //  Merging the empty histogram changes nothing.
    histogram_reset (b);
    histogram_merge (a, b);
    CHECK (histogram_equal (a, all));

    //  Round trip.
    uint8_t *buf = malloc (HIST_WIRE_MAX);
    if (!buf)
        exit (2);
    int len = histogram_encode (all, buf, HIST_WIRE_MAX);
    CHECK_MSG (len > 0 && (size_t) len <= HIST_WIRE_MAX, "%s: len %d", d->name, len);
    histogram_record (b, 42);           //  decode must overwrite, not add
    CHECK (histogram_decode (b, buf, (size_t) len) == 0);
    CHECK_MSG (histogram_equal (b, all), "%s: round trip", d->name);

    //  decode_add equals decode + merge; check counts without decoding;
    //  clear leaves exactly the empty histogram (every bucket zero).
    histogram_t *da = hist_new (), *want = hist_new ();
    histogram_record (da, 7);
    histogram_record (da, 123456789);
    histogram_record (want, 7);
    histogram_record (want, 123456789);
    histogram_merge (want, all);
    CHECK_MSG (histogram_decode_add (da, buf, (size_t) len) == 0 && histogram_equal (da, want),
               "%s: decode_add", d->name);
    //  Read once, added twice: what decode_add twice makes.
    histogram_parsed_t *hp = malloc (sizeof *hp);
    histogram_t *pa = hist_new (), *pb = hist_new ();
    if (!hp)
        exit (2);
    CHECK_MSG (histogram_parse (buf, (size_t) len, hp) == 0, "%s: parse", d->name);
    histogram_add_parsed (pa, hp);
    histogram_add_parsed (pa, hp);
    CHECK (histogram_decode_add (pb, buf, (size_t) len) == 0
           && histogram_decode_add (pb, buf, (size_t) len) == 0);
    CHECK_MSG (histogram_equal (pa, pb) && pa->count == 2 * all->count, "%s: add_parsed",
               d->name);
    CHECK (histogram_parse (buf, (size_t) len - 1, hp) == -EINVAL);
    free (hp);
    free (pa);
    free (pb);
    uint64_t cnt = 0;
    CHECK_MSG (histogram_check (buf, (size_t) len, &cnt) == 0 && cnt == all->count,
               "%s: check count %llu", d->name, (unsigned long long) cnt);
    histogram_t *empty = hist_new ();
    histogram_clear (da);
    CHECK_MSG (memcmp (da, empty, sizeof *da) == 0, "%s: clear", d->name);
    histogram_t *zero = calloc (1, sizeof *zero);
    if (!zero)
        exit (2);
    histogram_clear (zero);             //  all zero bytes: becomes the empty one
    CHECK (memcmp (zero, empty, sizeof *zero) == 0);
    free (zero);
    CHECK (histogram_decode_add (da, buf, (size_t) len) == 0 && histogram_equal (da, all));
    //  A malformed buffer adds nothing.
    memcpy (want, da, sizeof *da);
    CHECK (histogram_decode_add (da, buf, (size_t) len - 1) == -EINVAL);
    CHECK (histogram_check (buf, (size_t) len - 1, NULL) == -EINVAL);
    CHECK_MSG (memcmp (da, want, sizeof *da) == 0, "%s: failed decode_add changed h", d->name);
    free (da);
    free (want);
    free (empty);

    //  Every smaller capacity is -ENOSPC, never an overrun (ASan watches
    //  the copy that is exactly cap bytes long).
    uint32_t bad = 0;
    for (int cap = 0; cap < len; cap++) {
        uint8_t *tight = malloc (cap ? (size_t) cap : 1);
        if (!tight)
            exit (2);
        if (histogram_encode (all, tight, (size_t) cap) != -ENOSPC)
            bad++;
        free (tight);
    }
    CHECK_MSG (bad == 0, "%s: %u capacities", d->name, bad);

    //  Every truncation is rejected and leaves the target reset.  Each prefix
    //  is copied to its own allocation so a read past it trips ASan.
    bad = 0;
    for (int cut = 0; cut < len; cut++) {
        uint8_t *prefix = malloc (cut ? (size_t) cut : 1);
        if (!prefix)
            exit (2);
        memcpy (prefix, buf, (size_t) cut);
        histogram_record (b, 42);
        if (histogram_decode (b, prefix, (size_t) cut) != -EINVAL || !hist_is_empty (b))
            bad++;
        free (prefix);
    }
    CHECK_MSG (bad == 0, "%s: %u truncations accepted", d->name, bad);

    free (buf);
    free (ba);
    free (a);
    free (b);
    free (all);
    free (v);
}

//  ----------------------------------------------------------------------
//  Overflow

static void
test_overflow (void)
{
    histogram_t *h = hist_new ();
    uint64_t big = (uint64_t) 1 << 50;
    for (int k = 0; k < 97; k++)
        histogram_record (h, 1000 + k);
    histogram_record (h, LIMIT - 1);    //  last bucket, not overflow
    histogram_record (h, LIMIT);
    histogram_record (h, LIMIT + 12345);
    histogram_record (h, big);
    CHECK (h->count == 101);
    CHECK (h->overflow == 3);
    CHECK (h->buckets[HIST_NBUCKETS - 1] == 1);
    CHECK (h->max == big);
    CHECK (histogram_percentile (h, 100) == big);
    //  Ranks 99..101 are overflow samples, all reported as max.
    CHECK (histogram_percentile (h, 98.5) == big);
    CHECK (histogram_percentile (h, 97.1) == big);
    //  Rank 98 is the last bucket's sample: its midpoint, within 1/256.
    uint64_t p97 = histogram_percentile (h, 97);
    CHECK_MSG (p97 < LIMIT && (double) (LIMIT - 1 - p97) <= (double) LIMIT / 256,
               "p97 %llu", (unsigned long long) p97);
    //  Rank 51 is 1050, in the 8-wide bucket [1048, 1056): midpoint 1052.
    CHECK (histogram_percentile (h, 50) == 1052);

    //  Round trip, including a 10-byte varint and sumsq's high word.
    histogram_record (h, UINT64_MAX);
    uint8_t buf [HIST_WIRE_MAX];
    histogram_t *g = hist_new ();
    int len = histogram_encode (h, buf, sizeof buf);
    CHECK (len > 0);
    CHECK (histogram_decode (g, buf, (size_t) len) == 0);
    CHECK (histogram_equal (g, h));
    CHECK (g->max == UINT64_MAX && histogram_percentile (g, 100) == UINT64_MAX);

    //  Merge and clear visit the buckets min..max span, the last bucket
    //  included when anything overflowed.
    histogram_t *m = hist_new (), *empty = hist_new ();
    histogram_merge (m, h);
    CHECK (histogram_equal (m, h) && m->buckets[HIST_NBUCKETS - 1] == 1);
    CHECK (histogram_decode_add (m, buf, (size_t) len) == 0 && m->count == 2 * h->count
           && m->buckets[HIST_NBUCKETS - 1] == 2 && m->overflow == 2 * h->overflow);
    histogram_clear (m);
    CHECK (memcmp (m, empty, sizeof *m) == 0);
    free (m);
    free (empty);

    //  Only overflow samples.
    histogram_reset (h);
    histogram_record (h, LIMIT + 1);
    histogram_record (h, LIMIT + 2);
    CHECK (histogram_percentile (h, 1) == LIMIT + 2);
    len = histogram_encode (h, buf, sizeof buf);
    CHECK (histogram_decode (g, buf, (size_t) len) == 0 && histogram_equal (g, h));

    //  60 s is well inside the range and keeps bucket precision.
    histogram_reset (h);
    histogram_record (h, 60000000000ull);
    histogram_record (h, 70000000000ull);
    CHECK (h->overflow == 0);
    uint64_t p = histogram_percentile (h, 50);
    CHECK_MSG (fabs ((double) p - 6e10) <= 0.01 * 6e10, "p50 %llu", (unsigned long long) p);
    CHECK (histogram_percentile (h, 100) == 70000000000ull);
    free (g);
    free (h);
}

//  ----------------------------------------------------------------------
//  Encoding: empty, worst case, hand-built hostile buffers

typedef struct {
    uint8_t b [128];
    size_t n;
} wbuf_t;

static void
wb_byte (wbuf_t *w, uint8_t byte)
{
    if (w->n < sizeof w->b)
        w->b [w->n++] = byte;
}

static void
wb_varint (wbuf_t *w, uint64_t v)
{
    do {
        wb_byte (w, (uint8_t) ((v & 0x7f) | (v >> 7 ? 0x80 : 0)));
        v >>= 7;
    } while (v);
}

//  Version 1 and the header; pairs follow with wb_varint.
static void
wb_head (wbuf_t *w, uint64_t count, uint64_t overflow, uint64_t min, uint64_t max,
         uint64_t sum, uint64_t sqlo, uint64_t sqhi, uint64_t npairs)
{
    w->n = 0;
    wb_byte (w, 1);
    uint64_t f [] = { count, overflow, min, max, sum, sqlo, sqhi, npairs };
    for (size_t k = 0; k < 8; k++)
        wb_varint (w, f [k]);
}

//  Decodes w into a fresh allocation of exactly w->n bytes (so ASan sees
//  over-reads) with a dirty target.  Returns decode's result; when it fails,
//  also requires the target left reset.
static int
try_decode (const wbuf_t *w)
{
    uint8_t *copy = malloc (w->n ? w->n : 1);
    histogram_t *h = hist_new ();
    if (!copy)
        exit (2);
    memcpy (copy, w->b, w->n);
    histogram_record (h, 5);
    int rc = histogram_decode (h, copy, w->n);
    if (rc && !hist_is_empty (h))
        rc = 1;                         //  not reset: fails every check
    free (h);
    free (copy);
    return rc;
}

static void
test_encoding (void)
{
    histogram_t *h = hist_new (), *g = hist_new ();
    uint8_t buf [HIST_WIRE_MAX];

    //  Empty: version + 8 zero varints, and back.
    int len = histogram_encode (h, buf, sizeof buf);
    CHECK (len == 9);
    histogram_record (g, 3);
    CHECK (histogram_decode (g, buf, (size_t) len) == 0);
    CHECK (hist_is_empty (g));
    CHECK (g->min == UINT64_MAX);
    CHECK (histogram_encode (h, buf, 0) == -ENOSPC);

    //  Worst case, even for contents record() can't produce: HIST_WIRE_MAX
    //  still suffices.
    for (uint32_t i = 0; i < HIST_NBUCKETS; i++)
        h->buckets[i] = UINT64_MAX;
    h->count = h->overflow = h->max = h->sum = UINT64_MAX;
    h->min = 0;                 //  the buckets min..max span: all of them
    h->sumsq = ~(unsigned __int128) 0;
    len = histogram_encode (h, buf, sizeof buf);
    CHECK_MSG (len > 0 && (size_t) len <= HIST_WIRE_MAX, "len %d", len);
    CHECK (histogram_decode (g, buf, (size_t) len) == -EINVAL);   //  counts overflow

    //  The hand-built baseline must decode, or the rejections prove nothing.
    wbuf_t w;
    uint32_t i1000 = histogram_index (1000);
    wb_head (&w, 1, 0, 1000, 1000, 1000, 1000000, 0, 1);
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == 0);
    histogram_reset (h);
    histogram_record (h, 1000);
    CHECK (histogram_decode (g, w.b, w.n) == 0 && histogram_equal (g, h));

    //  Empty buffer, NULL included.
    CHECK (histogram_decode (g, NULL, 0) == -EINVAL && hist_is_empty (g));
    w.n = 0;
    CHECK (try_decode (&w) == -EINVAL);

    //  Wrong version.
    static const uint8_t versions [] = { 0, 2, 0x81, 0xff };
    for (size_t k = 0; k < sizeof versions; k++) {
        wb_head (&w, 1, 0, 1000, 1000, 1000, 1000000, 0, 1);
        wb_varint (&w, i1000);
        wb_varint (&w, 1);
        w.b [0] = versions [k];
        CHECK_MSG (try_decode (&w) == -EINVAL, "version %u", versions [k]);
    }

    //  Trailing byte.
    wb_head (&w, 1, 0, 1000, 1000, 1000, 1000000, 0, 1);
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    wb_byte (&w, 0);
    CHECK (try_decode (&w) == -EINVAL);

    //  Index out of range: directly, by a wrapping gap, and by a second gap.
    uint64_t lim = LIMIT;
    wb_head (&w, 1, 0, lim - 1, lim - 1, lim - 1, 0, 0, 1);
    wb_varint (&w, HIST_NBUCKETS - 1);      //  the last index is fine...
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == 0);
    wb_head (&w, 1, 0, lim - 1, lim - 1, lim - 1, 0, 0, 1);
    wb_varint (&w, HIST_NBUCKETS);          //  ...one more is not
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 1, 0, 1000, 1000, 1000, 1000000, 0, 1);
    wb_varint (&w, UINT64_MAX);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 2, 0, 1000, 1000, 2000, 2000000, 0, 2);
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    wb_varint (&w, HIST_NBUCKETS - i1000 - 1);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);
    //  next + gap wrapping back to the previous index would name it twice.
    wb_head (&w, 2, 0, 1000, 1000, 2000, 2000000, 0, 2);
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    wb_varint (&w, UINT64_MAX);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);

    //  More pairs announced than buckets exist.
    wb_head (&w, 1, 0, 1000, 1000, 1000, 1000000, 0, HIST_NBUCKETS + 1);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 1, 0, 1000, 1000, 1000, 1000000, 0, UINT64_MAX);
    CHECK (try_decode (&w) == -EINVAL);

    //  Count mismatch, both ways, and through overflow.
    wb_head (&w, 2, 0, 1000, 1000, 1000, 1000000, 0, 1);
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 1, 0, 1000, 1000, 1000, 1000000, 0, 1);
    wb_varint (&w, i1000);
    wb_varint (&w, 2);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 1, 1, 1000, lim, 1000, 1000000, 0, 1);
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);

    //  Zero count in a pair.
    //  (max is put in the empty bucket so that no other rule objects.)
    wb_head (&w, 1, 0, 1000, histogram_bucket_low (i1000 + 1), 1000, 1000000, 0, 2);
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    wb_varint (&w, 0);
    wb_varint (&w, 0);
    CHECK (try_decode (&w) == -EINVAL);

    //  Sums of counts that wrap to match a forged count of 1, otherwise
    //  consistent: only the overflow check can object.
    uint64_t m = histogram_bucket_low (i1000 - 1);
    wb_head (&w, 1, 0, m, 1000, 0, 0, 0, 2);
    wb_varint (&w, i1000 - 1);
    wb_varint (&w, (uint64_t) 1 << 63);
    wb_varint (&w, 0);
    wb_varint (&w, ((uint64_t) 1 << 63) + 1);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 1, 2, 1000, lim, 0, 0, 0, 1);
    wb_varint (&w, i1000);
    wb_varint (&w, UINT64_MAX);
    CHECK (try_decode (&w) == -EINVAL);

    //  min > max, inside one wide bucket so only that rule can object.
    uint32_t iw = HIST_NBUCKETS - 1;
    uint64_t low = histogram_bucket_low (iw);
    wb_head (&w, 2, 0, low + 5, low + 3, 0, 0, 0, 1);
    wb_varint (&w, iw);
    wb_varint (&w, 2);
    CHECK (try_decode (&w) == -EINVAL);

    //  min / max outside the buckets they must be in.
    wb_head (&w, 1, 0, 999, 1000, 1000, 1000000, 0, 1);
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 1, 0, 1000, 5000, 1000, 1000000, 0, 1);
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 1, 0, 1000, lim, 1000, 1000000, 0, 1);   //  max overflowed, overflow 0
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 2, 1, 1000, 1000, 1000, 1000000, 0, 1);  //  overflow 1, max small
    wb_varint (&w, i1000);
    wb_varint (&w, 1);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 1, 1, 5, lim, lim, 0, 1, 0);             //  no buckets, min small
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 1, 1, lim, lim, lim, 0, 1, 0);           //  same, min right
    CHECK (try_decode (&w) == 0);

    //  The empty histogram has one encoding.
    wb_head (&w, 0, 0, 0, 0, 0, 0, 0, 0);
    CHECK (try_decode (&w) == 0);
    wb_head (&w, 0, 0, UINT64_MAX, 0, 0, 0, 0, 0);
    CHECK (try_decode (&w) == -EINVAL);
    wb_head (&w, 0, 0, 0, 0, 7, 0, 0, 0);
    CHECK (try_decode (&w) == -EINVAL);

    //  Varints: 11 bytes, bits past 64, non-minimal.
    w.n = 0;
    wb_byte (&w, 1);
    for (int k = 0; k < 10; k++)
        wb_byte (&w, 0x80);
    wb_byte (&w, 0);
    for (int k = 0; k < 7; k++)
        wb_byte (&w, 0);
    CHECK (try_decode (&w) == -EINVAL);
    //  2^64 as count of an otherwise valid empty encoding: must not wrap to 0.
    w.n = 0;
    wb_byte (&w, 1);
    for (int k = 0; k < 9; k++)
        wb_byte (&w, 0x80);
    wb_byte (&w, 0x02);
    for (int k = 0; k < 7; k++)
        wb_byte (&w, 0);
    CHECK (try_decode (&w) == -EINVAL);
    w.n = 0;
    wb_byte (&w, 1);
    wb_byte (&w, 0x80);             //  0 in two bytes
    wb_byte (&w, 0x00);
    for (int k = 0; k < 7; k++)
        wb_byte (&w, 0);
    CHECK (try_decode (&w) == -EINVAL);
    //  ... while the largest 10-byte varint is fine.
    wb_head (&w, 1, 1, UINT64_MAX, UINT64_MAX, UINT64_MAX, 1, UINT64_MAX - 1, 0);
    CHECK (w.n == 1 + 4 * 10 + 4 * 1);
    CHECK (try_decode (&w) == 0);

    free (g);
    free (h);
}

//  ----------------------------------------------------------------------
//  Garbage: must not crash (ASan/UBSan builds watch), and whatever decodes
//  must re-encode to the same bytes.

static void
test_garbage (void)
{
    histogram_t *h = hist_new (), *src = hist_new ();
    uint8_t *out = malloc (HIST_WIRE_MAX);
    if (!out)
        exit (2);
    for (int k = 0; k < 2000; k++)
        histogram_record (src, gen_lognormal ());
    histogram_record (src, LIMIT + 9);
    int vlen = histogram_encode (src, out, HIST_WIRE_MAX);
    uint8_t *valid = malloc ((size_t) vlen);
    if (!valid)
        exit (2);
    memcpy (valid, out, (size_t) vlen);

    uint32_t bad = 0, accepted = 0;
    for (int k = 0; k < 20000; k++) {
        size_t len;
        uint8_t *buf;
        if (k < 10000) {
            //  Random bytes; mostly with the right version to get past it.
            len = rng_next () % 300;
            buf = malloc (len ? len : 1);
            if (!buf)
                exit (2);
            for (size_t j = 0; j < len; j++)
                buf [j] = (uint8_t) rng_next ();
            if (len && k % 4)
                buf [0] = 1;
        }
        else {
            //  A valid encoding with a few bytes changed and maybe cut.
            len = (size_t) vlen;
            if (k % 3 == 0)
                len = rng_next () % len;
            buf = malloc (len ? len : 1);
            if (!buf)
                exit (2);
            memcpy (buf, valid, len);
            int flips = 1 + (int) (rng_next () % 3);
            for (int j = 0; j < flips && len; j++)
                buf [rng_next () % len] ^= (uint8_t) (1 + rng_next () % 255);
        }
        int rc = histogram_decode (h, buf, len);
        if (rc == 0) {
            accepted++;
            int n = histogram_encode (h, out, HIST_WIRE_MAX);
            if (n != (int) len || memcmp (out, buf, len))
                bad++;
        }
        else
        if (rc != -EINVAL || !hist_is_empty (h))
            bad++;
        free (buf);
    }
    CHECK_MSG (bad == 0, "%u garbage buffers mishandled (%u accepted)", bad, accepted);
    free (valid);
    free (out);
    free (src);
    free (h);
}

//  equal() must see every field.
static void
test_equal (void)
{
    histogram_t *a = hist_new (), *b = hist_new ();
    histogram_record (a, 100);
    histogram_record (a, 100000);
    memcpy (b, a, sizeof *a);
    CHECK (histogram_equal (a, b));
    b->buckets[5]++;
    CHECK (!histogram_equal (a, b));
    memcpy (b, a, sizeof *a);
    b->min--;
    CHECK (!histogram_equal (a, b));
    memcpy (b, a, sizeof *a);
    b->sumsq += (unsigned __int128) 1 << 64;
    CHECK (!histogram_equal (a, b));
    //  merge into itself doubles.
    memcpy (b, a, sizeof *a);
    histogram_merge (b, b);
    histogram_merge (a, a);
    CHECK (histogram_equal (a, b) && a->count == 4 && a->buckets[100] == 2);
    free (a);
    free (b);
}

static void
test_wire_split (void)
{
    //  Whatever histogram_encode wrote splits into its values, and the
    //  values join into the same bytes again.
    static uint64_t gaps [HIST_NBUCKETS], counts [HIST_NBUCKETS];
    static uint8_t buf [HIST_WIRE_MAX], again [HIST_WIRE_MAX], bent [HIST_WIRE_MAX + 2];
    uint64_t head [HIST_WIRE_HEAD];
    uint64_t seed = 12345;
    for (int round = 0; round < 200; round++) {
        histogram_t h;
        histogram_reset (&h);
        int samples = round * 7;
        for (int i = 0; i < samples; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            histogram_record (&h, (seed >> 20) % (round % 3 ? 5000000 : 2000000000000ULL));
        }
        int len = histogram_encode (&h, buf, sizeof buf);
        CHECK (len > 0);
        int n = histogram_wire_split (buf, (size_t) len, head, gaps, counts);
        CHECK_MSG (n >= 0 && (uint64_t) n == head [HIST_WIRE_HEAD - 1], "round %d: split %d",
                   round, n);
        if (n < 0)
            continue;
        int m = histogram_wire_join (head, gaps, counts, (size_t) n, again, sizeof again);
        CHECK (m == len && memcmp (again, buf, (size_t) len) == 0);

        //  What join would not write again is refused (stored whole): a
        //  longer varint than needed, a byte after the end, another
        //  version, one byte short.
        memcpy (bent, buf, (size_t) len);
        bent [len] = 0;
        CHECK (histogram_wire_split (bent, (size_t) len + 1, head, gaps, counts) == -1);
        CHECK (histogram_wire_split (buf, (size_t) len - 1, head, gaps, counts) == -1);
        bent [0] = (uint8_t) (buf [0] + 1);
        CHECK (histogram_wire_split (bent, (size_t) len, head, gaps, counts) == -1);
        //  The count (the first varint) as 0x80|low, 0x00: the same value,
        //  one byte longer.
        if (buf [1] < 0x80) {
            bent [0] = buf [0];
            bent [1] = (uint8_t) (buf [1] | 0x80);
            bent [2] = 0;
            memcpy (bent + 3, buf + 2, (size_t) len - 2);
            CHECK (histogram_wire_split (bent, (size_t) len + 1, head, gaps, counts) == -1);
        }
    }
}

int
main (void)
{
    static const dist_t dists [] = {
        { "uniform 1us..10ms", gen_uniform },
        { "lognormal 100us s=1", gen_lognormal },
        { "bimodal 50us/5ms", gen_bimodal },
    };
    test_buckets ();
    test_percentile_ranks ();
    test_moments ();
    for (size_t k = 0; k < sizeof dists / sizeof dists [0]; k++)
        test_distribution (&dists [k]);
    test_overflow ();
    test_encoding ();
    test_garbage ();
    test_wire_split ();
    test_equal ();
    return TEST_DONE ();
}
