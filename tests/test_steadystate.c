/*  test_steadystate.c: unit tests for common/steadystate.c.

    Every criterion is checked against values computed here independently:
    the slope with the textbook least-squares formula
    (n Sxy - Sx Sy) / (n Sxx - Sx^2), not the centred form the module uses,
    and some by hand (the derivations are in the comments).
*/
#include "steadystate.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>

#define NEAR(a, b, rel) (fabs ((a) - (b)) <= (rel) * fmax (fabs (a), fabs (b)) + 1e-300)

static unsigned long long rng_state = 0x55a7e5u;

//  Uniform in [-1, 1).
static double
rng_sym (void)
{
    return (double) (test_splitmix64 (&rng_state) >> 11) * 0x1p-52 - 1.0;
}

//  Least-squares slope of y[0..n) against x = 0..n-1, textbook form.
static double
ref_slope (const double *y, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sx += i;
        sy += y[i];
        sxx += (double) i * i;
        sxy += i * y[i];
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static double
ref_mean (const double *y, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i];
    return s / n;
}

static double
ref_maxdev (const double *y, int n)
{
    double m = ref_mean (y, n), d = 0;
    for (int i = 0; i < n; i++)
        d = fmax (d, fabs (y[i] - m));
    return d;
}

//  Feeds samples y[0..count) as IOPS (bw = 4096 * IOPS) or as bw (IOPS =
//  bw / 4096); returns the 1-based number of the first sample at which
//  steadystate_add returned true, 0 if none.
static int
feed (steadystate_t *ss, const double *y, int count, bool as_bw)
{
    int first = 0;
    for (int i = 0; i < count; i++) {
        bool met = as_bw ? steadystate_add (ss, y[i] / 4096, y[i])
                         : steadystate_add (ss, y[i], y[i] * 4096);
        if (met && !first)
            first = i + 1;
    }
    return first;
}

static void
test_bad_arguments (void)
{
    CHECK (steadystate_new (JOB_SS_NONE, 0.01, true, 10, 0) == NULL);
    CHECK (steadystate_new ((job_ss_t) 99, 0.01, true, 10, 0) == NULL);
    CHECK (steadystate_new (JOB_SS_IOPS, 0.01, true, 1, 0) == NULL);
    CHECK (steadystate_new (JOB_SS_IOPS, 0.01, true, 0, 0) == NULL);
    CHECK (steadystate_new (JOB_SS_IOPS, -1, false, 10, 0) == NULL);
    CHECK (steadystate_new (JOB_SS_IOPS, NAN, false, 10, 0) == NULL);
    CHECK (steadystate_new (JOB_SS_IOPS, INFINITY, false, 10, 0) == NULL);

    steadystate_t *ss = steadystate_new (JOB_SS_BW_SLOPE, 0, false, 2, 0);
    CHECK (ss != NULL);
    steadystate_destroy (&ss);
    CHECK (ss == NULL);
    steadystate_destroy (&ss);          //  safe on NULL
    steadystate_destroy (NULL);
}

//  A constant series is steady exactly when the window fills after the
//  ramp, in every mode, with criterion 0.
static void
test_constant (void)
{
    const job_ss_t modes[] = { JOB_SS_IOPS, JOB_SS_IOPS_SLOPE, JOB_SS_BW, JOB_SS_BW_SLOPE };
    const uint32_t n = 10, nramp = 5;
    int bad = 0, badcrit = 0;
    for (int m = 0; m < 4; m++) {
        for (int pct = 0; pct < 2; pct++) {
            steadystate_t *ss = steadystate_new (modes[m], pct ? 0.01 : 1.0, pct, n, nramp);
            CHECK (ss != NULL);
            if (!ss)
                continue;
            for (uint32_t i = 1; i <= nramp + n + 5; i++) {
                bool met = steadystate_add (ss, 1000.0, 4096000.0);
                if (met != (i >= nramp + n))
                    bad++;
                double c = steadystate_criterion (ss);
                if (i < nramp + n ? !(c < 0) : c != 0)
                    badcrit++;
                if (steadystate_reached (ss) != (i >= nramp + n))
                    bad++;
            }
            steadystate_destroy (&ss);
        }
    }
    CHECK_MSG (bad == 0, "%d wrong verdicts on a constant series", bad);
    CHECK_MSG (badcrit == 0, "%d wrong criteria on a constant series", badcrit);

    //  fio compares strictly (criterion < limit): a limit of 0 is never
    //  met, not even by a constant series.
    steadystate_t *ss = steadystate_new (JOB_SS_IOPS, 0, false, 4, 0);
    CHECK (ss && feed (ss, (double[]) { 5, 5, 5, 5, 5, 5 }, 6, false) == 0);
    CHECK (ss && steadystate_criterion (ss) == 0 && !steadystate_reached (ss));
    steadystate_destroy (&ss);
}

