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
test_range_alignment (off_mode_t mode, double theta)
{
    const uint64_t start = 1 << 20, n = 1000;
    const uint32_t unit = 4096;
    offsets_t *o = offsets_new (mode, start, n, unit, theta);
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
        offsets_t *o = offsets_new (OFF_RANDOM, 0, n, 512, 0);
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
    offsets_t *o = offsets_new (OFF_RANDOM, 0, n, unit, 0);
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
    offsets_t *o = offsets_new (OFF_RANDOM_NOMAP, 0, n, 4096, 0);
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
    offsets_t *o = offsets_new (OFF_SEQ, 8192, 4, 4096, 0);
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

/* zipf:1.2 concentrates accesses: the hottest 10% of blocks take most of
   them, while uniform gives them about 10%.  The hot blocks are scattered,
   not the first ones. */
static void
test_zipf_skew (void)
{
    const uint64_t n = 10000;
    const int draws = 200000;
    double share[2];
    uint64_t hot_first_decile = 0;
    for (int z = 0; z < 2; z++) {
        offsets_t *o = offsets_new (z ? OFF_ZIPF : OFF_RANDOM_NOMAP, 0, n, 4096, 1.2);
        CHECK (o != NULL);
        uint32_t *count = calloc (n, sizeof *count);
        for (int i = 0; i < draws; i++)
            count[next_len (o, 4096) / 4096]++;
        if (z)
            for (uint64_t b = 0; b < n / 10; b++)
                hot_first_decile += count[b];
        qsort (count, n, sizeof *count, cmp_desc);
        uint64_t top = 0;
        for (uint64_t b = 0; b < n / 10; b++)
            top += count[b];
        share[z] = (double) top / draws;
        free (count);
        offsets_destroy (&o);
    }
    CHECK_MSG (share[0] < 0.15, "uniform: top 10%% of blocks took %.2f", share[0]);
    CHECK_MSG (share[1] > 0.6, "zipf:1.2: top 10%% of blocks took %.2f", share[1]);
    CHECK_MSG ((double) hot_first_decile / draws < 0.3,
               "zipf hot blocks bunched at the start: first 10%% took %.2f",
               (double) hot_first_decile / draws);
    /* Bad thetas are refused. */
    CHECK (offsets_new (OFF_ZIPF, 0, n, 4096, 1.0) == NULL);
    CHECK (offsets_new (OFF_ZIPF, 0, n, 4096, 0) == NULL);
    CHECK (offsets_new (OFF_RANDOM, 0, 0, 4096, 0) == NULL);
}

/* rw=write:SIZE: a sequential generator leaves skip blocks after each I/O
   and wraps where the next would pass the end; a rewind starts it over. */
static void
test_sequential_skip (void)
{
    offsets_t *o = offsets_new (OFF_SEQ, 4096, 10, 4096, 0);
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

int
main (void)
{
    test_sequential_skip ();
    test_range_alignment (OFF_SEQ, 0);
    test_range_alignment (OFF_RANDOM, 0);
    test_range_alignment (OFF_RANDOM_NOMAP, 0);
    test_range_alignment (OFF_ZIPF, 1.2);
    test_random_map_coverage ();
    test_random_map_trim ();
    test_nomap_repeats ();
    test_sequential ();
    test_zipf_skew ();
    return TEST_DONE ();
}
