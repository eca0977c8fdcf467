/*  test_outliers.c: robust outliers on synthetic groups. */
#include "outliers.h"
#include "testutil.h"

#include <math.h>

static unsigned long long rng_state = 0x0a7113e5ull;

static double
noise (double pct)
{
    double u = (double) (test_splitmix64 (&rng_state) >> 11) * 0x1p-53;
    return 1.0 + (u * 2 - 1) * pct / 100;
}

int
main (void)
{
    double v[24], score[24], median;
    bool flagged[24];

    /* 24 drives at ~100k IOPS +-3%: nobody flagged. */
    for (int i = 0; i < 24; i++)
        v[i] = 100000 * noise (3);
    CHECK (outliers_find (v, 24, &median, score, flagged) == 0);
    CHECK (fabs (median - 100000) < 3000);

    /* One at a fifth of the others: flagged, alone, far below. */
    v[7] = 20000;
    CHECK (outliers_find (v, 24, &median, score, flagged) == 1);
    CHECK (flagged[7] && score[7] < -3.5);

    /* Two slow ones: both flagged; the median barely moves. */
    v[13] = 25000;
    CHECK (outliers_find (v, 24, &median, score, flagged) == 2);
    CHECK (flagged[7] && flagged[13]);
    CHECK (fabs (median - 100000) < 4000);

    /* A tight group (tiny MAD): 5% off is a large z but not a finding. */
    for (int i = 0; i < 24; i++)
        v[i] = 100000 + (i % 2);
    v[3] = 95000;
    CHECK (outliers_find (v, 24, &median, score, flagged) == 0);
    CHECK (fabs (score[3]) > 3.5);
    /* ... while 20% off is. */
    v[3] = 80000;
    CHECK (outliers_find (v, 24, &median, score, flagged) == 1 && flagged[3]);

    /* All equal (MAD 0) but one: that one, with an infinite score. */
    for (int i = 0; i < 24; i++)
        v[i] = 5000;
    v[20] = 9000;
    CHECK (outliers_find (v, 24, &median, score, flagged) == 1 && flagged[20]);
    CHECK (isinf (score[20]) && score[20] > 0 && score[0] == 0);

    /* High latency is an outlier too (p99 of one drive 3x the others'). */
    for (int i = 0; i < 8; i++)
        v[i] = 500e3 * noise (5);
    v[2] = 1.5e6;
    CHECK (outliers_find (v, 8, &median, score, flagged) == 1 && flagged[2] && score[2] > 3.5);

    /* Fewer than 3 members: no outliers whatever the numbers. */
    v[0] = 1, v[1] = 1000;
    CHECK (outliers_find (v, 2, &median, score, flagged) == 0);
    CHECK (outliers_median (v, 0) == 0);
    return TEST_DONE ();
}
