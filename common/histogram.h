/*  histogram.h: log-linear latency histogram in nanoseconds.

    Layout: values below 2*HIST_SUB (256) get one bucket each; above that,
    every power of two is split into HIST_SUB (128) equal sub-buckets.
    Bucket width / value <= 1/128, so a bucket's midpoint is within 0.4%
    of every value in it (the documented bound is 1%).  This refines fio's
    layout (64 sub-buckets per power of two, FIO_IO_U_PLAT_BITS = 6): every
    fio bin is the union of exactly two of ours, so fio json+ "bins" can be
    exported exactly.

    Range: values up to 2^HIST_MAX_BITS - 1 ns (~18 minutes) are bucketed;
    larger ones are counted in `overflow` (and in count, min, max, sum),
    never dropped.

    Exact count, min, max, sum and sum of squares are kept beside the
    buckets, so mean and stddev are exact, not bucket estimates.

    Percentile p: the bucket in which the cumulative count first reaches
    ceil(p/100 * N); the value reported is that bucket's midpoint, clamped
    to [min, max].  Overflowed samples report `max`.
*/
#ifndef IOF_HISTOGRAM_H
#define IOF_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS   7
#define HIST_SUB        (1u << HIST_SUB_BITS)              /* 128 */
#define HIST_MAX_BITS   40                                 /* 2^40 ns ~ 1100 s */
#define HIST_NBUCKETS   ((HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_SUB)
/* Largest serialized size: header + every bucket as (delta, count) varints. */
#define HIST_WIRE_MAX   (16 + 6 * 10 + (size_t) HIST_NBUCKETS * (2 + 10))

typedef struct {
    uint64_t count;         /* all samples, including overflow */
    uint64_t overflow;      /* samples >= 2^HIST_MAX_BITS ns */
    uint64_t min;           /* UINT64_MAX when empty */
    uint64_t max;
    uint64_t sum;           /* exact sum of samples in ns */
    unsigned __int128 sumsq;/* exact sum of squares */
    uint64_t buckets[HIST_NBUCKETS];
} histogram_t;

/* Sets h to the empty histogram.  This function can't fail. */
void histogram_reset (histogram_t *h);

/* The same for an h that is a histogram already (reset, recorded,
   merged, decoded) or all zero bytes: clears only the buckets its min and
   max span, so it costs what h holds, not the ~35 KB of the struct.
   Can't fail. */
void histogram_clear (histogram_t *h);

/* Bucket index of value v (v < 2^HIST_MAX_BITS).  Can't fail. */
static inline uint32_t
histogram_index (uint64_t v)
{
    if (v < 2 * HIST_SUB)
        return (uint32_t) v;
    int msb = 63 - __builtin_clzll (v);
    int shift = msb - HIST_SUB_BITS;
    return (uint32_t) ((shift + 1) * HIST_SUB + ((v >> shift) & (HIST_SUB - 1)));
}

/* Records one sample of v nanoseconds: O(1), no allocation.  Can't fail. */
static inline void
histogram_record (histogram_t *h, uint64_t v)
{
    h->count++;
    h->sum += v;
    h->sumsq += (unsigned __int128) v * v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    if (v >> HIST_MAX_BITS)
        h->overflow++;
    else
        h->buckets[histogram_index (v)]++;
}

/* Records n samples of v nanoseconds at once (fio's json+ bins, say).
   Can't fail. */
static inline void
histogram_record_n (histogram_t *h, uint64_t v, uint64_t n)
{
    if (n == 0)
        return;
    h->count += n;
    h->sum += v * n;
    h->sumsq += (unsigned __int128) v * v * n;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    if (v >> HIST_MAX_BITS)
        h->overflow += n;
    else
        h->buckets[histogram_index (v)] += n;
}

/* Lowest value that falls in bucket i, and the bucket's width.  Can't fail. */
uint64_t histogram_bucket_low (uint32_t i);
uint64_t histogram_bucket_width (uint32_t i);

