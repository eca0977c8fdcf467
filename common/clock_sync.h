/*  clock_sync.h: an agent's estimate of the controller's clock.

    Each PING/PONG exchange gives t0 (agent sends), t1 (controller
    receives), t2 (controller sends), t3 (agent receives):
        offset = ((t1 - t0) + (t2 - t3)) / 2     controller = agent + offset
        delay  = (t3 - t0) - (t2 - t1)           the network round trip
    Whatever the asymmetry of the two legs, |offset error| <= delay / 2, and
    queueing only ever adds delay: so the estimate is the offset of the
    minimum-delay sample among the last CLOCK_SYNC_N, and its uncertainty is
    that sample's delay / 2.  Refreshed with every exchange, it follows
    drift (~10 ppm: 0.6 ms per minute) within the window; a sample that
    cannot agree with the estimate (their ranges apart: a clock stepped)
    starts the window again from itself.
*/
#ifndef IOF_CLOCK_SYNC_H
#define IOF_CLOCK_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#define CLOCK_SYNC_N 16

typedef struct {
    struct { int64_t offset; uint64_t delay; } samples[CLOCK_SYNC_N];
    int nsamples, next;
    int64_t offset;
    uint64_t delay;
} clock_sync_t;

/* Starts with no samples (offset 0, uncertainty unknown).  Can't fail. */
void clock_sync_init (clock_sync_t *self);

/* Adds one exchange.  Returns 0, or -EINVAL for timestamps that cannot be
   (t3 < t0, t2 < t1, or a server time longer than the round trip): such a
   sample is ignored. */
int clock_sync_add (clock_sync_t *self, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3);

/* Controller time = local time + offset.  0 before the first sample. */
int64_t clock_sync_offset (const clock_sync_t *self);
/* Round trip of the sample in use (0 before the first). */
uint64_t clock_sync_delay (const clock_sync_t *self);
/* Bound on the offset's error: delay / 2 (UINT64_MAX before the first). */
uint64_t clock_sync_uncertainty (const clock_sync_t *self);

#endif
