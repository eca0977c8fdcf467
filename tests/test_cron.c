/*  test_cron.c: cron expressions: syntax, rejections, next fire times in UTC
    and across DST transitions.  Expected instants are written as UTC wall
    times (timegm), worked out by hand from the zones' offsets, never through
    cron.c. */
#include "cron.h"
#include "testutil.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define CHECK_ERR(err, needle) \
    CHECK_MSG (strstr ((err), (needle)) != NULL, "'%s' does not contain '%s'", (err), (needle))

/* Seconds since the epoch of a UTC wall time. */
static int64_t
utc (int y, int mo, int d, int h, int mi, int s)
{
    struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
                     .tm_min = mi, .tm_sec = s };
    return (int64_t) timegm (&tm);
}

static const char *
show (int64_t t, char *buf, size_t size)
{
    time_t tt = (time_t) t;
    struct tm tm;
    gmtime_r (&tt, &tm);
    strftime (buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buf;
}

static bool
same_cron (const cron_t *a, const cron_t *b)
{
    return a->minute == b->minute && a->hour == b->hour && a->dom == b->dom
           && a->month == b->month && a->dow == b->dow && a->dom_any == b->dom_any
           && a->dow_any == b->dow_any;
}

/* Parses expr and checks cron_next from `after` in tz gives want. */
#define NEXT(expr, tz, after, want) do {                                        \
    cron_t c_;                                                                  \
    char e_[256], a_[40], w_[40], g_[40];                                       \
    int64_t got_ = -1;                                                          \
    CHECK_MSG (cron_parse ((expr), &c_, e_, sizeof e_) == 0, "%s", e_);         \
    int rc_ = cron_next (&c_, (tz), (after), &got_);                            \
    CHECK_MSG (rc_ == 0 && got_ == (want), "'%s' in %s after %s: rc %d, got %s, want %s", \
               (expr), (tz) ? (tz) : "UTC", show ((after), a_, sizeof a_), rc_,        \
               show (got_, g_, sizeof g_), show ((want), w_, sizeof w_));              \
} while (0)

/* Checks cron_parse refuses expr with an error containing needle. */
#define BAD(expr, needle) do {                                                  \
    cron_t c_;                                                                  \
    char e_[512] = "";                                                          \
    CHECK_MSG (cron_parse ((expr), &c_, e_, sizeof e_) == -EINVAL, "'%s' accepted", (expr)); \
    CHECK_ERR (e_, (needle));                                                   \
    CHECK (c_.minute == 0 && c_.dow == 0);                                      \
} while (0)

