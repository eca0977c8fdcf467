/*  units.c: sizes, times, decimals and CPU lists as fio's job files write
    them ("4k", "1m", "60s", "500ms", "99.9", "0-3,8").

    One deliberate difference from fio: with its default kb_base=1024, fio
    reads the IEC suffixes backwards (4k = 4096 but 4KiB = 4000).  iofleet
    reads every suffix as a power of 1024, so 4k = 4kB = 4KiB = 4096.
*/
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

/* Value of hex or decimal digit c in base, or -1.  Can't fail. */
static int
s_digit (char c, unsigned base)
{
    int d = -1;
    if (c >= '0' && c <= '9')
        d = c - '0';
    else if (base == 16 && units_lower (c) >= 'a' && units_lower (c) <= 'f')
        d = units_lower (c) - 'a' + 10;
    return d >= 0 && (unsigned) d < base ? d : -1;
}

/* Reads the leading digits of *s in base into *v and advances *s.
   Returns 0, -EINVAL if there is no digit, -ERANGE if the number does not
   fit in 64 bits (the digits are still consumed). */
static int
s_digits (const char **s, unsigned base, uint64_t *v)
{
    const char *c = *s;
    uint64_t n = 0;
    bool overflow = false;
    int d;
    if (s_digit (*c, base) < 0)
        return -EINVAL;
    for (; (d = s_digit (*c, base)) >= 0; c++) {
        if (n > (UINT64_MAX - (uint64_t) d) / base)
            overflow = true;
        else
            n = n * base + (uint64_t) d;
    }
    *s = c;
    *v = n;
    return overflow ? -ERANGE : 0;
}

/* Parses a plain decimal fraction ("99.9", "1", ".5", "2.") into *out:
   no sign, exponent, blanks, hex, inf or nan.  Returns 0 or -EINVAL. */
int
units_parse_decimal (const char *s, double *out)
{
    size_t digits = 0, dots = 0, len = 0;
    for (const char *c = s; *c; c++, len++) {
        if (*c >= '0' && *c <= '9')
            digits++;
        else if (*c == '.')
            dots++;
        else
            return -EINVAL;
    }
    if (digits == 0 || dots > 1 || len > 64)
        return -EINVAL;
    /* The syntax is checked, so strtod can only stop early in a locale
       whose decimal point is not '.'; the end check catches that. */
    char *end;
    double v = strtod (s, &end);
    if (*end != '\0' || !isfinite (v))
        return -EINVAL;
    *out = v;
    return 0;
}

/* Parses a time ("60", "60s", "2m", "500ms", "1h", "10us") into ns, a bare
   number counting bare_ns each (fio: seconds for most options,
   microseconds for thinktime); units are case-insensitive like fio's.
   Returns 0, -EINVAL or -ERANGE. */
int
units_parse_time (const char *s, uint64_t bare_ns, uint64_t *out_ns)
{
    static const struct {
        const char *unit;
        uint64_t ns;
    } units[] = {
        { "s", 1000000000ull },     { "sec", 1000000000ull },
        { "us", 1000ull },          { "usec", 1000ull },
        { "ms", 1000000ull },       { "msec", 1000000ull },
        { "m", 60000000000ull },    { "min", 60000000000ull },
        { "h", 3600000000000ull },  { "d", 86400000000000ull },
    };
    if (!s || !out_ns)
        return -EINVAL;
    uint64_t v;
    int rc = s_digits (&s, 10, &v);
    if (rc == -EINVAL)
        return rc;
    char unit[8];
    size_t len = strlen (s);
    if (len >= sizeof (unit))
        return -EINVAL;
    for (size_t i = 0; i <= len; i++)
        unit[i] = units_lower (s[i]);
    uint64_t mult = 0;
    if (len == 0)
        mult = bare_ns;
    for (size_t i = 0; i < NELEM (units) && !mult; i++)
        if (strcmp (unit, units[i].unit) == 0)
            mult = units[i].ns;
    if (!mult)
        return -EINVAL;
    if (rc == -ERANGE || v > UINT64_MAX / mult)
        return -ERANGE;
    *out_ns = v * mult;
    return 0;
}

