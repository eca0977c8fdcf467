/*  test_offsets.c: where I/Os land (agent/offsets.c). */
#include "offsets.h"
#include "testutil.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng_state = 0x0ff5e75ull;

static uint64_t
rnd (void)
{
    return test_splitmix64 (&rng_state);
}

/* offsets_next for a fixed length, which the caller does not keep. */
static uint64_t
next_len (offsets_t *o, uint32_t len)
{
    return offsets_next (o, &len, rnd ());
}

/* Every offset inside [start, start + n*unit - len] and aligned to unit. */
static void
test_range_alignment (off_mode_t mode, const dist_t *dist)
{
    const uint64_t start = 1 << 20, n = 1000;
    const uint32_t unit = 4096;
    offsets_t *o = offsets_new (mode, start, n, unit, dist);
    CHECK (o != NULL);
    int bad = 0;
    for (int i = 0; i < 100000 && o; i++) {
        uint32_t len = unit * (1 + (uint32_t) (rnd () % 4));
        uint64_t off = offsets_next (o, &len, rnd ());
        if (len == 0 || len % unit || off < start || off + len > start + n * unit || (off - start) % unit)
            bad++;
    }
    CHECK_MSG (bad == 0, "mode %d: %d offsets outside the region or misaligned", (int) mode, bad);
    offsets_destroy (&o);
    CHECK (o == NULL);
}

/* With the random map, each pass touches every block exactly once. */
static void
test_random_map_coverage (void)
{
    for (uint64_t n = 1; n <= 70000; n = n * 7 + 3) {
        offsets_t *o = offsets_new (OFF_RANDOM, 0, n, 512, NULL);
        uint8_t *seen = calloc (n, 1);
        int dup = 0;
        for (int pass = 0; pass < 3; pass++) {
            memset (seen, 0, n);
            for (uint64_t i = 0; i < n; i++) {
                uint64_t b = next_len (o, 512) / 512;
                if (b >= n || seen[b]++)
                    dup++;
            }
        }
        CHECK_MSG (dup == 0, "n=%llu: %d blocks repeated within a pass",
                   (unsigned long long) n, dup);
        CHECK_MSG (offsets_passes (o) == 2, "n=%llu: %llu passes", (unsigned long long) n,
                   (unsigned long long) offsets_passes (o));
        free (seen);
        offsets_destroy (&o);
    }
}

/* Mixed sizes over the random map (bssplit=4k/50:64k/50): each I/O is
   trimmed to the free run it lands in, so a pass covers every block exactly
   once, in more I/Os than the untrimmed sizes would take (fio does the same:
   876 I/Os over 16 MiB where the mix alone would take 482). */
static void
test_random_map_trim (void)
{
    const uint64_t n = 4096;
    const uint32_t unit = 4096;
    offsets_t *o = offsets_new (OFF_RANDOM, 0, n, unit, NULL);
    CHECK (o != NULL);
    uint8_t *seen = calloc (n, 1);
    uint64_t covered = 0, ios = 0, trimmed = 0;
    int bad = 0;
    while (covered < n && o && ios < 10 * n) {
        uint32_t want = rnd () % 2 ? 4096 : 65536, len = want;
        uint64_t off = offsets_next (o, &len, rnd ());
        ios++;
        trimmed += len < want;
        if (len == 0 || len % unit || off % unit || off + len > n * unit) {
            bad++;
            break;
        }
        for (uint64_t b = off / unit; b < (off + len) / unit; b++) {
            if (seen[b]++)
                bad++;
            covered++;
        }
    }
    CHECK_MSG (bad == 0, "%d blocks used twice in one pass, or an I/O out of the region", bad);
    CHECK_MSG (covered == n, "a pass covered %llu of %llu blocks", (unsigned long long) covered,
               (unsigned long long) n);
    CHECK_MSG (trimmed > 0, "no I/O was trimmed (%llu I/Os)", (unsigned long long) ios);
    CHECK_MSG (offsets_passes (o) == 0, "passes %llu", (unsigned long long) offsets_passes (o));
    free (seen);
    offsets_destroy (&o);
}

/* Without the map, blocks repeat within a pass (birthday paradox): the
   option really changes the behaviour. */
