/*  cron.c: see cron.h.

    cron_next walks local calendar days (pure date arithmetic, no time zone
    needed to skip months and days), and only for a matching day and a
    matching HOUR:MIN asks the time zone which UTC instants show that wall
    time: none in a spring-forward gap, two in a fall-back overlap, of which
    the earlier is the one that fires. */
#include "cron.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NFIELDS 5
#define YEARS_AHEAD 5
#define LATEST_AFTER INT64_C(253402300799)     /* 9999-12-31T23:59:59Z */

/* ---- parsing ---------------------------------------------------------- */

typedef struct {
    const char *name;           /* as errors name it */
    int lo, hi;                 /* accepted values */
    int star_hi;                /* where '*' and a/n end (6 for day of week) */
    const char *range;          /* allowed values, for errors */
    const char *const *names;   /* 3-letter names for lo.., or NULL */
    int nnames;
    const char *names_what;     /* " or month name" */
} field_spec_t;

static const char *const month_names[] = {
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"
};
static const char *const day_names[] = { "sun", "mon", "tue", "wed", "thu", "fri", "sat" };

static const field_spec_t fields[NFIELDS] = {
    { "minute", 0, 59, 59, "0-59", NULL, 0, "" },
    { "hour", 0, 23, 23, "0-23", NULL, 0, "" },
    { "day of month", 1, 31, 31, "1-31", NULL, 0, "" },
    { "month", 1, 12, 12, "1-12 or jan-dec", month_names, 12, " or month name" },
    { "day of week", 0, 7, 6, "0-7 or sun-sat", day_names, 7, " or day name" },
};

static const struct {
    const char *name, *expansion;
} macros[] = {
    { "@hourly", "0 * * * *" },
    { "@daily", "0 0 * * *" },
    { "@midnight", "0 0 * * *" },
    { "@weekly", "0 0 * * 0" },
    { "@monthly", "0 0 1 * *" },
    { "@yearly", "0 0 1 1 *" },
    { "@annually", "0 0 1 1 *" },
};

/* Where a field error is reported: the whole expression and the field. */
typedef struct {
    const char *expr;
    const field_spec_t *spec;
    const char *text;           /* the field as written */
    char *err;
    size_t errlen;
} field_ctx_t;

/* Fills err with "cron 'EXPR': FIELD 'TEXT'" and the detail.  Returns -EINVAL. */
static int
field_error (const field_ctx_t *f, const char *fmt, ...)
{
    char detail[200];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (detail, sizeof detail, fmt, ap);
    va_end (ap);
    snprintf (f->err, f->errlen, "cron '%s': %s '%s'%s", f->expr, f->spec->name, f->text,
              detail);
    return -EINVAL;
}

static int
not_understood (const field_ctx_t *f, const char *item)
{
    return field_error (f, ": '%s' is not a number%s (allowed %s)", item, f->spec->names_what,
                        f->spec->range);
}

/* Reads an unsigned decimal of len characters; values too large to matter
   come back as 999999.  Returns 0, or -1 if it is not all digits. */
static int
read_digits (const char *s, size_t len, int *out)
{
    if (len == 0)
        return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (v < 999999)
            v = v * 10 + (s[i] - '0');
    }
    *out = v > 999999 ? 999999 : (int) v;
    return 0;
}

/* Reads one value (number or name) of an item and checks its range.
   Returns 0 or -EINVAL with err set. */
static int
read_value (const field_ctx_t *f, const char *item, const char *s, size_t len, int *out)
{
    const field_spec_t *spec = f->spec;
    if (read_digits (s, len, out) == 0) {
        if (*out >= spec->lo && *out <= spec->hi)
            return 0;
        if (strlen (f->text) == len)
            return field_error (f, " is out of range %s", spec->range);
        return field_error (f, ": %.*s is out of range %s", (int) len, s, spec->range);
    }
    for (int i = 0; len == 3 && i < spec->nnames; i++)
        if (strncasecmp (s, spec->names[i], 3) == 0) {
            *out = spec->lo + i;
            return 0;
        }
    return not_understood (f, item);
}

/* Parses one list item ("*", "a", "a-b", each optionally "/n") into bits.
   Returns 0 or -EINVAL with err set. */