//  Hand-computed window y = 1, 2, 4, 8 (n = 4):
//    mean = 15/4 = 3.75; max |y - mean| = 8 - 3.75 = 4.25, / mean = 17/15
//    x_mean = 1.5, Sxx = 2.25 + 0.25 + 0.25 + 2.25 = 5
//    Sxy = (-1.5)(1) + (-0.5)(2) + (0.5)(4) + (1.5)(8) = 11.5
//    slope = 11.5 / 5 = 2.3, / mean = 2.3 / 3.75 = 46/75
static void
test_hand_values (void)
{
    const double y[] = { 1, 2, 4, 8 };
    struct { job_ss_t mode; bool pct; double want; } cases[] = {
        { JOB_SS_IOPS, false, 4.25 },
        { JOB_SS_IOPS, true, 17.0 / 15.0 },
        { JOB_SS_IOPS_SLOPE, false, 2.3 },
        { JOB_SS_IOPS_SLOPE, true, 46.0 / 75.0 },
        { JOB_SS_BW, false, 4.25 },
        { JOB_SS_BW, true, 17.0 / 15.0 },
        { JOB_SS_BW_SLOPE, false, 2.3 },
        { JOB_SS_BW_SLOPE, true, 46.0 / 75.0 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bool bw = cases[c].mode == JOB_SS_BW || cases[c].mode == JOB_SS_BW_SLOPE;
        steadystate_t *ss = steadystate_new (cases[c].mode, 100, cases[c].pct, 4, 0);
        int first = ss ? feed (ss, y, 4, bw) : -1;
        double got = ss ? steadystate_criterion (ss) : -1;
        CHECK_MSG (first == 4 && NEAR (got, cases[c].want, 1e-12),
                   "case %zu: criterion %.17g, want %.17g (first %d)",
                   c, got, cases[c].want, first);
        //  And against the independent reference.
        double ref = (cases[c].mode == JOB_SS_IOPS_SLOPE || cases[c].mode == JOB_SS_BW_SLOPE)
                   ? fabs (ref_slope (y, 4)) : ref_maxdev (y, 4);
        if (cases[c].pct)
            ref /= ref_mean (y, 4);
        CHECK_MSG (NEAR (got, ref, 1e-12), "case %zu: %.17g vs reference %.17g", c, got, ref);
        steadystate_destroy (&ss);
    }

    //  A falling series: the slope's sign does not matter (|slope|).
    steadystate_t *ss = steadystate_new (JOB_SS_IOPS_SLOPE, 100, false, 4, 0);
    feed (ss, (double[]) { 8, 4, 2, 1 }, 4, false);
    CHECK (NEAR (steadystate_criterion (ss), 2.3, 1e-12));
    steadystate_destroy (&ss);

    //  Exactly representable y = 10, 12, 14, 16: slope 2 (Sxy = 10, Sxx = 5),
    //  max deviation 3 (mean 13).  A limit equal to the criterion is not met
    //  (fio's strict <); the next double up is.
    const double z[] = { 10, 12, 14, 16 };
    ss = steadystate_new (JOB_SS_IOPS_SLOPE, 2.0, false, 4, 0);
    CHECK (feed (ss, z, 4, false) == 0 && steadystate_criterion (ss) == 2.0);
    steadystate_destroy (&ss);
    ss = steadystate_new (JOB_SS_IOPS_SLOPE, nextafter (2.0, 3.0), false, 4, 0);
    CHECK (feed (ss, z, 4, false) == 4);
    steadystate_destroy (&ss);
    ss = steadystate_new (JOB_SS_BW, 3.0, false, 4, 0);
    CHECK (feed (ss, z, 4, true) == 0 && steadystate_criterion (ss) == 3.0);
    steadystate_destroy (&ss);
    ss = steadystate_new (JOB_SS_BW, nextafter (3.0, 4.0), false, 4, 0);
    CHECK (feed (ss, z, 4, true) == 4);
    steadystate_destroy (&ss);
}

//  A linear ramp 1000..2000 over 60 s, then flat at 2000: 60 ramp samples
//  y_k = 1000 + 1000 k / 59 (k = 0..59), 60 flat ones.  Window 20 s,
//  iops_slope:0.1% (limit 0.001).
//    On the ramp the slope is 1000/59 = 16.95/s, >= 0.85% of any window
//    mean (<= 2000): never steady.
//    A window holding the last r ramp samples then 20 - r flat ones:
//    write y = 2000 - d with d_j = 1000 (r - 1 - j) / 59 for x = j < r,
//    0 after; x_mean = 9.5, Sxx = 20 * 399 / 12 = 665;
//    slope = -sum (j - 9.5) d_j / 665, mean = 2000 - sum d_j / 20.
//    r = 5 (sample 75): sum (j - 9.5) d_j = -(9.5*4 + 8.5*3 + 7.5*2 + 6.5*1)
//        * 1000/59 = -85000/59; slope = 85000/39235 = 2.1664;
//        mean = 2000 - 500/59; slope/mean = 0.001088: not steady.
//    r = 4 (sample 76): -(9.5*3 + 8.5*2 + 7.5*1) * 1000/59 = -53000/59;
//        slope = 53000/39235 = 1.3508; mean = 2000 - 300/59;
//        slope/mean = 0.000677 < 0.001: steady at sample 76.
static void
test_ramp_then_flat (void)
{
    double y[120];
    for (int k = 0; k < 60; k++)
        y[k] = 1000 + 1000.0 * k / 59;
    for (int k = 60; k < 120; k++)
        y[k] = 2000;

    for (int bw = 0; bw < 2; bw++) {
        double scale = bw ? 4096 : 1;       //  bytes per second for bw
        double ys[120];
        for (int k = 0; k < 120; k++)
            ys[k] = y[k] * scale;
        job_ss_t mode = bw ? JOB_SS_BW_SLOPE : JOB_SS_IOPS_SLOPE;

        //  The ramp alone never reaches it.
        steadystate_t *ss = steadystate_new (mode, 0.001, true, 20, 0);
        CHECK (feed (ss, ys, 60, bw) == 0 && !steadystate_reached (ss));
        //  Last ramp window, k = 40..59: slope 1000/59, mean at k = 49.5.
        CHECK (NEAR (steadystate_criterion (ss), (1000.0 / 59) / (1000 + 49500.0 / 59), 1e-12));
        //  The flat tail does, at sample 76.
        int first = 0, bad = 0, firstbad = 0;
        for (int t = 61; t <= 120; t++) {
            bool met = bw ? steadystate_add (ss, ys[t - 1] / 4096, ys[t - 1])
                          : steadystate_add (ss, ys[t - 1], ys[t - 1] * 4096);
            double want = fabs (ref_slope (ys + t - 20, 20)) / ref_mean (ys + t - 20, 20);
            if (!NEAR (steadystate_criterion (ss), want, 1e-9) && !bad++)
                firstbad = t;
            if (t == 75)
                CHECK (!met && NEAR (steadystate_criterion (ss),
                                     (85000.0 / 39235) / (2000 - 500.0 / 59), 1e-12));
            if (t == 76)
                CHECK (met && NEAR (steadystate_criterion (ss),
                                    (53000.0 / 39235) / (2000 - 300.0 / 59), 1e-12));
            if (met && !first)
                first = t;
        }
        CHECK_MSG (bad == 0, "bw=%d: %d criteria off the reference, first at sample %d",
                   bw, bad, firstbad);
        CHECK_MSG (first == 76, "bw=%d: first steady sample %d, want 76", bw, first);
        steadystate_destroy (&ss);

        //  The same with the absolute limit 1.5 IOPS/s (1.5 * 4096 B/s/s):
        //  slope 2.166 at 75, 1.351 at 76.
        ss = steadystate_new (mode, 1.5 * scale, false, 20, 0);
        CHECK (feed (ss, ys, 120, bw) == 76);
        steadystate_destroy (&ss);
    }
}

//  A flat series with +-1% uniform noise meets iops:2% (the deviation from
//  the mean is at most ~1% + |mean - 1000|/1000) from the first full window,
//  and never iops:0.5% (30 samples all within 0.5% of their mean has
//  probability ~2^-30 per window).
static void
test_noise (void)
{
    enum { N = 200, W = 30 };
    double y[N];
    for (int i = 0; i < N; i++)
        y[i] = 1000 * (1 + 0.01 * rng_sym ());

    for (int bw = 0; bw < 2; bw++) {
        job_ss_t mode = bw ? JOB_SS_BW : JOB_SS_IOPS;
        double ys[N];
        for (int i = 0; i < N; i++)
            ys[i] = bw ? y[i] * 4096 : y[i];

        steadystate_t *ss = steadystate_new (mode, 0.02, true, W, 0);
        CHECK (feed (ss, ys, W, bw) == W);
        double want = ref_maxdev (ys, W) / ref_mean (ys, W);
        CHECK_MSG (NEAR (steadystate_criterion (ss), want, 1e-12),
                   "%.17g vs %.17g", steadystate_criterion (ss), want);
        CHECK (want > 0.005 && want < 0.012);
        steadystate_destroy (&ss);

        ss = steadystate_new (mode, 0.005, true, W, 0);
        int bad = 0;
        for (int t = 1; t <= N; t++) {
            bool met = bw ? steadystate_add (ss, ys[t - 1] / 4096, ys[t - 1])
                          : steadystate_add (ss, ys[t - 1], ys[t - 1] * 4096);
            if (met)
                bad++;
            if (t >= W) {
                double c = ref_maxdev (ys + t - W, W) / ref_mean (ys + t - W, W);
                if (!NEAR (steadystate_criterion (ss), c, 1e-12))
                    bad++;
            }
        }
        CHECK_MSG (bad == 0 && !steadystate_reached (ss), "%d bad windows", bad);
        steadystate_destroy (&ss);

        //  The noise has no trend: iops_slope:0.1% is met at the first
        //  window whose reference slope is under 0.1% of its mean.
        int want_first = 0;
        for (int t = W; t <= N && !want_first; t++)
            if (fabs (ref_slope (ys + t - W, W)) / ref_mean (ys + t - W, W) < 0.001)
                want_first = t;
        ss = steadystate_new (bw ? JOB_SS_BW_SLOPE : JOB_SS_IOPS_SLOPE, 0.001, true, W, 0);
        int first = feed (ss, ys, N, bw);
        CHECK_MSG (first == want_first && first > 0, "first %d, want %d", first, want_first);
        steadystate_destroy (&ss);
    }
}

//  The mode picks the quantity: IOPS constant while bw swings, and back.
static void
test_mode_picks_quantity (void)
{
    steadystate_t *si = steadystate_new (JOB_SS_IOPS, 0.01, true, 5, 0);
    steadystate_t *sb = steadystate_new (JOB_SS_BW, 0.01, true, 5, 0);
    steadystate_t *sis = steadystate_new (JOB_SS_IOPS_SLOPE, 0.01, true, 5, 0);
    steadystate_t *sbs = steadystate_new (JOB_SS_BW_SLOPE, 0.01, true, 5, 0);
    int mi = 0, mb = 0, mis = 0, mbs = 0;
    for (int i = 0; i < 10; i++) {
        double iops = 500, bw = 1e6 * (1 + i);      //  bw grows, IOPS flat
        mi += steadystate_add (si, iops, bw);
        mb += steadystate_add (sb, iops, bw);
        mis += steadystate_add (sis, iops, bw);
        mbs += steadystate_add (sbs, iops, bw);
    }
    CHECK (mi == 6 && mis == 6 && mb == 0 && mbs == 0);
    //  bw_slope: slope 1e6 B/s per s over a window of mean 8e6 (samples
    //  6e6..10e6): 0.125.
    CHECK (NEAR (steadystate_criterion (sbs), 0.125, 1e-12));
    //  bw: max deviation 2e6 from the mean 8e6: 0.25.
    CHECK (NEAR (steadystate_criterion (sb), 0.25, 1e-12));
    steadystate_destroy (&si);
    steadystate_destroy (&sb);
    steadystate_destroy (&sis);
    steadystate_destroy (&sbs);

    //  Absolute bw_slope limits are in bytes per second per second.
    steadystate_t *ss = steadystate_new (JOB_SS_BW_SLOPE, 2e6, false, 5, 0);
    steadystate_t *st = steadystate_new (JOB_SS_BW_SLOPE, 0.5e6, false, 5, 0);
    int ms = 0, mt = 0;
    for (int i = 0; i < 10; i++) {
        ms += steadystate_add (ss, 1, 1e6 * i);
        mt += steadystate_add (st, 1, 1e6 * i);
    }
    CHECK (ms == 6 && mt == 0 && NEAR (steadystate_criterion (ss), 1e6, 1e-12));
    steadystate_destroy (&ss);
    steadystate_destroy (&st);
}

//  Ramp samples are dropped: wild values during the ramp change nothing,
//  and the window counts only post-ramp samples (a detector that kept them
//  would have a full window, and a criterion, nramp samples earlier).
static void
test_ramp_ignored (void)
{
    const uint32_t n = 8, nramp = 6;
    steadystate_t *ss = steadystate_new (JOB_SS_IOPS, 0.01, true, n, nramp);
    int bad = 0;
    for (uint32_t i = 1; i <= nramp; i++)
        if (steadystate_add (ss, 1e9 * i, 1e12) || steadystate_criterion (ss) >= 0)
            bad++;
    for (uint32_t i = 1; i < n; i++)
        if (steadystate_add (ss, 1000, 4096000) || steadystate_criterion (ss) >= 0)
            bad++;
    CHECK_MSG (bad == 0, "%d samples judged during the ramp or before the window filled", bad);
    CHECK (steadystate_add (ss, 1000, 4096000) && steadystate_criterion (ss) == 0);
    steadystate_destroy (&ss);

    //  Without a ramp the same series is judged at sample n, with the wild
    //  values in the window.
    ss = steadystate_new (JOB_SS_IOPS, 0.01, true, n, 0);
    for (uint32_t i = 1; i <= nramp; i++)
        steadystate_add (ss, 1e9 * i, 1e12);
    for (uint32_t i = 1; i <= n - nramp; i++)
        steadystate_add (ss, 1000, 4096000);
    CHECK (steadystate_criterion (ss) > 1);
    steadystate_destroy (&ss);
}

//  Latching, and a window that goes unsteady again.
static void
test_latch (void)
{
    steadystate_t *ss = steadystate_new (JOB_SS_IOPS, 0.05, true, 3, 0);
    CHECK (feed (ss, (double[]) { 100, 100, 100 }, 3, false) == 3);
    CHECK (!steadystate_add (ss, 1000, 0));         //  window 100 100 1000
    CHECK (steadystate_reached (ss));               //  still latched
    //  mean 400, max deviation 600: criterion 1.5.
    CHECK (NEAR (steadystate_criterion (ss), 1.5, 1e-12));

    //  A zero mean with a '%' limit: undefined, never steady.
    steadystate_t *sz = steadystate_new (JOB_SS_IOPS_SLOPE, 0.5, true, 3, 0);
    CHECK (feed (sz, (double[]) { 0, 0, 0, 0 }, 4, false) == 0);
    CHECK (isinf (steadystate_criterion (sz)) && !steadystate_reached (sz));
    steadystate_destroy (&sz);

    //  A NaN sample spoils the windows that hold it, and only those.
    sz = steadystate_new (JOB_SS_IOPS, 0.5, false, 3, 0);
    CHECK (feed (sz, (double[]) { 1, NAN, 1, 1 }, 4, false) == 0);
    CHECK (steadystate_add (sz, 1, 0) && steadystate_criterion (sz) == 0);
    steadystate_destroy (&sz);
    steadystate_destroy (&ss);
}

int
main (void)
{
    test_bad_arguments ();
    test_constant ();
    test_hand_values ();
    test_ramp_then_flat ();
    test_noise ();
    test_mode_picks_quantity ();
    test_ramp_ignored ();
    test_latch ();
    return TEST_DONE ();
}
