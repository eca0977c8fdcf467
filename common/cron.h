/*  cron.h: five-field cron expressions for scheduled runs, e.g.
        30 2 * * 1-5        02:30 on weekdays
        @daily              00:00 every day
    Fields are MIN HOUR DOM MON DOW, read in an IANA time zone at fire time.
    cron_next changes the process's TZ while it runs: call it from one
    thread only (the controller's main thread), and, where other threads
    run meanwhile (the controller's readers and finalizer, whose SQLite
    reads getenv), call cron_tz_prepare first, before any thread starts. */
#ifndef IOF_CRON_H
#define IOF_CRON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CRON_MAX_LEN 256        /* longest expression cron_parse accepts */
#define CRON_ZONEINFO "/usr/share/zoneinfo"

typedef struct {
    uint64_t minute;      /* bit m set: minute m (0-59) */
    uint32_t hour;        /* bits 0-23 */
    uint32_t dom;         /* bits 1-31 */
    uint16_t month;       /* bits 1-12 */
    uint8_t  dow;         /* bits 0-6, Sunday = 0 (7 accepted as Sunday) */
    bool dom_any, dow_any;  /* the field was '*' (matters for the dom/dow OR rule) */
} cron_t;

/* Parses "MIN HOUR DOM MON DOW": '*', numbers, ranges a-b, lists a,b,c, steps
   (* or a-b or a, then /n; a/n = a-max/n), month names jan..dec and day names
   sun..sat (case-insensitive), and the macros @hourly @daily @midnight @weekly
   @monthly @yearly @annually.  Returns 0, or -EINVAL with err naming the field
   ("hour"...), the text of that field and the allowed range, e.g.
   "cron '0 25 * * *': hour '25' is out of range 0-23".
   In the day-of-week field '*' and a/n end at 6 (Saturday); 7 is Sunday
   only where written.  dom_any/dow_any are set only when the field is
   exactly '*' (a stepped star restricts the field).  Expressions longer than
   CRON_MAX_LEN characters are refused.  out is zeroed on error. */
int cron_parse (const char *expr, cron_t *out, char *err, size_t errlen);

/* The first fire time strictly after `after` (Unix seconds), in time zone tz
   (an IANA name such as "Europe/Berlin"; NULL or "" = UTC).  Standard cron
   day rule: when both DOM and DOW are restricted (neither is '*'), a day
   matches if either matches.  DST: a wall-clock time that does not exist that
   day (spring forward) does not fire that day; a wall-clock time that occurs
   twice (fall back) fires once, at its first occurrence.  This holds for every
   field, so "0 * * * *" does not fire at the repeated hour's second 02:00:
   its runs are an hour apart except around fall-back, where two real hours
   pass.  The result is always at :00 seconds local time.  Returns 0, -EINVAL
   for an unknown time zone (see cron_tz_valid), -ERANGE when nothing matches
   up to the same date 5 years on (e.g. "0 0 30 2 *") or `after` is later
   than 9999-12-31, or -ENOMEM if TZ cannot be set; *out is set only on 0.
   Not thread-safe: it sets TZ and calls tzset(), restoring TZ before it
   returns. */
int cron_next (const cron_t *c, const char *tz, int64_t after, int64_t *out);

/* Checks tz names a zone: NULL or "" (UTC), or a TZif file under
   CRON_ZONEINFO, with no "..", no leading '/'.  Returns 0 or -EINVAL. */
int cron_tz_valid (const char *tz);
/* Sets TZ, when unset, to what the C library reads then (the system's
   /etc/localtime), so that cron_next's swaps of TZ replace a variable in
   place: setenv adding or unsetenv removing one moves the environment
   array under another thread's getenv.  Call once, before any thread
   starts.  Returns 0 or -ENOMEM. */
int cron_tz_prepare (void);

#endif
