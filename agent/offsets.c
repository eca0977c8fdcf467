/*  offsets.c: see offsets.h. */
#include "offsets.h"
#include "util.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAP_LEVELS_MAX 12

/* Level 0 has one bit per block (set = used this pass); each bit of level
   k+1 says "word k of level k is full".  The top level is one word. */
typedef struct {
    int nlevels;
    uint64_t nbits[MAP_LEVELS_MAX];
    uint64_t *words[MAP_LEVELS_MAX];
    uint64_t used;
} randmap_t;

struct offsets {
    off_mode_t mode;
    uint64_t start;
    uint64_t nblocks;
    uint32_t unit;
    uint64_t size;                  /* the region in bytes: nblocks * unit, or more
                                       when size= is not a multiple of unit */
    uint64_t seqpos;
    uint64_t skip;                  /* OFF_SEQ: blocks left out after each I/O */
    uint64_t passes;
    randmap_t map;
    job_dist_t kind;                /* OFF_SKEWED */
    /* zipf (Gray et al., "Quickly generating billion-record synthetic
       databases", the method fio's lib/zipf.c uses). */
    double theta, zetan, zeta2, alpha, eta;
    double pareto_pow;              /* log(H) / log(1 - H) */
    uint64_t stddev;                /* normal: blocks of added spread */
    uint64_t rand_off;              /* zipf, pareto, normal: where rank 0 lands */
    /* zoned, zoned_abs: for each percent of the I/O, the first block of its
       zone and the zone's length in blocks. */
    uint64_t *zone_lo, *zone_len;
};

static void
map_free (randmap_t *m)
{
    for (int i = 0; i < m->nlevels; i++)
        free (m->words[i]);
    memset (m, 0, sizeof *m);
}

static int
map_init (randmap_t *m, uint64_t nbits)
{
    memset (m, 0, sizeof *m);
    uint64_t n = nbits;
    for (;;) {
        if (m->nlevels == MAP_LEVELS_MAX)
            return -1;
        uint64_t nwords = (n + 63) / 64;
        m->nbits[m->nlevels] = n;
        m->words[m->nlevels] = calloc (nwords, sizeof (uint64_t));
        if (!m->words[m->nlevels])
            return -1;
        m->nlevels++;
        if (nwords == 1)
            break;
        n = nwords;
    }
    return 0;
}

static void
map_clear (randmap_t *m)
{
    for (int i = 0; i < m->nlevels; i++)
        memset (m->words[i], 0, (m->nbits[i] + 63) / 64 * sizeof (uint64_t));
    m->used = 0;
}

/* Bits past the end of a level count as used, so "word full" is exact. */
static uint64_t
word_mask_valid (const randmap_t *m, int level, uint64_t w)
{
    uint64_t nb = m->nbits[level];
    uint64_t last = (nb + 63) / 64 - 1;
    if (w < last || nb % 64 == 0)
        return ~0ull;
    return (1ull << (nb % 64)) - 1;
}

static void
map_set (randmap_t *m, uint64_t bit)
{
    for (int l = 0; l < m->nlevels; l++) {
        uint64_t w = bit / 64;
        m->words[l][w] |= 1ull << (bit % 64);
        if ((m->words[l][w] & word_mask_valid (m, l, w)) != word_mask_valid (m, l, w))
            break;
        bit = w;        /* that word is full: mark it one level up */
    }
    m->used++;
}

/* First free bit at or after `from` at level l, or UINT64_MAX.  Uses the
   level above to skip full words. */
static uint64_t
map_find (const randmap_t *m, int l, uint64_t from)
{
    uint64_t nb = m->nbits[l];
    while (from < nb) {
        uint64_t w = from / 64;
        uint64_t free_bits = ~m->words[l][w] & word_mask_valid (m, l, w);
        free_bits &= ~0ull << (from % 64);
        if (free_bits)
            return w * 64 + (uint64_t) __builtin_ctzll (free_bits);
        /* Nothing free in this word: find the next non-full word above. */
        if (l + 1 >= m->nlevels)
            return UINT64_MAX;
        uint64_t nw = map_find (m, l + 1, w + 1);
        if (nw == UINT64_MAX)
            return UINT64_MAX;
        from = nw * 64;
    }
    return UINT64_MAX;
}