static void
test_parse (void)
{
    cron_t c, m;
    char err[256];

    /* '*' sets every bit of each field's range. */
    CHECK (cron_parse ("* * * * *", &c, err, sizeof err) == 0);
    CHECK (c.minute == (UINT64_C (1) << 60) - 1);
    CHECK (c.hour == 0xFFFFFF);
    CHECK (c.dom == 0xFFFFFFFE);
    CHECK (c.month == 0x1FFE);
    CHECK (c.dow == 0x7F);
    CHECK (c.dom_any && c.dow_any);

    /* Lists, ranges, range steps, names in any case. */
    CHECK_MSG (cron_parse ("0,15,30,45 9-17/2 1,15 jan-mar,DEC Mon-FRI", &c, err,
                           sizeof err) == 0, "%s", err);
    CHECK (c.minute == ((UINT64_C (1) << 0) | (UINT64_C (1) << 15) | (UINT64_C (1) << 30)
                        | (UINT64_C (1) << 45)));
    CHECK (c.hour == ((1u << 9) | (1u << 11) | (1u << 13) | (1u << 15) | (1u << 17)));
    CHECK (c.dom == ((1u << 1) | (1u << 15)));
    CHECK (c.month == ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 12)));
    CHECK (c.dow == 0x3E);
    CHECK (!c.dom_any && !c.dow_any);

    /* Steps: star step, a/n (= a-max/n), a-b/n; a stepped star is a restriction. */
    CHECK (cron_parse ("*/15 5/10 */2 */3 */2", &c, err, sizeof err) == 0);
    CHECK (c.minute == ((UINT64_C (1) << 0) | (UINT64_C (1) << 15) | (UINT64_C (1) << 30)
                        | (UINT64_C (1) << 45)));
    CHECK (c.hour == ((1u << 5) | (1u << 15)));
    CHECK (c.dom == 0xAAAAAAAA);                        /* 1, 3, ..., 31 */
    CHECK (c.month == ((1u << 1) | (1u << 4) | (1u << 7) | (1u << 10)));
    CHECK (c.dow == ((1u << 0) | (1u << 2) | (1u << 4) | (1u << 6)));
    CHECK (!c.dom_any && !c.dow_any);
    CHECK (cron_parse ("10-30/10 0 1 1 sun/3", &c, err, sizeof err) == 0);
    CHECK (c.minute == ((UINT64_C (1) << 10) | (UINT64_C (1) << 20) | (UINT64_C (1) << 30)));
    CHECK (c.dow == ((1u << 0) | (1u << 3) | (1u << 6)));
    CHECK (cron_parse ("59/5 23/1 31/9 12/5 6/2", &c, err, sizeof err) == 0);
    CHECK (c.minute == UINT64_C (1) << 59 && c.hour == 1u << 23 && c.dom == 1u << 31
           && c.month == 1u << 12 && c.dow == 1u << 6);

    /* Day of week: 7 is Sunday, alone or at the end of a range. */
    CHECK (cron_parse ("0 0 * * 7", &c, err, sizeof err) == 0 && c.dow == 0x01);
    CHECK (cron_parse ("0 0 * * 5-7", &c, err, sizeof err) == 0 && c.dow == 0x61);
    CHECK (cron_parse ("0 0 * * 0-7", &c, err, sizeof err) == 0 && c.dow == 0x7F);
    CHECK (cron_parse ("0 0 * * SUN,sat", &c, err, sizeof err) == 0 && c.dow == 0x41);
    CHECK (cron_parse ("0 0 1 * *", &c, err, sizeof err) == 0 && !c.dom_any && c.dow_any);

    /* Blanks: tabs, repeated and surrounding blanks are fine. */
    CHECK (cron_parse (" \t0\t2  * *   *\n", &c, err, sizeof err) == 0);
    CHECK (c.minute == 1 && c.hour == 1u << 2 && c.dom_any && c.dow_any);

    /* Macros are their five-field equivalents, in any case. */
    static const char *const macro[][2] = {
        { "@hourly", "0 * * * *" }, { "@daily", "0 0 * * *" }, { "@midnight", "0 0 * * *" },
        { "@weekly", "0 0 * * 0" }, { "@monthly", "0 0 1 * *" }, { "@yearly", "0 0 1 1 *" },
        { "@annually", "0 0 1 1 *" }, { " @DAILY ", "0 0 * * *" },
    };
    for (size_t i = 0; i < sizeof macro / sizeof macro[0]; i++) {
        CHECK_MSG (cron_parse (macro[i][0], &c, err, sizeof err) == 0, "%s: %s", macro[i][0],
                   err);
        CHECK (cron_parse (macro[i][1], &m, err, sizeof err) == 0);
        CHECK_MSG (same_cron (&c, &m), "%s is not %s", macro[i][0], macro[i][1]);
    }

    /* The length limit: 256 characters parse, 257 do not. */
    char text[300];
    memset (text, ' ', sizeof text);
    memcpy (text, "0 0 * * *", 9);
    text[256] = '\0';
    CHECK (cron_parse (text, &c, err, sizeof err) == 0);
    text[256] = ' ';
    text[257] = '\0';
    BAD (text, "is 257 characters long, limit 256");
    text[257] = ' ';
    text[299] = '\0';
    BAD (text, "is 299 characters long, limit 256");
}