static int
parse_item (const field_ctx_t *f, const char *item, uint64_t *bits)
{
    const field_spec_t *spec = f->spec;
    if (*item == '\0')
        return field_error (f, ": empty list item (allowed %s)", spec->range);
    const char *slash = strchr (item, '/');
    size_t blen = slash ? (size_t) (slash - item) : strlen (item);
    int lo, hi, step = 1;
    if (blen == 1 && item[0] == '*') {
        lo = spec->lo;
        hi = spec->star_hi;
    } else {
        const char *dash = memchr (item, '-', blen);
        size_t alen = dash ? (size_t) (dash - item) : blen;
        if (read_value (f, item, item, alen, &lo))
            return -EINVAL;
        if (dash) {
            if (read_value (f, item, dash + 1, blen - alen - 1, &hi))
                return -EINVAL;
            if (lo > hi)
                return field_error (f, ": range %d-%d is reversed (write %d-%d; allowed %s)",
                                    lo, hi, hi, lo, spec->range);
        } else
            hi = slash && lo < spec->star_hi ? spec->star_hi : lo;
    }
    if (slash) {
        int span = spec->star_hi - spec->lo + 1;
        if (read_digits (slash + 1, strlen (slash + 1), &step))
            return not_understood (f, item);
        if (step < 1 || step > span)
            return field_error (f, ": step %s is out of range 1-%d", slash + 1, span);
    }
    for (int v = lo; v <= hi; v += step)
        *bits |= UINT64_C (1) << v;
    return 0;
}

/* Parses a comma-separated field into bits.  Returns 0 or -EINVAL. */
static int
parse_field (const field_ctx_t *f, uint64_t *bits)
{
    char buf[CRON_MAX_LEN + 1];
    snprintf (buf, sizeof buf, "%s", f->text);
    *bits = 0;
    char *item = buf;
    for (;;) {
        char *comma = strchr (item, ',');
        if (comma)
            *comma = '\0';
        if (parse_item (f, item, bits))
            return -EINVAL;
        if (!comma)
            return 0;
        item = comma + 1;
    }
}

/* Replaces a macro in buf by its five fields.  Returns 0, or -EINVAL when
   buf starts with '@' but names no macro. */
static int
expand_macro (char *buf, size_t size, const char *expr, char *err, size_t errlen)
{
    if (buf[0] != '@')
        return 0;
    for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++)
        if (strcasecmp (buf, macros[i].name) == 0) {
            snprintf (buf, size, "%s", macros[i].expansion);
            return 0;
        }
    snprintf (err, errlen, "cron '%s': unknown macro (use @hourly, @daily, @midnight, @weekly, "
              "@monthly, @yearly or @annually)", expr);
    return -EINVAL;
}

/* Splits buf in place at blanks.  Returns the number of fields found (up
   to max are stored). */
static int
split_fields (char *buf, char **field, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r (buf, " \t", &save); tok; tok = strtok_r (NULL, " \t", &save)) {
        if (n < max)
            field[n] = tok;
        n++;
    }
    return n;
}

int
cron_parse (const char *expr, cron_t *out, char *err, size_t errlen)
{
    memset (out, 0, sizeof *out);
    if (!expr) {
        snprintf (err, errlen, "cron: no expression");
        return -EINVAL;
    }
    size_t len = strlen (expr);
    if (len > CRON_MAX_LEN) {
        snprintf (err, errlen, "cron '%.32s...' is %zu characters long, limit %d", expr, len,
                  CRON_MAX_LEN);
        return -EINVAL;
    }
    char buf[CRON_MAX_LEN + 1];
    const char *start = expr + strspn (expr, " \t\r\n");
    snprintf (buf, sizeof buf, "%s", start);
    for (size_t n = strlen (buf); n > 0 && strchr (" \t\r\n", buf[n - 1]); n--)
        buf[n - 1] = '\0';
    if (expand_macro (buf, sizeof buf, expr, err, errlen))
        return -EINVAL;

    char *text[NFIELDS];
    int n = split_fields (buf, text, NFIELDS);
    if (n != NFIELDS) {
        snprintf (err, errlen, "cron '%s': %d field%s, expected 5 (MIN HOUR DOM MON DOW)", expr,
                  n, n == 1 ? "" : "s");
        return -EINVAL;
    }
    uint64_t bits[NFIELDS];
    for (int i = 0; i < NFIELDS; i++) {
        field_ctx_t f = { expr, &fields[i], text[i], err, errlen };
        if (parse_field (&f, &bits[i])) {
            memset (out, 0, sizeof *out);
            return -EINVAL;
        }
    }
    if (bits[4] & (UINT64_C (1) << 7))      /* 7 is Sunday too */
        bits[4] = (bits[4] | 1) & ~(UINT64_C (1) << 7);
    out->minute = bits[0];
    out->hour = (uint32_t) bits[1];
    out->dom = (uint32_t) bits[2];
    out->month = (uint16_t) bits[3];
    out->dow = (uint8_t) bits[4];
    out->dom_any = strcmp (text[2], "*") == 0;
    out->dow_any = strcmp (text[4], "*") == 0;
    return 0;
}