static double
zeta (uint64_t n, double theta)
{
    /* fio caps the exact sum too (ZIPF_MAX_GEN); beyond it the tail is
       integrated, which is within 1e-6 for the thetas people use. */
    const uint64_t cap = 10000000;
    double sum = 0;
    uint64_t m = n < cap ? n : cap;
    for (uint64_t i = 1; i <= m; i++)
        sum += pow ((double) i, -theta);
    if (n > cap)
        sum += (pow ((double) n, 1 - theta) - pow ((double) cap, 1 - theta)) / (1 - theta);
    return sum;
}

uint64_t
offsets_zones_end (const dist_t *d)
{
    uint64_t end = 0;
    if (d && d->kind == JOB_DIST_ZONED_ABS)
        for (int i = 0; i < d->nzones; i++)
            end += d->zones[i].size;
    return end;
}

/* fio's zone table (zone-dist.c, __get_next_rand_offset_zoned[_abs]): the
   percent of the I/O v (0..99) goes to the zone that holds it.  Returns 0
   or -1 (out of memory, or zoned_abs zones past the region). */
static int
zones_init (offsets_t *o, const dist_t *d)
{
    o->zone_lo = calloc (100, sizeof (uint64_t));
    o->zone_len = calloc (100, sizeof (uint64_t));
    if (!o->zone_lo || !o->zone_len)
        return -1;
    if (d->kind == JOB_DIST_ZONED_ABS && offsets_zones_end (d) / o->unit > o->nblocks)
        return -1;
    uint32_t access = 0;
    uint64_t before = 0;
    for (int i = 0; i < d->nzones; i++) {
        uint64_t lo, len, after = before + d->zones[i].size;
        if (d->kind == JOB_DIST_ZONED) {
            lo = before * o->nblocks / 100;
            len = o->nblocks * (after - before) / 100;
        }
        else {
            lo = before / o->unit;
            len = after / o->unit - lo;
        }
        for (uint32_t v = access; v < access + d->zones[i].access_pct && v < 100; v++) {
            o->zone_lo[v] = lo;
            o->zone_len[v] = len;
        }
        access += d->zones[i].access_pct;
        before = after;
    }
    return 0;
}

offsets_t *
offsets_new (off_mode_t mode, uint64_t start, uint64_t nblocks, uint32_t unit, const dist_t *d)
{
    if (nblocks == 0 || unit == 0)
        return NULL;
    if (mode == OFF_SKEWED && (!d || d->kind == JOB_DIST_RANDOM || (unsigned) d->kind > JOB_DIST_LAST))
        return NULL;
    offsets_t *o = calloc (1, sizeof *o);
    if (!o)
        return NULL;
    o->mode = mode;
    o->start = start;
    o->nblocks = nblocks;
    o->unit = unit;
    o->size = nblocks * unit;
    if (mode == OFF_RANDOM && map_init (&o->map, nblocks) != 0) {
        offsets_destroy (&o);
        return NULL;
    }
    if (mode != OFF_SKEWED)
        return o;
    o->kind = d->kind;
    /* Without a center fio starts zipf and pareto at a random rank offset
       and normal at 0; this fixed one does as well as any. */
    o->rand_off = d->kind == JOB_DIST_NORMAL ? 0 : 0x9e3779b97f4a7c15ull % nblocks;
    if (d->centered) {
        double c = d->kind == JOB_DIST_NORMAL ? d->center - 0.5 : d->center;
        int64_t off = (int64_t) ((double) nblocks * c);
        o->rand_off = (uint64_t) (off % (int64_t) nblocks + (int64_t) nblocks) % nblocks;
    }
    switch (d->kind) {
    case JOB_DIST_ZIPF:
        if (!(d->param > 0) || d->param == 1.0) {
            offsets_destroy (&o);
            return NULL;
        }
        o->theta = d->param;
        o->zetan = zeta (nblocks, o->theta);
        o->zeta2 = 1 + pow (2, -o->theta);
        o->alpha = 1.0 / (1.0 - o->theta);
        o->eta = (1 - pow (2.0 / (double) nblocks, 1 - o->theta)) / (1 - o->zeta2 / o->zetan);
        break;
    case JOB_DIST_PARETO:
        if (!(d->param > 0 && d->param < 1)) {
            offsets_destroy (&o);
            return NULL;
        }
        o->pareto_pow = log (d->param) / log (1.0 - d->param);
        break;
    case JOB_DIST_NORMAL:
        if (d->param > 0) {
            o->stddev = (uint64_t) ceil ((double) nblocks * d->param / 100.0);
            if (o->stddev > nblocks / 2)
                o->stddev = nblocks / 2;
        }
        break;
    default:
        if (zones_init (o, d) != 0)
            offsets_destroy (&o);
        break;
    }
    return o;
}

