/*  histogram.c: log-linear latency histogram; layout in histogram.h.

    Wire format.  Every integer after the version byte is an unsigned LEB128
    varint (7 bits a byte, low bits first, at most 10 bytes, minimal length):

        u8      version, HIST_WIRE_VERSION (1)
        varint  count
        varint  overflow
        varint  min             0 when count is 0
        varint  max
        varint  sum
        varint  sumsq, low 64 bits
        varint  sumsq, high 64 bits
        varint  n               number of non-empty buckets
        n times:
        varint  gap             index = previous index + 1 + gap
        varint  bucket count    never 0

    The "previous index" is -1 before the first pair, so the first gap is the
    index itself and a run of adjacent buckets costs one gap byte each.  Gaps
    rather than plain deltas make indexes strictly increasing by construction:
    a hostile buffer can't name a bucket twice.

    The decoder accepts exactly what the encoder produces: any successful
    decode re-encodes to the same bytes.  So two equal histograms always have
    the same bytes, and a decoded histogram satisfies every invariant that
    histogram_record keeps (count = buckets + overflow, min and max lie in the
    first and last non-empty buckets, overflow iff max >= 2^HIST_MAX_BITS),
    which the percentile code relies on.
*/
#include "histogram.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define HIST_WIRE_VERSION   1
#define VARINT_MAX          10      /* bytes for 64 bits at 7 bits a byte */
#define HIST_LIMIT          ((uint64_t) 1 << HIST_MAX_BITS)

