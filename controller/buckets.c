/*  buckets.c: Prometheus's le buckets from iofleet's histogram, see
    buckets.h. */
#include "buckets.h"

#include <inttypes.h>
#include <pthread.h>

uint64_t
buckets_edge (int split, int k)
{
    int shift = split == 8 ? 3 : 0;
    int b = BUCKETS_LOW_BITS + (k >> shift);
    uint64_t j = (uint64_t) (k & (split - 1));
    return (1ull << b) + (shift ? j << (b - shift) : 0);
}

static uint8_t s_slots1[HIST_NBUCKETS], s_slots8[HIST_NBUCKETS];
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
buckets_write (FILE *f, const char *name, const char *labels, int split, const uint64_t *slots,
               uint64_t count, uint64_t sum_ns)
{
    const char *comma = labels[0] ? "," : "";
    uint64_t below = 0;
    for (int k = 0; k < BUCKETS_EDGES (split); k++) {
        uint64_t le = buckets_edge (split, k) - 1;
        below += slots[k];
        fprintf (f, "%s_bucket{%s%sle=\"%" PRIu64 ".%09" PRIu64 "\"} %" PRIu64 "\n", name, labels,
                 comma, le / 1000000000u, le % 1000000000u, below);
    }
    fprintf (f, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, comma, count);
    const char *open = labels[0] ? "{" : "", *close = labels[0] ? "}" : "";
    fprintf (f, "%s_sum%s%s%s %" PRIu64 ".%09" PRIu64 "\n", name, open, labels, close,
             sum_ns / 1000000000u, sum_ns % 1000000000u);
    fprintf (f, "%s_count%s%s%s %" PRIu64 "\n", name, open, labels, close, count);
}