static void
test_reject (void)
{
    cron_t c;
    char err[256];

    /* The exact message for the documented example. */
    CHECK (cron_parse ("0 25 * * *", &c, err, sizeof err) == -EINVAL);
    CHECK_MSG (strcmp (err, "cron '0 25 * * *': hour '25' is out of range 0-23") == 0, "%s",
               err);

    /* Field count. */
    BAD ("0 0 * *", "cron '0 0 * *': 4 fields, expected 5 (MIN HOUR DOM MON DOW)");
    BAD ("0 0 * * * *", "6 fields, expected 5");
    BAD ("", "0 fields, expected 5");
    BAD ("   ", "0 fields, expected 5");
    BAD ("@every_5m", "cron '@every_5m': unknown macro");
    BAD ("@daily 0", "unknown macro");
    CHECK (cron_parse (NULL, &c, err, sizeof err) == -EINVAL);

    /* Out of range in each field, naming field, text and range. */
    BAD ("60 * * * *", "minute '60' is out of range 0-59");
    BAD ("* 24 * * *", "hour '24' is out of range 0-23");
    BAD ("* * 0 * *", "day of month '0' is out of range 1-31");
    BAD ("* * 32 * *", "day of month '32' is out of range 1-31");
    BAD ("* * * 0 *", "month '0' is out of range 1-12 or jan-dec");
    BAD ("* * * 13 *", "month '13' is out of range 1-12 or jan-dec");
    BAD ("* * * * 8", "day of week '8' is out of range 0-7 or sun-sat");
    BAD ("1,99 * * * *", "minute '1,99': 99 is out of range 0-59");
    BAD ("* 1-24 * * *", "hour '1-24': 24 is out of range 0-23");
    BAD ("99999999999999999999 * * * *", "minute '99999999999999999999' is out of range");

    /* Steps: zero, too large, missing, not a number. */
    BAD ("*/0 * * * *", "minute '*/0': step 0 is out of range 1-60");
    BAD ("* */25 * * *", "hour '*/25': step 25 is out of range 1-24");
    BAD ("* * * 1-12/13 *", "month '1-12/13': step 13 is out of range 1-12");
    BAD ("*/ * * * *", "minute '*/': '*/' is not a number (allowed 0-59)");
    BAD ("*/x * * * *", "'*/x' is not a number");
    BAD ("1/2/3 * * * *", "'1/2/3' is not a number");

    /* Reversed ranges, with the suggested fix. */
    BAD ("5-3 * * * *", "minute '5-3': range 5-3 is reversed (write 3-5; allowed 0-59)");
    BAD ("* * * * fri-mon", "day of week 'fri-mon': range 5-1 is reversed");

    /* Garbage, names where they don't belong, negative numbers. */
    BAD ("x * * * *", "minute 'x': 'x' is not a number (allowed 0-59)");
    BAD ("* * * foo *", "month 'foo': 'foo' is not a number or month name (allowed 1-12");
    BAD ("* * * * mon-xyz", "day of week 'mon-xyz': 'mon-xyz' is not a number or day name");
    BAD ("* * jan * *", "day of month 'jan': 'jan' is not a number (allowed 1-31)");
    BAD ("* * * * january", "'january' is not a number or day name");
    BAD ("-5 * * * *", "'-5' is not a number");
    BAD ("5- * * * *", "'5-' is not a number");
    BAD ("** * * * *", "'**' is not a number");
    BAD ("1.5 * * * *", "'1.5' is not a number");

    /* Empty list items anywhere in a list. */
    BAD ("1,,2 * * * *", "minute '1,,2': empty list item (allowed 0-59)");
    BAD ("* 1, * * *", "hour '1,': empty list item");
    BAD ("* * ,1 * *", "day of month ',1': empty list item");
}