void
histogram_reset (histogram_t *h)
{
    //  Can't fail.
    memset (h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

//  The buckets that can be non-empty: [*lo, *hi).  By the invariants
//  (min and max lie in the first and last non-empty buckets, max
//  overflowed iff anything did), nothing outside them is.  Returns false
//  when there are none.
static bool
s_used (const histogram_t *h, uint32_t *lo, uint32_t *hi)
{
    if (h->count == h->overflow)
        return false;
    *lo = histogram_index (h->min);
    *hi = h->overflow ? HIST_NBUCKETS : histogram_index (h->max) + 1;
    return true;
}

void
histogram_clear (histogram_t *h)
{
    //  Can't fail.
    uint32_t lo, hi;
    if (s_used (h, &lo, &hi))
        memset (&h->buckets[lo], 0, (hi - lo) * sizeof h->buckets[0]);
    h->count = h->overflow = h->max = h->sum = 0;
    h->sumsq = 0;
    h->min = UINT64_MAX;
}

uint64_t
histogram_bucket_low (uint32_t i)
{
    //  Can't fail.  Past the last bucket, returns 2^HIST_MAX_BITS, where
    //  overflow begins, so low(i + 1) == low(i) + width(i) holds for every
    //  real bucket including the last one.
    if (i >= HIST_NBUCKETS)
        return HIST_LIMIT;
    if (i < 2 * HIST_SUB)
        return i;
    uint32_t shift = i / HIST_SUB - 1;
    return (uint64_t) (HIST_SUB + i % HIST_SUB) << shift;
}

uint64_t
histogram_bucket_width (uint32_t i)
{
    //  Can't fail.  Returns 0 past the last bucket: there is no such bucket.
    if (i >= HIST_NBUCKETS)
        return 0;
    if (i < 2 * HIST_SUB)
        return 1;
    return (uint64_t) 1 << (i / HIST_SUB - 1);
}

void
histogram_merge (histogram_t *dst, const histogram_t *src)
{
    //  Can't fail.  dst == src is allowed (doubles every count).
    dst->count += src->count;
    dst->overflow += src->overflow;
    dst->sum += src->sum;
    dst->sumsq += src->sumsq;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    uint32_t lo, hi;
    if (s_used (src, &lo, &hi))
        for (uint32_t i = lo; i < hi; i++)
            dst->buckets[i] += src->buckets[i];
}

//  Returns ceil(p/100 * n) clamped to [1, n], for n > 0.  Can't fail.
//  p = 99.9 is not exact in binary, so p * n / 100 can land a hair above an
//  integer (199800.00000000003 for n = 200000) and ceil would pick the next
//  rank; a result within 1e-12 relative of an integer is taken as that
//  integer.  Real fractional parts are far larger than that for any p given
//  with a few decimals and any n below ~1e9.
static uint64_t
s_rank (uint64_t n, double p)
{
    if (!(p > 0))                   //  also NaN
        return 1;
    if (p >= 100)
        return n;
    double x = p * (double) n / 100.0;
    double fl = floor (x);
    if (fl >= (double) n)           //  also keeps the conversion defined
        return n;
    uint64_t rank = (uint64_t) fl;
    if (x - fl > x * 1e-12)
        rank++;
    return rank < 1 ? 1 : rank;
}

uint64_t
histogram_percentile (const histogram_t *h, double p)
{
    //  Can't fail.  Returns 0 when empty; p <= 0 (or NaN) acts as rank 1,
    //  p >= 100 as rank N.
    if (h->count == 0)
        return 0;
    uint64_t rank = s_rank (h->count, p);
    //  Overflowed samples are the largest ones, and the only thing known
    //  about them is that max is one of them.
    if (rank > h->count - h->overflow)
        return h->max;

    //  Nothing lies below min's bucket.
    uint64_t seen = 0;
    uint32_t lo = h->min < HIST_LIMIT ? histogram_index (h->min) : 0;
    for (uint32_t i = lo; i < HIST_NBUCKETS; i++) {
        seen += h->buckets[i];
        if (seen >= rank) {
            //  Width-1 buckets have width / 2 == 0: the value itself.
            uint64_t mid = histogram_bucket_low (i)
                         + histogram_bucket_width (i) / 2;
            if (mid < h->min)
                mid = h->min;
            if (mid > h->max)
                mid = h->max;
            return mid;
        }
    }
    //  Only reachable if the caller broke count = buckets + overflow.
    return h->max;
}

double
histogram_mean (const histogram_t *h)
{
    //  Can't fail.  Returns 0 when empty.  Exact while sum fits 64 bits
    //  (2^24 samples of the largest bucketed value).
    if (h->count == 0)
        return 0;
    return (double) ((long double) h->sum / (long double) h->count);
}

double
histogram_stddev (const histogram_t *h)
{
    //  Can't fail.  Returns 0 when empty.
    //  Population variance is (sumsq - sum^2 / N) / N.  Computing sumsq / N
    //  and mean^2 in floating point subtracts two nearly equal numbers and
    //  loses everything when the spread is small against the mean (1 ns of
    //  jitter on 1 ms).  Instead divide sum^2 = q * N + r exactly in 128 bits:
    //  sumsq - q is then an exact integer M, and the variance is (M - r/N) / N
    //  with r/N < 1, so nothing cancels.  M >= r/N because N * sumsq >= sum^2
    //  (Cauchy-Schwarz).
    if (h->count == 0)
        return 0;
    unsigned __int128 n = h->count;
    unsigned __int128 sum2 = (unsigned __int128) h->sum * h->sum;
    unsigned __int128 q = sum2 / n;
    unsigned __int128 r = sum2 % n;
    //  A caller-built histogram could break the inequality; never go negative.
    if (h->sumsq < q)
        return 0;
    long double m2 = (long double) (h->sumsq - q) - (long double) r / (long double) n;
    if (m2 <= 0)
        return 0;
    return (double) sqrtl (m2 / (long double) n);
}

bool
histogram_equal (const histogram_t *a, const histogram_t *b)
{
    //  Can't fail.  Field by field: memcmp of the whole struct would compare
    //  the padding before the 16-byte aligned sumsq.
    return a->count == b->count
        && a->overflow == b->overflow
        && a->min == b->min
        && a->max == b->max
        && a->sum == b->sum
        && a->sumsq == b->sumsq
        && memcmp (a->buckets, b->buckets, sizeof a->buckets) == 0;
}

//  Appends v as a varint at *pos.  Returns 0, or -ENOSPC when it doesn't fit
//  in cap (some bytes may have been written).
static int
s_put_varint (uint8_t *buf, size_t cap, size_t *pos, uint64_t v)
{
    do {
        if (*pos >= cap)
            return -ENOSPC;
        uint8_t byte = v & 0x7f;
        v >>= 7;
        buf [(*pos)++] = byte | (v ? 0x80 : 0);
    } while (v);
    return 0;
}

//  Reads one varint at *pos into *out.  Returns 0, or -EINVAL when the bytes
//  run out, the varint doesn't fit 64 bits (including any 11th byte), or it
//  isn't minimal (a final 0x00 after a continuation byte).
static int
s_get_varint (const uint8_t *buf, size_t len, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < VARINT_MAX; i++) {
        if (*pos >= len)
            return -EINVAL;
        uint8_t byte = buf [(*pos)++];
        //  The 10th byte holds bit 63 only, and can't continue.
        if (i == VARINT_MAX - 1 && byte > 1)
            return -EINVAL;
        v |= (uint64_t) (byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            if (byte == 0 && i > 0)
                return -EINVAL;
            *out = v;
            return 0;
        }
    }
    return -EINVAL;                 //  Not reached: the 10th byte stops.
}

int
histogram_encode (const histogram_t *h, uint8_t *buf, size_t cap)
{
    //  Returns -ENOSPC if cap is too small; buf is then partly written.
    //  HIST_WIRE_MAX suffices whatever the struct holds: at most 81 header
    //  bytes, one 2-byte first gap, 1-byte gaps after it (wider gaps mean
    //  fewer buckets) and 10-byte counts.
    uint32_t lo = 0, hi = 0;
    s_used (h, &lo, &hi);
    uint64_t n = 0;
    for (uint32_t i = lo; i < hi; i++)
        n += h->buckets[i] != 0;

    uint64_t head [] = {
        h->count, h->overflow, h->count ? h->min : 0, h->max, h->sum,
        (uint64_t) h->sumsq, (uint64_t) (h->sumsq >> 64), n
    };
    size_t pos = 0;
    if (cap < 1)
        return -ENOSPC;
    buf [pos++] = HIST_WIRE_VERSION;
    for (size_t k = 0; k < sizeof head / sizeof head [0]; k++)
        if (s_put_varint (buf, cap, &pos, head [k]))
            return -ENOSPC;

    uint32_t next = 0;              //  previous index + 1
    for (uint32_t i = lo; i < hi; i++) {
        if (h->buckets[i] == 0)
            continue;
        if (s_put_varint (buf, cap, &pos, i - next)
        ||  s_put_varint (buf, cap, &pos, h->buckets[i]))
            return -ENOSPC;
        next = i + 1;
    }
    return (int) pos;
}

int
histogram_wire_join (const uint64_t head[HIST_WIRE_HEAD], const uint64_t *gaps,
                     const uint64_t *counts, size_t n, uint8_t *buf, size_t cap)
{
    size_t pos = 0;
    if (cap < 1)
        return -ENOSPC;
    buf [pos++] = HIST_WIRE_VERSION;
    for (int k = 0; k < HIST_WIRE_HEAD; k++)
        if (s_put_varint (buf, cap, &pos, head [k]))
            return -ENOSPC;
    for (size_t i = 0; i < n; i++)
        if (s_put_varint (buf, cap, &pos, gaps [i]) || s_put_varint (buf, cap, &pos, counts [i]))
            return -ENOSPC;
    return (int) pos;
}

int
histogram_wire_split (const uint8_t *buf, size_t len, uint64_t head[HIST_WIRE_HEAD],
                      uint64_t *gaps, uint64_t *counts)
{
    /* What histogram_wire_join writes again byte for byte: its version,
       then shortest varints (s_get_varint refuses any other) to the last
       byte; else it is stored whole.  (No such bytes are longer than
       HIST_WIRE_MAX: the length check only ends a long input early.)
       No join to compare with: that was 2 to 2.5% of the controller's
       CPU (perf, 1,500 and 2,500 agents). */
    size_t pos = 0;
    if (len < 1 || len > HIST_WIRE_MAX || buf [pos++] != HIST_WIRE_VERSION)
        return -1;
    for (int k = 0; k < HIST_WIRE_HEAD; k++)
        if (s_get_varint (buf, len, &pos, &head [k]))
            return -1;
    uint64_t n = head [HIST_WIRE_HEAD - 1];
    if (n > HIST_NBUCKETS)
        return -1;
    for (uint64_t i = 0; i < n; i++)
        if (s_get_varint (buf, len, &pos, &gaps [i]) || s_get_varint (buf, len, &pos, &counts [i]))
            return -1;
    return pos == len ? (int) n : -1;
}

//  The exact figures of an encoded histogram.
typedef struct {
    uint64_t count, overflow, min, max, sum;
    unsigned __int128 sumsq;
} s_fig_t;

//  Parses an encoded histogram: its exact figures into *fig; unless into
//  is NULL its bucket counts are added to into's, and unless idx is NULL
//  they are listed in idx[] and cnt[] (*npairs of them; room for
//  HIST_NBUCKETS).  Returns 0 or -EINVAL; on error the outputs are
//  garbage.
static int
s_parse (const uint8_t *buf, size_t len, s_fig_t *fig, histogram_t *into, uint16_t *idx,
         uint64_t *cnt, uint32_t *npairs)
{
    size_t pos = 0;
    if (len < 1 || buf [pos++] != HIST_WIRE_VERSION)
        return -EINVAL;

    enum { COUNT, OVERFLOW, MIN, MAX, SUM, SQLO, SQHI, NPAIRS, NHEAD };
    uint64_t f [NHEAD];
    for (int k = 0; k < NHEAD; k++)
        if (s_get_varint (buf, len, &pos, &f [k]))
            return -EINVAL;
    //  Bounds the loop before any pair is read, whatever n claims.
    if (f [NPAIRS] > HIST_NBUCKETS)
        return -EINVAL;

    uint64_t total = f [OVERFLOW];
    uint64_t next = 0;              //  previous index + 1, <= HIST_NBUCKETS
    uint64_t first = 0, last = 0;
    for (uint64_t k = 0; k < f [NPAIRS]; k++) {
        uint64_t gap, c;
        if (s_get_varint (buf, len, &pos, &gap)
        ||  s_get_varint (buf, len, &pos, &c))
            return -EINVAL;
        //  Written so that a huge gap can't wrap next + gap.
        if (gap >= HIST_NBUCKETS - next)
            return -EINVAL;
        uint64_t i = next + gap;
        if (c == 0)
            return -EINVAL;
        //  Each count fits, but their sum may not; a wrapped total could
        //  match a forged count.
        if (__builtin_add_overflow (total, c, &total))
            return -EINVAL;
        if (into)
            into->buckets[i] += c;
        if (idx) {
            idx[k] = (uint16_t) i;
            cnt[k] = c;
        }
        if (k == 0)
            first = i;
        last = i;
        next = i + 1;
    }
    if (pos != len || total != f [COUNT])
        return -EINVAL;
    if (npairs)
        *npairs = (uint32_t) f [NPAIRS];

    if (f [COUNT] == 0) {
        //  The one encoding of the empty histogram: everything 0.
        if (f [MIN] || f [MAX] || f [SUM] || f [SQLO] || f [SQHI])
            return -EINVAL;
        fig->count = fig->overflow = fig->max = fig->sum = 0;
        fig->sumsq = 0;
        fig->min = UINT64_MAX;
        return 0;
    }
    uint64_t min = f [MIN], max = f [MAX];
    if (min > max)
        return -EINVAL;
    //  min is the smallest sample: in the first non-empty bucket, or in the
    //  overflow range when there are no buckets.
    if (f [NPAIRS] > 0) {
        if (min >= HIST_LIMIT || histogram_index (min) != first)
            return -EINVAL;
    }
    else
    if (min < HIST_LIMIT)
        return -EINVAL;
    //  max is the largest: overflowed iff anything overflowed, else in the
    //  last non-empty bucket.
    if (f [OVERFLOW] > 0) {
        if (max < HIST_LIMIT)
            return -EINVAL;
    }
    else
    if (max >= HIST_LIMIT || histogram_index (max) != last)
        return -EINVAL;

    fig->count = f [COUNT];
    fig->overflow = f [OVERFLOW];
    fig->min = min;
    fig->max = max;
    fig->sum = f [SUM];
    fig->sumsq = (unsigned __int128) f [SQHI] << 64 | f [SQLO];
    return 0;
}

static void
s_add_fig (histogram_t *h, const s_fig_t *fig)
{
    h->count += fig->count;
    h->overflow += fig->overflow;
    h->sum += fig->sum;
    h->sumsq += fig->sumsq;
    if (fig->count && fig->min < h->min)
        h->min = fig->min;
    if (fig->count && fig->max > h->max)
        h->max = fig->max;
}

int
histogram_decode (histogram_t *h, const uint8_t *buf, size_t len)
{
    //  Returns -EINVAL on any malformed input (see the top of this file);
    //  h is then reset.  buf may be NULL when len is 0.
    histogram_reset (h);
    s_fig_t fig;
    if (s_parse (buf, len, &fig, h, NULL, NULL, NULL)) {
        histogram_reset (h);
        return -EINVAL;
    }
    s_add_fig (h, &fig);
    return 0;
}

int
histogram_decode_add (histogram_t *h, const uint8_t *buf, size_t len)
{
    //  One pass into a list of the pairs, checked whole before any is
    //  added, so a malformed buffer changes nothing.
    static _Thread_local uint16_t idx[HIST_NBUCKETS];
    static _Thread_local uint64_t cnt[HIST_NBUCKETS];
    s_fig_t fig;
    uint32_t n;
    if (s_parse (buf, len, &fig, NULL, idx, cnt, &n))
        return -EINVAL;
    for (uint32_t k = 0; k < n; k++)
        h->buckets[idx[k]] += cnt[k];
    s_add_fig (h, &fig);
    return 0;
}

void
histogram_add_checked (histogram_t *h, const uint8_t *buf, size_t len)
{
    s_fig_t fig;
    if (s_parse (buf, len, &fig, h, NULL, NULL, NULL))
        return;             //  not checked after all: a wrong caller
    s_add_fig (h, &fig);
}

int
histogram_parse (const uint8_t *buf, size_t len, histogram_parsed_t *p)
{
    s_fig_t fig;
    if (s_parse (buf, len, &fig, NULL, p->idx, p->cnt, &p->n))
        return -EINVAL;
    p->count = fig.count;
    p->overflow = fig.overflow;
    p->min = fig.min;
    p->max = fig.max;
    p->sum = fig.sum;
    p->sumsq = fig.sumsq;
    return 0;
}

void
histogram_add_parsed (histogram_t *h, const histogram_parsed_t *p)
{
    for (uint32_t k = 0; k < p->n; k++)
        h->buckets[p->idx[k]] += p->cnt[k];
    s_fig_t fig = { .count = p->count, .overflow = p->overflow, .min = p->min, .max = p->max,
                    .sum = p->sum, .sumsq = p->sumsq };
    s_add_fig (h, &fig);
}

int
histogram_check (const uint8_t *buf, size_t len, uint64_t *count)
{
    s_fig_t fig;
    if (s_parse (buf, len, &fig, NULL, NULL, NULL, NULL))
        return -EINVAL;
    if (count)
        *count = fig.count;
    return 0;
}
