/*  optval.c: one option's value read as fio reads it, with the message
    that says what is wrong ("FILE:LINE: KEY=VALUE is out of range
    (allowed: ...)").  See optval.h.

    Where fio would silently change or drop what the file says (bssplit's
    64-entry cap, an empty bssplit entry ending the list, a percentage over
    100 clamped, garbage after a number), these refuse instead.
*/
#include "optval.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIO_PCT_LIST_MAX    20              /* fio's FIO_IO_U_LIST_MAX_LEN */

/* Writes "NAME:LINE: message" (or "NAME: message" when line is 0) into
   the caller's buffer, truncating if needed.  Can't fail. */
void
optval_error (parser_t *p, int line, const char *fmt, ...)
{
    if (!p->err || p->errlen == 0)
        return;
    int n = line > 0
          ? snprintf (p->err, p->errlen, "%s:%d: ", p->name, line)
          : snprintf (p->err, p->errlen, "%s: ", p->name);
    if (n < 0 || (size_t) n >= p->errlen)
        return;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (p->err + n, p->errlen - (size_t) n, fmt, ap);
    va_end (ap);
}

/* True for the ASCII blanks; ctype's isspace depends on the locale and
   on the sign of char.  Can't fail. */
bool
optval_is_blank (char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n'
        || c == '\v' || c == '\f';
}

/* Removes blanks at both ends of s in place; returns the new start.
   Can't fail. */
char *
optval_trim (char *s)
{
    while (optval_is_blank (*s))
        s++;
    size_t len = strlen (s);
    while (len > 0 && optval_is_blank (s[len - 1]))
        s[--len] = '\0';
    return s;
}

/* Checks a job or section name: it ends up in reports and on the wire,
   so no brackets and no control bytes.  Returns 0, or -1 with the error
   set. */
int
optval_name (parser_t *p, int line, const char *what, const char *name)
{
    size_t len = strlen (name);
    if (len == 0) {
        optval_error (p, line, "empty %s", what);
        return -1;
    }
    if (len > JOB_NAME_MAX - 1) {
        optval_error (p, line, "%s '%.*s...' is %zu characters long (the limit is %d)",
                      what, 20, name, len, JOB_NAME_MAX - 1);
        return -1;
    }
    for (const char *c = name; *c; c++) {
        unsigned char u = (unsigned char) *c;
        if (u < 0x20 || u == 0x7f || u == '[' || u == ']') {
            optval_error (p, line, "%s '%s' contains a control character or a bracket",
                          what, name);
            return -1;
        }
    }
    return 0;
}

/* Parses key=value as an unsigned integer within lo..hi (fio parses its
   integer options with the size parser, suffixes included).  Returns 0,
   or -1 with the error set. */
