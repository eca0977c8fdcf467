/*  log.c: see log.h. */
#include "log.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *s_prog = "iofleet";
static log_level_t s_level = LL_INFO;
static bool s_journal;

/* Whether stderr is the journal's stream systemd gave this service: the
   device and inode in $JOURNAL_STREAM are those of fd 2 (a redirected
   stderr of a child keeps the variable, not the stream). */
static bool
stderr_is_journal (void)
{
    const char *js = getenv ("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    if (!js || sscanf (js, "%llu:%llu", &dev, &ino) != 2 || fstat (2, &st) != 0)
        return false;
    return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

void
log_init (const char *prog, log_level_t level)
{
    s_prog = prog;
    s_level = level;
    s_journal = stderr_is_journal ();
}


void
log_msg (log_level_t level, const char *fmt, ...)
{
    static const char *names[] = { "E", "W", "I", "D" };
    static const int priority[] = { 3, 4, 6, 7 };      /* syslog's err..debug */
    if (level > s_level)
        return;
    char line[2048];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (line, sizeof line, fmt, ap);
    va_end (ap);
    if (s_journal) {
        /* journald stamps the time and the program; "<N>" is the level,
           and a line break would start a line without one. */
        for (char *p = line; (p = strchr (p, '\n')); )
            *p = ' ';
        fprintf (stderr, "<%d>%s\n", priority[level], line);
        return;
    }
    char when[32];
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r (&ts.tv_sec, &tm);
    strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
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
