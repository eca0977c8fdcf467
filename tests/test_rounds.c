/*  test_rounds.c: [iofleet] rounds= and steady_state= (common/rounds.c,
    jobfile.c): the SNIA PTS steady-state rule over windows of figures
    worked out by hand (range and slope excursion, both inclusive), the
    first steady round of a drive that warms up, the parser's defaults
    and refusals, each naming the line, the part and the limit.
*/
#include "jobfile.h"
#include "rounds.h"
#include "parse_err.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool
near (double a, double b)
{
    return fabs (a - b) < 1e-9 * (fabs (b) > 1 ? fabs (b) : 1);
}

static void
test_rule (void)
{
    rounds_rule_t r = { .step = "w", .metric = ROUNDS_IOPS, .window = 5, .range_pct = 20,
                        .slope_pct = 10 };
    rounds_window_t w;
    /* Flat: steady, nothing moves. */
    double flat[] = { 100, 100, 100, 100, 100 };
    CHECK (rounds_judge (&r, flat, 5, &w) && w.steady && w.mean == 100 && w.range_pct == 0
           && w.slope == 0 && w.excursion_pct == 0);
    /* Fewer rounds than the window: not judged. */
    CHECK (!rounds_judge (&r, flat, 4, &w));
    /* A ramp: range 20/100 = 20% (inclusive: met), slope 5 per round,
       excursion 5 x 4 / 100 = 20% > 10%: not steady. */
    double ramp[] = { 90, 95, 100, 105, 110 };
    CHECK (rounds_judge (&r, ramp, 5, &w));
    CHECK_MSG (near (w.mean, 100) && near (w.range_pct, 20) && near (w.slope, 5)
               && near (w.excursion_pct, 20) && !w.steady, "mean %g range %g slope %g exc %g",
               w.mean, w.range_pct, w.slope, w.excursion_pct);
    /* ... each rule's own verdict: the range met, the slope not. */
    CHECK (w.range_ok && !w.slope_ok);
    /* A spike: range 30% (not met), excursion 0 (met). */
    double spike[] = { 100, 100, 130, 100, 100 };
    CHECK (rounds_judge (&r, spike, 5, &w) && !w.range_ok && w.slope_ok && !w.steady);
    /* Noise: range 8%, slope sum((x - 2) y) / 10 = -0.4, excursion 1.6%. */
    double noise[] = { 100, 104, 96, 100, 100 };
    CHECK (rounds_judge (&r, noise, 5, &w));
    CHECK_MSG (near (w.range_pct, 8) && near (w.slope, -0.4) && near (w.excursion_pct, 1.6)
               && w.steady, "range %g slope %g exc %g", w.range_pct, w.slope, w.excursion_pct);
    /* The slope limit inclusive: 2.5 per round x 4 = 10 of a mean 100. */
    double edge[] = { 95, 97.5, 100, 102.5, 105 };
    CHECK (rounds_judge (&r, edge, 5, &w) && near (w.excursion_pct, 10) && w.steady);
    /* Only the last window counts. */
    double late[] = { 500, 1, 100, 100, 100, 100, 100 };
    CHECK (rounds_judge (&r, late, 7, &w) && w.steady && w.mean == 100);
    /* A round without a figure (NaN), or a mean that is not positive:
       not steady. */
    double gap[] = { 100, 100, NAN, 100, 100 };
    CHECK (rounds_judge (&r, gap, 5, &w) && !w.steady);
    double zero[] = { 0, 0, 0, 0, 0 };
    CHECK (rounds_judge (&r, zero, 5, &w) && !w.steady);
    /* A drive warming up: windows ending at rounds 5, 6, 7 are not steady
       (range 74.5%, 44.7%, 20.19%), round 8's is: [101 100 99 100 100],
       mean 100, range 2%, slope -0.2, excursion 0.8%. */
    double warm[] = { 200, 150, 120, 101, 100, 99, 100, 100, 101 };
    int k = rounds_first_steady (&r, warm, 9, &w);
    CHECK_MSG (k == 8 && near (w.mean, 100) && near (w.range_pct, 2) && near (w.slope, -0.2)
               && near (w.excursion_pct, 0.8), "first steady %d mean %g range %g", k, w.mean,
               w.range_pct);
    CHECK (rounds_judge (&r, warm, 7, &w) && !w.steady && near (w.range_pct, 2100.0 / 104));
    CHECK (rounds_first_steady (&r, warm, 7, &w) == 0);
    /* A window of 2: the slope's excursion is the difference itself. */
    r.window = 2;
    double two[] = { 100, 111 };
    CHECK (rounds_judge (&r, two, 2, &w) && near (w.excursion_pct, 11 / 105.5 * 100)
           && !w.steady);
}