int
optval_uint (parser_t *p, int line, const char *key, const char *value,
             uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v;
    int rc = job_parse_size (value, &v);
    if (rc == -EINVAL) {
        optval_error (p, line, "%s='%.*s' is not a number (allowed: %llu..%llu)",
                      key, OPTVAL_SHOW, value, (unsigned long long) lo, (unsigned long long) hi);
        return -1;
    }
    if (rc != 0 || v < lo || v > hi) {
        optval_error (p, line, "%s=%.*s is out of range (allowed: %llu..%llu)",
                      key, OPTVAL_SHOW, value, (unsigned long long) lo, (unsigned long long) hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* Parses key=value as bytes within lo..hi, where fio would also take a
   percentage (io_size, offset_increment), which iofleet does not yet.
   Returns 0, or -1 with the error set. */
int
optval_bytes (parser_t *p, int line, const char *key, const char *value,
              uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (strchr (value, '%')) {
        optval_error (p, line, "%s=%.*s: a percentage is not supported by iofleet yet; give bytes",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    return optval_uint (p, line, key, value, lo, hi, out);
}

/* Parses a 0/1 value (fio's bool and "set" options accept nothing else).
   Returns 0, or -1 with the error set. */
int
optval_bool (parser_t *p, int line, const char *key, const char *value, bool *out)
{
    if (strcmp (value, "0") == 0 || strcmp (value, "1") == 0) {
        *out = value[0] == '1';
        return 0;
    }
    optval_error (p, line, "%s='%.*s' is not a boolean (allowed: 0 or 1)", key, OPTVAL_SHOW, value);
    return -1;
}

/* Parses a time of at most max_s seconds (max_text says it in words).
   Returns 0, or -1 with the error set. */
int
optval_duration_upto (parser_t *p, int line, const char *key, const char *value,
                      uint64_t max_s, const char *max_text, uint64_t *out_ns)
{
    uint64_t ns;
    int rc = job_parse_time (value, &ns);
    if (rc == -EINVAL) {
        optval_error (p, line, "%s='%.*s' is not a time (like 60, 30s, 500ms, 5m, 1h)",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    if (rc != 0 || ns > max_s * 1000000000u) {
        optval_error (p, line, "%s=%.*s is out of range (allowed: up to %llus, %s)",
                      key, OPTVAL_SHOW, value, (unsigned long long) max_s, max_text);
        return -1;
    }
    *out_ns = ns;
    return 0;
}

/* Parses a time of at most JOB_MAX_RUNTIME_S (7 days).  Returns 0, or -1
   with the error set. */
int
optval_duration (parser_t *p, int line, const char *key, const char *value,
                 uint64_t *out_ns)
{
    return optval_duration_upto (p, line, key, value, JOB_MAX_RUNTIME_S, "7 days", out_ns);
}

/* Parses a time of at most an hour that fio reads in microseconds when it
   has no unit (thinktime, latency_target, latency_window), unlike runtime.
   Returns 0, or -1 with the error set. */
int
optval_usec_time (parser_t *p, int line, const char *key, const char *value, uint64_t *out_ns)
{
    uint64_t ns;
    int rc = units_parse_time (value, 1000, &ns);
    if (rc == -EINVAL) {
        optval_error (p, line, "%s='%.*s' is not a time (like 100 (microseconds), 100us, 5ms, 1s)",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    if (rc != 0 || ns > (uint64_t) JOB_MAX_DELAY_S * 1000000000u) {
        optval_error (p, line, "%s=%.*s is out of range (allowed: up to 1 hour)", key,
                      OPTVAL_SHOW, value);
        return -1;
    }
    *out_ns = ns;
    return 0;
}

/* Parses ss_dur= or ss_ramp=: a duration in whole seconds, as fio's
   steady state takes one sample a second.  Returns 0, or -1 with the
   error set. */
int
optval_seconds (parser_t *p, int line, const char *key, const char *value,
                uint64_t *out_ns)
{
    uint64_t ns;
    if (optval_duration_upto (p, line, key, value, JOB_MAX_SS_S, "24 hours", &ns))
        return -1;
    if (ns % 1000000000u != 0) {
        optval_error (p, line, "%s=%.*s is not a whole number of seconds (steady state "
                      "takes one sample a second)", key, OPTVAL_SHOW, value);
        return -1;
    }
    *out_ns = ns;
    return 0;
}

/* See optval.h.  Returns 0, or -1 with the error set. */
int
optval_size_or_pct (parser_t *p, int line, const char *key, const char *value,
                    uint32_t pct_lo, uint32_t pct_hi,
                    uint64_t *bytes, uint32_t *pct)
{
    size_t len = strlen (value);
    if (len > 0 && value[len - 1] == '%') {
        /* Saturating, so a long run of digits is "out of range", not
           a wrapped-around small number. */
        uint64_t v = 0;
        bool digits = len > 1;
        for (size_t i = 0; i + 1 < len && digits; i++) {
            digits = value[i] >= '0' && value[i] <= '9';
            if (digits && v <= 1000)
                v = v * 10 + (uint64_t) (value[i] - '0');
        }
        if (!digits) {
            optval_error (p, line, "%s='%.*s' is not a percentage (allowed: %u%%..%u%%)",
                          key, OPTVAL_SHOW, value, pct_lo, pct_hi);
            return -1;
        }
        if (v < pct_lo || v > pct_hi) {
            optval_error (p, line, "%s=%.*s is out of range (allowed: %u%%..%u%%)",
                          key, OPTVAL_SHOW, value, pct_lo, pct_hi);
            return -1;
        }
        *pct = (uint32_t) v;
        *bytes = 0;
        return 0;
    }
    uint64_t v;
    int rc = job_parse_size (value, &v);
    if (rc == -EINVAL) {
        optval_error (p, line,
                      "%s='%.*s' is not a size (like 10g or 512m) or a percentage (like 50%%)",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    if (rc != 0) {
        optval_error (p, line, "%s=%.*s is out of range (allowed: below 16 EiB)", key,
                      OPTVAL_SHOW, value);
        return -1;
    }
    *bytes = v;
    *pct = 0;
    return 0;
}

/* Reports that part of value is "not a ..." (quoted) or "out of range"
   (unquoted): "KEY='PART' what" when the part is the whole value, else
   "KEY=VALUE: 'PART' what".  Can't fail. */
void
optval_part_error (parser_t *p, int line, const char *key, const char *value,
                   const char *part, bool quote, const char *what)
{
    const char *q = quote ? "'" : "";
    if (strcmp (part, value) == 0)
        optval_error (p, line, "%s=%s%.*s%s %s", key, q, OPTVAL_SHOW, value, q, what);
    else
        optval_error (p, line, "%s=%.*s: %s%.*s%s %s", key, OPTVAL_SHOW, value, q, OPTVAL_SHOW,
                      part, q, what);
}

/* See optval.h.  Returns 0, or -1 with the error set. */
int
optval_split_dirs (parser_t *p, int line, const char *key, const char *value,
                   char *buf, char *part[2])
{
    char *parts[3];
    int n = 0;
    for (char *c = buf;;) {
        if (n == 3) {
            optval_error (p, line, "%s=%.*s has more than three comma-separated values "
                          "(fio takes reads,writes,trims)", key, OPTVAL_SHOW, value);
            return -1;
        }
        parts[n++] = c;
        char *comma = strchr (c, ',');
        if (!comma)
            break;
        *comma = '\0';
        c = comma + 1;
    }
    if (n == 3 && *parts[2]) {
        optval_error (p, line, "%s=%.*s: a third value (for trims) is not supported by iofleet yet",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    part[0] = *parts[0] ? parts[0] : NULL;
    part[1] = n > 1 ? (*parts[1] ? parts[1] : NULL) : part[0];
    if (!part[0] && !part[1]) {
        optval_error (p, line, "%s=%.*s gives no value for reads or writes", key, OPTVAL_SHOW,
                      value);
        return -1;
    }
    return 0;
}

/* Parses one block size of key=value (part is the text for one
   direction, or one bound or entry).  Returns 0, or -1 with the error
   set. */
int
optval_bs_part (parser_t *p, int line, const char *key, const char *value,
                const char *part, uint32_t *out)
{
    uint64_t v;
    int rc = job_parse_size (part, &v);
    if (rc == -EINVAL) {
        optval_part_error (p, line, key, value, part, true,
                           "is not a size (like 4k or 128k; allowed: 1 byte..64 MiB)");
        return -1;
    }
    if (rc != 0 || v < 1 || v > JOB_MAX_BS) {
        optval_part_error (p, line, key, value, part, false,
                           "is out of range (allowed: 1 byte..64 MiB)");
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}

/* Refuses fio's other separators of per-direction integer values, ':'
   and '-' (a leading '-' is a minus sign, and not a number anyway).
   Returns 0, or -1 with the error set. */
int
optval_refuse_colon_dash (parser_t *p, int line, const char *key, const char *value,
                          const char *hint)
{
    if (strchr (value, ':') || (value[0] && strchr (value + 1, '-'))) {
        optval_error (p, line, "%s=%.*s: use ',' between the read and write values "
                      "(fio would also split at ':' or '-'%s)", key, OPTVAL_SHOW, value, hint);
        return -1;
    }
    return 0;
}

/* Parses bsrange's "MIN-MAX" (or fio's "MIN:MAX"), swapping the bounds
   when MIN is the larger like fio does.  part is modified.  Returns 0, or
   -1 with the error set. */
int
optval_range_part (parser_t *p, int line, const char *key, const char *value,
                   char *part, uint32_t *min, uint32_t *max)
{
    char *sep = strchr (part, '-');
    if (!sep)
        sep = strchr (part, ':');
    if (!sep) {
        optval_part_error (p, line, key, value, part, true,
                           "is not a range of sizes (like 1k-16k)");
        return -1;
    }
    *sep = '\0';
    uint32_t a, b;
    if (optval_bs_part (p, line, key, value, part, &a)
    ||  optval_bs_part (p, line, key, value, sep + 1, &b))
        return -1;
    *min = a < b ? a : b;
    *max = a < b ? b : a;
    return 0;
}

/* See optval.h.  Returns 0, or -1 with the error set. */
int
optval_bssplit_part (parser_t *p, int line, const char *key, const char *value,
                     char *part, job_bssplit_t *out, int *nout)
{
    job_bssplit_t e[JOB_BSSPLIT_MAX];
    bool missing[JOB_BSSPLIT_MAX];
    int n = 0, nmissing = 0;
    uint32_t sum = 0;
    for (char *c = part;;) {
        char *colon = strchr (c, ':');
        if (colon)
            *colon = '\0';
        if (*c == '\0') {
            optval_error (p, line, "%s=%.*s has an empty entry (entries are SIZE/PERCENT, "
                          "separated by ':')", key, OPTVAL_SHOW, value);
            return -1;
        }
        if (n == JOB_BSSPLIT_MAX) {
            optval_error (p, line, "%s=%.*s has more than %d block sizes in one direction "
                          "(fio's limit)", key, OPTVAL_SHOW, value, JOB_BSSPLIT_MAX);
            return -1;
        }
        char *slash = strchr (c, '/');
        if (slash)
            *slash = '\0';
        if (optval_bs_part (p, line, key, value, c, &e[n].bs))
            return -1;
        uint32_t pct = 0;
        if (slash && slash[1]) {
            const char *d = slash + 1;
            for (; *d >= '0' && *d <= '9'; d++)
                if (pct <= 1000)
                    pct = pct * 10 + (uint32_t) (*d - '0');
            if (*d) {
                optval_error (p, line, "%s=%.*s: '%.*s' is not a percentage (like 4k/25)",
                              key, OPTVAL_SHOW, value, OPTVAL_SHOW, slash + 1);
                return -1;
            }
            if (pct > 100) {
                optval_error (p, line, "%s=%.*s: %.*s%% is more than 100%%",
                              key, OPTVAL_SHOW, value, OPTVAL_SHOW, slash + 1);
                return -1;
            }
        }
        e[n].pct = pct;
        missing[n] = pct == 0;      /* fio: "4k/0" is "4k/" */
        nmissing += missing[n];
        sum += pct;
        n++;
        if (!colon)
            break;
        c = colon + 1;
    }
    if (sum > 100) {
        optval_error (p, line, "%s=%.*s: the percentages add up to %u%%, more than 100%%",
                      key, OPTVAL_SHOW, value, sum);
        return -1;
    }
    if (nmissing == 0 && sum != 100) {
        optval_error (p, line, "%s=%.*s: the percentages add up to %u%%, not 100%%",
                      key, OPTVAL_SHOW, value, sum);
        return -1;
    }
    if (nmissing > 0) {
        uint32_t share = (100 - sum) / (uint32_t) nmissing;
        uint32_t left = (100 - sum) % (uint32_t) nmissing;
        int largest = 0;
        for (int i = 0; i < n; i++) {
            if (missing[i])
                e[i].pct = share;
            if (e[i].pct >= e[largest].pct)
                largest = i;
        }
        e[largest].pct += left;
    }
    memcpy (out, e, (size_t) n * sizeof (e[0]));
    *nout = n;
    return 0;
}

/* Parses one direction of rate_iops.  Returns 0, or -1 with the error
   set. */
int
optval_rate_part (parser_t *p, int line, const char *key, const char *value,
                  const char *part, uint32_t *out)
{
    uint64_t v;
    int rc = job_parse_size (part, &v);
    if (rc == -EINVAL) {
        optval_part_error (p, line, key, value, part, true,
                           "is not a number (allowed: 0..100000000)");
        return -1;
    }
    if (rc != 0 || v > JOB_MAX_RATE_IOPS) {
        optval_part_error (p, line, key, value, part, false,
                           "is out of range (allowed: 0..100000000)");
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}

/* Parses one direction's part of percentage_random=: 0..100.  Returns 0,
   or -1 with the error set. */
int
optval_pct_part (parser_t *p, int line, const char *key, const char *value,
                 const char *part, uint32_t *out)
{
    uint64_t v;
    if (parse_u64 (part, 0, 100, &v) != 0) {
        optval_part_error (p, line, key, value, part, false, "is not a percent (allowed: 0..100)");
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}

/* Parses one direction's part of rate=: bytes a second, fio's suffixes
   (500k, 100m).  Returns 0, or -1 with the error set. */
int
optval_bytes_rate_part (parser_t *p, int line, const char *key, const char *value,
                        const char *part, uint64_t *out)
{
    uint64_t v;
    int rc = job_parse_size (part, &v);
    if (rc == -EINVAL) {
        optval_part_error (p, line, key, value, part, true,
                           "is not a rate (bytes a second, like 500k or 100m)");
        return -1;
    }
    if (rc != 0 || v > JOB_MAX_RATE_BYTES) {
        optval_part_error (p, line, key, value, part, false, "is out of range (allowed: up to 1t)");
        return -1;
    }
    *out = v;
    return 0;
}

/* See optval.h.  Returns 0, or -1 with the error set. */
int
optval_rw_mode (parser_t *p, int line, const char *key, const char *value,
                const char *part, job_rw_t *out, uint64_t *skip)
{
    /* fio's "rw=randread:8" offset modifier follows a ':'. */
    const char *colon = strchr (part, ':');
    size_t baselen = colon ? (size_t) (colon - part) : strlen (part);
    char base[16];
    if (baselen < sizeof (base)) {
        memcpy (base, part, baselen);
        base[baselen] = '\0';
    }
    else
        base[0] = '\0';
    job_rw_t m;
    if (fio_rw_find (base, &m) == 0) {
        /* rw=rw:SIZE: fio 3.33 ran 61 16k I/Os over 1 MiB with 16k holes,
           its two directions' passes ending apart; not modelled yet. */
        bool seq = m == JOB_RW_READ || m == JOB_RW_WRITE;
        bool rnd = m == JOB_RW_RANDREAD || m == JOB_RW_RANDWRITE || m == JOB_RW_RANDRW;
        if (colon && (!(seq || rnd) || !skip)) {
            optval_error (p, line,
                          "%s=%.*s: fio's ':N' offset modifier is not supported by iofleet "
                          "yet%s", key, OPTVAL_SHOW, value,
                          m == JOB_RW_RW ? " on mixed sequential I/O (read:SIZE and write:SIZE are)"
                          : !skip ? " in a sweep" : " on trims");
            return -1;
        }
        if (colon && rnd) {
            /* fio's ddir_seq_nr: a new random offset every N I/Os, those
               between going on sequentially. */
            uint64_t n;
            if (parse_u64 (colon + 1, 1, JOB_MAX_SEQ_NR, &n) != 0) {
                optval_error (p, line, "%s=%.*s: '%s' after ':' is not a count of I/Os per random "
                              "offset (allowed: 1..%u)", key, OPTVAL_SHOW, value, colon + 1,
                              JOB_MAX_SEQ_NR);
                return -1;
            }
            *skip = n;
        }
        else if (colon) {
            uint64_t v;
            if (job_parse_size (colon + 1, &v) != 0 || v > JOB_MAX_RW_SKIP) {
                optval_error (p, line, "%s=%.*s: '%s' after ':' is not a size to skip (allowed: "
                              "0..1g)", key, OPTVAL_SHOW, value, colon + 1);
                return -1;
            }
            *skip = v;
        } else if (skip)
            *skip = 0;
        *out = m;
        return 0;
    }
    if (fio_rw_unsupported (base))
        optval_error (p, line, "%s '%s' is not supported by iofleet yet (supported: "
                      FIO_RW_SUPPORTED ")", key, base);
    else
        optval_part_error (p, line, key, value, part, true,
                           "is not an fio I/O pattern (supported: " FIO_RW_SUPPORTED ")");
    return -1;
}

/* Parses one entry of an integer sweep list as a number within lo..hi.
   Returns 0, or -1 with the error set. */
int
optval_uint_part (parser_t *p, int line, const char *key, const char *value,
                  const char *part, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char what[96];
    uint64_t v;
    int rc = job_parse_size (part, &v);
    if (rc == -EINVAL) {
        snprintf (what, sizeof what, "is not a number (allowed: %llu..%llu)",
                  (unsigned long long) lo, (unsigned long long) hi);
        optval_part_error (p, line, key, value, part, true, what);
        return -1;
    }
    if (rc != 0 || v < lo || v > hi) {
        snprintf (what, sizeof what, "is out of range (allowed: %llu..%llu)",
                  (unsigned long long) lo, (unsigned long long) hi);
        optval_part_error (p, line, key, value, part, false, what);
        return -1;
    }
    *out = v;
    return 0;
}

/* Parses the zones of zoned:A/S:... or zoned_abs:A/SIZE:... (text is what
   follows the first ':') into d, as fio's zone parser: a zoned size given as
   0 or left out takes an equal share of the percent the others leave.
   Returns 0, or -1 with the error set. */
static int
s_parse_zones (parser_t *p, int line, const char *key, const char *value, const char *text,
               dist_t *d)
{
    d->nzones = 0;
    int missing = 0;
    uint64_t given = 0;
    while (*text) {
        const char *end = strchr (text, ':');
        size_t len = end ? (size_t) (end - text) : strlen (text);
        char part[64], *slash;
        if (d->nzones == DIST_ZONES_MAX) {
            optval_error (p, line, "%s=%.*s: more than %d zones (fio's limit)", key, OPTVAL_SHOW,
                          value, DIST_ZONES_MAX);
            return -1;
        }
        if (len == 0 || len >= sizeof part) {
            optval_error (p, line, "%s=%.*s: zone %d is empty or too long (like 60/10)", key,
                          OPTVAL_SHOW, value, d->nzones + 1);
            return -1;
        }
        memcpy (part, text, len);
        part[len] = '\0';
        slash = strchr (part, '/');
        if (slash)
            *slash = '\0';
        dist_zone_t *z = &d->zones[d->nzones++];
        uint64_t v;
        if (parse_u64 (part, 0, 100, &v) != 0) {
            optval_error (p, line, "%s=%.*s: zone %d's access '%s' is not a percent 0..100 (like "
                          "60/10)", key, OPTVAL_SHOW, value, d->nzones, part);
            return -1;
        }
        z->access_pct = (uint32_t) v;
        z->size = 0;
        const char *sz = slash ? slash + 1 : "";
        if (d->kind == JOB_DIST_ZONED) {
            if (*sz && parse_u64 (sz, 0, 100, &z->size) != 0) {
                optval_error (p, line, "%s=%.*s: zone %d's size '%s' is not a percent 0..100",
                              key, OPTVAL_SHOW, value, d->nzones, sz);
                return -1;
            }
            given += z->size;
            missing += z->size == 0;
        }
        else if (*sz && job_parse_size (sz, &z->size) != 0) {
            optval_error (p, line, "%s=%.*s: zone %d's size '%s' is not a size (like 20g)", key,
                          OPTVAL_SHOW, value, d->nzones, sz);
            return -1;
        }
        text += len + (end != NULL);
    }
    if (missing && given < 100)
        for (int i = 0; i < d->nzones; i++)
            if (d->zones[i].size == 0)
                d->zones[i].size = (100 - given) / (uint64_t) missing;
    return 0;
}

/* Parses random_distribution=: random, zipf|pareto|normal[:VALUE[:CENTER]],
   zoned:A/S:..., zoned_abs:A/SIZE:... (distribution.h); dist_check holds
   the limits.  Returns 0, or -1 with the error set. */
int
optval_distribution (parser_t *p, int line, const char *key, const char *value,
                     job_t *job)
{
    if (strchr (value, ',')) {
        optval_error (p, line, "%s=%.*s: separate read/write distributions are not supported "
                      "(fio 3.33 refuses them too: its parser cuts the name at the ',')",
                      key, OPTVAL_SHOW, value);
        return -1;
    }
    const char *colon = strchr (value, ':');
    size_t baselen = colon ? (size_t) (colon - value) : strlen (value);
    dist_t d;
    memset (&d, 0, sizeof d);
    d.kind = JOB_DIST_LAST + 1;
    for (int k = 0; k <= JOB_DIST_LAST; k++)
        if (strlen (dist_name ((job_dist_t) k)) == baselen
            && strncmp (value, dist_name ((job_dist_t) k), baselen) == 0)
            d.kind = (job_dist_t) k;
    if ((unsigned) d.kind > JOB_DIST_LAST) {
        optval_error (p, line, "%s='%.*s' is not an fio random distribution (random, zipf, pareto, "
                      "normal, zoned, zoned_abs)", key, OPTVAL_SHOW, value);
        return -1;
    }
    const char *arg = colon ? colon + 1 : NULL;
    switch (d.kind) {
    case JOB_DIST_RANDOM:
        if (arg) {
            optval_error (p, line, "%s=%.*s: 'random' takes no parameter", key, OPTVAL_SHOW, value);
            return -1;
        }
        break;
    case JOB_DIST_ZONED:
    case JOB_DIST_ZONED_ABS:
        if (!arg || !*arg) {
            optval_error (p, line, "%s=%.*s: %s needs its zones (like %s:60/10:40/90)", key,
                          OPTVAL_SHOW, value, dist_name (d.kind), dist_name (d.kind));
            return -1;
        }
        if (s_parse_zones (p, line, key, value, arg, &d))
            return -1;
        break;
    default: {
        /* fio's defaults: FIO_DEF_ZIPF 1.1, FIO_DEF_PARETO 0.2, normal 0. */
        d.param = d.kind == JOB_DIST_ZIPF ? 1.1 : d.kind == JOB_DIST_PARETO ? 0.2 : 0;
        if (!arg)
            break;
        char num[72];
        const char *c2 = strchr (arg, ':');
        size_t n = c2 ? (size_t) (c2 - arg) : strlen (arg);
        bool ok = n < sizeof num;
        if (ok) {
            memcpy (num, arg, n);
            num[n] = '\0';
            ok = units_parse_decimal (num, &d.param) == 0;
        }
        if (!ok) {
            optval_error (p, line, "%s=%.*s: '%.*s' is not a number (like %s:0.9)", key,
                          OPTVAL_SHOW, value, (int) n, arg, dist_name (d.kind));
            return -1;
        }
        if (c2) {
            d.centered = true;
            if (units_parse_decimal (c2 + 1, &d.center)) {
                optval_error (p, line, "%s=%.*s: the center '%s' is not a number 0..1", key,
                              OPTVAL_SHOW, value, c2 + 1);
                return -1;
            }
        }
        break;
    }
    }
    char why[160];
    if (dist_check (&d, why, sizeof why)) {
        optval_error (p, line, "%s=%.*s: %s", key, OPTVAL_SHOW, value, why);
        return -1;
    }
    job->dist = d;
    return 0;
}

/* Compares doubles for qsort.  Can't fail. */
static int
s_cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* Parses percentile_list=P:P:...: each in (0,100], at most fio's 20,
   stored sorted.  Returns 0, or -1 with the error set. */
int
optval_percentiles (parser_t *p, int line, const char *key, const char *value,
                    job_t *job)
{
    double list[FIO_PCT_LIST_MAX];
    int n = 0;
    const char *c = value;
    for (;;) {
        const char *colon = strchr (c, ':');
        size_t len = colon ? (size_t) (colon - c) : strlen (c);
        char num[72];
        double v = 0;
        if (n == FIO_PCT_LIST_MAX || n == JOB_PCT_MAX) {
            optval_error (p, line, "%s=%.*s has more than %d percentiles (fio's limit)",
                          key, OPTVAL_SHOW, value, n);
            return -1;
        }
        bool ok = len < sizeof (num);
        if (ok) {
            memcpy (num, c, len);
            num[len] = '\0';
            ok = units_parse_decimal (num, &v) == 0;
        }
        if (!ok) {
            optval_error (p, line, "%s=%.*s: '%.*s' is not a number (like 99.9)",
                          key, OPTVAL_SHOW, value, (int) (len < OPTVAL_SHOW ? len : OPTVAL_SHOW),
                          c);
            return -1;
        }
        if (v <= 0 || v > 100) {
            optval_error (p, line, "%s=%.*s: %s is out of range (allowed: above 0, up to 100)",
                          key, OPTVAL_SHOW, value, num);
            return -1;
        }
        list[n++] = v;
        if (!colon)
            break;
        c = colon + 1;
    }
    qsort (list, (size_t) n, sizeof (list[0]), s_cmp_double);
    memset (job->percentile_list, 0, sizeof (job->percentile_list));
    memcpy (job->percentile_list, list, (size_t) n * sizeof (list[0]));
    job->npercentiles = n;
    return 0;
}

/* See optval.h.  Returns 0, or -1 with the error set. */
int
optval_steadystate (parser_t *p, int line, const char *key, const char *value,
                    job_t *job)
{
    const char *colon = strchr (value, ':');
    size_t clen = colon ? (size_t) (colon - value) : strlen (value);
    job_ss_t ss;
    if (fio_ss_find (value, clen, &ss)) {
        if ((clen == 3 && strncmp (value, "lat", 3) == 0)
        ||  (clen == 9 && strncmp (value, "lat_slope", 9) == 0))
            optval_error (p, line, "%s criterion '%.*s' is not supported by iofleet yet "
                          "(supported: " FIO_SS_SUPPORTED ")", key, (int) clen, value);
        else
            optval_error (p, line, "%s='%.*s' is not an fio steady state criterion "
                          "(supported: " FIO_SS_SUPPORTED ")", key, OPTVAL_SHOW, value);
        return -1;
    }
    if (!colon || colon[1] == '\0') {
        optval_error (p, line, "%s=%.*s needs a limit after the criterion (like "
                      "iops_slope:0.1%% or iops:5%%)", key, OPTVAL_SHOW, value);
        return -1;
    }
    const char *limit = colon + 1;
    size_t len = strlen (limit);
    double v;
    bool pct = limit[len - 1] == '%';
    if (pct) {
        char num[72];
        bool ok = len - 1 < sizeof (num);
        if (ok) {
            memcpy (num, limit, len - 1);
            num[len - 1] = '\0';
            ok = units_parse_decimal (num, &v) == 0;
        }
        if (!ok) {
            optval_error (p, line, "%s=%.*s: '%.*s' is not a percentage (like 0.1%%)",
                          key, OPTVAL_SHOW, value, OPTVAL_SHOW, limit);
            return -1;
        }
        if (v > 100) {
            optval_error (p, line, "%s=%.*s: %.*s is out of range (allowed: 0%%..100%%)",
                          key, OPTVAL_SHOW, value, OPTVAL_SHOW, limit);
            return -1;
        }
        v /= 100;
    }
    else if (ss == JOB_SS_IOPS || ss == JOB_SS_IOPS_SLOPE) {
        if (units_parse_decimal (limit, &v)) {
            optval_error (p, line, "%s=%.*s: '%.*s' is not a number of IOPS (like 500) or a "
                          "percentage (like 5%%)", key, OPTVAL_SHOW, value, OPTVAL_SHOW, limit);
            return -1;
        }
    }
    else {
        uint64_t bytes;
        int rc = job_parse_size (limit, &bytes);
        if (rc == -EINVAL) {
            optval_error (p, line, "%s=%.*s: '%.*s' is not a rate in bytes/s (like 10m) or a "
                          "percentage (like 5%%)", key, OPTVAL_SHOW, value, OPTVAL_SHOW, limit);
            return -1;
        }
        if (rc != 0) {
            optval_error (p, line, "%s=%.*s: %.*s is out of range (allowed: below 16 EiB/s)",
                          key, OPTVAL_SHOW, value, OPTVAL_SHOW, limit);
            return -1;
        }
        v = (double) bytes;
    }
    if (!(v < JOB_MAX_SS_LIMIT)) {
        optval_error (p, line, "%s=%.*s: %.*s is out of range (allowed: below 1e18)",
                      key, OPTVAL_SHOW, value, OPTVAL_SHOW, limit);
        return -1;
    }
    job->ss = ss;
    job->ss_limit = v;
    job->ss_pct = pct;
    return 0;
}

/* Paths go to the agents in PREPARE, whose validation refuses control
   characters (message.c); refuse them here, where the line is known.
   Returns 0, or -1 with the error set. */
int
optval_path_text (parser_t *p, int line, const char *key, const char *value)
{
    for (const char *c = value; *c; c++)
        if ((unsigned char) *c < 0x20 || *c == 0x7f) {
            optval_error (p, line, "%s holds control character 0x%02x at byte %zu", key,
                          (unsigned char) *c, (size_t) (c - value) + 1);
            return -1;
        }
    return 0;
}

/* True when path has a ".." component.  Can't fail. */
static bool
s_has_dotdot (const char *path)
{
    for (const char *c = path;; ) {
        size_t n = strcspn (c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return true;
        if (c[n] == '\0')
            return false;
        c += n + 1;
    }
}

/* See optval.h.  Returns 0, or -1 with the error set. */
int
optval_log_path (parser_t *p, int line, const char *key, const char *value, const char *noun,
                 const char *what, char *out)
{
    size_t len = strlen (value);
    if (len > JOB_LATLOG_MAX - 1) {
        optval_error (p, line, "%s is %zu bytes long (the limit is %d)", key, len,
                      JOB_LATLOG_MAX - 1);
        return -1;
    }
    if (optval_path_text (p, line, key, value))
        return -1;
    if (value[0] != '/' && s_has_dotdot (value)) {
        optval_error (p, line, "%s=%.*s: a relative %s may not contain '..' (agents write %s "
                      "inside their --workdir); use an absolute path", key, OPTVAL_SHOW, value,
                      noun, what);
        return -1;
    }
    memcpy (out, value, len + 1);
    return 0;
}