/* ---- time zones -------------------------------------------------------- */

int
cron_tz_valid (const char *tz)
{
    if (!tz || !*tz)
        return 0;
    if (tz[0] == '/' || strstr (tz, "..") || strlen (tz) > 200)
        return -EINVAL;
    char path[256];
    snprintf (path, sizeof path, "%s/%s", CRON_ZONEINFO, tz);
    struct stat st;
    if (stat (path, &st) != 0 || !S_ISREG (st.st_mode))
        return -EINVAL;
    /* zone.tab, tzdata.zi and friends are plain files too, but not zones. */
    char magic[4];
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -EINVAL;
    ssize_t n = read (fd, magic, sizeof magic);
    close (fd);
    return n == 4 && memcmp (magic, "TZif", 4) == 0 ? 0 : -EINVAL;
}

int
cron_tz_prepare (void)
{
    if (getenv ("TZ"))
        return 0;
    if (setenv ("TZ", ":/etc/localtime", 1) != 0)
        return -ENOMEM;
    tzset ();
    return 0;
}

/* Sets TZ to tz (NULL or "" = UTC), saving the old value in *saved_p (NULL
   when TZ was unset).  Returns 0 or -ENOMEM. */
static int
tz_enter (const char *tz, char **saved_p)
{
    const char *old = getenv ("TZ");
    *saved_p = NULL;
    if (old && !(*saved_p = strdup (old)))
        return -ENOMEM;
    char value[300];
    if (tz && *tz)
        snprintf (value, sizeof value, ":%s/%s", CRON_ZONEINFO, tz);
    else
        snprintf (value, sizeof value, "UTC0");
    if (setenv ("TZ", value, 1) != 0) {
        free (*saved_p);
        *saved_p = NULL;
        return -ENOMEM;
    }
    tzset ();
    return 0;
}

/* Puts back the TZ that tz_enter saved, and frees it.  Can't fail. */
static void
tz_leave (char *saved)
{
    if (saved)
        setenv ("TZ", saved, 1);
    else
        unsetenv ("TZ");
    tzset ();
    free (saved);
}

/* ---- calendar arithmetic (proleptic Gregorian, no time zone) ---------- */