void
offsets_destroy (offsets_t **self_p)
{
    offsets_t *o = *self_p;
    if (!o)
        return;
    map_free (&o->map);
    free (o->zone_lo);
    free (o->zone_len);
    free (o);
    *self_p = NULL;
}

/* fio's __hash_u64 (lib/hash.h): a multiply by the golden ratio. */
static uint64_t
hash64 (uint64_t x)
{
    return x * 0x61C8864680B583EBull;
}

/* A uniform double in [0, 1) from a 64-bit random number. */
static double
unit_double (uint64_t r)
{
    return (double) (r >> 11) * 0x1p-53;
}

/* The block of a skewed draw (zipf, pareto and normal as lib/zipf.c and
   lib/gauss.c compute them; zoned as io_u.c).  room is how many blocks
   an I/O can start at.  Can't fail. */
static uint64_t
skewed_block (const offsets_t *o, uint64_t rnd, uint64_t room)
{
    uint64_t n = o->nblocks, rank;
    switch (o->kind) {
    case JOB_DIST_ZIPF: {
        double u = unit_double (rnd);
        double uz = u * o->zetan;
        if (uz < 1.0)
            rank = 0;
        else if (uz < o->zeta2)
            rank = 1;
        else
            rank = (uint64_t) ((double) n * pow (o->eta * u - o->eta + 1.0, o->alpha));
        if (rank >= n)
            rank = n - 1;
        break;
    }
    case JOB_DIST_PARETO: {
        double u = (double) (rnd >> 32) / 4294967295.0;
        rank = (uint64_t) ((double) (n - 1) * pow (u, o->pareto_pow));
        break;
    }
    case JOB_DIST_NORMAL: {
        /* The mean of 12 uniform draws over 0..n (fio's; its draws are
           32-bit, these 64, so regions past 2^32 blocks are covered too),
           plus up to stddev of uniform spread, halved until it fits. */
        uint64_t x = rnd, sum = 0;
        for (int i = 0; i < 12; i++)
            sum += splitmix64 (&x) % (n + 1);
        sum = (sum + 11) / 12;
        if (o->stddev) {
            int64_t dev = (int64_t) ((double) o->stddev * unit_double (splitmix64 (&x)))
                        - (int64_t) (o->stddev / 2);
            while (dev > 0 && (uint64_t) dev + sum >= n)
                dev /= 2;
            sum = (uint64_t) ((int64_t) sum + dev);
        }
        rank = sum;
        break;
    }
    default: {
        uint64_t x = rnd;
        unsigned v = (unsigned) (splitmix64 (&x) % 100);
        uint64_t b = o->zone_lo[v];
        if (o->zone_len[v])
            b += (uint64_t) (unit_double (splitmix64 (&x)) * (double) o->zone_len[v]);
        return b < room ? b : room - 1;
    }
    }
    return (hash64 (rank) + o->rand_off) % n % room;
}

