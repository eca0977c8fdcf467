/*  test_metrics.c: the latency histogram in Prometheus's buckets
    (controller/report/buckets.c): each bucket counts exactly the samples of at
    most its le (an edge of iofleet's own buckets, less 1 ns), cumulative,
    +Inf the count with overflow, _sum and _count exact; every edge 8 per
    power of two from 2^10 to 2^36 ns for the fleet, 1 for a target, and
    the target's buckets the fleet's summed.
*/
#include "buckets.h"
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The count of the line whose le is le_text, or -1. */
static long long
bucket (const char *text, const char *le_text)
{
    char key[128];
    snprintf (key, sizeof key, "le=\"%s\"} ", le_text);
    const char *p = strstr (text, key);
    return p ? atoll (p + strlen (key)) : -1;
}

/* h at split into f as the exposition's lines. */
static void
write_hist (FILE *f, const char *name, const char *labels, int split, const histogram_t *h)
{
    uint64_t slots[BUCKETS_SLOTS (BUCKETS_FLEET)] = { 0 };
    buckets_add (split, h, slots);
    buckets_write (f, name, labels, split, slots, h->count, h->sum);
}

int
main (void)
{
    histogram_t h;
    histogram_reset (&h);
    /* 1023 ns: the first bucket (le 1023 ns); 1024: the next (le 1151);
       1151 there too; 1152 the one after; 5 ms; 100 s beyond the last
       edge (2^36 ns); 2^41 ns overflows iofleet's own range. */
    uint64_t v[] = { 500, 1023, 1024, 1151, 1152, 5000000, 100000000000ull, 1ull << 41 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        histogram_record (&h, v[i]);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    write_hist (f, "x_seconds", "a=\"b\"", BUCKETS_FLEET, &h);
    fclose (f);
    CHECK (bucket (text, "0.000001023") == 2);
    CHECK (bucket (text, "0.000001151") == 4);
    CHECK (bucket (text, "0.000001279") == 5);
    /* 5 ms = 4882.8 x 1024 ns: in 2^22 = 4194304 .. 2^23; the edge 4194304 x 1.25 =
       5242880 holds it, 4194304 x 1.125 = 4718592 does not. */
    CHECK (bucket (text, "0.004718591") == 5);
    CHECK (bucket (text, "0.005242879") == 6);
    CHECK (bucket (text, "68.719476735") == 6);        /* the last edge, 2^36 - 1 ns */
    CHECK (bucket (text, "+Inf") == 8);
    CHECK (strstr (text, "x_seconds_count{a=\"b\"} 8\n") != NULL);
    uint64_t sum = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        sum += v[i];
    char want[128];
    snprintf (want, sizeof want, "x_seconds_sum{a=\"b\"} %" PRIu64 ".%09" PRIu64 "\n",
              sum / 1000000000u, sum % 1000000000u);
    CHECK_MSG (strstr (text, want) != NULL, "no '%s'", want);
    /* 26 powers of two x 8, the last edge, +Inf. */
    int n = 0;
    for (const char *p = text; (p = strstr (p, "x_seconds_bucket{")); p++)
        n++;
    CHECK_MSG (n == 26 * 8 + 2, "%d buckets", n);
    /* Cumulative: never decreasing. */
    long long last = -1;
    for (const char *p = text; (p = strstr (p, "x_seconds_bucket{")); p++) {
        long long c = atoll (strstr (p, "} ") + 2);
        CHECK (c >= last);
        last = c;
    }
    free (text);
    /* Without labels: no empty braces, which the format does not allow on
       _sum and _count. */
    text = NULL;
    f = open_memstream (&text, &len);
    write_hist (f, "y_seconds", "", BUCKETS_FLEET, &h);
    fclose (f);
    CHECK (strstr (text, "y_seconds_count 8\n") && strstr (text, "y_seconds_bucket{le=\"+Inf\"} 8\n")
           && !strstr (text, "{}"));
    free (text);

    /* A target's buckets, a power of two each: every one the fleet's
       bucket of the same le, so the two agree where they meet. */
    char *fine = NULL, *coarse = NULL;
    size_t fl = 0, cl = 0;
    f = open_memstream (&fine, &fl);
    write_hist (f, "z_seconds", "", BUCKETS_FLEET, &h);
    fclose (f);
    f = open_memstream (&coarse, &cl);
    write_hist (f, "z_seconds", "", BUCKETS_TARGET, &h);
    fclose (f);
    n = 0;
    for (const char *p = coarse; (p = strstr (p, "z_seconds_bucket{le=\"")); p++) {
        char le[32];
        CHECK (sscanf (p, "z_seconds_bucket{le=\"%31[^\"]", le) == 1);
        CHECK_MSG (bucket (coarse, le) == bucket (fine, le), "le %s: %lld against %lld", le,
                   bucket (coarse, le), bucket (fine, le));
        n++;
    }
    CHECK_MSG (n == 26 + 2, "%d buckets at a power of two each", n);
    CHECK (bucket (coarse, "0.000001023") == 2 && bucket (coarse, "0.000002047") == 5
           && bucket (coarse, "0.008388607") == 6);
    free (fine);
    free (coarse);
    /* Two targets written with the span both need: every le written is
       the full write's, and every one left out is 0 in both (below) or
       the count without overflow (above). */
    histogram_t a, b;
    histogram_reset (&a);
    histogram_reset (&b);
    histogram_record (&a, 20000);           /* 2^14..2^15 */
    histogram_record (&a, 300000);          /* 2^18..2^19 */
    histogram_record (&b, 70000);           /* 2^16..2^17 */
    histogram_record (&b, 5000000);         /* 2^22..2^23 */
    uint64_t sa[BUCKETS_SLOTS (BUCKETS_TARGET)] = { 0 }, sb[BUCKETS_SLOTS (BUCKETS_TARGET)] = { 0 };
    buckets_add (BUCKETS_TARGET, &a, sa);
    buckets_add (BUCKETS_TARGET, &b, sb);
    int lo = -1, hi = -1;
    buckets_span (BUCKETS_TARGET, sa, &lo, &hi);
    buckets_span (BUCKETS_TARGET, sb, &lo, &hi);
    /* Edge k is 2^(10+k): the first samples below edge 5 (2^15), so from
       edge 4 (2^14, 0 there); the last below edge 13 (2^23). */
    CHECK_MSG (lo == 4 && hi == 13, "span %d..%d", lo, hi);
    char *part = NULL, *whole = NULL;
    size_t pl = 0, wl = 0;
    f = open_memstream (&part, &pl);
    buckets_write_range (f, "t", "", BUCKETS_TARGET, sa, a.count, a.sum, lo, hi);
    fclose (f);
    f = open_memstream (&whole, &wl);
    buckets_write (f, "t", "", BUCKETS_TARGET, sa, a.count, a.sum);
    fclose (f);
    n = 0;
    for (const char *p = whole; (p = strstr (p, "t_bucket{le=\"")); p++) {
        char le[32];
        CHECK (sscanf (p, "t_bucket{le=\"%31[^\"]", le) == 1);
        long long in_part = bucket (part, le), in_whole = bucket (whole, le);
        if (in_part >= 0) {
            CHECK_MSG (in_part == in_whole, "le %s", le);
            n++;
        } else
            CHECK_MSG (in_whole == 0 || in_whole == (long long) a.count, "le %s left out: %lld",
                       le, in_whole);
    }
    CHECK_MSG (n == hi - lo + 1 + 1, "%d of the edges written (and +Inf)", n);
    CHECK (strstr (part, "t_count 2\n") && bucket (part, "0.000016383") == 0
           && bucket (part, "0.008388607") == 2 && bucket (part, "0.000008191") == -1);
    free (part);
    free (whole);
    /* None with samples: +Inf alone. */
    uint64_t none[BUCKETS_SLOTS (BUCKETS_TARGET)] = { 0 };
    part = NULL;
    f = open_memstream (&part, &pl);
    lo = hi = -1;
    buckets_span (BUCKETS_TARGET, none, &lo, &hi);
    buckets_write_range (f, "u", "", BUCKETS_TARGET, none, 0, 0, lo, hi);
    fclose (f);
    CHECK (lo == -1 && strcmp (part, "u_bucket{le=\"+Inf\"} 0\nu_sum 0.000000000\nu_count 0\n") == 0);
    free (part);
    /* Each of iofleet's buckets in the slot of the first edge above it. */
    const uint8_t *slot = buckets_slots (BUCKETS_TARGET);
    CHECK (slot[histogram_index (1023)] == 0 && slot[histogram_index (1024)] == 1
           && slot[histogram_index (2047)] == 1 && slot[histogram_index (2048)] == 2);
    CHECK (slot[histogram_index ((1ull << 36) - 1)] == 26
           && slot[histogram_index (1ull << 36)] == 27);
    return TEST_DONE ();
}
