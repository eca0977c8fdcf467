/*  clock_sync.c: see clock_sync.h. */
#include "clock_sync.h"

#include <errno.h>
#include <string.h>

void
clock_sync_init (clock_sync_t *self)
{
    memset (self, 0, sizeof *self);
}

int
clock_sync_add (clock_sync_t *self, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3)
{
    if (t3 < t0 || t2 < t1 || t2 - t1 > t3 - t0)
        return -EINVAL;
    /* Halve each difference before adding: no overflow for any clocks. */
    int64_t offset = ((int64_t) (t1 - t0)) / 2 + ((int64_t) (t2 - t3)) / 2;
    uint64_t delay = (t3 - t0) - (t2 - t1);
    /* Each sample puts the offset within half its delay.  A new one whose
       range misses the estimate's cannot agree with it: a clock was
       stepped (NTP, date -s) since.  The samples before are of a clock
       that is no more: dropped, or the minimum-delay filter would keep the
       old offset, with its small uncertainty, for up to CLOCK_SYNC_N
       exchanges (16 s: a step started then is off by the whole step). */
    if (self->nsamples > 0) {
        int64_t d = offset - self->offset;
        uint64_t apart = d < 0 ? (uint64_t) -d : (uint64_t) d;
        if (apart > delay / 2 + delay % 2 + self->delay / 2 + self->delay % 2)
            self->nsamples = self->next = 0;
    }
    self->samples[self->next].offset = offset;
    self->samples[self->next].delay = delay;
    self->next = (self->next + 1) % CLOCK_SYNC_N;
    if (self->nsamples < CLOCK_SYNC_N)
        self->nsamples++;
    int best = 0;
    for (int i = 1; i < self->nsamples; i++)
        if (self->samples[i].delay < self->samples[best].delay)
            best = i;
    self->offset = self->samples[best].offset;
    self->delay = self->samples[best].delay;
    return 0;
}

int64_t clock_sync_offset (const clock_sync_t *self) { return self->offset; }
uint64_t clock_sync_delay (const clock_sync_t *self) { return self->delay; }

uint64_t
clock_sync_uncertainty (const clock_sync_t *self)
{
    return self->nsamples ? self->delay / 2 + (self->delay & 1) : UINT64_MAX;
}
