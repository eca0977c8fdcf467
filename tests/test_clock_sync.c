/*  test_clock_sync.c: the offset estimator on synthetic exchanges. */
#include "clock_sync.h"
#include "testutil.h"

#include <errno.h>

#include <stdint.h>

static unsigned long long rng_state = 0xc10c4ull;

static uint64_t
rnd (uint64_t n)
{
    return test_splitmix64 (&rng_state) % n;
}

/* One exchange against a controller whose clock is ahead by `theta`, with
   forward and return legs d1, d2 and server time s.  Agent clock = t. */
static void
exchange (clock_sync_t *c, uint64_t t, int64_t theta, uint64_t d1, uint64_t s, uint64_t d2)
{
    uint64_t t0 = t;
    uint64_t t1 = (uint64_t) ((int64_t) (t0 + d1) + theta);
    uint64_t t2 = t1 + s;
    uint64_t t3 = t0 + d1 + s + d2;
    CHECK (clock_sync_add (c, t0, t1, t2, t3) == 0);
}

static uint64_t
absdiff (int64_t a, int64_t b)
{
    return a > b ? (uint64_t) (a - b) : (uint64_t) (b - a);
}

int
main (void)
{
    clock_sync_t c;
    clock_sync_init (&c);
    CHECK (clock_sync_offset (&c) == 0);
    CHECK (clock_sync_uncertainty (&c) == UINT64_MAX);

    /* Symmetric legs: exact. */
    exchange (&c, 1000000000000ull, 40000000, 50000, 3000, 50000);
    CHECK_MSG (clock_sync_offset (&c) == 40000000, "offset %lld",
               (long long) clock_sync_offset (&c));
    CHECK (clock_sync_delay (&c) == 100000);
    CHECK (clock_sync_uncertainty (&c) == 50000);

    /* Asymmetric legs and outliers, both signs of offset: the error stays
       within half the delay of the best sample, every time. */
    const int64_t thetas[] = { 40000000, -40000000, 0, 123456789, -1 };
    for (size_t k = 0; k < sizeof thetas / sizeof thetas[0]; k++) {
        clock_sync_init (&c);
        uint64_t t = 1700000000000000000ull;
        uint64_t best_delay = UINT64_MAX;
        int bad = 0;
        for (int i = 0; i < 500; i++) {
            uint64_t d1 = 20000 + rnd (30000), d2 = 20000 + rnd (30000);
            if (rnd (10) == 0)
                d1 += 5000000;          /* a queued packet: a 5 ms outlier */
            if (rnd (10) == 0)
                d2 += 3000000;
            exchange (&c, t, thetas[k], d1, 2000 + rnd (5000), d2);
            t += 1000000000;
            if (i >= 500 - CLOCK_SYNC_N && d1 + d2 < best_delay)
                best_delay = d1 + d2;
            uint64_t err = absdiff (clock_sync_offset (&c), thetas[k]);
            if (err > clock_sync_uncertainty (&c))
                bad++;
        }
        CHECK_MSG (bad == 0, "theta %lld: %d estimates outside their uncertainty",
                   (long long) thetas[k], bad);
        CHECK_MSG (clock_sync_delay (&c) == best_delay, "theta %lld: uses delay %llu, best %llu",
                   (long long) thetas[k], (unsigned long long) clock_sync_delay (&c),
                   (unsigned long long) best_delay);
        CHECK (absdiff (clock_sync_offset (&c), thetas[k]) <= best_delay / 2 + 1);
    }

    /* A good sample ages out after CLOCK_SYNC_N newer ones (drift). */
    clock_sync_init (&c);
    exchange (&c, 1000, 0, 10, 0, 10);
    for (int i = 0; i < CLOCK_SYNC_N; i++)
        exchange (&c, 100000 + (uint64_t) i * 1000, 7, 100, 0, 100);
    CHECK_MSG (clock_sync_delay (&c) == 200, "old best sample still used: delay %llu",
               (unsigned long long) clock_sync_delay (&c));

    /* The agent's clock stepped 2 s ahead (NTP, date -s): the very next
       exchange, slower than every sample before, gives the new offset;
       the window starts again from it (it once kept the old offset, with
       its 10 us uncertainty, for CLOCK_SYNC_N exchanges). */
    clock_sync_init (&c);
    uint64_t t = 1700000000000000000ull;
    for (int i = 0; i < CLOCK_SYNC_N; i++, t += 1000000000)
        exchange (&c, t, 0, 10000, 1000, 10000);
    CHECK (clock_sync_offset (&c) == 0);
    t += 2000000000;                    /* the step: agent time +2 s */
    exchange (&c, t, -2000000000, 400000, 1000, 400000);
    CHECK_MSG (absdiff (clock_sync_offset (&c), -2000000000) <= clock_sync_uncertainty (&c),
               "after a 2 s step: offset %lld, uncertainty %llu", (long long) clock_sync_offset (&c),
               (unsigned long long) clock_sync_uncertainty (&c));
    CHECK (clock_sync_delay (&c) == 800000);
    /* A drift within the samples' ranges keeps the window (no restart). */
    exchange (&c, t + 1000000000, -2000000000 + 300000, 400000, 1000, 400000);
    CHECK (c.nsamples == 2);

    /* Impossible timestamps are refused and change nothing. */
    int64_t before = clock_sync_offset (&c);
    CHECK (clock_sync_add (&c, 100, 50, 60, 90) == -EINVAL);     /* t3 < t0 */
    CHECK (clock_sync_add (&c, 100, 60, 50, 200) == -EINVAL);    /* t2 < t1 */
    CHECK (clock_sync_add (&c, 100, 0, 500, 200) == -EINVAL);    /* server > round trip */
    CHECK (clock_sync_offset (&c) == before);
    return TEST_DONE ();
}