static void
test_next_utc (void)
{
    cron_t c;
    char err[256];
    int64_t t = 42;

    /* Every minute: the next whole minute, strictly after. */
    NEXT ("* * * * *", NULL, utc (2026, 1, 1, 0, 0, 0), utc (2026, 1, 1, 0, 1, 0));
    NEXT ("* * * * *", "", utc (2026, 1, 1, 0, 0, 30), utc (2026, 1, 1, 0, 1, 0));
    NEXT ("* * * * *", "UTC", utc (2026, 1, 1, 0, 0, 59), utc (2026, 1, 1, 0, 1, 0));

    /* Nightly at 02:00, from before, at, and after the fire time. */
    NEXT ("0 2 * * *", NULL, utc (2026, 6, 1, 0, 0, 0), utc (2026, 6, 1, 2, 0, 0));
    NEXT ("0 2 * * *", NULL, utc (2026, 6, 1, 1, 59, 59), utc (2026, 6, 1, 2, 0, 0));
    NEXT ("0 2 * * *", NULL, utc (2026, 6, 1, 2, 0, 0), utc (2026, 6, 2, 2, 0, 0));
    NEXT ("0 2 * * *", NULL, utc (2026, 6, 1, 2, 0, 1), utc (2026, 6, 2, 2, 0, 0));
    NEXT ("0 2 * * *", NULL, utc (2026, 6, 30, 23, 0, 0), utc (2026, 7, 1, 2, 0, 0));

    /* Month ends: the 31st skips months of 30 days (and February). */
    NEXT ("0 0 31 * *", NULL, utc (2026, 1, 31, 0, 0, 0), utc (2026, 3, 31, 0, 0, 0));
    NEXT ("0 0 31 * *", NULL, utc (2026, 3, 31, 0, 0, 0), utc (2026, 5, 31, 0, 0, 0));
    NEXT ("0 0 31 * *", NULL, utc (2026, 7, 31, 0, 0, 0), utc (2026, 8, 31, 0, 0, 0));

    /* Leap days: 2028, then 2032; 2100 is no leap year, 2104 is past 5 years. */
    NEXT ("0 12 29 2 *", NULL, utc (2025, 1, 1, 0, 0, 0), utc (2028, 2, 29, 12, 0, 0));
    NEXT ("0 12 29 2 *", NULL, utc (2028, 2, 29, 12, 0, 0), utc (2032, 2, 29, 12, 0, 0));
    CHECK (cron_parse ("0 12 29 2 *", &c, err, sizeof err) == 0);
    CHECK (cron_next (&c, NULL, utc (2097, 3, 1, 0, 0, 0), &t) == -ERANGE && t == 42);

    /* DOM/DOW OR rule: "13th or any Friday".  April 2026: Fridays 3, 10, 17, 24;
       the 13th is a Monday.  With one field '*', the other alone decides. */
    NEXT ("0 0 13 * 5", NULL, utc (2026, 4, 10, 0, 0, 0), utc (2026, 4, 13, 0, 0, 0));
    NEXT ("0 0 13 * 5", NULL, utc (2026, 4, 13, 0, 0, 0), utc (2026, 4, 17, 0, 0, 0));
    NEXT ("0 0 13 * 5", NULL, utc (2026, 4, 1, 0, 0, 0), utc (2026, 4, 3, 0, 0, 0));
    NEXT ("0 0 13 * *", NULL, utc (2026, 4, 1, 0, 0, 0), utc (2026, 4, 13, 0, 0, 0));
    NEXT ("0 0 * * 5", NULL, utc (2026, 4, 10, 0, 0, 0), utc (2026, 4, 17, 0, 0, 0));
    NEXT ("0 0 * * 7", NULL, utc (2026, 4, 13, 0, 0, 0), utc (2026, 4, 19, 0, 0, 0));
    NEXT ("0 0 1 * mon", NULL, utc (2026, 4, 21, 0, 0, 0), utc (2026, 4, 27, 0, 0, 0));
    NEXT ("0 0 1 * mon", NULL, utc (2026, 4, 27, 0, 0, 0), utc (2026, 5, 1, 0, 0, 0));

    /* Step lists: working hours every 15 minutes, weekdays only
       (2026-04-17 is a Friday, 04-20 a Monday). */
    NEXT ("*/15 9-17 * * 1-5", NULL, utc (2026, 4, 17, 17, 45, 0), utc (2026, 4, 20, 9, 0, 0));
    NEXT ("*/15 9-17 * * 1-5", NULL, utc (2026, 4, 17, 17, 44, 59), utc (2026, 4, 17, 17, 45, 0));
    NEXT ("*/15 9-17 * * 1-5", NULL, utc (2026, 4, 20, 9, 0, 0), utc (2026, 4, 20, 9, 15, 0));
    NEXT ("*/15 9-17 * * 1-5", NULL, utc (2026, 4, 20, 12, 50, 0), utc (2026, 4, 20, 13, 0, 0));
    NEXT ("*/15 9-17 * * 1-5", NULL, utc (2026, 4, 18, 3, 0, 0), utc (2026, 4, 20, 9, 0, 0));

    /* Year wrap. */
    NEXT ("* * * * *", NULL, utc (2026, 12, 31, 23, 59, 0), utc (2027, 1, 1, 0, 0, 0));
    NEXT ("@yearly", NULL, utc (2026, 1, 1, 0, 0, 0), utc (2027, 1, 1, 0, 0, 0));
    NEXT ("0 0 * * *", NULL, utc (2026, 12, 31, 0, 0, 0), utc (2027, 1, 1, 0, 0, 0));

    /* Before 1970 works too (1969-12-31 was a Wednesday). */
    NEXT ("0 0 * * 3", NULL, utc (1969, 12, 30, 12, 0, 0), utc (1969, 12, 31, 0, 0, 0));

    /* Nothing within 5 years: -ERANGE, *out untouched. */
    CHECK (cron_parse ("0 0 30 2 *", &c, err, sizeof err) == 0);
    CHECK (cron_next (&c, NULL, utc (2026, 1, 1, 0, 0, 0), &t) == -ERANGE && t == 42);
    CHECK (cron_parse ("0 0 31 4,6,9,11 *", &c, err, sizeof err) == 0);
    CHECK (cron_next (&c, "Europe/Berlin", utc (2026, 1, 1, 0, 0, 0), &t) == -ERANGE && t == 42);
    CHECK (cron_parse ("* * * * *", &c, err, sizeof err) == 0);
    CHECK (cron_next (&c, NULL, INT64_MAX, &t) == -ERANGE && t == 42);
}