static void
test_parse (void)
{
    rounds_rule_t r;
    char why[256] = "";
    CHECK (rounds_rule_parse ("randwrite-4k:iops", &r, why, sizeof why) == 0);
    CHECK (strcmp (r.step, "randwrite-4k") == 0 && r.metric == ROUNDS_IOPS
           && r.window == ROUNDS_WINDOW && r.range_pct == ROUNDS_RANGE_PCT
           && r.slope_pct == ROUNDS_SLOPE_PCT);
    CHECK (rounds_rule_parse ("lat:mean,window=3,range=25%,slope=12.5", &r, why, sizeof why) == 0);
    CHECK (r.metric == ROUNDS_MEAN && r.window == 3 && r.range_pct == 25 && r.slope_pct == 12.5);
    char text[256];
    rounds_rule_text (&r, text, sizeof text);
    CHECK_MSG (strcmp (text, "lat:mean,window=3,range=25%,slope=12.5%") == 0, "%s", text);
    rounds_rule_t back;
    CHECK (rounds_rule_parse (text, &back, why, sizeof why) == 0 && back.window == 3
           && back.slope_pct == 12.5 && back.metric == ROUNDS_MEAN);
    struct { const char *in, *want; } bad[] = {
        { "randwrite", "'randwrite': give STEP:METRIC first (the step tracked, by its job name, "
          "and iops, bw or mean), e.g. steady_state=randwrite-4k:iops" },
        { "w:p99", "metric 'p99': give iops, bw or mean (the mean completion latency)" },
        { "w:iops,window=1", "window=1: give 2 to 100 rounds (the PTS: 5)" },
        { "w:iops,range=0", "range=0: give a percent of the window's mean, above 0 and at most "
          "100 (the PTS: 20%)" },
        { "w:iops,slope=150%", "slope=150%: give a percent of the window's mean, above 0 and at "
          "most 100 (the PTS: 10%)" },
        { "w:iops,span=3", "'span': unknown; give window=N, range=P% or slope=P%" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        CHECK_MSG (rounds_rule_parse (bad[i].in, &r, why, sizeof why) == -1
                   && strcmp (why, bad[i].want) == 0, "%s: %s", bad[i].in, why);
    }
}

static void
test_jobfile (void)
{
    char err[512] = "";
    /* steady_state= alone: the PTS's 25 rounds; the precondition step
       stays out of the rounds (it is the run's first step). */
    jobfile_t *jf = jobfile_parse ("t.fio", "[iofleet]\nprecondition=1\n"
        "steady_state=w:iops\n[global]\nfilename=/dev/loop7\nruntime=1\ntime_based\n"
        "[w]\nrw=randwrite\n[r]\nrw=randread\nstonewall\n", err, sizeof err);
    CHECK_MSG (jf && jf->rounds == ROUNDS_DEFAULT && jf->steady && jf->precondition == 1
               && strcmp (jf->rule.step, "w") == 0 && jf->nsteps == 3, "%s", err);
    jobfile_destroy (&jf);
    /* rounds= alone: every round is run, nothing tracked. */
    jf = jobfile_parse ("t.fio", "[iofleet]\nrounds=3\n[w]\nfilename=x\nrw=write\n", err,
                        sizeof err);
    CHECK_MSG (jf && jf->rounds == 3 && !jf->steady, "%s", err);
    jobfile_destroy (&jf);
    /* A sweep's step is tracked by its step name. */
    jf = jobfile_parse ("t.fio", "[iofleet]\nrounds=5\nsteady_state=q-randwrite:iops\n"
                        "[q]\nfilename=x\nrw=randread,randwrite\n", err, sizeof err);
    CHECK_MSG (jf && jf->steady && jf->nsteps == 2, "%s", err);
    jobfile_destroy (&jf);
    jf = jobfile_parse ("t.fio", "[a]\nfilename=x\n", err, sizeof err);
    CHECK (jf && jf->rounds == 0 && !jf->steady);
    jobfile_destroy (&jf);

    EXPECT_PARSE_ERR ("[iofleet]\nrounds=0\n[a]\nfilename=x\n",
                "t.fio:2: [iofleet] rounds=0: give the most times to run the plan's steps, 1 to "
                "100 (the SNIA PTS: 25)");
    EXPECT_PARSE_ERR ("[iofleet]\nrounds=101\n[a]\nfilename=x\n",
                "t.fio:2: [iofleet] rounds=101: give the most times to run the plan's steps, 1 "
                "to 100 (the SNIA PTS: 25)");
    EXPECT_PARSE_ERR ("[iofleet]\nsteady_state=a:latency\n[a]\nfilename=x\n",
                "t.fio:2: [iofleet] steady_state: metric 'latency': give iops, bw or mean (the "
                "mean completion latency)");
    EXPECT_PARSE_ERR ("[iofleet]\nsteady_state=b:iops\n[a]\nfilename=x\n[c]\nfilename=y\n",
                "t.fio:2: [iofleet] steady_state: no job is named 'b'; the plan's jobs: a, c");
    EXPECT_PARSE_ERR ("[iofleet]\nsteady_state=a:iops\n[a]\nfilename=x\n[a]\nfilename=y\n",
                "t.fio:2: [iofleet] steady_state: step 'a' names 2 jobs; give each job its own "
                "name");
    EXPECT_PARSE_ERR ("[iofleet]\nrounds=4\nsteady_state=a:iops\n[a]\nfilename=x\n",
                "t.fio:2: [iofleet] rounds=4 is fewer than steady_state's window=5: no window "
                "could ever be judged; give rounds=5 or more");
    /* The precondition step cannot be tracked: it is not a round's. */
    EXPECT_PARSE_ERR ("[iofleet]\nprecondition=1\nsteady_state=precondition:bw\n[a]\nfilename=x\n",
                "t.fio:3: [iofleet] steady_state: no job is named 'precondition'; the plan's "
                "jobs: a");
}

int
main (void)
{
    test_rule ();
    test_parse ();
    test_jobfile ();
    return TEST_DONE ();
}