static void
test_nomap_repeats (void)
{
    const uint64_t n = 10000;
    offsets_t *o = offsets_new (OFF_RANDOM_NOMAP, 0, n, 4096, NULL);
    uint8_t *seen = calloc (n, 1);
    uint64_t distinct = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b = next_len (o, 4096) / 4096;
        distinct += !seen[b]++;
    }
    /* Expected distinct: n (1 - 1/e) ~ 63%. */
    CHECK_MSG (distinct > n * 55 / 100 && distinct < n * 70 / 100, "distinct %llu of %llu",
               (unsigned long long) distinct, (unsigned long long) n);
    free (seen);
    offsets_destroy (&o);
}

static void
test_sequential (void)
{
    offsets_t *o = offsets_new (OFF_SEQ, 8192, 4, 4096, NULL);
    uint64_t want[] = { 8192, 12288, 16384, 20480, 8192, 12288 };
    for (int i = 0; i < 6; i++) {
        uint64_t off = next_len (o, 4096);
        CHECK_MSG (off == want[i], "seq %d: %llu, want %llu", i, (unsigned long long) off,
                   (unsigned long long) want[i]);
    }
    CHECK (offsets_passes (o) == 1);
    /* An 8 KiB I/O that would run past the end wraps to the start. */
    uint64_t off = next_len (o, 8192);
    CHECK_MSG (off == 16384, "8k at 16384: %llu", (unsigned long long) off);
    off = next_len (o, 8192);
    CHECK_MSG (off == 8192, "8k wraps: %llu", (unsigned long long) off);
    offsets_destroy (&o);
}

