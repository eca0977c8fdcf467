/*  stall.c: stalls of this agent's process, see stall.h. */
#define _GNU_SOURCE
#include "stall.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

typedef struct {
    uint64_t from, to;
} window_t;

static _Atomic uint64_t s_continued;    /* monotonic ns of the last SIGCONT; 0 = none */
static uint64_t s_seen;                 /* the last s_continued taken */
static uint64_t s_alive;                /* the main loop's last run */
static window_t s_windows[STALL_KEPT];  /* a ring */
static unsigned s_next;

static void
on_cont (int sig)
{
    (void) sig;
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);   /* async-signal-safe */
    atomic_store (&s_continued, (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec);
}

int
stall_init (void)
{
    struct sigaction sa;
    memset (&sa, 0, sizeof sa);
    sa.sa_handler = on_cont;
    sa.sa_flags = SA_RESTART;
    sigemptyset (&sa.sa_mask);
    return sigaction (SIGCONT, &sa, NULL) == 0 ? 0 : -errno;
}

void
stall_record (uint64_t from, uint64_t to)
{
    if (to <= from)
        return;
    s_windows[s_next % STALL_KEPT] = (window_t) { from, to };
    s_next++;
}

bool
stall_alive (uint64_t mono)
{
    uint64_t cont = atomic_load (&s_continued);
    bool stalled = false;
    if (cont != s_seen) {
        s_seen = cont;
        if (s_alive && cont > s_alive && cont - s_alive >= STALL_MIN_NS) {
            stall_record (s_alive, cont);
            stalled = true;
        }
    }
    s_alive = mono;
    return stalled;
}

uint64_t
stall_within (uint64_t from, uint64_t to)
{
    uint64_t sum = 0;
    unsigned n = s_next < STALL_KEPT ? s_next : STALL_KEPT;
    for (unsigned i = 0; i < n; i++) {
        const window_t *w = &s_windows[i];
        uint64_t a = w->from > from ? w->from : from;
        uint64_t b = w->to < to ? w->to : to;
        if (b > a)
            sum += b - a;
    }
    return sum;
}