/* Berlin 2026: CET (+1) until Mar 29 01:00 UTC (02:00 -> 03:00 local),
   CEST (+2) until Oct 25 01:00 UTC (03:00 -> 02:00 local), then CET. */
static void
test_dst_berlin (void)
{
    const char *tz = "Europe/Berlin";

    /* Spring forward: 02:30 does not exist on Mar 29; Mar 28 02:30 CET =
       01:30 UTC, Mar 30 02:30 CEST = 00:30 UTC. */
    NEXT ("30 2 * * *", tz, utc (2026, 3, 27, 12, 0, 0), utc (2026, 3, 28, 1, 30, 0));
    NEXT ("30 2 * * *", tz, utc (2026, 3, 28, 1, 30, 0), utc (2026, 3, 30, 0, 30, 0));
    NEXT ("30 2 * * *", tz, utc (2026, 3, 29, 0, 59, 59), utc (2026, 3, 30, 0, 30, 0));
    /* Times either side of the gap are untouched: 01:59 CET, 03:00 CEST. */
    NEXT ("59 1 * * *", tz, utc (2026, 3, 28, 12, 0, 0), utc (2026, 3, 29, 0, 59, 0));
    NEXT ("0 3 * * *", tz, utc (2026, 3, 28, 12, 0, 0), utc (2026, 3, 29, 1, 0, 0));

    /* Fall back: 02:30 happens twice on Oct 25 (00:30 UTC in CEST, 01:30 UTC
       in CET); it fires at the first only, whether asked before, between
       or during the second. */
    NEXT ("30 2 * * *", tz, utc (2026, 10, 24, 0, 30, 0), utc (2026, 10, 25, 0, 30, 0));
    NEXT ("30 2 * * *", tz, utc (2026, 10, 25, 0, 30, 0), utc (2026, 10, 26, 1, 30, 0));
    NEXT ("30 2 * * *", tz, utc (2026, 10, 25, 0, 45, 0), utc (2026, 10, 26, 1, 30, 0));
    NEXT ("30 2 * * *", tz, utc (2026, 10, 25, 1, 29, 0), utc (2026, 10, 26, 1, 30, 0));

    /* Hourly across spring forward: 01:00 CET (00:00 UTC), then 03:00 CEST
       (01:00 UTC): no local 02:00, and no real hour lost. */
    NEXT ("0 * * * *", tz, utc (2026, 3, 28, 23, 30, 0), utc (2026, 3, 29, 0, 0, 0));
    NEXT ("0 * * * *", tz, utc (2026, 3, 29, 0, 0, 0), utc (2026, 3, 29, 1, 0, 0));
    /* Hourly across fall back: the documented rule applies to every field,
       so 02:00 fires once (00:00 UTC, CEST); the second 02:00 (01:00 UTC,
       CET) does not, and the next run is 03:00 CET (02:00 UTC), two real
       hours later.  Asked during the repeated hour, the answer is 03:00. */
    NEXT ("0 * * * *", tz, utc (2026, 10, 24, 23, 0, 0), utc (2026, 10, 25, 0, 0, 0));
    NEXT ("0 * * * *", tz, utc (2026, 10, 25, 0, 0, 0), utc (2026, 10, 25, 2, 0, 0));
    NEXT ("0 * * * *", tz, utc (2026, 10, 25, 0, 59, 59), utc (2026, 10, 25, 2, 0, 0));
    NEXT ("0 * * * *", tz, utc (2026, 10, 25, 1, 0, 0), utc (2026, 10, 25, 2, 0, 0));
    NEXT ("*/20 * * * *", tz, utc (2026, 10, 25, 0, 40, 0), utc (2026, 10, 25, 2, 0, 0));
    NEXT ("* * * * *", tz, utc (2026, 10, 25, 0, 59, 0), utc (2026, 10, 25, 2, 0, 0));
    NEXT ("* * * * *", tz, utc (2026, 10, 25, 1, 30, 0), utc (2026, 10, 25, 2, 0, 0));

    /* Plain local times: winter +1, summer +2. */
    NEXT ("0 2 * * *", tz, utc (2026, 1, 15, 12, 0, 0), utc (2026, 1, 16, 1, 0, 0));
    NEXT ("0 2 * * *", tz, utc (2026, 7, 15, 12, 0, 0), utc (2026, 7, 16, 0, 0, 0));
    /* Local midnight of New Year is still 2026 in UTC. */
    NEXT ("@yearly", tz, utc (2026, 6, 1, 0, 0, 0), utc (2026, 12, 31, 23, 0, 0));
}