static bool
map_isset (const randmap_t *m, uint64_t bit)
{
    return m->words[0][bit / 64] >> (bit % 64) & 1;
}

uint64_t
offsets_start (offsets_t *o, uint64_t rnd, uint32_t minlen, uint64_t *room_p)
{
    /* The blocks an I/O of minlen can start at (fio's last_block: the
       direction's smallest size fits). */
    uint64_t cover = (minlen + o->unit - 1) / o->unit;
    uint64_t room = o->nblocks >= cover ? o->nblocks - cover + 1 : 1;
    uint64_t b;
    switch (o->mode) {
    case OFF_SEQ:
        /* In bytes, as fio's last_pos: an I/O of a size that is not a
           multiple of unit (bsrange=4k-10k's 10k) is followed right after
           its end.  fio's get_next_offset ends the pass only once the
           position is at or past the region's end. */
        if (o->seqpos >= o->size)
            return OFFSETS_END;
        *room_p = o->size - o->seqpos;
        return o->start + o->seqpos;
    case OFF_RANDOM:
        if (o->map.used >= o->nblocks)
            return OFFSETS_END;
        b = map_find (&o->map, 0, rnd % o->nblocks);
        if (b == UINT64_MAX)
            b = map_find (&o->map, 0, 0);
        break;
    case OFF_SKEWED:
        b = skewed_block (o, rnd, room);
        break;
    default:
        b = rnd % room;
        break;
    }
    *room_p = o->size > b * o->unit ? o->size - b * o->unit : 0;
    return o->start + b * o->unit;
}

void
offsets_take (offsets_t *o, uint64_t off, uint32_t *len_p)
{
    uint32_t len = *len_p;
    if (o->mode == OFF_SEQ) {
        o->seqpos = off - o->start + len + o->skip * o->unit;
        return;
    }
    if (o->mode != OFF_RANDOM)
        return;
    /* fio's mark_random_map: every block the I/O covers is marked, up to
       the first one already used (or the region's end), and the I/O is
       trimmed to that free run, so no byte is used twice in a pass.  A
       length that is not a multiple of unit keeps its tail when its last
       block is free, as in fio. */
    uint64_t b = (off - o->start) / o->unit;
    uint64_t want = (len + o->unit - 1) / o->unit, n = 0;
    while (n < want && b + n < o->nblocks && !map_isset (&o->map, b + n))
        map_set (&o->map, b + n++);
    if (n * o->unit < len)
        *len_p = (uint32_t) (n * o->unit);
}

void
offsets_wrap (offsets_t *o)
{
    o->seqpos = 0;
    if (o->mode == OFF_RANDOM)
        map_clear (&o->map);
    o->passes++;
}

uint64_t
offsets_next (offsets_t *o, uint32_t *len_p, uint64_t rnd)
{
    uint64_t room, off = offsets_start (o, rnd, *len_p, &room);
    if (off == OFFSETS_END) {
        offsets_wrap (o);
        off = offsets_start (o, rnd, *len_p, &room);
    }
    /* A sequential I/O that would pass the region's end starts it over
       (the caller that sizes I/Os to fit uses offsets_start). */
    if (o->mode == OFF_SEQ && *len_p > room) {
        offsets_wrap (o);
        off = offsets_start (o, rnd, *len_p, &room);
    }
    offsets_take (o, off, len_p);
    return off;
}

void
offsets_set_size (offsets_t *o, uint64_t size)
{
    IOF_ASSERT (size >= o->nblocks * o->unit);
    o->size = size;
}

void
offsets_set_skip (offsets_t *o, uint64_t skip)
{
    o->skip = skip;
}

void
offsets_rewind (offsets_t *o)
{
    o->seqpos = 0;
    if (o->mode == OFF_RANDOM)
        map_clear (&o->map);
}

uint64_t
offsets_passes (const offsets_t *o)
{
    return o->passes;
}
