/*  units.h: sizes, times, decimals and CPU lists as fio's job files write
    them: size suffixes (4k, 1m, 1g, 4KiB, ...; every one a power of 1024),
    time suffixes (60, 60s, 2m, 500ms, 1h; a bare number is seconds, or
    what the caller says), plain decimals (99.9) and fio's cpus_allowed
    lists (0-3,8).
*/
#ifndef IOF_UNITS_H
#define IOF_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define JOB_CPUS_MAX      256       /* cpus_allowed text */

/* ASCII lower case, locale-independent (fio's units are case-insensitive).
   Can't fail. */
static inline char
units_lower (char c)
{
    return (c >= 'A' && c <= 'Z') ? (char) (c - 'A' + 'a') : c;
}

/* Parses a size ("4k", "1m", "4KiB", "512") into bytes.  Returns 0 or
   -EINVAL (not a size) / -ERANGE (too large). */
int job_parse_size (const char *s, uint64_t *out);

/* Parses a time ("60", "60s", "2m", "500ms", "1h", "10us") into ns; a bare
   number is seconds.  Returns 0 or -EINVAL / -ERANGE. */
int job_parse_time (const char *s, uint64_t *out_ns);

/* Parses a time as job_parse_time does, a bare number counting bare_ns
   each (fio: seconds for most options, microseconds for thinktime).
   Returns 0, -EINVAL or -ERANGE. */
int units_parse_time (const char *s, uint64_t bare_ns, uint64_t *out_ns);

/* Parses an age ("90m", "12h", "30d", "2w", plain seconds; a decimal
   such as "1.5d" too) into whole seconds, at most 1e11.  Returns 0 or -1. */
int units_parse_age (const char *s, int64_t *secs);

/* Parses a plain decimal fraction ("99.9", "1", ".5", "2.") into *out: no
   sign, exponent, blanks, hex, inf or nan.  Returns 0 or -EINVAL. */
int units_parse_decimal (const char *s, double *out);

/* Parses fio's cpus_allowed syntax ("0-3,8,10-11") into a bitmap of
   JOB_CPUS_MAX bits (out has JOB_CPUS_MAX/64 words).  Returns 0 or -EINVAL
   / -ERANGE (a CPU >= JOB_CPUS_MAX). */
int job_parse_cpus (const char *s, uint64_t *out);

/* Parses a cpus_allowed list as job_parse_cpus does, and on error points
   *bad at the offending text (*badlen bytes).  Returns 0, -EINVAL
   (syntax), -ERANGE (a CPU >= JOB_CPUS_MAX) or -EDOM (a backwards range). */
int units_parse_cpus (const char *s, uint64_t *out, const char **bad, size_t *badlen);

#endif