/* New York 2026: EST (-5) until Mar 8 07:00 UTC (02:00 -> 03:00 local),
   EDT (-4) until Nov 1 06:00 UTC (02:00 -> 01:00 local), then EST. */
static void
test_dst_new_york (void)
{
    const char *tz = "America/New_York";

    /* Spring forward: 02:30 is skipped on Mar 8; Mar 7 02:30 EST = 07:30
       UTC, Mar 9 02:30 EDT = 06:30 UTC. */
    NEXT ("30 2 * * *", tz, utc (2026, 3, 7, 0, 0, 0), utc (2026, 3, 7, 7, 30, 0));
    NEXT ("30 2 * * *", tz, utc (2026, 3, 7, 7, 30, 0), utc (2026, 3, 9, 6, 30, 0));
    /* Fall back: 01:30 twice on Nov 1 (05:30 UTC EDT, 06:30 UTC EST). */
    NEXT ("30 1 * * *", tz, utc (2026, 10, 31, 12, 0, 0), utc (2026, 11, 1, 5, 30, 0));
    NEXT ("30 1 * * *", tz, utc (2026, 11, 1, 5, 30, 0), utc (2026, 11, 2, 6, 30, 0));
    NEXT ("30 1 * * *", tz, utc (2026, 11, 1, 6, 0, 0), utc (2026, 11, 2, 6, 30, 0));
    /* 02:30 on Nov 1 happens once, in EST. */
    NEXT ("30 2 * * *", tz, utc (2026, 10, 31, 12, 0, 0), utc (2026, 11, 1, 7, 30, 0));

    /* Hourly: 01:00 EST (06:00 UTC) then 03:00 EDT (07:00 UTC) in spring;
       01:00 EDT (05:00 UTC) then 02:00 EST (07:00 UTC) in autumn. */
    NEXT ("0 * * * *", tz, utc (2026, 3, 8, 6, 0, 0), utc (2026, 3, 8, 7, 0, 0));
    NEXT ("0 * * * *", tz, utc (2026, 11, 1, 4, 30, 0), utc (2026, 11, 1, 5, 0, 0));
    NEXT ("0 * * * *", tz, utc (2026, 11, 1, 5, 0, 0), utc (2026, 11, 1, 7, 0, 0));
    NEXT ("0 * * * *", tz, utc (2026, 11, 1, 6, 0, 0), utc (2026, 11, 1, 7, 0, 0));

    /* Weekday rule in local time: Friday 23:00 EDT is Saturday in UTC. */
    NEXT ("0 23 * * fri", tz, utc (2026, 4, 13, 0, 0, 0), utc (2026, 4, 18, 3, 0, 0));
}

/* Zones whose offsets or shifts are not whole hours. */
static void
test_odd_offsets (void)
{
    /* Kolkata is +05:30 all year. */
    NEXT ("0 9 * * *", "Asia/Kolkata", utc (2026, 1, 1, 0, 0, 0), utc (2026, 1, 1, 3, 30, 0));
    /* Lord Howe moves by 30 minutes: +11 until 2026-04-04 15:00 UTC (02:00
       -> 01:30 local, so 01:30-01:59 repeat), +10:30 until 2026-10-03 15:30
       UTC (02:00 -> 02:30 local, so 02:00-02:29 do not exist). */
    const char *tz = "Australia/Lord_Howe";
    NEXT ("45 1 * * *", tz, utc (2026, 4, 4, 0, 0, 0), utc (2026, 4, 4, 14, 45, 0));
    NEXT ("45 1 * * *", tz, utc (2026, 4, 4, 14, 45, 0), utc (2026, 4, 5, 15, 15, 0));
    NEXT ("15 2 * * *", tz, utc (2026, 10, 2, 0, 0, 0), utc (2026, 10, 2, 15, 45, 0));
    NEXT ("15 2 * * *", tz, utc (2026, 10, 2, 15, 45, 0), utc (2026, 10, 4, 15, 15, 0));
    NEXT ("0 * * * *", tz, utc (2026, 10, 3, 14, 30, 0), utc (2026, 10, 3, 16, 0, 0));
}

