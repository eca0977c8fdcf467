/*  log.c: see log.h. */
#include "log.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static const char *s_prog = "iofleet";
static log_level_t s_level = LL_INFO;

void
log_init (const char *prog, log_level_t level)
{
    s_prog = prog;
    s_level = level;
}

void
log_msg (log_level_t level, const char *fmt, ...)
{
    static const char *names[] = { "E", "W", "I", "D" };
    if (level > s_level)
        return;
    char when[32];
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r (&ts.tv_sec, &tm);
    strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);

    char line[2048];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (line, sizeof line, fmt, ap);
    va_end (ap);
    /* One fprintf per line so lines from threads do not interleave. */
    fprintf (stderr, "%s.%03ldZ %s %s %s\n", when, ts.tv_nsec / 1000000, s_prog,
             names[level], line);
}

bool
log_ratelimit (uint64_t *last_ns, uint64_t period_ns)
{
    uint64_t now = clock_mono_ns ();
    if (*last_ns != 0 && now - *last_ns < period_ns)
        return false;
    *last_ns = now ? now : 1;
    return true;
}