static int64_t
floor_div (int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* Days since 1970-01-01 of y-m-d (H. Hinnant's days_from_civil). */
static int64_t
days_from_civil (int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = floor_div (y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool
is_leap (int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
days_in_month (int64_t y, int m)
{
    static const int n[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && is_leap (y) ? 29 : n[m - 1];
}

/* 0 = Sunday; 1970-01-01 was a Thursday. */
static int
weekday (int64_t y, int m, int d)
{
    int64_t days = days_from_civil (y, m, d) + 4;
    return (int) (days - floor_div (days, 7) * 7);
}

/* A local wall-clock minute. */
typedef struct {
    int64_t year;
    int month, day, hour, minute;
} wall_t;

/* Seconds since the epoch that wall time would be if it were UTC. */
static int64_t
wall_as_utc (const wall_t *w)
{
    return days_from_civil (w->year, w->month, w->day) * 86400 + w->hour * 3600
           + w->minute * 60;
}

static void
next_day (wall_t *w)
{
    if (++w->day > days_in_month (w->year, w->month)) {
        w->day = 1;
        if (++w->month > 12) {
            w->month = 1;
            w->year++;
        }
    }
}

static void
next_month (wall_t *w)
{
    w->day = days_in_month (w->year, w->month);
    next_day (w);
}

/* ---- matching ---------------------------------------------------------- */

/* Standard cron day rule: with both DOM and DOW restricted, either will do. */
static bool
day_matches (const cron_t *c, const wall_t *w)
{
    bool dom = c->dom >> w->day & 1;
    bool dow = c->dow >> weekday (w->year, w->month, w->day) & 1;
    if (c->dom_any || c->dow_any)
        return dom && dow;
    return dom || dow;
}

/* Offset from UTC in seconds at instant t, in the current TZ.  Returns 0,
   or -1 if t cannot be converted. */
static int
utc_offset (int64_t t, int64_t *off)
{
    time_t tt = (time_t) t;
    struct tm tm;
    if (!localtime_r (&tt, &tm))
        return -1;
    wall_t w = { tm.tm_year + (int64_t) 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                 tm.tm_min };
    *off = wall_as_utc (&w) + tm.tm_sec - t;
    return 0;
}

static bool
shows_wall (int64_t t, const wall_t *w)
{
    time_t tt = (time_t) t;
    struct tm tm;
    return localtime_r (&tt, &tm) && tm.tm_year + (int64_t) 1900 == w->year
           && tm.tm_mon + 1 == w->month && tm.tm_mday == w->day && tm.tm_hour == w->hour
           && tm.tm_min == w->minute && tm.tm_sec == 0;
}

/* The first instant at which the local clock shows w (at :00 seconds).
   Offsets are sampled a day either side, which finds both sides of any
   transition near w.  Returns false when w does not exist (a DST gap). */
static bool
first_occurrence (const wall_t *w, int64_t *out)
{
    int64_t naive = wall_as_utc (w);
    int64_t probe[3] = { naive - 86400, naive, naive + 86400 };
    int64_t tried[3];
    int ntried = 0;
    bool found = false;
    for (int i = 0; i < 3; i++) {
        int64_t off;
        if (utc_offset (probe[i], &off))
            continue;
        bool seen = false;
        for (int j = 0; j < ntried; j++)
            seen |= tried[j] == off;
        if (seen)
            continue;
        tried[ntried++] = off;
        int64_t t = naive - off;
        if (shows_wall (t, w) && (!found || t < *out)) {
            *out = t;
            found = true;
        }
    }
    return found;
}

/* Searches day w from w->hour:w->minute on for a matching time whose first
   occurrence is after `after`.  Returns true with *out set if found. */
static bool
search_day (const cron_t *c, const wall_t *w, int64_t after, int64_t *out)
{
    wall_t t = *w;
    for (t.hour = w->hour; t.hour < 24; t.hour++) {
        if (!(c->hour >> t.hour & 1))
            continue;
        for (t.minute = t.hour == w->hour ? w->minute : 0; t.minute < 60; t.minute++)
            if ((c->minute >> t.minute & 1) && first_occurrence (&t, out) && *out > after)
                return true;
    }
    return false;
}

/* Walks days from the local wall time of `after` through the same date
   YEARS_AHEAD years on.  Wall times before that of `after` are not looked
   at: their first occurrence is not later than `after` (short of a zone
   that jumps forward and back again within a day).  Returns 0 or -ERANGE. */
static int
search (const cron_t *c, int64_t after, int64_t *out)
{
    time_t tt = (time_t) after;
    struct tm tm;
    if (!localtime_r (&tt, &tm))
        return -ERANGE;
    wall_t w = { tm.tm_year + (int64_t) 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                 tm.tm_min };
    int64_t last = (w.year + YEARS_AHEAD) * 10000 + w.month * 100 + w.day;
    while (w.year * 10000 + w.month * 100 + w.day <= last) {
        if (!(c->month >> w.month & 1)) {
            next_month (&w);
        } else {
            if (day_matches (c, &w) && search_day (c, &w, after, out))
                return 0;
            next_day (&w);
        }
        w.hour = w.minute = 0;
    }
    return -ERANGE;
}

int
cron_next (const cron_t *c, const char *tz, int64_t after, int64_t *out)
{
    if (cron_tz_valid (tz))
        return -EINVAL;
    if (after > LATEST_AFTER)
        return -ERANGE;
    char *saved;
    int rc = tz_enter (tz, &saved);
    if (rc)
        return rc;
    int64_t t = 0;
    rc = search (c, after, &t);
    tz_leave (saved);
    if (rc == 0)
        *out = t;
    return rc;
}
