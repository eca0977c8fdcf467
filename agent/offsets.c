/*  offsets.c: see offsets.h. */
#include "offsets.h"

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
    uint64_t seqpos;
    uint64_t skip;                  /* OFF_SEQ: blocks left out after each I/O */
    uint64_t passes;
    randmap_t map;
    /* zipf (Gray et al., "Quickly generating billion-record synthetic
       databases", the method fio's lib/zipf.c uses). */
    double theta, zetan, zeta2, alpha, eta;
    uint64_t hash_off;
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

offsets_t *
offsets_new (off_mode_t mode, uint64_t start, uint64_t nblocks, uint32_t unit, double theta)
{
    if (nblocks == 0 || unit == 0)
        return NULL;
    offsets_t *o = calloc (1, sizeof *o);
    if (!o)
        return NULL;
    o->mode = mode;
    o->start = start;
    o->nblocks = nblocks;
    o->unit = unit;
    if (mode == OFF_RANDOM && map_init (&o->map, nblocks) != 0) {
        offsets_destroy (&o);
        return NULL;
    }
    if (mode == OFF_ZIPF) {
        if (!(theta > 0) || theta == 1.0) {
            offsets_destroy (&o);
            return NULL;
        }
        o->theta = theta;
        o->zetan = zeta (nblocks, theta);
        o->zeta2 = 1 + pow (2, -theta);
        o->alpha = 1.0 / (1.0 - theta);
        o->eta = (1 - pow (2.0 / (double) nblocks, 1 - theta)) / (1 - o->zeta2 / o->zetan);
        o->hash_off = 0x9e3779b97f4a7c15ull;
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
    free (o);
    *self_p = NULL;
}

static uint64_t
hash64 (uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static bool
map_isset (const randmap_t *m, uint64_t bit)
{
    return m->words[0][bit / 64] >> (bit % 64) & 1;
}

uint64_t
offsets_next (offsets_t *o, uint32_t *len_p, uint64_t rnd)
{
    uint32_t len = *len_p;
    uint64_t span = len / o->unit;
    if (span == 0)
        span = 1;
    uint64_t room = o->nblocks >= span ? o->nblocks - span + 1 : 1;
    uint64_t b;
    switch (o->mode) {
    case OFF_SEQ:
        if (o->seqpos + span > o->nblocks) {
            o->seqpos = 0;
            o->passes++;
        }
        b = o->seqpos;
        o->seqpos += span + o->skip;
        break;
    case OFF_RANDOM: {
        if (o->map.used >= o->nblocks) {
            map_clear (&o->map);
            o->passes++;
        }
        b = map_find (&o->map, 0, rnd % o->nblocks);
        if (b == UINT64_MAX)
            b = map_find (&o->map, 0, 0);
        /* fio's mark_random_map: every block the I/O covers is marked, up
           to the first one already used (or the region's end), and the
           I/O is trimmed to that free run, so no byte is used twice in a
           pass.  A length that is not a multiple of unit keeps its tail
           when its last block is free, as in fio. */
        uint64_t want = (len + o->unit - 1) / o->unit, n = 0;
        while (n < want && b + n < o->nblocks && !map_isset (&o->map, b + n))
            map_set (&o->map, b + n++);
        if (n * o->unit < len)
            *len_p = (uint32_t) (n * o->unit);
        break;
    }
    case OFF_ZIPF: {
        double u = (double) (rnd >> 11) * 0x1p-53;
        double uz = u * o->zetan;
        uint64_t rank;
        if (uz < 1.0)
            rank = 0;
        else if (uz < o->zeta2)
            rank = 1;
        else
            rank = (uint64_t) ((double) o->nblocks * pow (o->eta * u - o->eta + 1.0, o->alpha));
        if (rank >= o->nblocks)
            rank = o->nblocks - 1;
        b = (hash64 (rank) + o->hash_off) % room;
        break;
    }
    default:
        b = rnd % room;
        break;
    }
    return o->start + b * o->unit;
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
