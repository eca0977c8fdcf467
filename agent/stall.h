/*  stall.h: when this agent's process was stopped (SIGSTOP, a debugger, a
    frozen cgroup) and continued.

    A stopped process issues no I/O, yet its intervals, timed on the
    monotonic clock, go on: once continued, its workers publish the
    intervals that passed meanwhile, empty, and a rate-limited job then
    catches up what its quota owes (as fio's rate does).  The controller
    must be told, or the empty intervals and the burst after them read as
    the drive's figures.  SIGCONT says that the process was stopped; the
    main loop says when it last ran before (it wakes at least every 200 ms),
    so a stall is known to that precision, and one shorter than
    STALL_MIN_NS is not recorded (within a loaded host's scheduling noise;
    the e2e tests' slow agent is stopped 187 ms at a time).  A stall
    without a SIGCONT (a host too loaded to schedule the agent) is not
    detected here.
*/
#ifndef IOF_STALL_H
#define IOF_STALL_H

#include <stdbool.h>
#include <stdint.h>

/* Installs the SIGCONT handler.  Returns 0, or -errno. */
int stall_init (void);

/* The main loop ran at the monotonic clock `mono` (called before each
   wait); when a SIGCONT came since the last call, the stall from the
   previous call's clock to the continuation is recorded.  Returns true
   when one was.  Can't fail. */
bool stall_alive (uint64_t mono);

/* Nanoseconds of [from, to) (monotonic) the process spent stopped, as far
   as the stalls still kept say (the last STALL_KEPT).  Can't fail. */
uint64_t stall_within (uint64_t from, uint64_t to);

#define STALL_KEPT 64
#define STALL_MIN_NS 1000000000ull

/* For the tests: records a stall of [from, to) as a SIGCONT would. */
void stall_record (uint64_t from, uint64_t to);

#endif