static int
cmp_desc (const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* A distribution from its parts (zones as access/size pairs). */
static dist_t
mkdist (job_dist_t kind, double param, int nzones, const uint64_t *pairs)
{
    dist_t d;
    memset (&d, 0, sizeof d);
    d.kind = kind;
    d.param = param;
    d.nzones = nzones;
    for (int i = 0; i < nzones; i++) {
        d.zones[i].access_pct = (uint32_t) pairs[2 * i];
        d.zones[i].size = pairs[2 * i + 1];
    }
    return d;
}

typedef struct {
    double top10;                   /* share of the I/Os in the hottest 10% of blocks */
    double decile[10];              /* share per tenth of the region, by position */
    uint64_t hottest;               /* the block drawn most */
} shape_t;

/* The shape of draws offsets of 4k over n blocks. */
static shape_t
shape (const dist_t *d, uint64_t n, int draws)
{
    shape_t sh;
    memset (&sh, 0, sizeof sh);
    offsets_t *o = offsets_new (d->kind == JOB_DIST_RANDOM ? OFF_RANDOM_NOMAP : OFF_SKEWED, 0, n,
                                4096, d);
    CHECK (o != NULL);
    if (!o)
        return sh;
    uint32_t *count = calloc (n, sizeof *count);
    for (int i = 0; i < draws; i++) {
        uint64_t b = next_len (o, 4096) / 4096;
        count[b]++;
        sh.decile[b * 10 / n] += 1.0 / draws;
    }
    for (uint64_t b = 1; b < n; b++)
        if (count[b] > count[sh.hottest])
            sh.hottest = b;
    qsort (count, n, sizeof *count, cmp_desc);
    uint64_t top = 0;
    for (uint64_t b = 0; b < n / 10; b++)
        top += count[b];
    sh.top10 = (double) top / draws;
    free (count);
    offsets_destroy (&o);
    return sh;
}

/* fio 3.33's shapes, measured with write_iolog on a 64 MiB file of 4k
   blocks (16384) over 102400 reads (docs/conformance.md): the share of the
   I/Os in the hottest 10% of blocks, and per tenth of the file for the
   zoned ones, which are not scattered. */
static void
test_skew_as_fio (void)
{
    const uint64_t n = 16384;
    const int draws = 102400;
    static const uint64_t zoned[] = { 60, 10, 30, 20, 10, 70 };
    static const uint64_t zoned_abs[] = { 60, 8 << 20, 40, 16 << 20 };
    const struct { dist_t d; double top10; const char *name; } want[] = {
        { mkdist (JOB_DIST_ZIPF, 1.2, 0, NULL), 0.925, "zipf:1.2" },
        { mkdist (JOB_DIST_PARETO, 0.9, 0, NULL), 0.902, "pareto:0.9" },
        { mkdist (JOB_DIST_PARETO, 0.2, 0, NULL), 0.737, "pareto:0.2" },
        { mkdist (JOB_DIST_NORMAL, 10, 0, NULL), 0.450, "normal:10" },
        { mkdist (JOB_DIST_NORMAL, 50, 0, NULL), 0.260, "normal:50" },
        { mkdist (JOB_DIST_ZONED, 0, 3, zoned), 0.598, "zoned:60/10:30/20:10/70" },
        { mkdist (JOB_DIST_ZONED_ABS, 0, 2, zoned_abs), 0.508, "zoned_abs:60/8m:40/16m" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        shape_t sh = shape (&want[i].d, n, draws);
        CHECK_MSG (sh.top10 > want[i].top10 - 0.03 && sh.top10 < want[i].top10 + 0.03,
                   "%s: the hottest 10%% of blocks took %.3f, fio's %.3f", want[i].name,
                   sh.top10, want[i].top10);
        if (want[i].d.kind == JOB_DIST_ZIPF || want[i].d.kind == JOB_DIST_PARETO
            || want[i].d.kind == JOB_DIST_NORMAL)
            CHECK_MSG (sh.decile[0] < 0.4, "%s: hot blocks bunched at the start (%.2f)",
                       want[i].name, sh.decile[0]);
        if (want[i].d.kind == JOB_DIST_ZONED) {
            /* fio: .60 .15 .15 .01 x 7 */
            static const double dec[10] = { .60, .15, .15, .0143, .0143, .0143, .0143, .0143,
                                            .0143, .0143 };
            for (int k = 0; k < 10; k++)
                CHECK_MSG (sh.decile[k] > dec[k] - 0.02 && sh.decile[k] < dec[k] + 0.02,
                           "zoned: tenth %d took %.3f, fio's %.3f", k, sh.decile[k], dec[k]);
        }
        if (want[i].d.kind == JOB_DIST_ZONED_ABS) {
            /* fio: .48 .24 .16 .12 0 ... (8 MiB zones of a 64 MiB file are
               an eighth: 60% over the first, 40% over the next two). */
            static const double dec[10] = { .48, .24, .16, .12, 0, 0, 0, 0, 0, 0 };
            for (int k = 0; k < 10; k++)
                CHECK_MSG (sh.decile[k] > dec[k] - 0.02 && sh.decile[k] < dec[k] + 0.02,
                           "zoned_abs: tenth %d took %.3f, fio's %.3f", k, sh.decile[k], dec[k]);
        }
    }
    /* A center only rotates where the ranks land: pareto:0.2's rank 0 (a
       quarter of the I/Os) lands at center x n. */
    dist_t c = mkdist (JOB_DIST_PARETO, 0.2, 0, NULL);
    c.centered = true;
    c.center = 0.5;
    shape_t sh = shape (&c, n, 20000);
    CHECK_MSG (sh.hottest == n / 2, "pareto:0.2:0.5: hottest block %llu, not %llu",
               (unsigned long long) sh.hottest, (unsigned long long) (n / 2));
    /* Bad parameters and zoned_abs zones past the region are refused. */
    dist_t bad = mkdist (JOB_DIST_ZIPF, 1.0, 0, NULL);
    CHECK (offsets_new (OFF_SKEWED, 0, n, 4096, &bad) == NULL);
    bad = mkdist (JOB_DIST_RANDOM, 0, 0, NULL);
    CHECK (offsets_new (OFF_SKEWED, 0, n, 4096, &bad) == NULL);
    CHECK (offsets_new (OFF_SKEWED, 0, n, 4096, NULL) == NULL);
    bad = mkdist (JOB_DIST_ZONED_ABS, 0, 2, zoned_abs);
    CHECK (offsets_new (OFF_SKEWED, 0, 1000, 4096, &bad) == NULL);
    CHECK (offsets_zones_end (&bad) == 24 << 20);
    CHECK (offsets_new (OFF_RANDOM, 0, 0, 4096, NULL) == NULL);
}

/* rw=write:SIZE: a sequential generator leaves skip blocks after each I/O
   and wraps where the next would pass the end; a rewind starts it over. */
static void
test_sequential_skip (void)
{
    offsets_t *o = offsets_new (OFF_SEQ, 4096, 10, 4096, NULL);
    CHECK (o != NULL);
    if (!o)
        return;
    offsets_set_skip (o, 2);
    static const uint64_t want[] = { 0, 3, 6, 9, 0, 3 };
    int bad = 0;
    for (int k = 0; k < 6; k++)
        bad += next_len (o, 4096) != 4096 + want[k] * 4096;
    CHECK_MSG (bad == 0, "%d offsets off the 0, 3, 6, 9 pattern", bad);
    CHECK (offsets_passes (o) == 1);
    offsets_rewind (o);
    CHECK (next_len (o, 4096) == 4096);
    offsets_destroy (&o);
}

/* The end of a region as fio ends it: the start first, with the room left
   to size the I/O to; a sequential pass is over once its position is at
   or past the region's end (an I/O may have run past it), a random one
   once the map is full; a random draw without the map starts where the
   smallest size fits. */
static void
test_region_end (void)
{
    uint64_t room;
    offsets_t *o = offsets_new (OFF_SEQ, 8192, 4, 4096, NULL);
    offsets_set_size (o, 4 * 4096 + 2048);
    uint64_t off = offsets_start (o, rnd (), 4096, &room);
    CHECK_MSG (off == 8192 && room == 18432, "seq start %llu room %llu",
               (unsigned long long) off, (unsigned long long) room);
    uint32_t lens[] = { 8192, 8192, 4096 };
    uint64_t want[] = { 8192, 16384, 24576 }, rooms[] = { 18432, 10240, 2048 };
    for (int i = 0; i < 3; i++) {
        off = offsets_start (o, rnd (), 4096, &room);
        CHECK_MSG (off == want[i] && room == rooms[i], "seq %d: %llu room %llu", i,
                   (unsigned long long) off, (unsigned long long) room);
        offsets_take (o, off, &lens[i]);
    }
    /* The 4k at 16k + 8k ran 2k past the end: the pass is over. */
    CHECK (offsets_start (o, rnd (), 4096, &room) == OFFSETS_END);
    offsets_wrap (o);
    CHECK (offsets_start (o, rnd (), 4096, &room) == 8192 && offsets_passes (o) == 1);
    offsets_destroy (&o);

    o = offsets_new (OFF_RANDOM, 0, 4, 4096, NULL);
    for (int i = 0; i < 4; i++) {
        off = offsets_start (o, rnd (), 4096, &room);
        CHECK (off != OFFSETS_END && room == 4 * 4096 - off);
        uint32_t len = 4096;
        offsets_take (o, off, &len);
        CHECK (len == 4096);
    }
    CHECK (offsets_start (o, rnd (), 4096, &room) == OFFSETS_END);
    offsets_wrap (o);
    CHECK (offsets_start (o, rnd (), 4096, &room) != OFFSETS_END && offsets_passes (o) == 1);
    offsets_destroy (&o);

    o = offsets_new (OFF_RANDOM_NOMAP, 0, 16, 4096, NULL);
    off = offsets_start (o, 15, 4096, &room);
    CHECK_MSG (off == 15 * 4096 && room == 4096, "nomap last block %llu room %llu",
               (unsigned long long) off, (unsigned long long) room);
    off = offsets_start (o, 15, 8192, &room);
    CHECK_MSG (off == 0, "nomap 8k: %llu", (unsigned long long) off);
    offsets_destroy (&o);
}

int
main (void)
{
    test_sequential_skip ();
    test_range_alignment (OFF_SEQ, NULL);
    test_range_alignment (OFF_RANDOM, NULL);
    test_range_alignment (OFF_RANDOM_NOMAP, NULL);
    static const uint64_t zones[] = { 50, 1, 50, 99 };
    const dist_t skewed[] = {
        mkdist (JOB_DIST_ZIPF, 1.2, 0, NULL), mkdist (JOB_DIST_PARETO, 0.3, 0, NULL),
        mkdist (JOB_DIST_NORMAL, 20, 0, NULL), mkdist (JOB_DIST_ZONED, 0, 2, zones),
    };
    for (size_t i = 0; i < sizeof skewed / sizeof skewed[0]; i++)
        test_range_alignment (OFF_SKEWED, &skewed[i]);
    test_random_map_coverage ();
    test_random_map_trim ();
    test_nomap_repeats ();
    test_sequential ();
    test_region_end ();
    test_skew_as_fio ();
    return TEST_DONE ();
}
