/*  test_stall.c: what the agent says of an interval beside its figures:
    how long its process was stopped in it (agent/stall.c, from the
    windows SIGCONT ends), and whether a rate-limited job issued above
    its pace (pacing.c's pace_above: fio's rate catching up).
*/
#include "testutil.h"
#include "pacing.h"
#include "stall.h"
#include "job_state.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define S 1000000000ull

static void
test_windows (void)
{
    CHECK (stall_within (0, 100 * S) == 0);
    stall_record (10 * S, 15 * S);
    stall_record (20 * S, 20 * S);          /* empty: not kept */
    CHECK (stall_within (0, 100 * S) == 5 * S);
    CHECK (stall_within (9 * S, 11 * S) == 1 * S);
    CHECK (stall_within (11 * S, 12 * S) == 1 * S);
    CHECK (stall_within (14 * S, 16 * S) == 1 * S);
    CHECK (stall_within (15 * S, 16 * S) == 0);
    CHECK (stall_within (0, 10 * S) == 0);
    /* Only the last STALL_KEPT are kept: a ring. */
    for (int i = 0; i < STALL_KEPT; i++)
        stall_record ((uint64_t) (200 + i) * S, (uint64_t) (200 + i) * S + 1);
    CHECK (stall_within (0, 100 * S) == 0);
    CHECK (stall_within (200 * S, 300 * S) == STALL_KEPT);
}

/* This process stopped (SIGSTOP by a child) for ms, then continued.
   Returns whether stall_alive saw it; *stalled: what stall_within then
   says of the time around it. */
static bool
stop_for (unsigned ms, uint64_t *stalled)
{
    uint64_t t0 = clock_mono_ns ();
    stall_alive (t0);
    pid_t child = fork ();
    if (child == 0) {
        kill (getppid (), SIGSTOP);
        usleep (ms * 1000);
        kill (getppid (), SIGCONT);
        _exit (0);
    }
    CHECK (child > 0);
    /* The child continues this process before it exits. */
    bool seen = false;
    int status;
    while (waitpid (child, &status, WNOHANG) != child) {
        usleep (10000);
        seen |= stall_alive (clock_mono_ns ());
    }
    seen |= stall_alive (clock_mono_ns ());
    *stalled = stall_within (t0, clock_mono_ns ());
    return seen;
}

static void
test_sigcont (void)
{
    CHECK (stall_init () == 0);
    uint64_t stalled = 0;
    /* 300 ms: below STALL_MIN_NS, a loaded host's noise. */
    CHECK (!stop_for (300, &stalled) && stalled == 0);
    CHECK (stop_for (1300, &stalled));
    CHECK_MSG (stalled >= 1250000000ull && stalled < 3 * S, "stalled %llu ns",
               (unsigned long long) stalled);
}

static void
test_pace (void)
{
    static iojob_t j;
    memset (&j, 0, sizeof j);
    j.nworkers = 2;
    j.max_bs = 4096;
    uint64_t ops[DIR_COUNT] = { 0 }, bytes[DIR_COUNT] = { 0 };
    /* No rate: no pace, whatever it did. */
    ops[0] = 1000000;
    bytes[0] = ops[0] * 4096;
    CHECK (!pace_above (&j, ops, bytes, S));
    /* rate_iops=500 x 4k on 2 workers: 1,000 I/Os a second. */
    j.rate_bps[0] = 500 * 4096;
    ops[0] = 1000;
    bytes[0] = ops[0] * 4096;
    CHECK (!pace_above (&j, ops, bytes, S));
    ops[0] = 1250;
    bytes[0] = ops[0] * 4096;
    CHECK (!pace_above (&j, ops, bytes, S));         /* 1.25x and a block of slack */
    ops[0] = 1300;
    bytes[0] = ops[0] * 4096;
    CHECK (pace_above (&j, ops, bytes, S));
    CHECK (!pace_above (&j, ops, bytes, 2 * S));     /* the same over 2 s is below */
    /* With a bssplit: one I/O a period (2 ms), whatever its size. */
    j.rate_period[0] = 2000000;
    ops[0] = 1000;
    bytes[0] = 1;
    CHECK (!pace_above (&j, ops, bytes, S));
    ops[0] = 1300;
    CHECK (pace_above (&j, ops, bytes, S));
    /* Poisson: random gaps, 2x before it counts. */
    j.rate_period[0] = 0;
    j.poisson_us[0] = 2000;
    ops[0] = 1900;
    CHECK (!pace_above (&j, ops, bytes, S));
    ops[0] = 2100;
    CHECK (pace_above (&j, ops, bytes, S));
    /* Writes are paced apart from reads. */
    memset (&j, 0, sizeof j);
    j.nworkers = 1;
    j.max_bs = 4096;
    j.rate_bps[1] = 100 * 4096;
    ops[0] = 100000;
    bytes[0] = ops[0] * 4096;
    ops[1] = 100;
    bytes[1] = ops[1] * 4096;
    CHECK (!pace_above (&j, ops, bytes, S));
    ops[1] = 200;
    bytes[1] = ops[1] * 4096;
    CHECK (pace_above (&j, ops, bytes, S));
}

int
main (void)
{
    test_windows ();
    test_sigcont ();
    test_pace ();
    return TEST_DONE ();
}