/* Parses the cpus_allowed list s into a local mask; on error points *bad
   at the offending text (*badlen bytes).  Returns 0, -EINVAL (syntax),
   -ERANGE (a CPU >= JOB_CPUS_MAX) or -EDOM (a backwards range). */
int
units_parse_cpus (const char *s, uint64_t *out, const char **bad, size_t *badlen)
{
    uint64_t mask[JOB_CPUS_MAX / 64] = { 0 };
    const char *c = s;
    *bad = s;
    *badlen = 0;
    for (;;) {
        const char *start = c;
        uint64_t lo, hi;
        int rc = s_digits (&c, 10, &lo);
        if (rc == -EINVAL) {
            *bad = c;
            return -EINVAL;
        }
        bool lo_over = rc == -ERANGE || lo >= JOB_CPUS_MAX;
        const char *lo_end = c, *hi_start = start;
        hi = lo;
        bool hi_over = lo_over;
        if (*c == '-') {
            hi_start = ++c;
            rc = s_digits (&c, 10, &hi);
            if (rc == -EINVAL) {
                *bad = c;
                return -EINVAL;
            }
            hi_over = rc == -ERANGE || hi >= JOB_CPUS_MAX;
        }
        if (lo_over || hi_over) {
            *bad = lo_over ? start : hi_start;
            *badlen = (size_t) ((lo_over ? lo_end : c) - *bad);
            return -ERANGE;
        }
        if (lo > hi) {
            *bad = start;
            *badlen = (size_t) (c - start);
            return -EDOM;
        }
        for (uint64_t cpu = lo; cpu <= hi; cpu++)
            mask[cpu / 64] |= 1ull << (cpu % 64);
        if (*c == '\0')
            break;
        if (*c != ',') {
            *bad = c;
            return -EINVAL;
        }
        c++;
    }
    memcpy (out, mask, sizeof (mask));
    return 0;
}

/* Parses a size (see units.h).  Every suffix is a power of 1024 (see
   the top of this file for how fio differs on KiB).  Returns 0, -EINVAL
   or -ERANGE. */
int
job_parse_size (const char *s, uint64_t *out)
{
    if (!s || !out)
        return -EINVAL;
    unsigned base = 10;
    if (s[0] == '0' && units_lower (s[1]) == 'x') {
        base = 16;
        s += 2;
    }
    uint64_t v;
    int rc = s_digits (&s, base, &v);
    if (rc == -EINVAL)
        return rc;

    unsigned shift = 0;
    switch (units_lower (*s)) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    case 'p': shift = 50; break;
    default: break;
    }
    if (shift) {
        s++;
        if (units_lower (*s) == 'i')
            s++;
    }
    if (units_lower (*s) == 'b')
        s++;
    if (*s != '\0')
        return -EINVAL;
    if (rc == -ERANGE || (shift && v > (UINT64_MAX >> shift)))
        return -ERANGE;
    *out = v << shift;
    return 0;
}

/* Parses a time into ns (see units.h); a bare number is seconds.
   Returns 0, -EINVAL or -ERANGE. */
int
job_parse_time (const char *s, uint64_t *out_ns)
{
    return units_parse_time (s, 1000000000ull, out_ns);
}

/* Parses fio's cpus_allowed syntax (see units.h); out is not written on
   error.  Returns 0, -EINVAL or -ERANGE. */
int
job_parse_cpus (const char *s, uint64_t *out)
{
    if (!s || !out)
        return -EINVAL;
    const char *bad;
    size_t badlen;
    int rc = units_parse_cpus (s, out, &bad, &badlen);
    return rc == -EDOM ? -EINVAL : rc;
}

/* Parses an age (see units.h); *secs is not written on error. */
int
units_parse_age (const char *s, int64_t *secs)
{
    if (!s || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.') || strpbrk (s, "xXeEpP"))
        return -1;              /* no blanks, sign, hex, exponent, inf or nan */
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (end == s || errno || !(v >= 0) || (end[0] && end[1]))
        return -1;
    double unit = !end[0] ? 1 : end[0] == 's' ? 1 : end[0] == 'm' ? 60 : end[0] == 'h' ? 3600
                : end[0] == 'd' ? 86400 : end[0] == 'w' ? 604800 : -1;
    if (unit < 0 || v * unit > 1e11)
        return -1;
    *secs = (int64_t) (v * unit);
    return 0;
}