/* Adds every sample of src into dst (only the buckets src's min and max
   span are visited).  Can't fail. */
void histogram_merge (histogram_t *dst, const histogram_t *src);

/* Value at percentile p (0 < p <= 100), see the header comment.
   Returns 0 for an empty histogram.  Can't fail. */
uint64_t histogram_percentile (const histogram_t *h, double p);

/* Exact mean and population standard deviation in ns; 0 when empty. */
double histogram_mean (const histogram_t *h);
double histogram_stddev (const histogram_t *h);

/* True when a and b hold the same samples (buckets and exact figures). */
bool histogram_equal (const histogram_t *a, const histogram_t *b);

/* Serializes h into buf (capacity cap): a version byte, the exact figures
   as varints, then (index delta, count) varint pairs for non-empty buckets.
   Returns the number of bytes written, or -ENOSPC if cap is too small
   (HIST_WIRE_MAX always suffices). */
int histogram_encode (const histogram_t *h, uint8_t *buf, size_t cap);

/* The values of an encoded histogram as histogram_encode lays them out:
   HIST_WIRE_HEAD header values (the last is the number of pairs), then
   that many (gap to the previous bucket, count) pairs.  Storing the
   header values, the gaps and the counts of many histograms apart
   compresses better than their encodings end to end
   (controller/store/snapcodec.c).  histogram_wire_split returns the number
   of pairs, or -1 when histogram_wire_join would not write buf again
   byte for byte (store it whole then); gaps and counts hold
   HIST_NBUCKETS. */
#define HIST_WIRE_HEAD 8
int histogram_wire_split (const uint8_t *buf, size_t len, uint64_t head[HIST_WIRE_HEAD],
                          uint64_t *gaps, uint64_t *counts);
/* The bytes histogram_encode wrote for these values (n pairs), or -ENOSPC
   when cap is too small (HIST_WIRE_MAX always suffices). */
int histogram_wire_join (const uint64_t head[HIST_WIRE_HEAD], const uint64_t *gaps,
                         const uint64_t *counts, size_t n, uint8_t *buf, size_t cap);

/* Parses len bytes from buf into h (reset first).  Returns 0, or -EINVAL
   when the bytes are truncated, have a wrong version, an index out of range,
   or figures that contradict the buckets (count != sum of buckets +
   overflow, min > max).  h is left reset on error. */
int histogram_decode (histogram_t *h, const uint8_t *buf, size_t len);

/* Adds the samples encoded in buf to h, as histogram_decode into a
   scratch histogram and histogram_merge would, at the cost of the encoded
   bytes only.  Returns 0, or -EINVAL for what histogram_decode refuses;
   h is then unchanged. */
int histogram_decode_add (histogram_t *h, const uint8_t *buf, size_t len);

/* histogram_decode_add for a buf that passed histogram_check: one pass
   instead of two.  Can't fail. */
void histogram_add_checked (histogram_t *h, const uint8_t *buf, size_t len);

/* An encoded histogram read once, to be added to several: its exact
   figures and its n non-empty buckets (index, count).  About 52 KB. */
typedef struct {
    uint64_t count, overflow, min, max, sum;
    unsigned __int128 sumsq;
    uint32_t n;
    uint16_t idx[HIST_NBUCKETS];
    uint64_t cnt[HIST_NBUCKETS];
} histogram_parsed_t;

/* Reads buf into p, checked as histogram_decode checks.  Returns 0, or
   -EINVAL (p is then garbage). */
int histogram_parse (const uint8_t *buf, size_t len, histogram_parsed_t *p);

/* Adds what p holds to h, as histogram_decode_add would have.  Can't
   fail. */
void histogram_add_parsed (histogram_t *h, const histogram_parsed_t *p);

/* Checks buf as histogram_decode would, without a histogram; *count (if
   not NULL) gets its sample count.  Returns 0 or -EINVAL. */
int histogram_check (const uint8_t *buf, size_t len, uint64_t *count);

#endif