static void
test_zones (void)
{
    cron_t c;
    char err[256];
    int64_t t = 42;

    /* Which names are zones. */
    CHECK (cron_tz_valid (NULL) == 0);
    CHECK (cron_tz_valid ("") == 0);
    CHECK (cron_tz_valid ("UTC") == 0);
    CHECK (cron_tz_valid ("Europe/Berlin") == 0);
    CHECK (cron_tz_valid ("Mars/Olympus_Mons") == -EINVAL);
    CHECK (cron_tz_valid ("Europe") == -EINVAL);                 /* a directory */
    CHECK (cron_tz_valid ("/etc/localtime") == -EINVAL);
    CHECK (cron_tz_valid ("../../../etc/passwd") == -EINVAL);
    CHECK (cron_tz_valid ("Europe/../Europe/Berlin") == -EINVAL);
    CHECK (cron_tz_valid ("zone.tab") == -EINVAL);               /* a file, not a zone */

    /* An unknown zone: -EINVAL, *out untouched. */
    CHECK (cron_parse ("* * * * *", &c, err, sizeof err) == 0);
    CHECK (cron_next (&c, "Mars/Olympus_Mons", 0, &t) == -EINVAL && t == 42);
    CHECK (cron_next (&c, "../zoneinfo/UTC", 0, &t) == -EINVAL && t == 42);

    /* TZ is put back as it was, set or unset. */
    setenv ("TZ", "Asia/Tokyo", 1);
    CHECK (cron_next (&c, "Europe/Berlin", 0, &t) == 0);
    CHECK (getenv ("TZ") && strcmp (getenv ("TZ"), "Asia/Tokyo") == 0);
    unsetenv ("TZ");
    CHECK (cron_next (&c, "America/New_York", 0, &t) == 0);
    CHECK (getenv ("TZ") == NULL);

    /* cron_tz_prepare: TZ set to what the C library read when unset (the
       local time of an instant unchanged), and from then on cron_next
       swaps it in place: the environment array does not move (a reader
       thread's getenv may be walking it), and its value comes back. */
    time_t now = 1796220000;
    struct tm before, after;
    CHECK (localtime_r (&now, &before) != NULL);
    CHECK (cron_tz_prepare () == 0);
    CHECK (getenv ("TZ") && strcmp (getenv ("TZ"), ":/etc/localtime") == 0);
    CHECK (localtime_r (&now, &after) != NULL);
    CHECK (before.tm_hour == after.tm_hour && before.tm_min == after.tm_min
           && before.tm_gmtoff == after.tm_gmtoff);
    extern char **environ;
    char **env = environ;
    for (int i = 0; i < 50; i++)
        CHECK (cron_next (&c, i % 2 ? "Europe/Berlin" : NULL, 0, &t) == 0);
    CHECK (environ == env);
    CHECK (getenv ("TZ") && strcmp (getenv ("TZ"), ":/etc/localtime") == 0);
    /* Set already: left as it is. */
    setenv ("TZ", "Asia/Tokyo", 1);
    CHECK (cron_tz_prepare () == 0);
    CHECK (strcmp (getenv ("TZ"), "Asia/Tokyo") == 0);
    unsetenv ("TZ");
}

int
main (void)
{
    /* tzdata is a dependency: without it the DST checks must fail, loudly. */
    CHECK_MSG (access (CRON_ZONEINFO "/Europe/Berlin", R_OK) == 0,
               "%s/Europe/Berlin is missing: install tzdata", CRON_ZONEINFO);
    CHECK_MSG (access (CRON_ZONEINFO "/zone.tab", R_OK) == 0,
               "%s/zone.tab is missing: install tzdata", CRON_ZONEINFO);
    test_parse ();
    test_reject ();
    test_next_utc ();
    test_dst_berlin ();
    test_dst_new_york ();
    test_odd_offsets ();
    test_zones ();
    return TEST_DONE ();
}
