/*  buckets.c: Prometheus's le buckets from iofleet's histogram, see
    buckets.h. */
#include "buckets.h"

#include <inttypes.h>
#include <pthread.h>
#include <string.h>

uint64_t
buckets_edge (int split, int k)
{
    int shift = split == 8 ? 3 : 0;
    int b = BUCKETS_LOW_BITS + (k >> shift);
    uint64_t j = (uint64_t) (k & (split - 1));
    return (1ull << b) + (shift ? j << (b - shift) : 0);
}

static uint8_t s_slots1[HIST_NBUCKETS], s_slots8[HIST_NBUCKETS];
/* Each edge's le text (the edge less 1 ns, in seconds), at split 1 and 8. */
static char s_le1[BUCKETS_EDGES (1)][24], s_le8[BUCKETS_EDGES (8)][24];
static pthread_once_t s_once = PTHREAD_ONCE_INIT;

/* Slot of bucket i: the first edge above its lowest value (the edges are
   edges of iofleet's buckets, so then above all of its values). */
static void
make_tables (void)
{
    for (int pass = 0; pass < 2; pass++) {
        int split = pass ? 8 : 1;
        uint8_t *t = pass ? s_slots8 : s_slots1;
        int k = 0, n = BUCKETS_EDGES (split);
        for (uint32_t i = 0; i < HIST_NBUCKETS; i++) {
            uint64_t low = histogram_bucket_low (i);
            while (k < n && buckets_edge (split, k) <= low)
                k++;
            t[i] = (uint8_t) k;
        }
        for (k = 0; k < n; k++) {
            uint64_t le = buckets_edge (split, k) - 1;
            snprintf (pass ? s_le8[k] : s_le1[k], sizeof s_le1[0], "%" PRIu64 ".%09" PRIu64,
                      le / 1000000000u, le % 1000000000u);
        }
    }
}

const uint8_t *
buckets_slots (int split)
{
    pthread_once (&s_once, make_tables);
    return split == 8 ? s_slots8 : s_slots1;
}

void
buckets_add (int split, const histogram_t *h, uint64_t *slots)
{
    if (h->count == h->overflow)
        return;
    const uint8_t *t = buckets_slots (split);
    uint64_t hi = h->max < (1ull << HIST_MAX_BITS) ? h->max : (1ull << HIST_MAX_BITS) - 1;
    for (uint32_t i = histogram_index (h->min), e = histogram_index (hi); i <= e; i++)
        slots[t[i]] += h->buckets[i];
}

void
buckets_span (int split, const uint64_t *slots, int *lo, int *hi)
{
    int n = BUCKETS_EDGES (split), first = -1, last = -1;
    for (int k = 0; k <= n; k++)
        if (slots[k]) {
            if (first < 0)
                first = k;
            last = k;
        }
    if (first < 0)
        return;
    /* The edge below the first samples (0 there): histogram_quantile
       interpolates from it. */
    int a = first > 0 ? first - 1 : 0, b = last < n ? last : n - 1;
    if (*lo < 0 || a < *lo)
        *lo = a;
    if (b > *hi)
        *hi = b;
}

/* Appends v's digits at p; returns the end.  Can't fail. */
static char *
put_u64 (char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char) ('0' + v % 10);
    while ((v /= 10));
    while (n)
        *p++ = tmp[--n];
    return p;
}

void
buckets_write_range (FILE *f, const char *name, const char *labels, int split,
                     const uint64_t *slots, uint64_t count, uint64_t sum_ns, int lo, int hi)
{
    pthread_once (&s_once, make_tables);
    const char (*les)[24] = split == 8 ? s_le8 : s_le1;
    /* The line up to the le's value, made once: name_bucket{labels,le=" */
    char head[4096];
    int hn = snprintf (head, sizeof head, "%s_bucket{%s%sle=\"", name, labels,
                       labels[0] ? "," : "");
    if (hn < 0 || (size_t) hn >= sizeof head - 64)
        return;             /* labels past 4 KB: not made by iofleet */
    char line[4096 + 64];
    memcpy (line, head, (size_t) hn);
    if (lo < 0)
        lo = 0, hi = -1;        /* no samples in any: +Inf alone */
    uint64_t below = 0;
    for (int k = 0; k < lo; k++)
        below += slots[k];
    for (int k = lo; k <= hi && k < BUCKETS_EDGES (split); k++) {
        below += slots[k];
        char *p = line + hn;
        size_t ln = strlen (les[k]);
        memcpy (p, les[k], ln);
        p += ln;
        memcpy (p, "\"} ", 3);
        p = put_u64 (p + 3, below);
        *p++ = '\n';
        fwrite (line, 1, (size_t) (p - line), f);
    }
    char *p = line + hn;
    memcpy (p, "+Inf\"} ", 7);
    p = put_u64 (p + 7, count);
    *p++ = '\n';
    fwrite (line, 1, (size_t) (p - line), f);
    const char *open = labels[0] ? "{" : "", *close = labels[0] ? "}" : "";
    fprintf (f, "%s_sum%s%s%s %" PRIu64 ".%09" PRIu64 "\n%s_count%s%s%s %" PRIu64 "\n", name,
             open, labels, close, sum_ns / 1000000000u, sum_ns % 1000000000u, name, open,
             labels, close, count);
}

void
buckets_write (FILE *f, const char *name, const char *labels, int split, const uint64_t *slots,
               uint64_t count, uint64_t sum_ns)
{
    buckets_write_range (f, name, labels, split, slots, count, sum_ns, 0,
                         BUCKETS_EDGES (split) - 1);
}
