/*  sysfs.c: see sysfs.h. */
#include "sysfs.h"
#include "util.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
sysfs_pathf (char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (out, cap, fmt, ap);
    va_end (ap);
    return n >= 0 && (size_t) n < cap;
}

char *
sysfs_trim (char *s)
{
    while (isspace ((unsigned char) *s))
        s++;
    size_t n = strlen (s);
    while (n > 0 && isspace ((unsigned char) s[n - 1]))
        s[--n] = '\0';
    return s;
}

bool
sysfs_read_str (const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    char *buf = file_read_all (path, SYSFS_ATTR_MAX, NULL);
    if (!buf)
        return false;
    str_copy (out, cap, sysfs_trim (buf));
    free (buf);
    return out[0] != '\0';
}

bool
sysfs_read_strf (char *out, size_t cap, const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (path, sizeof path, fmt, ap);
    va_end (ap);
    if (n < 0 || (size_t) n >= sizeof path) {
        out[0] = '\0';
        return false;
    }
    return sysfs_read_str (path, out, cap);
}
